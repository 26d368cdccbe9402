// A GET request compiled against its table: columns, filters, stats, sort and wait condition resolved once;
// run() answers it over a View as naemon-livestatus would, whole, or a Run (start()) answers it in pieces.
// compile() on any thread; run(), start() and wait_condition_holds() are const and keep their state on
// their stack or in the Run, so one Query may run on several threads at once. A Query points into its
// Table, which must outlive it.
//
//   std::optional<Query> query = Query::compile(request, *find_table(request.table), error);
//   if (request.has_wait && query->has_wait_condition())  // else: the module waits for one trigger
//     while (!query->wait_condition_holds(view)) { /* next snapshot, until WaitTimeout */ }
//   int code = query->run(view, limits, body, error);
//
//   std::unique_ptr<Query::Run> run = query->start(view, limits);  // the same answer, in pieces
//   while (run->step(piece, 1 << 20, error) == Query::Step::more) { /* send piece, clear it */ }
#pragma once

#include "livestatus/filter.hpp"
#include "livestatus/request.hpp"
#include "livestatus/sorter.hpp"
#include "livestatus/stats.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
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

  // What a Run's step() did: appended a piece and has more, appended the last one, or failed (then the
  // pieces it gave are no answer: the error is).
  enum class Step : std::uint8_t { more, done, failed };
  class Run;
  // A run of this query over a copy of `view` that answers in pieces (Run::step), keeping its place, its
  // rows and its sort and stats state in between, so that the answer never needs to be in memory whole.
  // The Query must outlive the Run; the Run holds what the View holds (snapshot, log lines).
  [[nodiscard]] std::unique_ptr<Run> start(const View& view, const Limits& limits) const;

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
  Query() = default;

  const Table* table_ = nullptr;
  std::vector<OutputColumn> columns_;
  FilterSet filters_;
  FilterSet::Node filter_ = 0;
  RowHints hints_;  // what filter_ allows of `time` and `class`, for a table with Table::open
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

// One answer of a Query in pieces. Each step() appends to `out` until the step added `piece` bytes or more
// (a row is never split) or the answer is complete. Limits hold over the whole answer: max_response_size
// counts every piece, and the deadline is wall time from the first step. One thread at a time; a Run may move
// from thread to thread between steps.
class Query::Run {
 public:
  class State;
  explicit Run(std::unique_ptr<State> state);
  ~Run();
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  [[nodiscard]] Step step(std::string& out, std::size_t piece, RequestError& error);
  // The bytes of the body the steps appended so far.
  [[nodiscard]] std::size_t produced() const;
  // A new run of the same query from the start, over this run's View: it reads the same log lines, so it
  // gives the same answer (a run counted first, then produced). Under `limits` instead of this one's.
  [[nodiscard]] std::unique_ptr<Run> again(const Limits& limits) const;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace vedette::livestatus
