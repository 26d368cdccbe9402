// The statehist table: for each host and service the log names, the spans of time it spent in one state
// (and in or out of downtime, flapping, its notification period) within the queried range, with how long
// each lasted, computed from the log as the module's TableStateHistory does: from the file that holds the
// range's start, oldest line first; a row whenever something changes, and one per object at the end.
#include "livestatus/log_cache.hpp"
#include "livestatus/tables/checkable_internal.hpp"
#include "livestatus/tables/tables_internal.hpp"
#include "livestatus/text_internal.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

namespace vedette::livestatus {

// One row: what an object was like from `from` to `until`. Strings point into the model (names, periods)
// and into View::log_reading (log_output), which the View keeps for the query.
struct StateHistoryRow {
  std::int64_t time = 0;
  std::int64_t from = 0;
  std::int64_t until = 0;
  std::int64_t duration = 0;
  double duration_part = 0;
  // By state: unmonitored, ok, warning, critical, unknown; only the row's own state is set.
  std::array<std::int64_t, 5> durations{};
  std::array<double, 5> parts{};
  std::int32_t lineno = 0;
  std::int32_t state = 0;
  std::int32_t host_down = 0;
  std::int32_t in_downtime = 0;
  std::int32_t in_host_downtime = 0;
  std::int32_t is_flapping = 0;
  std::int32_t in_notification_period = 0;
  std::int32_t in_service_period = 0;
  std::uint32_t host = k_no_row;     // model indexes
  std::uint32_t service = k_no_row;  // k_no_row: a host's row
  std::string_view host_name;
  std::string_view service_description;
  std::string_view notification_period;
  std::string_view service_period;
  std::string_view debug_info;
  std::string_view log_output;
};

struct StateHistory {
  std::vector<StateHistoryRow> rows;
};

namespace tables {
namespace {

using T = ColumnType;

// What the module reads of the log for this table (CLASSMASK_STATEHIST): alerts, program and state lines.
constexpr std::uint32_t k_statehist_classes =
    (1u << static_cast<unsigned>(LogClass::alert)) | (1u << static_cast<unsigned>(LogClass::program)) |
    (1u << static_cast<unsigned>(LogClass::state)) | (1u << static_cast<unsigned>(LogClass::text));

// An object while the log is walked: the row it would print now, and what the walk needs besides.
struct Tracked {
  StateHistoryRow row;
  bool is_host = false;
  std::vector<std::uint32_t> services;  // a host's: its tracked services, positions in the walk's list
  bool may_no_longer_exist = false;
  bool has_vanished = false;
  std::int64_t last_known_time = 0;
};

// The line being handled: the entry and the chunk its text is in.
struct Line {
  const LogEntry* entry = nullptr;
  const LogChunk* chunk = nullptr;
  std::uint32_t host = k_none;     // the objects it names, in the query's model
  std::uint32_t service = k_none;  // k_none: none of that name
  [[nodiscard]] std::string_view field(LogField f) const { return chunk->field(*entry, f); }
};

// The fields of "TIMEPERIOD TRANSITION: name;from;to" as strtok() finds them (empty fields are skipped).
bool timeperiod_transition(std::string_view options, std::string_view& name, int& to) {
  std::array<std::string_view, 3> tokens;
  std::size_t found = 0;
  while (found < tokens.size() && !options.empty()) {
    const std::size_t end = options.find(';');
    const std::string_view token = options.substr(0, end);
    options.remove_prefix(end == std::string_view::npos ? options.size() : end + 1);
    if (!token.empty()) tokens[found++] = token;
  }
  if (found < 3) return false;
  name = tokens[0];
  to = parse_int(tokens[2]);
  return true;
}

bool starts_started(std::string_view state_type) {
  return state_type.starts_with("STARTED");
}

// The walk over the log: the module's TableStateHistory::answerQuery and updateHostServiceState.
class Walk {
 public:
  // Rows go to out.rows as they are made.
  Walk(const View& v, StateHistory& out, std::int64_t since, std::int64_t until)
      : v_(v), out_(out), since_(since), until_(until), timeframe_(until - since - 1) {}

