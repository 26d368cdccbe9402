// The log table: the lines of Naemon's log and its archives in the time range the query's filter allows,
// newest first, each with the fields its message type carries and the current_host_*, current_service_*,
// current_contact_* and current_command_* columns of the objects it names, looked up by name per query.
#include "livestatus/log_cache.hpp"
#include "livestatus/tables/tables_internal.hpp"

#include <algorithm>
#include <memory>
#include <optional>

namespace vedette::livestatus::tables {
namespace {

using T = ColumnType;

// Rows: index = the entry in its chunk, group = the chunk in View::log_reading.
const LogChunk& chunk_of(const View& v, Row r) {
  return v.log_reading->chunk(r.group);
}
const LogEntry& entry_of(const View& v, Row r) {
  return chunk_of(v, r).entries[r.index];
}

template <LogField LogEntry::*Field>
void field(const View& v, Row r, Cell& out) {
  const LogChunk& c = chunk_of(v, r);
  const LogEntry& e = c.entries[r.index];
  out.set_string(c.field(e, e.*Field));
}
void message(const View& v, Row r, Cell& out) {
  const LogChunk& c = chunk_of(v, r);
  out.set_string(c.line(c.entries[r.index]));
}
void log_time(const View& v, Row r, Cell& out) {
  out.set_int(entry_of(v, r).time);
}
void lineno(const View& v, Row r, Cell& out) {
  out.set_int(entry_of(v, r).lineno);
}
void log_class(const View& v, Row r, Cell& out) {
  out.set_int(static_cast<std::int64_t>(entry_of(v, r).log_class));
}
void state(const View& v, Row r, Cell& out) {
  out.set_int(entry_of(v, r).state);
}
void attempt(const View& v, Row r, Cell& out) {
  out.set_int(entry_of(v, r).attempt);
}

bool has_model(const View& v) {
  return v.status != nullptr && v.status->model != nullptr;
}
std::string_view text(const View& v, Row r, LogField LogEntry::*f) {
  const LogChunk& c = chunk_of(v, r);
  const LogEntry& e = c.entries[r.index];
  return c.field(e, e.*f);
}

// The objects a line names, in the model of this query's snapshot (k_no_row: none of that name now).
std::uint32_t host_index(const View& v, Row r) {
  if (!has_model(v)) return k_no_row;
  const auto it = v.model().host_by_name.find(text(v, r, &LogEntry::host_name));
  if (it == v.model().host_by_name.end()) return k_no_row;
  const std::uint32_t h = model::index(it->second);
  return h < v.status->hosts.size() ? h : k_no_row;
}
std::uint32_t service_index(const View& v, Row r) {
  if (!has_model(v) || entry_of(v, r).service_description.size == 0) return k_no_row;
  const model::ServiceId s =
      v.model().find_service(text(v, r, &LogEntry::host_name), text(v, r, &LogEntry::service_description));
  if (!model::is_set(s) || model::index(s) >= v.status->services.size()) return k_no_row;
  return model::index(s);
}
Row current_host(const View& v, Row r) {
  return Row{host_index(v, r), 0};
}
Row current_service(const View& v, Row r) {
  return Row{service_index(v, r), 0};
}
Row current_contact(const View& v, Row r) {
  if (!has_model(v)) return Row{k_no_row, 0};
  const auto& by_name = v.model().contact_by_name;
  const auto it = by_name.find(text(v, r, &LogEntry::contact_name));
  return Row{it == by_name.end() ? k_no_row : model::index(it->second), 0};
}
Row current_command(const View& v, Row r) {
  if (!has_model(v)) return Row{k_no_row, 0};
  const auto& by_name = v.model().command_by_name;
  const auto it = by_name.find(text(v, r, &LogEntry::command_name));
  return Row{it == by_name.end() ? k_no_row : model::index(it->second), 0};
}

// The module's TableLog::isAuthorized: a line of a host or service that exists is shown to its contacts
// (services as service_authorization says); a line of one that is gone is hidden when it is an alert, a
// notification, a passive check or a state; every other line (program, commands without an object, info)
// is shown to everyone, even a user who is no contact.
bool log_visible(const View& v, Row r, std::uint32_t contact) {
  if (const std::uint32_t s = service_index(v, r); s != k_no_row) return service_visible(v, s, contact);
  if (const std::uint32_t h = host_index(v, r); h != k_no_row) return host_visible(v, h, contact);
  switch (entry_of(v, r).log_class) {
    case LogClass::alert:
    case LogClass::notification:
    case LogClass::passive:
    case LogClass::state:
      return false;
    default:
      return true;
  }
}

// The entries of one file, newest first (by time, then line, as the module's map), merged over its chunks.
class NewestFirst {
 public:
  NewestFirst(const LogReading& reading, LogReading::Range chunks, std::int64_t until) {
    for (std::size_t c = chunks.first; c < chunks.last; ++c) {
      const std::vector<LogEntry>& entries = reading.chunk(c).entries;
      // Entries up to `until` itself: the module starts at the key (until, 999999999).
      const auto end = std::upper_bound(entries.begin(), entries.end(), until,
                                        [](std::int64_t t, const LogEntry& e) { return t < e.time; });
      cursors_.push_back(Cursor{.chunk = static_cast<std::uint32_t>(c),
                                .left = static_cast<std::uint32_t>(end - entries.begin()),
                                .entries = &entries});
    }
  }
  // False when every chunk is done.
  bool next(Row& row, const LogEntry*& entry) {
    Cursor* best = nullptr;
    for (Cursor& c : cursors_) {
      if (c.left == 0) continue;
      const LogEntry& e = (*c.entries)[c.left - 1];
      if (best == nullptr) {
        best = &c;
        continue;
      }
      const LogEntry& b = (*best->entries)[best->left - 1];
      if (e.time > b.time || (e.time == b.time && e.lineno > b.lineno)) best = &c;
    }
    if (best == nullptr) return false;
    --best->left;
    row = Row{best->left, best->chunk};
    entry = &(*best->entries)[best->left];
    return true;
  }

