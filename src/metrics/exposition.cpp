#include "metrics/exposition.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iterator>

namespace vedette::metrics {

namespace {

const char* type_name(MetricType type) {
  switch (type) {
    case MetricType::counter:
      return "counter";
    case MetricType::gauge:
      return "gauge";
    case MetricType::histogram:
      return "histogram";
  }
  return "untyped";
}

// HELP text escapes backslash and newline; label values also the double quote.
void append_escaped(std::string& out, std::string_view text, bool quote) {
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quote) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

}  // namespace

std::string Exposition::format_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", value);
}

void Exposition::family(std::string_view name, MetricType type, std::string_view help) {
  fmt::format_to(std::back_inserter(text_), "# HELP {} ", name);
  append_escaped(text_, help, /*quote=*/false);
  fmt::format_to(std::back_inserter(text_), "\n# TYPE {} {}\n", name, type_name(type));
}

void Exposition::start_sample(std::string_view name, std::initializer_list<Label> labels,
                              const Label* extra) {
  text_ += name;
  if (labels.size() == 0 && extra == nullptr) {
    text_ += ' ';
    return;
  }
  char separator = '{';
  const auto label = [&](const Label& l) {
    text_ += separator;
    text_ += l.first;
    text_ += "=\"";
    append_escaped(text_, l.second, /*quote=*/true);
    text_ += '"';
    separator = ',';
  };
  for (const Label& l : labels) label(l);
  if (extra != nullptr) label(*extra);
  text_ += "} ";
}

void Exposition::sample(std::string_view name, std::initializer_list<Label> labels, double value) {
  start_sample(name, labels, nullptr);
  text_ += format_value(value);
  text_ += '\n';
}

void Exposition::sample(std::string_view name, std::initializer_list<Label> labels, std::uint64_t value) {
  start_sample(name, labels, nullptr);
  fmt::format_to(std::back_inserter(text_), "{}\n", value);
}

void Exposition::sample(std::string_view name, std::initializer_list<Label> labels, std::int64_t value) {
  start_sample(name, labels, nullptr);
  fmt::format_to(std::back_inserter(text_), "{}\n", value);
}

void Exposition::histogram(std::string_view name, std::initializer_list<Label> labels,
                           const HistogramValues& values) {
  const std::string bucket = fmt::format("{}_bucket", name);
  for (std::size_t i = 0; i < values.bounds.size(); ++i) {
    const std::string le = format_value(values.bounds[i]);
    const Label extra{"le", le};
    start_sample(bucket, labels, &extra);
    fmt::format_to(std::back_inserter(text_), "{}\n", values.buckets[i]);
  }
  const Label inf{"le", "+Inf"};
  start_sample(bucket, labels, &inf);
  fmt::format_to(std::back_inserter(text_), "{}\n", values.count);
  sample(fmt::format("{}_sum", name), labels, values.sum);
  sample(fmt::format("{}_count", name), labels, values.count);
}

}  // namespace vedette::metrics