  [[nodiscard]] const View& view() const { return v_; }
  [[nodiscard]] std::int64_t since() const { return since_; }

  // False when the range has ended.
  bool handle(const Line& line) {
    const LogEntry& e = *line.entry;
    if (e.time >= until_) return false;
    if (only_update_ && e.time >= since_) {
      for (Tracked& t : tracked_) t.row.from = t.row.until = since_;
      only_update_ = false;
    }
    if (in_initial_states_ && e.type != LogType::state_service_initial &&
        e.type != LogType::state_host_initial) {
      for (Tracked& t : tracked_)
        if (t.may_no_longer_exist) t.has_vanished = true;
      in_initial_states_ = false;
    }
    switch (e.type) {
      case LogType::alert_service:
      case LogType::state_service:
      case LogType::state_service_initial:
      case LogType::downtime_alert_service:
      case LogType::flapping_service:
      case LogType::alert_host:
      case LogType::state_host:
      case LogType::state_host_initial:
      case LogType::downtime_alert_host:
      case LogType::flapping_host:
        object_line(line);
        break;
      case LogType::timeperiod_transition: {
        std::string_view name;
        int to = 0;
        if (!timeperiod_transition(line.field(e.options), name, to)) break;
        periods_[std::string(name)] = to;
        for (Tracked& t : tracked_) update(line, t);
        break;
      }
      case LogType::log_initial_states:
        for (Tracked& t : tracked_) {
          if (t.has_vanished) continue;
          t.last_known_time = e.time;
          t.may_no_longer_exist = true;
        }
        in_initial_states_ = true;
        break;
      default:
        break;
    }
    return true;
  }

  // The rows at the end of the range, one per object (two for one that vanished), in the order the
  // objects first appeared: those of the next object; false when there is none.
  bool finish_next() {
    if (finished_ == tracked_.size()) return false;
    Tracked& t = tracked_[finished_++];
    if (t.may_no_longer_exist) {
      t.row.time = t.row.until = t.last_known_time;
      emit(t);
      t.row.state = -1;
      t.row.until = t.row.time;
      t.row.debug_info = "UNMONITORED";
      t.row.log_output = {};
    }
    t.row.time = t.row.until = until_ - 1;
    emit(t);
    return true;
  }

 private:
  void object_line(const Line& line) {
    const LogEntry& e = *line.entry;
    const bool is_service = e.type == LogType::alert_service || e.type == LogType::state_service ||
                            e.type == LogType::state_service_initial ||
                            e.type == LogType::downtime_alert_service || e.type == LogType::flapping_service;
    if (is_service ? line.service == k_none : line.host == k_none) return;
    const std::uint64_t key = is_service ? (std::uint64_t{1} << 32) | line.service : line.host;
    auto [it, added] = by_key_.try_emplace(key, static_cast<std::uint32_t>(tracked_.size()));
    if (added) start_tracking(line, is_service);
    const std::uint32_t at = it->second;
    const bool changed = update(line, tracked_[at]);
    // A host's state and downtime reach its services.
    if (changed && (e.type == LogType::alert_host || e.type == LogType::state_host ||
                    e.type == LogType::downtime_alert_host)) {
      const std::vector<std::uint32_t> services = tracked_[at].services;
      for (std::uint32_t s : services) update(line, tracked_[s]);
    }
  }

