// The run-time ("hot") state of hosts and services, kept apart from their configuration (model/), in
// arrays indexed by the same ids. The engine changes it (core thread only); retention/ saves and restores it.
#pragma once

#include "state/attributes.hpp"
#include "state/flap_history.hpp"
#include "state/uuid.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace vedette::state {

using Time = std::int64_t;  // seconds since the epoch, the resolution of Naemon's files and logs

enum class StateType : std::uint8_t { soft = 0, hard = 1 };  // Naemon's numbers in status.dat
enum class CheckType : std::uint8_t { active = 0, passive = 1 };

// Naemon's state numbers.
inline constexpr int k_state_ok = 0, k_state_warning = 1, k_state_critical = 2, k_state_unknown = 3;
inline constexpr int k_host_up = 0, k_host_down = 1, k_host_unreachable = 2;

// Naemon's `struct timeval` as its files write it ("sec.usec").
struct Timeval {
  Time sec = 0;
  std::int32_t usec = 0;
};

// What Naemon keeps per host or service about its notifications (status.dat and retention.dat fields).
// engine::record_notification() and the engine's resets change it.
struct NotificationState {
  Time last_notification = 0;
  Time next_notification = 0;    // no problem notification before this (re-notification interval)
  Uuid current_notification_id;  // a new one per notification sent
  int current_notification_number = 0;
  // Bits 1 << state of the states notified since the last recovery (Naemon's in-memory layout, not
  // retention.dat's notified_on_N order).
  model::OptionSet notified_on = 0;
  bool no_more_notifications = false;
};

// Naemon's event and problem ids: every state change gets the next event id (a program-wide counter); a
// problem (a change away from OK/UP) gets a new problem id, which becomes last_problem_id at the recovery.
struct EventIds {
  unsigned long current_event_id = 0;
  unsigned long last_event_id = 0;
  Uuid current_problem_id;
  Uuid last_problem_id;
  Time problem_start = 0;
  Time problem_end = 0;
};

// Naemon's CHECK_OPTION_* bits: how the check scheduled next was scheduled (check_options in status.dat,
// retention.dat and Livestatus), kept until that check runs.
inline constexpr std::uint8_t k_check_option_force_execution = 1;  // SCHEDULE_FORCED_*_CHECK
inline constexpr std::uint8_t k_check_option_freshness = 2;        // a stale result's forced check (with 1)
inline constexpr std::uint8_t k_check_option_dependency = 8;       // a predictive dependency check
inline constexpr std::uint8_t k_check_option_allow_postpone =
    16;  // a soft retry, or the check_period's start

struct CheckState {
  int current_state = 0;
  int last_state = 0;
  int last_hard_state = 0;
  StateType state_type = StateType::hard;
  int current_attempt = 1;
  CheckType check_type = CheckType::active;
  std::uint8_t check_options = 0;  // k_check_option_* of the check scheduled next
  bool has_been_checked = false;
  bool is_executing = false;
  Time last_check = 0;
  Time next_check = 0;
  Time last_state_change = 0;
  Time last_hard_state_change = 0;
  double latency = 0;              // seconds between the scheduled and the actual start
  double execution_time = 0;       // seconds the plugin ran
  std::uint16_t check_source = 0;  // where the last result came from: an engine::CheckSources index
  // Naemon's last_update: when the object's status last changed (a result applied, a command naming it, the
  // start or a reload: World::mark_updated), in µs.
  Timeval last_update;
  std::string plugin_output;
  std::string long_plugin_output;
  std::string perf_data;
  // What commands changed (state/attributes.hpp): the enable flags now, one bit per Flag (configured_flags()
  // at start), the MODATTR_* bits of what differs from the configuration, and the changed values, if any.
  unsigned long modified_attributes = 0;
  // ACKNOWLEDGE_*_PROBLEM: Naemon's problem_has_been_acknowledged, acknowledgement_type (1 normal: ends with
  // any state change; 2 sticky: ends with the recovery) and acknowledgement_end_time (0: never expires).
  Time acknowledgement_end_time = 0;
  std::uint8_t acknowledgement_type = 0;
  bool problem_has_been_acknowledged = false;
  std::uint8_t flags = 0;
  std::shared_ptr<const Overrides> overrides;
  NotificationState notification;
  EventIds events;

  [[nodiscard]] bool enabled(Flag f) const { return (flags & flag_bit(f)) != 0; }
  void clear_acknowledgement() {
    problem_has_been_acknowledged = false;
    acknowledgement_type = 0;
    acknowledgement_end_time = 0;
  }
  void set_enabled(Flag f, bool on) {
    flags =
        on ? static_cast<std::uint8_t>(flags | flag_bit(f)) : static_cast<std::uint8_t>(flags & ~flag_bit(f));
  }
};

// The values in effect for an object: changed by a command (Overrides) or else configured.
[[nodiscard]] inline double check_interval_of(const model::Checkable& c, const CheckState& s) {
  return s.overrides != nullptr && s.overrides->check_interval ? *s.overrides->check_interval
                                                               : c.check_interval;
}
[[nodiscard]] inline double retry_interval_of(const model::Checkable& c, const CheckState& s) {
  return s.overrides != nullptr && s.overrides->retry_interval ? *s.overrides->retry_interval
                                                               : c.retry_interval;
}
[[nodiscard]] inline int max_check_attempts_of(const model::Checkable& c, const CheckState& s) {
  return s.overrides != nullptr && s.overrides->max_check_attempts ? *s.overrides->max_check_attempts
                                                                   : c.max_check_attempts;
}

// What a status or retention snapshot record takes of what commands changed: the same fields in both, and
// the Overrides kept in the snapshot (keep_overrides).
template <typename Record, typename State>
void copy_attributes(Record& out, const State& s, std::vector<std::shared_ptr<const Overrides>>& kept) {
  out.modified_attributes = s.modified_attributes;
  out.flags = s.flags;
  out.problem_has_been_acknowledged = s.problem_has_been_acknowledged;
  out.acknowledgement_type = s.acknowledgement_type;
  out.acknowledgement_end_time = s.acknowledgement_end_time;
  out.overrides = keep_overrides(s.overrides, kept);
  out.notification = s.notification;
  out.events = s.events;
  out.flap = s.flap;
}

struct ServiceState : CheckState {
  FlapHistory flap;
  bool host_problem_at_last_check = false;
  Time last_time_ok = 0, last_time_warning = 0, last_time_unknown = 0, last_time_critical = 0;
};

struct HostState : CheckState {
  HostFlapHistory flap;
  Time last_time_up = 0, last_time_down = 0, last_time_unreachable = 0;
};

[[nodiscard]] const char* service_state_name(int state);    // "OK", "WARNING", …
[[nodiscard]] const char* host_state_name(int state);       // "UP", "DOWN", "UNREACHABLE"
[[nodiscard]] const char* state_type_name(StateType type);  // "SOFT", "HARD"

}  // namespace vedette::state
