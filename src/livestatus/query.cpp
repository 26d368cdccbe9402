#include "livestatus/query.hpp"

#include "livestatus/engine_internal.hpp"
#include "livestatus/output.hpp"
#include "livestatus/table.hpp"
#include "livestatus/view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>

namespace vedette::livestatus {

namespace {

// The module's index filters: the tests an And:, Or: or Negate: has not taken off the stack of the Filter:
// program, in request order, that are `=` or a list's `>=` (the module's indexFilter()).
std::vector<RowHints::IndexKey> index_keys(const Table& table, std::span<const FilterStep> program) {
  constexpr std::size_t k_combined = static_cast<std::size_t>(-1);
  std::vector<std::size_t> stack;  // a test's position in `program`, or k_combined
  for (std::size_t i = 0; i < program.size(); ++i) {
    const FilterStep& step = program[i];
    if (step.kind == FilterStep::Kind::test) {
      stack.push_back(i);
      continue;
    }
    const std::size_t taken = step.kind == FilterStep::Kind::negate
                                  ? 1
                                  : std::min<std::size_t>(std::max(step.count, 0), stack.size());
    stack.resize(stack.size() - std::min(taken, stack.size()));
    stack.push_back(k_combined);
  }
  std::vector<RowHints::IndexKey> keys;
  for (const std::size_t i : stack) {
    if (i == k_combined) continue;
    const Condition& c = program[i].condition;
    const Column* column = table.find(c.column);
    if (column == nullptr) continue;
    if (c.op == Operator::equal && !c.negate && column->type == ColumnType::string)
      keys.push_back(RowHints::IndexKey{.column = column, .contains = false, .value = c.value});
    else if (c.op == Operator::less && c.negate && column->type == ColumnType::list)
      keys.push_back(RowHints::IndexKey{.column = column, .contains = true, .value = c.value});
  }
  return keys;
}

}  // namespace

std::optional<Query> Query::compile(const Request& request, const Table& table, RequestError& error) {
  Query query;
  query.table_ = &table;
  for (const std::string& name : request.columns) {
    const Column* column = table.find(name);
    query.columns_.push_back(OutputColumn{.column = column, .name = column != nullptr ? column->name : name});
  }

  std::optional<std::vector<StatsColumn>> stats = compile_stats(table, request.stats, query.filters_, error);
  if (!stats) return std::nullopt;
  query.stats_ = std::move(*stats);
  const std::optional<FilterSet::Node> filter = query.filters_.add_program(table, request.filter, "", error);
  if (!filter) return std::nullopt;
  query.filter_ = *filter;
  // The module's findTimeLimits("time") and optimizeBitmask("class"): a table read from files reads only
  // what the filter can accept.
  if (table.open != nullptr) {
    query.filters_.narrow_range(query.filter_, table.find("time"), query.hints_.time_from,
                                query.hints_.time_until);
    if (const Column* log_class = table.find("class"))
      query.hints_.classes = query.filters_.possible_values(query.filter_, log_class);
  }
  query.hints_.index_keys = index_keys(table, request.filter);
  if (!request.wait_condition.empty()) {
    query.wait_condition_ = query.filters_.add_program(table, request.wait_condition, "WaitCondition", error);
    if (!query.wait_condition_) return std::nullopt;
  }

  query.headers_ = request.column_headers;
  if (query.columns_.empty() && query.stats_.empty()) {
    // Every column, by name (the module's std::map order), with headers whatever ColumnHeaders: said.
    for (const Column& column : table.columns)
      query.columns_.push_back(OutputColumn{.column = &column, .name = column.name});
    std::sort(query.columns_.begin(), query.columns_.end(),
              [](const OutputColumn& a, const OutputColumn& b) { return a.name < b.name; });
    query.headers_ = true;
  }

  for (const SortSpec& spec : request.sort)
    query.sort_.push_back(SortKey{.column = table.find(spec.column), .descending = spec.descending});
  query.sort_requested_ = !request.sort.empty();
  if (query.sort_requested_ || !query.stats_.empty()) {
    for (const std::string& name : table.natural_sort)
      if (const Column* column = table.find(name))
        query.sort_.push_back(SortKey{.column = column, .descending = false});
  }

  // Sorted rows and the groups' first rows are read again at the end; every other row is done with once
  // the next one is asked for.
  query.hints_.rows_kept = query.sort_requested_ || (!query.stats_.empty() && !query.columns_.empty());
  query.limit_ = request.limit;
  query.offset_ = request.offset;
  query.format_ = request.output_format;
  query.separators_ = request.separators;
  query.timezone_offset_ = request.timezone_offset;
  query.has_auth_user_ = request.has_auth_user;
  query.auth_user_ = request.auth_user;
  query.has_timelimit_ = request.has_timelimit;
  query.timelimit_ = request.timelimit;
  query.has_wait_object_ = request.has_wait_object;
  query.wait_object_ = request.wait_object;
  return query;
}

namespace {

// A table's rows as the table has them: its own cursor, or the rows it lists.
class ListedRows final : public RowCursor {
 public:
  ListedRows(const Table& table, const View& view, const RowHints& hints) {
    if (table.indexed_rows != nullptr && table.indexed_rows(view, hints, rows_)) return;
    if (table.rows != nullptr) table.rows(view, rows_);
  }
  bool next(Row& row) override {
    if (at_ == rows_.size()) return false;
    row = rows_[at_++];
    return true;
  }