  void start_tracking(const Line& line, bool is_service) {
    const model::Model& m = v_.model();
    Tracked t;
    t.is_host = !is_service;
    t.row.host = line.host;
    t.row.service = is_service ? line.service : k_no_row;
    t.row.host_name = m.hosts[line.host].name;
    t.row.service_description = is_service ? std::string_view(m.services[line.service].description) : "";
    const auto position = static_cast<std::uint32_t>(tracked_.size());
    if (t.is_host) {
      for (std::uint32_t i = 0; i < tracked_.size(); ++i)
        if (tracked_[i].row.host == line.host) t.services.push_back(i);
    } else if (const auto host = by_key_.find(line.host); host != by_key_.end()) {
      tracked_[host->second].services.push_back(position);
    }
    t.row.from = since_;
    const Row r{is_service ? line.service : line.host, 0};
    t.row.notification_period = is_service ? notification_period<S>(r) : notification_period<H>(r);
    t.row.service_period = is_service ? service_period<S>(r) : service_period<H>(r);
    t.row.in_notification_period = period_state(t.row.notification_period);
    t.row.in_service_period = period_state(t.row.service_period);
    if (is_service) {
      if (const auto host = by_key_.find(line.host); host != by_key_.end()) {
        t.row.in_host_downtime = tracked_[host->second].row.in_host_downtime;
        t.row.host_down = tracked_[host->second].row.host_down;
      }
    }
    // An object that appears well into the range (ten minutes' grace for a start) was not monitored before.
    if (!only_update_ && line.entry->time - since_ > 60 * 10) {
      t.row.debug_info = "UNMONITORED ";
      t.row.state = -1;
    }
    tracked_.push_back(std::move(t));
  }

  template <Kind K>
  std::string_view notification_period(Row r) const {
    const state::Overrides* ov = overrides_of<K>(v_, r);
    if (ov != nullptr && ov->notification_period) return *ov->notification_period;
    return period_name(v_, config_of<K>(v_, r).notification_period);
  }
  // Naemon has no service period; the module reads the custom variable SERVICE_PERIOD.
  template <Kind K>
  std::string_view service_period(Row r) const {
    const state::Overrides* ov = overrides_of<K>(v_, r);
    for (const model::CustomVariable& var : config_of<K>(v_, r).custom_variables) {
      if (var.name != "SERVICE_PERIOD") continue;
      const std::string* changed = ov != nullptr ? ov->custom_variable(var.name) : nullptr;
      return changed != nullptr ? std::string_view(*changed) : std::string_view(var.value);
    }
    return {};
  }
  // A period's state as the last TIMEPERIOD TRANSITION told it; in the period when none did.
  int period_state(std::string_view name) const {
    const auto it = periods_.find(std::string(name));
    return it != periods_.end() ? it->second : 1;
  }

