// What one query reads: an immutable status snapshot taken by the core thread (files::StatusSnapshot: the
// model, the run-time state of every host and service, comments, downtimes, contact state), the time the
// query runs at, and what the server knows (settings, counters). Livestatus threads only read a View; the
// snapshot keeps the model alive across a reload.
#pragma once

#include "files/status_file.hpp"
#include "model/model.hpp"
#include "timeperiod/evaluator.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

namespace vedette::livestatus {

struct TableIndex;    // tables.hpp
class LogReading;     // log_cache.hpp
struct StateHistory;  // tables/statehist.cpp

// View::auth_user without an AuthUser header, and for a name that is no contact (the user sees nothing).
inline constexpr std::uint32_t k_no_auth_user = 0xFFFF'FFFFu;
inline constexpr std::uint32_t k_unknown_auth_user = 0xFFFF'FFFEu;

// The module's AuthUser settings (service_authorization=loose|strict, group_authorization=loose|strict).
enum class Authorization : std::uint8_t { loose, strict };

struct Settings {
  Authorization service_authorization = Authorization::loose;
  Authorization group_authorization = Authorization::strict;
  std::string log_file;          // the main config's log_file: the log table reads it
  std::string log_archive_path;  // and its archives
  // The module's max_cached_messages (log lines the process keeps parsed) and max_lines_per_logfile (the
  // rest of a longer file is not read).
  std::size_t max_cached_messages = 500'000;
  std::size_t max_lines_per_logfile = 1'000'000;
  // The module's pnp_path (ending in '/'); empty: pnpgraph_present is -1, as without the option.
  std::string pnp_path;
  // The module's hidden_custom_var_prefix: custom variables whose name starts with it are not shown.
  std::string hidden_custom_var_prefix;
  int interval_length = 60;             // the main config's: staleness, and the status table
  bool check_external_commands = true;  // the main config's, for the status table
};

// Counters of the server, for the status table; written by the server threads.
struct Counters {
  std::atomic<std::uint64_t> connections{0};
  std::atomic<std::uint64_t> requests{0};
  std::atomic<std::uint32_t> active_connections{0};
};

struct View {
  std::shared_ptr<const files::StatusSnapshot> status;
  std::time_t now = 0;
  // The model's timeperiods, evaluated without a cache (Livestatus threads may not use the core's).
  const timeperiod::Evaluator* periods = nullptr;
  const Settings* settings = nullptr;
  const Counters* counters = nullptr;
  // The contact of the AuthUser header (an index into the model's contacts), or k_no_auth_user /
  // k_unknown_auth_user. The list and counter columns (services, members, num_services_*, parents, ...)
  // show only what this contact may see, as the module's do; Table::visible takes the contact itself.
  std::uint32_t auth_user = k_no_auth_user;
  // Lookup structures the tables derive from the snapshot (make_table_index() in tables.hpp). The server
  // builds one per snapshot and hands it to every View of that snapshot; null (or one built for another
  // snapshot): the first column that needs it builds one for this View alone, which costs O(objects).
  mutable std::shared_ptr<const TableIndex> index;
  // Whether each timeperiod holds at `now`, filled as columns ask (-1: not evaluated yet). One View belongs
  // to one query on one thread, so the tables may fill these while reading.
  mutable std::vector<std::int8_t> in_period;
  // What the log and statehist tables read of the log (Row::group indexes its chunks), held for the query
  // even when the process-wide cache drops it. A copy of the View shares it: a second cursor over the
  // same range (the query's answer counted, then produced: Query::Run::again) reads the same lines.
  mutable std::shared_ptr<LogReading> log_reading;
  // The rows a statehist cursor computed (Row::index indexes them); a cursor replaces them.
  mutable std::shared_ptr<StateHistory> state_history;

  [[nodiscard]] const model::Model& model() const { return *status->model; }
};

}  // namespace vedette::livestatus
