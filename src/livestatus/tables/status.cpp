// The status table: one row of program-wide values (the snapshot's programstatus, the model's sizes, the
// server's counters).
#include "livestatus/log_cache.hpp"
#include "livestatus/tables/tables_internal.hpp"

#include <algorithm>

namespace vedette::livestatus::tables {
namespace {

using T = ColumnType;
using files::CheckStat;

const files::StatusProgram& program(const View& v) {
  return v.status->program;
}

// The log lines the process keeps parsed for the log and statehist tables.
void cached_log_messages(const View&, Row, Cell& out) {
  out.set_int(static_cast<std::int64_t>(LogCache::shared().stats().cached_lines));
}

void zero(const View&, Row, Cell& out) {
  out.set_int(0);
}
void zero_rate(const View&, Row, Cell& out) {
  out.set_float(0);
}

std::uint64_t counter(const View& v, const std::atomic<std::uint64_t> Counters::*field) {
  return v.counters != nullptr ? (v.counters->*field).load(std::memory_order_relaxed) : 0;
}

template <std::atomic<std::uint64_t> Counters::*Field>
void server_counter(const View& v, Row, Cell& out) {
  out.set_int(static_cast<std::int64_t>(counter(v, Field)));
}
// The module keeps a rate averaged over 5-second steps; without that history, the mean since the start.
template <std::atomic<std::uint64_t> Counters::*Field>
void server_rate(const View& v, Row, Cell& out) {
  const std::int64_t seconds = std::max<std::int64_t>(1, v.now - program(v).program_start);
  out.set_float(static_cast<double>(counter(v, Field)) / static_cast<double>(seconds));
}

// What the core has done since it started (files::EventCounts), and the mean rate since then.
template <std::uint64_t files::EventCounts::*Field>
void event_count(const View& v, Row, Cell& out) {
  out.set_int(static_cast<std::int64_t>(program(v).events.*Field));
}
template <std::uint64_t files::EventCounts::*Field>
void event_rate(const View& v, Row, Cell& out) {
  const std::int64_t seconds = std::max<std::int64_t>(1, v.now - program(v).program_start);
  out.set_float(static_cast<double>(program(v).events.*Field) / static_cast<double>(seconds));
}

// Checks per second over the last minute, from the programstatus check statistics.
template <CheckStat A, CheckStat B, CheckStat C>
void check_rate(const View& v, Row, Cell& out) {
  const auto last_minute = [&](CheckStat s) {
    return program(v).check_stats[static_cast<std::size_t>(s)][0];
  };
  out.set_float((last_minute(A) + last_minute(B) + last_minute(C)) / 60.0);
}

template <auto Field>
void program_flag(const View& v, Row, Cell& out) {
  out.set_int(program(v).*Field ? 1 : 0);
}
template <auto Field>
void program_int(const View& v, Row, Cell& out) {
  out.set_int(static_cast<std::int64_t>(program(v).*Field));
}

void check_external_commands(const View& v, Row, Cell& out) {
  out.set_int(settings_of(v).check_external_commands ? 1 : 0);
}
void interval_length(const View& v, Row, Cell& out) {
  out.set_int(settings_of(v).interval_length);
}
void num_hosts(const View& v, Row, Cell& out) {
  out.set_int(static_cast<std::int64_t>(v.model().hosts.size()));
}
void num_services(const View& v, Row, Cell& out) {
  out.set_int(static_cast<std::int64_t>(v.model().services.size()));
}
// What status.dat calls version, as Naemon's get_program_version() is both.
void program_version(const View& v, Row, Cell& out) {
  out.set_string(program(v).version);
}
// The naemon-livestatus release whose behaviour Vedette serves, as that module reports itself: clients
// gate features on the number (Thruk asks for dependency columns only above 1.0.9) and "-naemon" at the
// end tells Thruk and LMD the site speaks naemon-livestatus. program_version stays Vedette's own.
void livestatus_version(const View&, Row, Cell& out) {
  out.set_string("1.5.1-naemon");
}

void status_rows(const View& v, std::vector<Row>& out) {
  if (v.status == nullptr || v.status->model == nullptr) return;
  out.push_back(Row{0, 0});
}

}  // namespace

const Table& status_table() {
  static const Table table = [] {
    using C = Counters;
    using P = files::StatusProgram;
    Table t;
    t.name = "status";
    t.prefix = "statu_";
    ColumnAdder add(t.columns);
    add("neb_callbacks", T::integer, zero, "The number of NEB call backs since program start");
    add.match(Match::none);
    add("neb_callbacks_rate", T::floating, zero_rate, "The averaged number of NEB call backs per second");
    add.match(Match::none);
    add("requests", T::integer, server_counter<&C::requests>,
        "The number of requests to Livestatus since program start");
    add.match(Match::none);
    add("requests_rate", T::floating, server_rate<&C::requests>,
        "The averaged number of request to Livestatus per second");
    add.match(Match::none);
    add("connections", T::integer, server_counter<&C::connections>,
        "The number of client connections to Livestatus since program start");
    add.match(Match::none);
    add("connections_rate", T::floating, server_rate<&C::connections>,
        "The averaged number of new client connections to Livestatus per second");
    add.match(Match::none);
    add("service_checks", T::integer, event_count<&files::EventCounts::service_checks>,
        "The number of completed service checks since program start");
    add.match(Match::none);
    add("service_checks_rate", T::floating,
        check_rate<CheckStat::active_scheduled_service, CheckStat::active_ondemand_service,
                   CheckStat::passive_service>,
        "The averaged number of service checks per second");
    add.match(Match::none);
    add("host_checks", T::integer, event_count<&files::EventCounts::host_checks>,
        "The number of host checks since program start");
    add.match(Match::none);
    add("host_checks_rate", T::floating,
        check_rate<CheckStat::active_scheduled_host, CheckStat::active_ondemand_host,
                   CheckStat::passive_host>,
        "the averaged number of host checks per second");
    add.match(Match::none);
    add("forks", T::integer, event_count<&files::EventCounts::forks>,
        "The number of process creations since program start");
    add.match(Match::none);
    add("forks_rate", T::floating, event_rate<&files::EventCounts::forks>,
        "the averaged number of forks checks per second");
    add.match(Match::none);
    add("log_messages", T::integer, event_count<&files::EventCounts::log_messages>,
        "The number of new log messages since program start");
    add.match(Match::none);
    add("log_messages_rate", T::floating, event_rate<&files::EventCounts::log_messages>,
        "the averaged number of new log messages per second");
    add.match(Match::none);
    add("livechecks", T::integer, zero, "The number of checks executed via livecheck");
    add.match(Match::none);
    add("livechecks_rate", T::floating, zero_rate, "The averaged number of livechecks executed per second");
    add.match(Match::none);
    add("livecheck_overflows", T::integer, zero,
        "The number of times a check could not be executed because now livecheck helper was free");
    add.match(Match::none);
    add("livecheck_overflows_rate", T::floating, zero_rate, "The number of livecheck overflows per second");
    add.match(Match::none);
    add("nagios_pid", T::integer, program_int<&P::pid>, "The process ID of the Naemon main process");
    add("enable_notifications", T::integer, program_flag<&P::enable_notifications>,
        "Whether notifications are enabled in general (0/1)");
    add("execute_service_checks", T::integer, program_flag<&P::active_service_checks_enabled>,
        "Whether active service checks are activated in general (0/1)");
    add("accept_passive_service_checks", T::integer, program_flag<&P::passive_service_checks_enabled>,
        "Whether passive service checks are activated in general (0/1)");
    add("execute_host_checks", T::integer, program_flag<&P::active_host_checks_enabled>,
        "Whether host checks are executed in general (0/1)");
    add("accept_passive_host_checks", T::integer, program_flag<&P::passive_host_checks_enabled>,
        "Whether passive host checks are accepted in general (0/1)");
    add("enable_event_handlers", T::integer, program_flag<&P::enable_event_handlers>,
        "Whether event handlers are activated in general (0/1)");
    add("obsess_over_services", T::integer, program_flag<&P::obsess_over_services>,
        "Whether Naemon will obsess over service checks and run the ocsp_command (0/1)");
    add("obsess_over_hosts", T::integer, program_flag<&P::obsess_over_hosts>,
        "Whether Naemon will obsess over host checks (0/1)");
    add("check_service_freshness", T::integer, program_flag<&P::check_service_freshness>,
        "Whether service freshness checking is activated in general (0/1)");
    add("check_host_freshness", T::integer, program_flag<&P::check_host_freshness>,
        "Whether host freshness checking is activated in general (0/1)");
    add("enable_flap_detection", T::integer, program_flag<&P::enable_flap_detection>,
        "Whether flap detection is activated in general (0/1)");
    add("process_performance_data", T::integer, program_flag<&P::process_performance_data>,
        "Whether processing of performance data is activated in general (0/1)");
    add("check_external_commands", T::integer, check_external_commands,
        "Whether Naemon checks for external commands at its command pipe (0/1)");
    add("program_start", T::time, program_int<&P::program_start>,
        "The time of the last program start as UNIX timestamp");
    // The module never sets it: always 0.
    add("last_command_check", T::time, zero,
        "The time of the last check for a command as UNIX timestamp (deprecated)");
    add("last_log_rotation", T::time, program_int<&P::last_log_rotation>,
        "Time time of the last log file rotation");
    add("interval_length", T::integer, interval_length, "The default interval length from naemon.cfg");
    add("num_hosts", T::integer, num_hosts, "The total number of hosts");
    add("num_services", T::integer, num_services, "The total number of services");
    add("program_version", T::string, program_version, "The version of the monitoring daemon");
    add("cached_log_messages", T::integer, cached_log_messages,
        "The current number of log messages Naemon Livestatus keeps in memory");
    add("livestatus_version", T::string, livestatus_version, "The version of the Naemon Livestatus module");
    sort_columns(t.columns);
    t.rows = status_rows;
    return t;
  }();
  return table;
}

}  // namespace vedette::livestatus::tables