  // Returns whether a host's state changed (its services follow then).
  bool update(const Line& line, Tracked& t) {
    const LogEntry& e = *line.entry;
    StateHistoryRow& row = t.row;
    bool changed = true;
    const bool timeperiod = e.type == LogType::timeperiod_transition;
    if (!timeperiod && t.has_vanished) {
      // Back after it vanished: the time it was gone is unmonitored.
      row.time = row.until = t.last_known_time;
      if (!only_update_) emit(t);
      t.may_no_longer_exist = false;
      t.has_vanished = false;
      row.state = -1;
      row.debug_info = "UNMONITORED";
      row.in_downtime = 0;
      row.is_flapping = 0;
      row.log_output = {};
      row.in_notification_period = period_state(row.notification_period);
      row.in_service_period = period_state(row.service_period);
    }
    row.time = e.time;
    row.lineno = static_cast<std::int32_t>(e.lineno);
    row.until = e.time;
    if (!timeperiod) t.may_no_longer_exist = false;

    switch (e.type) {
      case LogType::state_host:
      case LogType::state_host_initial:
      case LogType::alert_host:
        if (t.is_host) {
          if (row.state != e.state) {
            if (!only_update_) emit(t);
            row.state = e.state;
            row.host_down = e.state > 0 ? 1 : 0;
            row.debug_info = "HOST STATE";
          } else {
            changed = false;
          }
        } else if (row.host_down != (e.state > 0 ? 1 : 0)) {
          if (!only_update_) emit(t);
          row.host_down = e.state > 0 ? 1 : 0;
          row.debug_info = "SVC HOST STATE";
        }
        break;
      case LogType::state_service:
      case LogType::state_service_initial:
      case LogType::alert_service:
        if (row.state != e.state) {
          if (!only_update_) emit(t);
          row.debug_info = "SVC ALERT";
          row.state = e.state;
        }
        break;
      case LogType::downtime_alert_host: {
        const int active = starts_started(line.field(e.state_type)) ? 1 : 0;
        if (row.in_host_downtime != active) {
          if (!only_update_) emit(t);
          row.debug_info = t.is_host ? "HOST DOWNTIME" : "SVC HOST DOWNTIME";
          row.in_host_downtime = active;
          if (t.is_host) row.in_downtime = active;
        } else {
          changed = false;
        }
        break;
      }
      case LogType::downtime_alert_service: {
        const int active = starts_started(line.field(e.state_type)) ? 1 : 0;
        if (row.in_downtime != active) {
          if (!only_update_) emit(t);
          row.debug_info = "DOWNTIME SERVICE";
          row.in_downtime = active;
        }
        break;
      }
      case LogType::flapping_host:
      case LogType::flapping_service: {
        const int active = starts_started(line.field(e.state_type)) ? 1 : 0;
        if (row.is_flapping != active) {
          if (!only_update_) emit(t);
          row.debug_info = "FLAPPING ";
          row.is_flapping = active;
        } else {
          changed = false;
        }
        break;
      }
      case LogType::timeperiod_transition: {
        std::string_view name;
        int to = 0;
        if (!timeperiod_transition(line.field(e.options), name, to)) break;
        if (name == row.notification_period && to != row.in_notification_period) {
          if (!only_update_) emit(t);
          row.debug_info = "TIMEPERIOD ";
          row.in_notification_period = to;
        }
        if (name == row.service_period && to != row.in_service_period) {
          if (!only_update_) emit(t);
          row.debug_info = "TIMEPERIOD ";
          row.in_service_period = to;
        }
        break;
      }
      default:
        break;
    }
    if (!timeperiod) {
      // An initial state Naemon logged without output says "(null)": no output.
      const std::string_view output = line.field(e.plugin_output);
      const bool initial = e.type == LogType::state_host_initial || e.type == LogType::state_service_initial;
      row.log_output = initial && output == "(null)" ? std::string_view() : output;
    }
    return changed;
  }

  // The module's process(): the row as it stands, then the next one starts where it ended.
  void emit(Tracked& t) {
    StateHistoryRow& row = t.row;
    row.duration = row.until - row.from;
    row.duration_part = static_cast<double>(row.duration) / static_cast<double>(timeframe_);
    row.durations.fill(0);
    row.parts.fill(0);
    if (row.state >= -1 && row.state <= 3) {
      row.durations[static_cast<std::size_t>(row.state + 1)] = row.duration;
      row.parts[static_cast<std::size_t>(row.state + 1)] = row.duration_part;
    }
    out_.rows.push_back(row);
    row.from = row.until;
  }