 private:
  std::vector<Row> rows_;
  std::size_t at_ = 0;
};

std::unique_ptr<RowCursor> open_rows(const Table& table, const View& view, const RowHints& hints) {
  if (table.open != nullptr) return table.open(view, hints);
  return std::make_unique<ListedRows>(table, view, hints);
}

}  // namespace

bool Query::wait_condition_holds(const View& view) const {
  if (!wait_condition_) return true;
  Row row;
  if (has_wait_object_) {
    if (table_->find_row == nullptr || !table_->find_row(view, wait_object_, row)) return true;
  } else {
    // A table that cannot answer without more of the request has no first row: the run answers why.
    RowHints first_row = hints_;
    first_row.index_keys.clear();  // the table's own first row, not an index's
    const std::unique_ptr<RowCursor> rows = open_rows(*table_, view, first_row);
    if (!rows->next(row)) return true;
  }
  FilterScratch scratch;
  return filters_.accepts(*wait_condition_, view, row, scratch);
}

namespace {

// Stats group keys are looked up by a string_view into a reused buffer, without building a std::string.
struct KeyHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view key) const { return std::hash<std::string_view>{}(key); }
};

// A group key: each column's text with its length in front, so that no text can run into the next.
void append_key_part(std::string& key, std::string_view part) {
  const auto size = static_cast<std::uint32_t>(part.size());
  key.append(reinterpret_cast<const char*>(&size), sizeof size);
  key.append(part);
}

template <typename Visit>
void for_each_key_part(std::string_view key, Visit visit) {
  while (key.size() >= sizeof(std::uint32_t)) {
    std::uint32_t size = 0;
    std::memcpy(&size, key.data(), sizeof size);
    key.remove_prefix(sizeof size);
    visit(key.substr(0, size));
    key.remove_prefix(size);
  }
}

}  // namespace

// The state of one Run: the module's Query::start(), processDataset() per row and finish(), each of which
// may stop when the piece is full and go on at the next step.
class Query::Run::State {
 public:
  State(const Query& query, const View& view, const Limits& limits)
      : q_(query),
        view_(view),
        limits_(limits),
        writer_(query.format_, query.separators_, buf_),
        sorter_(query.sort_) {}

  Step step(std::string& out, std::size_t piece, RequestError& error) {
    // The writer appends to buf_: the caller's string is swapped in and out, so nothing is copied.
    buf_.swap(out);
    step_start_ = buf_.size();
    const Step result = advance(piece);
    produced_ += buf_.size() - step_start_;
    buf_.swap(out);
    if (result == Step::failed) error = error_;
    return result;
  }

  [[nodiscard]] std::size_t produced() const { return produced_; }
  [[nodiscard]] const Query& query() const { return q_; }
  [[nodiscard]] const View& view() const { return view_; }

 private:
  enum class Stage : std::uint8_t { start, rows, finish, done };