 private:
  struct Cursor {
    std::uint32_t chunk = 0;
    std::uint32_t left = 0;  // entries [0, left) not taken yet
    const std::vector<LogEntry>* entries = nullptr;
  };
  std::vector<Cursor> cursors_;
};

// The module's TableLog::answerQuery: from the newest file whose first line is before `until` back to
// older ones, each file's lines from `until` down; the first line older than `since` ends the query.
// Without a time filter the range is [0, now + 1]: lines from the future stay hidden, as there. A file is
// read when the query reaches it, so a query that stops early never reads the older ones.
class LogCursor final : public RowCursor {
 public:
  LogCursor(const View& v, const RowHints& hints)
      : classes_(hints.classes & k_all_log_classes),
        since_(std::max<std::int64_t>(hints.time_from, 0)),
        until_(std::min<std::int64_t>(hints.time_until, static_cast<std::int64_t>(v.now) + 1)) {
    if (settings_of(v).log_file.empty() || classes_ == 0 || since_ > until_) return;
    reading_ = &log_reading(v, since_, until_);
  }

  bool next(Row& row) override {
    while (reading_ != nullptr) {
      if (!entries_) {
        if (file_ == reading_->files().size()) break;
        entries_.emplace(*reading_, reading_->lines(file_++), until_);
      }
      const LogEntry* entry = nullptr;
      if (!entries_->next(row, entry)) {
        entries_.reset();
        continue;
      }
      if (entry->time < since_) break;
      if ((classes_ & (1u << static_cast<unsigned>(entry->log_class))) != 0) return true;
    }
    reading_ = nullptr;
    return false;
  }

 private:
  const std::uint32_t classes_;
  const std::int64_t since_;
  const std::int64_t until_;
  LogReading* reading_ = nullptr;  // null: no (more) rows
  std::size_t file_ = 0;           // the next file to read
  std::optional<NewestFirst> entries_;
};

std::unique_ptr<RowCursor> open_log(const View& v, const RowHints& hints) {
  return std::make_unique<LogCursor>(v, hints);
}

void add_log_columns(ColumnAdder& add) {
  add("time", T::time, log_time, "Time of the log event (UNIX timestamp)");
  add("lineno", T::integer, lineno, "The number of the line in the log file");
  add("class", T::integer, log_class,
      "The class of the message as integer (0:info, 1:state, 2:program, 3:notification, 4:passive, "
      "5:command)");
  add("message", T::string, message, "The complete message line including the timestamp");
  add("type", T::string, field<&LogEntry::type_text>,
      "The type of the message (text before the colon), the message itself for info messages");
  add("options", T::string, field<&LogEntry::options>, "The part of the message after the ':'");
  add("comment", T::string, field<&LogEntry::comment>, "A comment field used in various message types");
  add("plugin_output", T::string, field<&LogEntry::plugin_output>,
      "The output of the check, if any is associated with the message");
  add("state", T::integer, state, "The state of the host or service in question");
  add("state_type", T::string, field<&LogEntry::state_type>,
      "The type of the state (varies on different log classes)");
  add("attempt", T::integer, attempt, "The number of the check attempt");
  add("service_description", T::string, field<&LogEntry::service_description>,
      "The description of the service log entry is about (might be empty)");
  add("host_name", T::string, field<&LogEntry::host_name>,
      "The name of the host the log entry is about (might be empty)");
  add("contact_name", T::string, field<&LogEntry::contact_name>,
      "The name of the contact the log entry is about (might be empty)");
  add("command_name", T::string, field<&LogEntry::command_name>,
      "The name of the command of the log entry (e.g. for notifications)");
}

}  // namespace

LogReading& log_reading(const View& v, std::int64_t since, std::int64_t until) {
  if (v.log_reading == nullptr || !v.log_reading->reads(since, until)) {
    const Settings& settings = settings_of(v);
    v.log_reading = std::make_shared<LogReading>(
        LogCache::shared(),
        LogSources{.log_file = settings.log_file, .archive_path = settings.log_archive_path},
        LogCache::Limits{.max_cached_lines = settings.max_cached_messages,
                         .max_lines_per_file = settings.max_lines_per_logfile},
        since, until);
  }
  return *v.log_reading;
}

const Table& log_table() {
  static const Table table = [] {
    Table t;
    t.name = "log";
    t.prefix = "log_";
    // The module's TableLog::column(): "host_name" is the line's, "host_alias" the current host's.
    t.fallback_prefix = "current_";
    t.natural_sort = {"time"};
    ColumnAdder add(t.columns);
    add_log_columns(add);
    ColumnAdder host(t.columns, "current_host_", current_host);
    add_host_columns(host);
    ColumnAdder service(t.columns, "current_service_", current_service);
    add_service_columns(service);
    ColumnAdder contact(t.columns, "current_contact_", current_contact);
    add_contact_columns(contact);
    ColumnAdder command(t.columns, "current_command_", current_command);
    add_command_columns(command);
    sort_columns(t.columns);
    t.open = open_log;
    t.visible = log_visible;
    return t;
  }();
  return table;
}

}  // namespace vedette::livestatus::tables