  const View& v_;
  StateHistory& out_;
  const std::int64_t since_;
  const std::int64_t until_;
  const std::int64_t timeframe_;
  bool only_update_ = true;  // before the range: states are followed, nothing is printed
  bool in_initial_states_ = false;
  std::size_t finished_ = 0;                                 // tracked_ objects finish_next() is done with
  std::vector<Tracked> tracked_;                             // in the order the objects appeared
  std::unordered_map<std::uint64_t, std::uint32_t> by_key_;  // host index, or 1 << 32 | service index
  std::unordered_map<std::string, int> periods_;             // TIMEPERIOD TRANSITION: period -> in (0/1)
};

// The entries of one file oldest first (by time, then line), merged over its chunks, of the classes the
// table reads.
class OldestFirst {
 public:
  OldestFirst(const LogReading& reading, LogReading::Range chunks) {
    for (std::size_t c = chunks.first; c < chunks.last; ++c) cursors_.push_back(Cursor{&reading.chunk(c), 0});
  }
  const LogEntry* next(const LogChunk*& chunk) {
    for (;;) {
      Cursor* best = nullptr;
      for (Cursor& c : cursors_) {
        if (c.at == c.chunk->entries.size()) continue;
        if (best == nullptr) {
          best = &c;
          continue;
        }
        const LogEntry& e = c.chunk->entries[c.at];
        const LogEntry& b = best->chunk->entries[best->at];
        if (e.time < b.time || (e.time == b.time && e.lineno < b.lineno)) best = &c;
      }
      if (best == nullptr) return nullptr;
      const LogEntry* e = &best->chunk->entries[best->at++];
      if ((k_statehist_classes & (1u << static_cast<unsigned>(e->log_class))) == 0) continue;
      chunk = best->chunk;
      return e;
    }
  }
  // The newest entry of the classes read, or null.
  [[nodiscard]] const LogEntry* last() const {
    const LogEntry* latest = nullptr;
    for (const Cursor& c : cursors_) {
      for (auto it = c.chunk->entries.rbegin(); it != c.chunk->entries.rend(); ++it) {
        if ((k_statehist_classes & (1u << static_cast<unsigned>(it->log_class))) == 0) continue;
        if (latest == nullptr || it->time > latest->time ||
            (it->time == latest->time && it->lineno > latest->lineno))
          latest = &*it;
        break;
      }
    }
    return latest;
  }

 private:
  struct Cursor {
    const LogChunk* chunk = nullptr;
    std::size_t at = 0;
  };
  std::vector<Cursor> cursors_;
};

std::uint32_t host_named(const View& v, std::string_view name) {
  const auto it = v.model().host_by_name.find(name);
  if (it == v.model().host_by_name.end()) return k_none;
  const std::uint32_t h = model::index(it->second);
  return h < v.status->hosts.size() ? h : k_none;
}

std::uint32_t service_named(const View& v, std::string_view host, std::string_view description) {
  if (description.empty()) return k_none;
  const model::ServiceId s = v.model().find_service(host, description);
  if (!model::is_set(s) || model::index(s) >= v.status->services.size()) return k_none;
  return model::index(s);
}

// The module's TableStateHistory::answerQuery. The range needs a start; it starts at the newest file
// whose first line is before it (the states at the start come from that file's earlier lines), skips that
// file's first line (as the module's walk does) or the whole file when it ends before the range, and goes
// on to newer files until a line at or after the range's end. The walk goes as far as the rows asked for
// need: a query that stops early reads no further.
class StatehistCursor final : public RowCursor {
 public:
  StatehistCursor(const View& v, const RowHints& hints)
      : history_(std::make_shared<StateHistory>()), rows_kept_(hints.rows_kept) {
    v.state_history = history_;
    const std::int64_t since = std::max<std::int64_t>(hints.time_from, 0);
    const std::int64_t until = std::min<std::int64_t>(hints.time_until, static_cast<std::int64_t>(v.now) + 1);
    if (since == 0) {
      fail(400, "Start of timeframe required. e.g. Filter: time > 1234567890");
      return;
    }
    if (until < since) return;  // the filter accepts no time at all (`Or: 0`): no rows
    if (until - since == 1) {
      fail(400, "Query timeframe is 0 seconds");
      return;
    }
    if (settings_of(v).log_file.empty() || v.status == nullptr || v.status->model == nullptr) return;
    reading_ = &log_reading(v, since, until);
    const std::vector<LogFilePlan>& files = reading_->files();
    if (files.empty()) return;
    start_ = files.size() - 1;  // newest first: the oldest unless one begins before `since`
    for (std::size_t i = 0; i < files.size(); ++i) {
      if (files[i].since < since) {
        start_ = i;
        break;
      }
    }
    next_file_ = start_ + 1;
    walk_.emplace(v, *history_, since, until);
    stage_ = Stage::walking;
  }