  Step advance(std::size_t piece) {
    const auto full = [&] { return buf_.size() - step_start_ >= piece; };
    if (stage_ == Stage::start) {
      if (q_.has_wait_object_) {
        Row row;
        if (q_.table_->find_row == nullptr || !q_.table_->find_row(view_, q_.wait_object_, row))
          return fail(400, fmt::format("WaitObject: object '{}' not found or not supported by this table",
                                       q_.wait_object_));
      }
      resolve_auth_user();
      resolve_deadline();
      start();
      rows_ = open_rows(*q_.table_, view_, q_.hints_);
      stage_ = Stage::rows;
    }
    while (stage_ == Stage::rows) {
      if (full()) return Step::more;
      Row row;
      if (!rows_->next(row)) {
        if (rows_->error_code() != 0) return fail(rows_->error_code(), rows_->error_message());
        stage_ = Stage::finish;
      } else if (!process(row)) {
        if (failed_) return Step::failed;
        stage_ = Stage::finish;
      }
    }
    if (stage_ == Stage::finish) {
      rows_.reset();  // the cursor's own state; the rows it handed out live in the View
      if (!finish(full)) return failed_ ? Step::failed : Step::more;
      stage_ = Stage::done;
    }
    return Step::done;
  }

  Step fail(int code, std::string message) {
    failed_ = true;
    error_ = RequestError{.code = code, .message = std::move(message)};
    buf_.resize(step_start_);
    return Step::failed;
  }

  // AuthUser: a name the model lacks is no error; that user sees nothing of the tables that check.
  void resolve_auth_user() {
    if (!q_.has_auth_user_) return;
    view_.auth_user = k_unknown_auth_user;
    if (view_.status != nullptr && view_.status->model != nullptr) {
      const auto& contacts = view_.model().contact_by_name;
      const auto it = contacts.find(q_.auth_user_);
      if (it != contacts.end()) view_.auth_user = static_cast<std::uint32_t>(it->second);
    }
    check_visible_ = q_.table_->visible != nullptr;
  }

  void resolve_deadline() {
    const auto now = std::chrono::steady_clock::now();
    if (limits_.deadline != std::chrono::steady_clock::time_point{}) {
      deadline_ = limits_.deadline;
      has_deadline_ = true;
      deadline_seconds_ =
          static_cast<int>(std::chrono::ceil<std::chrono::seconds>(
                               std::max(limits_.deadline - now, std::chrono::steady_clock::duration{}))
                               .count());
    }
    if (q_.has_timelimit_) {
      const auto own = now + std::chrono::seconds(q_.timelimit_);
      if (!has_deadline_ || own <= deadline_) {
        deadline_ = own;
        deadline_seconds_ = q_.timelimit_;
      }
      has_deadline_ = true;
    }
  }

  [[nodiscard]] bool is_stats() const { return !q_.stats_.empty(); }
  [[nodiscard]] bool is_grouped() const { return is_stats() && !q_.columns_.empty(); }
  [[nodiscard]] std::size_t body_size() const { return produced_ + buf_.size() - step_start_; }

  bool response_too_large(std::size_t size) {
    if (limits_.max_response_size == 0 || size <= limits_.max_response_size) return false;
    fail(413, fmt::format("Maximum response size of {} reached", limits_.max_response_size));
    return true;
  }

  void start() {
    if (is_stats() && !is_grouped()) {
      current_line_ = 1;
      accumulators_.resize(q_.stats_.size());
    }
    if (!q_.headers_) return writer_.begin_rows_without_headers();
    writer_.begin_headers();
    bool first = true;
    for (const OutputColumn& column : q_.columns_) {
      if (!first) writer_.field_separator();
      first = false;
      writer_.write_string(column.name);
    }
    for (std::size_t i = 1; i <= q_.stats_.size(); ++i) {
      if (!first) writer_.field_separator();
      first = false;
      writer_.write_string(fmt::format("stats_{}", i));
    }
    writer_.end_headers();
  }

  // The module lets the query fail at the time limit rather than answer part of it. It looks at the clock
  // for each row it answers; Vedette looks every k_rows_per_look rows read besides, so that a filter which
  // takes most rows' time and passes none is held to the limit too. A client that hung up stops the query.
  bool out_of_time(bool row_accepted) {
    if (!row_accepted && (++rows_read_ & (k_rows_per_look - 1)) != 0) return false;
    if (limits_.cancelled != nullptr && limits_.cancelled->load(std::memory_order_relaxed)) {
      fail(400, "Query canceled: the client hung up");
      return true;
    }
    if (!has_deadline_ || std::chrono::steady_clock::now() < deadline_) return false;
    fail(413, fmt::format("Maximum query time of {} seconds exceeded!", deadline_seconds_));
    return true;
  }

