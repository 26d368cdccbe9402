#include "livestatus/stats.hpp"

#include "livestatus/engine_internal.hpp"
#include "livestatus/output.hpp"
#include "livestatus/text_internal.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace vedette::livestatus {

std::optional<std::vector<StatsColumn>> compile_stats(const Table& table, std::span<const StatsStep> steps,
                                                      FilterSet& filters, RequestError& error) {
  std::vector<StatsColumn> columns;
  std::vector<FilterSet::Node> taken;
  for (const StatsStep& step : steps) {
    switch (step.kind) {
      case StatsStep::Kind::test: {
        const std::optional<FilterSet::Node> node = filters.add_test(table, step.condition, error);
        if (!node) return std::nullopt;
        columns.push_back(StatsColumn{.aggregate = Aggregate::count,
                                      .source = StatsColumn::Source::filter,
                                      .column = nullptr,
                                      .filter = *node});
        break;
      }
      case StatsStep::Kind::aggregate: {
        StatsColumn stats{.aggregate = step.aggregate,
                          .source = StatsColumn::Source::all_rows,
                          .column = table.find(step.column),
                          .filter = 0};
        if (stats.column != nullptr && stats.column->match == Match::by_type) {
          switch (stats.column->type) {
            case ColumnType::integer:
            case ColumnType::time:
              stats.source = StatsColumn::Source::integer;
              break;
            case ColumnType::floating:
              stats.source = StatsColumn::Source::floating;
              break;
            case ColumnType::string:
              if (stats.column->name.ends_with("perf_data")) stats.source = StatsColumn::Source::perf_data;
              break;
            case ColumnType::blob:
            case ColumnType::list:
            case ColumnType::dict:
              break;
          }
        } else if (stats.column != nullptr && stats.column->match == Match::attributes &&
                   stats.column->type == ColumnType::integer) {
          stats.source = StatsColumn::Source::integer;
        }
        columns.push_back(stats);
        break;
      }
      case StatsStep::Kind::all:
      case StatsStep::Kind::any:
      case StatsStep::Kind::negate: {
        const bool is_or = step.kind == StatsStep::Kind::any;
        const std::string_view header = step.kind == StatsStep::Kind::negate ? "Negate"
                                        : is_or                              ? "Or"
                                                                             : "And";
        const std::size_t count =
            step.kind == StatsStep::Kind::negate ? 1 : static_cast<std::size_t>(step.count);
        if (step.count < 0 || count > columns.size()) {
          error = RequestError{
              .code = 400,
              .message =
                  step.kind == StatsStep::Kind::negate
                      ? std::string("StatsNegate: no Stats: headers available")
                      : fmt::format("Invalid count for Stats{}: too few Stats: headers available", header)};
          return std::nullopt;
        }
        taken.clear();
        for (std::size_t i = 0; i < count; ++i) {
          const StatsColumn& last = columns[columns.size() - 1 - i];
          if (last.source != StatsColumn::Source::filter) {
            error = RequestError{
                .code = 400,
                .message = fmt::format("Can use Stats{} only on Stats: headers of filter type", header)};
            return std::nullopt;
          }
          taken.push_back(last.filter);
        }
        columns.resize(columns.size() - count);
        FilterSet::Node node = 0;
        if (step.kind == StatsStep::Kind::negate) {
          node = filters.add_not(taken.front());
        } else {
          node = is_or ? filters.add_any(taken) : filters.add_all(taken);
        }
        if (!filters.within_depth(node)) {
          error = FilterSet::too_deep("Stats", header);
          return std::nullopt;
        }
        columns.push_back(StatsColumn{.aggregate = Aggregate::count,
                                      .source = StatsColumn::Source::filter,
                                      .column = nullptr,
                                      .filter = node});
        break;
      }
    }
  }
  return columns;
}

void StatsAccumulator::consume(const StatsColumn& column, const FilterSet& filters, const View& view, Row row,
                               FilterScratch& scratch) {
  switch (column.source) {
    case StatsColumn::Source::filter:
      if (filters.accepts(column.filter, view, row, scratch)) ++count_;
      return;
    case StatsColumn::Source::all_rows:
      ++count_;
      return;
    case StatsColumn::Source::integer:
    case StatsColumn::Source::floating:
    case StatsColumn::Source::perf_data:
      break;
  }
  column.column->read(view, row, scratch.cell);
  if (column.source == StatsColumn::Source::perf_data) {
    ++count_;
    consume_perf_data(column.aggregate, cell_string(scratch.cell));
    return;
  }
  ++count_;
  if (column.source == StatsColumn::Source::integer) {
    const std::int64_t value = cell_int(scratch.cell);
    switch (column.aggregate) {
      case Aggregate::sum:
      case Aggregate::avg:
        int_aggregate_ += value;
        break;
      case Aggregate::suminv:
      case Aggregate::avginv:
        sum_of_squares_ += 1.0 / static_cast<double>(value);
        break;
      case Aggregate::min:
        if (count_ == 1 || value < int_aggregate_) int_aggregate_ = value;
        break;
      case Aggregate::max:
        if (count_ == 1 || value > int_aggregate_) int_aggregate_ = value;
        break;
      case Aggregate::std:
        int_aggregate_ += value;
        sum_of_squares_ += static_cast<double>(value) * static_cast<double>(value);
        break;
      case Aggregate::count:
        break;
    }
    return;
  }
  const double value = cell_double(scratch.cell);
  switch (column.aggregate) {
    case Aggregate::sum:
    case Aggregate::avg:
      aggregate_ += value;
      break;
    case Aggregate::min:
      if (count_ == 1 || value < aggregate_) aggregate_ = value;
      break;
    case Aggregate::max:
      if (count_ == 1 || value > aggregate_) aggregate_ = value;
      break;
    case Aggregate::std:
      aggregate_ += value;
      sum_of_squares_ += value * value;
      break;
    case Aggregate::suminv:
    case Aggregate::avginv:
      aggregate_ += 1.0 / value;
      break;
    case Aggregate::count:
      break;
  }
}

