// A GET request compiled against its table: columns, filters, stats, sort and wait condition resolved once;
// run() answers it over a View as naemon-livestatus would. compile() on any thread; run() and
// wait_condition_holds() are const and keep their state on their stack, so one Query may run on several
// threads at once. A Query points into its Table, which must outlive it.
//
//   std::optional<Query> query = Query::compile(request, *find_table(request.table), error);
//   if (request.has_wait && query->has_wait_condition())  // else: the module waits for one trigger
//     while (!query->wait_condition_holds(view)) { /* next snapshot, until WaitTimeout */ }
//   int code = query->run(view, limits, body, error);
#pragma once

#include "livestatus/filter.hpp"
#include "livestatus/request.hpp"
#include "livestatus/sorter.hpp"
#include "livestatus/stats.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace vedette::livestatus {

struct Table;
struct View;

class Query {
 public:
  // Resolves the request against `table`; nullopt with `error` (400, the module's message) when a column
  // takes no filter or a regular expression is refused. Unknown column names are no error: as in the
  // module they print empty, match no filter and count as no aggregate.
  [[nodiscard]] static std::optional<Query> compile(const Request& request, const Table& table,
                                                    RequestError& error);

  struct Limits {
    std::size_t max_response_size = 0;                 // 0: none
    std::chrono::steady_clock::time_point deadline{};  // {}: none (Timelimit: is applied besides)
    const std::atomic<bool>* cancelled = nullptr;      // set: stop (the client hung up); null: never
  };
  // Appends the body (without any fixed16 header) to `out` and returns 200; or returns the error code with
  // `error` set and `out` as it was: 400 WaitObject not found, 413 response too large or time limit passed.
  [[nodiscard]] int run(const View& view, const Limits& limits, std::string& out, RequestError& error) const;

  // Whether the WaitCondition holds in `view`, tested on the WaitObject's row (without WaitObject: on the
  // table's first row). True when the request has no condition, and when the WaitObject is not found:
  // run() then answers the module's error.
  [[nodiscard]] bool wait_condition_holds(const View& view) const;
  [[nodiscard]] bool has_wait_condition() const { return wait_condition_.has_value(); }

 private:
  struct OutputColumn {
    const Column* column = nullptr;  // null: unknown, prints empty
    std::string name;                // the header: the column's name, or the unknown name asked for
  };
  class Run;

  Query() = default;

  const Table* table_ = nullptr;
  std::vector<OutputColumn> columns_;
  FilterSet filters_;
  FilterSet::Node filter_ = 0;
  RowHints hints_;  // what filter_ allows of `time` and `class`, for a table with Table::scan
  std::optional<FilterSet::Node> wait_condition_;
  std::vector<StatsColumn> stats_;
  std::vector<SortKey> sort_;
  bool sort_requested_ = false;
  int limit_ = -1;
  int offset_ = 0;
  OutputFormat format_ = OutputFormat::csv;
  Separators separators_;
  bool headers_ = true;
  int timezone_offset_ = 0;
  bool has_auth_user_ = false;
  std::string auth_user_;
  bool has_timelimit_ = false;
  int timelimit_ = 0;
  bool has_wait_object_ = false;
  std::string wait_object_;
};

}  // namespace vedette::livestatus