  // False: stop reading rows (an error, or Limit: reached).
  bool process(Row row) {
    if (response_too_large(body_size())) return false;
    if (!q_.filters_.accepts_all(q_.filter_) && !q_.filters_.accepts(q_.filter_, view_, row, scratch_))
      return !out_of_time(/*row_accepted=*/false);
    if (check_visible_ && !q_.table_->visible(view_, row, view_.auth_user))
      return !out_of_time(/*row_accepted=*/false);
    if (out_of_time(/*row_accepted=*/true)) return false;

    if (is_grouped()) return group(row);
    if (is_stats()) {
      for (std::size_t i = 0; i < q_.stats_.size(); ++i)
        accumulators_[i].consume(q_.stats_[i], q_.filters_, view_, row, scratch_);
      return true;
    }
    ++current_line_;
    if (q_.sort_requested_) {
      sorted_rows_.push_back(row);
      sorter_.insert(sorter_.add(view_, row, scratch_.cell), limit_plus_offset());
      return true;
    }
    if (q_.limit_ >= 0 &&
        current_line_ > static_cast<std::uint64_t>(q_.offset_) + static_cast<std::uint64_t>(q_.limit_))
      return q_.format_ == OutputFormat::wrapped_json;  // which counts every row for "total_count"
    if (current_line_ <= static_cast<std::uint64_t>(q_.offset_)) return true;
    print_row(row);
    return true;
  }

  [[nodiscard]] std::int64_t limit_plus_offset() const {
    return q_.limit_ < 0 ? 0 : static_cast<std::int64_t>(q_.limit_) + q_.offset_;
  }

  bool group(Row row) {
    key_.clear();
    for (const OutputColumn& column : q_.columns_) {
      part_.clear();
      if (column.column != nullptr) column.column->read(view_, row, scratch_.cell);
      append_group_key(part_, scratch_.cell, column.column);
      append_key_part(key_, part_);
    }
    auto it = group_index_.find(std::string_view(key_));
    if (it == group_index_.end()) {
      const auto index = static_cast<std::uint32_t>(groups_.size());
      it = group_index_.emplace(key_, index).first;
      groups_.push_back(Group{.key = it->first, .row = row});
      accumulators_.resize(accumulators_.size() + q_.stats_.size());
      ++current_line_;
      const std::uint32_t id = sorter_.add(view_, row, scratch_.cell);
      sorter_.insert(id, limit_plus_offset());
      // The module's rough guard against too many groups: eight bytes per character of the key.
      std::size_t row_size = 0;
      for_each_key_part(key_, [&](std::string_view part) { row_size += sizeof(char*) * part.size(); });
      if (response_too_large(sorter_.size() * row_size)) return false;
    }
    StatsAccumulator* accumulators = &accumulators_[it->second * q_.stats_.size()];
    for (std::size_t i = 0; i < q_.stats_.size(); ++i)
      accumulators[i].consume(q_.stats_[i], q_.filters_, view_, row, scratch_);
    return true;
  }

  void print_row(Row row) {
    writer_.begin_row();
    bool first = true;
    for (const OutputColumn& column : q_.columns_) {
      if (!first) writer_.field_separator();
      first = false;
      if (column.column == nullptr) {
        writer_.write_string({});
        continue;
      }
      column.column->read(view_, row, scratch_.cell);
      writer_.write_cell(scratch_.cell, column.column, q_.timezone_offset_);
    }
    writer_.end_row();
  }

  void print_group(std::uint32_t index) {
    const Group& group = groups_[index];
    writer_.begin_row();
    bool first = true;
    for_each_key_part(group.key, [&](std::string_view part) {
      if (!first) writer_.field_separator();
      first = false;
      writer_.write_string(part);
    });
    const StatsAccumulator* accumulators = &accumulators_[index * q_.stats_.size()];
    for (std::size_t i = 0; i < q_.stats_.size(); ++i) {
      writer_.field_separator();
      accumulators[i].write(q_.stats_[i], writer_);
    }
    writer_.end_row();
  }