// The module reads "name=value..." fields separated by white space, takes the digits and dots after '='
// as the value, and skips a field without them (so negative values too).
void StatsAccumulator::consume_perf_data(Aggregate aggregate, std::string_view perf_data) {
  if (perf_ == nullptr) perf_ = std::make_unique<std::map<std::string, PerfValue, std::less<>>>();
  std::string_view field;
  while (next_field(perf_data, field)) {
    const std::size_t equal = field.find('=');
    if (equal == std::string_view::npos) continue;
    const std::string_view name = field.substr(0, equal);
    std::string_view number = field.substr(equal + 1);
    std::size_t end = 0;
    while (end < number.size() && (is_digit(number[end]) || number[end] == '.')) ++end;
    if (end == 0) continue;
    number = number.substr(0, end);
    double value = 0;
    std::from_chars(number.data(), number.data() + number.size(), value);
    auto it = perf_->find(name);
    if (it == perf_->end()) {
      perf_->emplace(std::string(name),
                     PerfValue{.aggregate = value, .count = 1, .sum_of_squares = value * value});
      continue;
    }
    PerfValue& p = it->second;
    p.count += 1;
    switch (aggregate) {
      case Aggregate::sum:
      case Aggregate::avg:
        p.aggregate += value;
        break;
      case Aggregate::suminv:
      case Aggregate::avginv:
        p.aggregate += 1.0 / value;
        break;
      case Aggregate::min:
        if (value < p.aggregate) p.aggregate = value;
        break;
      case Aggregate::max:
        if (value > p.aggregate) p.aggregate = value;
        break;
      case Aggregate::std:
        p.aggregate += value;
        p.sum_of_squares += value * value;
        break;
      case Aggregate::count:
        break;
    }
  }
}

namespace {

double standard_deviation(double sum, double sum_of_squares, double count) {
  if (count <= 1) return 0.0;
  return std::sqrt((sum_of_squares - (sum * sum) / count) / (count - 1));
}

}  // namespace

void StatsAccumulator::write(const StatsColumn& column, OutputWriter& out) const {
  const double count = static_cast<double>(count_);
  switch (column.source) {
    case StatsColumn::Source::filter:
    case StatsColumn::Source::all_rows:
      return out.write_int(count_);
    case StatsColumn::Source::integer:
      switch (column.aggregate) {
        case Aggregate::sum:
        case Aggregate::min:
        case Aggregate::max:
          return out.write_int(int_aggregate_);
        case Aggregate::suminv:
          return out.write_int(truncate_to_int64(sum_of_squares_));
        case Aggregate::avg:
          return out.write_double(static_cast<double>(int_aggregate_) / count);
        case Aggregate::avginv:
          return out.write_int(truncate_to_int64(sum_of_squares_ / count));
        case Aggregate::std:
          return out.write_double(
              standard_deviation(static_cast<double>(int_aggregate_), sum_of_squares_, count));
        case Aggregate::count:
          return out.write_int(count_);
      }
      return;
    case StatsColumn::Source::floating:
      switch (column.aggregate) {
        case Aggregate::sum:
        case Aggregate::min:
        case Aggregate::max:
        case Aggregate::suminv:
          return out.write_double(aggregate_);
        case Aggregate::avg:
        case Aggregate::avginv:
          return out.write_double(count_ == 0 ? 0.0 : aggregate_ / count);
        case Aggregate::std:
          return out.write_double(standard_deviation(aggregate_, sum_of_squares_, count));
        case Aggregate::count:
          return out.write_int(count_);
      }
      return;
    case StatsColumn::Source::perf_data:
      break;
  }
  std::string text;
  if (perf_ != nullptr) {
    for (const auto& [name, p] : *perf_) {
      double value = p.aggregate;
      switch (column.aggregate) {
        case Aggregate::avg:
        case Aggregate::avginv:
          value = p.count == 0 ? 0.0 : p.aggregate / p.count;
          break;
        case Aggregate::std:
          value = standard_deviation(p.aggregate, p.sum_of_squares, p.count);
          break;
        case Aggregate::sum:
        case Aggregate::min:
        case Aggregate::max:
        case Aggregate::suminv:
        case Aggregate::count:
          break;
      }
      // The module formats each entry into 64 bytes, so an entry is cut after 63 characters.
      std::array<char, 64> buffer{};
      const int n = std::snprintf(buffer.data(), buffer.size(), "%.*s=%.8f", static_cast<int>(name.size()),
                                  name.data(), value);
      if (!text.empty()) text.push_back(' ');
      text.append(buffer.data(), std::min(static_cast<std::size_t>(n), buffer.size() - 1));
    }
  }
  out.write_string(text);
}

}  // namespace vedette::livestatus