  bool next(Row& row) override {
    std::vector<StateHistoryRow>& rows = history_->rows;
    for (;;) {
      if (handed_out_ < rows.size()) {
        row = Row{static_cast<std::uint32_t>(handed_out_++), 0};
        return true;
      }
      if (stage_ == Stage::done) return false;
      if (!rows_kept_) {
        rows.clear();
        handed_out_ = 0;
      }
      if (stage_ == Stage::walking && !walk_on()) stage_ = Stage::finishing;
      if (stage_ == Stage::finishing && !walk_->finish_next()) stage_ = Stage::done;
    }
  }

 private:
  enum class Stage : std::uint8_t { done, walking, finishing };

  // One line of the walk, or the next file's first; false when the walk is over.
  bool walk_on() {
    while (!entries_) {
      if (next_file_ == 0) return false;
      const std::size_t f = --next_file_;
      entries_.emplace(*reading_, reading_->lines(f));
      if (f != start_) break;
      const LogEntry* last = entries_->last();
      if (f != 0 && last != nullptr && last->time < walk_->since()) {
        entries_.reset();
        continue;
      }
      const LogChunk* skipped = nullptr;
      (void)entries_->next(skipped);
    }
    const LogChunk* chunk = nullptr;
    const LogEntry* e = entries_->next(chunk);
    if (e == nullptr) {
      entries_.reset();
      return true;
    }
    const View& v = walk_->view();
    Line line{.entry = e, .chunk = chunk};
    const std::string_view host_name = line.field(e->host_name);
    if (!host_name.empty()) {
      line.host = host_named(v, host_name);
      if (line.host != k_none) line.service = service_named(v, host_name, line.field(e->service_description));
    }
    return walk_->handle(line);
  }

