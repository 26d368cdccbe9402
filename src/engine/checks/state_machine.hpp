// Naemon's state logic: how a check result changes a host's or a service's state (soft and hard states,
// attempts, host problems forcing services hard, reachability through parents) and what must follow
// (log lines, the next check, on-demand host checks). Pure functions over the state structs, so every rule
// is unit-tested without a loop or processes. Core thread only.
//
// Follows Naemon's checks_service.c (handle_async_service_check_result) and checks_host.c
// (update_host_state_post_check, process_host_check_result, handle_host_state), stalking included. What
// follows a result (flapping, downtimes, notifications, event handlers) is returned as effects for the core
// to run.
#pragma once

#include "engine/state/check_state.hpp"
#include "engine/state/state_settings.hpp"

#include <string>

namespace vedette::engine {

// A finished check, before it becomes state: the state and texts as Naemon derives them from the plugin's
// exit (exec::interpret_check_result: timeouts, out-of-range codes, output parsing, ';' -> ':').
// Active results come from the executor, passive ones from the command file.
struct CheckOutcome {
  CheckType type = CheckType::active;
  // Services: 0-3. Hosts: active checks on the plugin scale (0-3, turned into UP/DOWN here), passive ones
  // the host state as submitted (0 UP, 1 DOWN, 2 UNREACHABLE).
  int state = 0;
  Time start = 0;
  Time finish = 0;
  double execution_time = 0;
  double latency = 0;
  std::string output;  // first line, before '|'; empty means the plugin printed nothing
  std::string long_output;
  std::string perf_data;
};

// What the caller must do after a service result.
struct ServiceEffects {
  bool state_change = false;
  bool hard_state_change = false;
  bool log_alert = false;             // SERVICE ALERT (log_service_retries already applied)
  bool log_hard_due_to_host = false;  // SERVICE INFO: …; Service switch to hard down state due to host down.
  bool log_passive = false;           // PASSIVE SERVICE CHECK
  bool check_host_now = false;        // an on-demand check of the service's host
  bool used_cached_host_state = false;  // its host's last result stood in for one (Naemon's check stats)
  bool use_retry_interval = false;      // next check after retry_interval instead of check_interval
  bool acknowledgement_ended = false;   // the change ended the acknowledgement: its comments go too
  // Naemon's handle_async_service_check_result, in this order: check flapping (the service's and its
  // host's), start flexible downtimes (`flexible_downtime_may_start`: a hard problem that changed state
  // or hard state), notify (unless such a downtime started), run the event handler, the OCSP command,
  // and last, for an OK result, settle_service_ok().
  bool check_flapping = false;
  bool flexible_downtime_may_start = false;
  bool notify = false;
  bool run_event_handler = false;
  bool settle_ok = false;
  // The host is not UP and is not re-checked: Naemon may re-send the host's notifications.
  bool notify_host = false;
  // The second to last attempt of a problem: the services this one depends on are checked now
  // (enable_predictive_service_dependency_checks).
  bool check_dependency_masters = false;
  // Stalking: the state is hard and unchanged, nothing was logged for this result, its output (or long
  // output) changed and stalking_options has the state: the SERVICE ALERT line is logged again.
  bool log_stalking = false;
};

// The service's view of its host, and what the result changes there (first state change times).
struct ServiceHostView {
  HostState& state;
  int initial_state;  // the host's configured initial_state
};

struct ServiceRules {
  int max_check_attempts;
  bool is_volatile;
  bool has_retry_interval;            // retry_interval != 0
  model::OptionSet stalking_options;  // bits 1 << state
};

ServiceEffects apply_service_result(ServiceState& svc, const ServiceRules& rules, ServiceHostView host,
                                    const CheckOutcome& result, const StateSettings& settings, Time now,
                                    EventNumbering& numbering);

// What the caller must do after a host result.
struct HostEffects {
  bool state_change = false;
  bool hard_state_change = false;
  bool log_alert = false;    // HOST ALERT (log_host_retries already applied)
  bool log_passive = false;  // PASSIVE HOST CHECK
  bool use_retry_interval = false;
  // Naemon re-checks neighbours when a host changes: parents and children that are not UP after a
  // recovery, parents that are UP and children that are not UNREACHABLE after a failure.
  bool check_neighbours_after_recovery = false;
  bool check_neighbours_after_failure = false;
  bool acknowledgement_ended = false;  // the change ended the acknowledgement: its comments go too
  // Naemon's handle_host_state, in this order: flexible downtimes may start (any state change), notify
  // (unless a downtime started), run the event handler, and last, for a recovery, settle_host_up().
  bool flexible_downtime_may_start = false;
  bool notify = false;
  bool run_event_handler = false;
  bool settle_up = false;
  // A new problem at its second to last attempt: the hosts this one depends on are checked now
  // (enable_predictive_host_dependency_checks).
  bool check_dependency_masters = false;
  // Stalking: the state is the one before the result, its output (or long output) changed and
  // stalking_options has the state: the HOST ALERT line is logged (again, if it was already: Naemon does
  // not look at what was logged, nor at the state type or log_host_retries, for hosts).
  bool log_stalking = false;
};

struct HostRules {
  int max_check_attempts;
  bool has_check_command;
  bool has_retry_interval;
  // Reachability: whether the host has parents, and whether at least one of them is UP right now.
  bool has_parents;
  bool any_parent_up;
  model::OptionSet stalking_options;  // bits 1 << state
};

HostEffects apply_host_result(HostState& host, const HostRules& rules, const CheckOutcome& result,
                              const StateSettings& settings, Time now, EventNumbering& numbering);

// Naemon resets a recovered object only after its alert was logged, its notification sent and its event
// handler run, so that these see the attempt and state type of the result (`SERVICE ALERT: …;OK;SOFT;2`,
// a hard recovery at the attempt it had). The caller runs them at the point the effects name.
void settle_service_ok(ServiceState& svc);
void settle_host_up(HostState& host);

}  // namespace vedette::engine
