// The Stats: columns of a query and their accumulators, as naemon-livestatus computes them:
//   count        the rows that pass the column's filter (StatsAnd:/StatsOr:/StatsNegate: combine filters)
//   sum min max  of an int or time column: integers; avg, std: floats; suminv, avginv: integers (the
//   avg std      module truncates them); of a float column: floats (avg of no row 0, std of one row 0)
//   suminv avginv
//   on a string column named ...perf_data: per performance-data variable, "name=%.8f" joined by spaces
//   on any other column (strings, lists, unknown names): the number of rows
// Built with the query; an accumulator belongs to one run on one thread.
#pragma once

#include "livestatus/filter.hpp"
#include "livestatus/request.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vedette::livestatus {

class OutputWriter;

struct StatsColumn {
  enum class Source : std::uint8_t { filter, all_rows, integer, floating, perf_data };
  Aggregate aggregate = Aggregate::count;
  Source source = Source::all_rows;
  const Column* column = nullptr;
  FilterSet::Node filter = 0;  // Source::filter
};

// Turns a Stats:/StatsAnd:/StatsOr:/StatsNegate: program into stats columns, their filters in `filters`.
[[nodiscard]] std::optional<std::vector<StatsColumn>> compile_stats(const Table& table,
                                                                    std::span<const StatsStep> steps,
                                                                    FilterSet& filters, RequestError& error);

class StatsAccumulator {
 public:
  void consume(const StatsColumn& column, const FilterSet& filters, const View& view, Row row,
               FilterScratch& scratch);
  void write(const StatsColumn& column, OutputWriter& out) const;

 private:
  struct PerfValue {
    double aggregate = 0;
    double count = 0;
    double sum_of_squares = 0;
  };
  void consume_perf_data(Aggregate aggregate, std::string_view perf_data);

  std::uint32_t count_ = 0;
  std::int64_t int_aggregate_ = 0;
  double aggregate_ = 0;
  double sum_of_squares_ = 0;  // also the module's sum of inverses of integers
  std::unique_ptr<std::map<std::string, PerfValue, std::less<>>> perf_;
};

}  // namespace vedette::livestatus