  // The sorted candidates to print, smallest first: the module's Limit/Offset window of its heap. Without
  // Limit: the module keeps only Offset - 1 rows and ignores Offset (docs/compatibility.md); we skip Offset.
  std::vector<std::uint32_t> sorted_window() {
    std::vector<std::uint32_t> largest_first;
    const auto size = static_cast<std::int64_t>(sorter_.size());
    std::int64_t take = size;
    if (q_.limit_ >= 0)
      take = limit_plus_offset() > size ? std::max<std::int64_t>(0, size - q_.offset_) : q_.limit_;
    while (take-- > 0)
      if (std::optional<std::uint32_t> id = sorter_.extract()) largest_first.push_back(*id);
    std::vector<std::uint32_t> window(largest_first.rbegin(), largest_first.rend());
    if (q_.limit_ < 0)
      window.erase(window.begin(), window.begin() + std::min<std::ptrdiff_t>(q_.offset_, window.size()));
    return window;
  }

  // What the rows made (Stats:, Sort:), then the answer's end; false when the piece is full first, or it
  // failed (failed_).
  template <typename Full>
  bool finish(const Full& full) {
    const bool windowed = is_grouped() || (q_.sort_requested_ && !is_stats());
    if (windowed && !window_) window_ = sorted_window();
    for (; window_ && printed_ < window_->size(); ++printed_) {
      if (full()) return false;
      if (response_too_large(body_size()) || out_of_time(/*row_accepted=*/false)) return false;
      const std::uint32_t at = (*window_)[printed_];
      if (is_grouped()) {
        print_group(at);
      } else {
        print_row(sorted_rows_[at]);
      }
    }
    if (is_stats() && !is_grouped()) {
      writer_.begin_row();
      for (std::size_t i = 0; i < q_.stats_.size(); ++i) {
        if (i > 0) writer_.field_separator();
        accumulators_[i].write(q_.stats_[i], writer_);
      }
      writer_.end_row();
    }
    writer_.finish(current_line_);
    return true;
  }

  struct Group {
    std::string_view key;  // the map's key, stable while the map lives
    Row row;               // the group's first row, by which Sort: orders the groups
  };

  const Query& q_;
  View view_;
  const Limits limits_;
  std::string buf_;  // the caller's string during a step
  OutputWriter writer_;
  RowSorter sorter_;
  FilterScratch scratch_;
  static constexpr std::uint64_t k_rows_per_look = 64;

  Stage stage_ = Stage::start;
  std::unique_ptr<RowCursor> rows_;
  std::size_t step_start_ = 0;  // the size of buf_ when this step began
  std::size_t produced_ = 0;    // what the earlier steps appended
  RequestError error_;
  std::optional<std::vector<std::uint32_t>> window_;  // sorted rows or groups to print, once computed
  std::size_t printed_ = 0;                           // of window_
  bool failed_ = false;
  bool check_visible_ = false;
  std::uint64_t rows_read_ = 0;  // rows no answer took, for out_of_time()
  bool has_deadline_ = false;
  std::chrono::steady_clock::time_point deadline_{};
  int deadline_seconds_ = 0;
  std::uint64_t current_line_ = 0;  // the module's count of rows (or groups) for wrapped_json
  std::vector<Row> sorted_rows_;
  std::vector<StatsAccumulator> accumulators_;  // per group, one per stats column
  std::unordered_map<std::string, std::uint32_t, KeyHash, std::equal_to<>> group_index_;
  std::vector<Group> groups_;
  std::string key_;
  std::string part_;
};

int Query::run(const View& view, const Limits& limits, std::string& out, RequestError& error) const {
  const std::unique_ptr<Run> run = start(view, limits);
  if (run->step(out, std::numeric_limits<std::size_t>::max(), error) == Step::failed) return error.code;
  return 200;
}

std::unique_ptr<Query::Run> Query::start(const View& view, const Limits& limits) const {
  return std::make_unique<Run>(std::make_unique<Run::State>(*this, view, limits));
}

Query::Run::Run(std::unique_ptr<State> state) : state_(std::move(state)) {}
Query::Run::~Run() = default;

Query::Step Query::Run::step(std::string& out, std::size_t piece, RequestError& error) {
  return state_->step(out, piece, error);
}

std::size_t Query::Run::produced() const {
  return state_->produced();
}

std::unique_ptr<Query::Run> Query::Run::again(const Limits& limits) const {
  return state_->query().start(state_->view(), limits);
}

}  // namespace vedette::livestatus