  std::shared_ptr<StateHistory> history_;
  const bool rows_kept_;
  Stage stage_ = Stage::done;
  std::size_t handed_out_ = 0;  // history_->rows before this are handed out
  LogReading* reading_ = nullptr;
  std::size_t start_ = 0;      // the file that holds the range's start
  std::size_t next_file_ = 0;  // files are walked from start_ down to 0: the one after this
  std::optional<OldestFirst> entries_;
  std::optional<Walk> walk_;
};

std::unique_ptr<RowCursor> open_statehist(const View& v, const RowHints& hints) {
  return std::make_unique<StatehistCursor>(v, hints);
}

const StateHistoryRow& row_of(const View& v, Row r) {
  return v.state_history->rows[r.index];
}

template <auto Field>
void int_field(const View& v, Row r, Cell& out) {
  out.set_int(static_cast<std::int64_t>(row_of(v, r).*Field));
}
template <auto Field>
void double_field(const View& v, Row r, Cell& out) {
  out.set_float(row_of(v, r).*Field);
}
template <auto Field>
void string_field(const View& v, Row r, Cell& out) {
  out.set_string(row_of(v, r).*Field);
}
template <std::size_t State>
void duration_of(const View& v, Row r, Cell& out) {
  out.set_int(row_of(v, r).durations[State]);
}
template <std::size_t State>
void part_of(const View& v, Row r, Cell& out) {
  out.set_float(row_of(v, r).parts[State]);
}

Row current_host(const View& v, Row r) {
  return Row{row_of(v, r).host, 0};
}
Row current_service(const View& v, Row r) {
  return Row{row_of(v, r).service, 0};
}

// As the module: the contacts of the host or service (services as service_authorization says).
bool statehist_visible(const View& v, Row r, std::uint32_t contact) {
  const StateHistoryRow& row = row_of(v, r);
  if (row.service != k_no_row) return service_visible(v, row.service, contact);
  return host_visible(v, row.host, contact);
}

void add_statehist_columns(ColumnAdder& add) {
  using R = StateHistoryRow;
  add("time", T::time, int_field<&R::time>, "Time of the log event (seconds since 1/1/1970)");
  add("lineno", T::integer, int_field<&R::lineno>, "The number of the line in the log file");
  add("from", T::time, int_field<&R::from>, "Start time of state (seconds since 1/1/1970)");
  add("until", T::time, int_field<&R::until>, "End time of state (seconds since 1/1/1970)");
  add("duration", T::integer, int_field<&R::duration>, "Duration of state (until - from)");
  add("duration_part", T::floating, double_field<&R::duration_part>,
      "Duration part in regard to the query timeframe");
  add("state", T::integer, int_field<&R::state>,
      "The state of the host or service in question - OK(0) / WARNING(1) / CRITICAL(2) / UNKNOWN(3) / "
      "UNMONITORED(-1)");
  add("host_down", T::integer, int_field<&R::host_down>, "Shows if the host of this service is down");
  add("in_downtime", T::integer, int_field<&R::in_downtime>, "Shows if the host or service is in downtime");
  add("in_host_downtime", T::integer, int_field<&R::in_host_downtime>,
      "Shows if the host of this service is in downtime");
  add("is_flapping", T::integer, int_field<&R::is_flapping>, "Shows if the host or service is flapping");
  add("in_notification_period", T::integer, int_field<&R::in_notification_period>,
      "Shows if the host or service is within its notification period");
  add("notification_period", T::string, string_field<&R::notification_period>,
      "The notification period of the host or service in question");
  add("in_service_period", T::integer, int_field<&R::in_service_period>,
      "Shows if the host or service is within its service period");
  add("service_period", T::string, string_field<&R::service_period>,
      "The service period of the host or service in question");
  add("debug_info", T::string, string_field<&R::debug_info>, "Debug information");
  add("host_name", T::string, string_field<&R::host_name>, "Host name");
  add("service_description", T::string, string_field<&R::service_description>, "Description of the service");
  add("log_output", T::string, string_field<&R::log_output>, "Logfile output relevant for this state");
  add("duration_ok", T::integer, duration_of<1>, "OK duration of state ( until - from )");
  add("duration_part_ok", T::floating, part_of<1>, "OK duration part in regard to the query timeframe");
  add("duration_warning", T::integer, duration_of<2>, "WARNING duration of state (until - from)");
  add("duration_part_warning", T::floating, part_of<2>,
      "WARNING duration part in regard to the query timeframe");
  add("duration_critical", T::integer, duration_of<3>, "CRITICAL duration of state (until - from)");
  add("duration_part_critical", T::floating, part_of<3>,
      "CRITICAL duration part in regard to the query timeframe");
  add("duration_unknown", T::integer, duration_of<4>, "UNKNOWN duration of state (until - from)");
  add("duration_part_unknown", T::floating, part_of<4>,
      "UNKNOWN duration part in regard to the query timeframe");
  add("duration_unmonitored", T::integer, duration_of<0>, "UNMONITORED duration of state (until - from)");
  add("duration_part_unmonitored", T::floating, part_of<0>,
      "UNMONITORED duration part in regard to the query timeframe");
}

}  // namespace

const Table& statehist_table() {
  static const Table table = [] {
    Table t;
    t.name = "statehist";
    t.prefix = "statehist_";
    t.fallback_prefix = "current_";
    t.natural_sort = {"host_name", "service_description"};
    ColumnAdder add(t.columns);
    add_statehist_columns(add);
    ColumnAdder host(t.columns, "current_host_", current_host);
    add_host_columns(host);
    ColumnAdder service(t.columns, "current_service_", current_service);
    add_service_columns(service);
    sort_columns(t.columns);
    t.open = open_statehist;
    t.visible = statehist_visible;
    return t;
  }();
  return table;
}

}  // namespace tables
}  // namespace vedette::livestatus
