// What external commands and passive results ask of the core, as values: the command dispatch hands them to
// the component that carries them out (object commands, annotations; engine/core_commands.hpp), a passive
// result to the Core, which sequences it through the result path.
// Plain values, made and taken on the core thread; the string_views point into the caller's command line
// and are not kept.
#pragma once

#include "engine/state/check_state.hpp"
#include "model/ids.hpp"

#include <cstdint>
#include <string_view>

namespace vedette::engine {

// The program-wide switches external commands turn on and off (ENABLE_NOTIFICATIONS,
// STOP_EXECUTING_SVC_CHECKS, …), each a run-time flag of the main config.
enum class ProgramSwitch : std::uint8_t {
  notifications,
  service_checks,
  passive_service_checks,
  host_checks,
  passive_host_checks,
  event_handlers,
  flap_detection,
  obsess_over_services,
  obsess_over_hosts,
  service_freshness,
  host_freshness,
  performance_data,
};

// What a CHANGE_* command sets on one host or service.
struct AttributeChange {
  enum class Kind : std::uint8_t {
    check_interval,       // CHANGE_NORMAL_*_CHECK_INTERVAL: `number`, in interval_length units
    retry_interval,       // CHANGE_RETRY_*_CHECK_INTERVAL
    max_check_attempts,   // CHANGE_MAX_*_CHECK_ATTEMPTS
    check_period,         // CHANGE_*_CHECK_TIMEPERIOD: `name`, a defined timeperiod
    notification_period,  // CHANGE_*_NOTIFICATION_TIMEPERIOD
    custom_variable,      // CHANGE_CUSTOM_*_VAR: `name` (any case, no '_'), `value`
    modified_attributes,  // CHANGE_*_MODATTR: `bits` replace the object's modified_attributes
  };
  Kind kind;
  double number = 0;
  std::string_view name{};
  std::string_view value{};
  unsigned long bits = 0;
};

// ACKNOWLEDGE_SVC_PROBLEM(_EXPIRE) / ACKNOWLEDGE_HOST_PROBLEM(_EXPIRE).
struct Acknowledgement {
  bool sticky = false;      // ends only with the recovery, not with any state change
  bool notify = false;      // an ACKNOWLEDGEMENT notification goes out
  bool persistent = false;  // its comment survives the acknowledgement and restarts
  std::string_view author{};
  std::string_view comment{};
  Time end_time = 0;  // _EXPIRE: when it ends by itself; 0 never
};

// CHANGE_CONTACT_HOST/SVC_NOTIFICATION_TIMEPERIOD, CHANGE_CUSTOM_CONTACT_VAR, CHANGE_CONTACT_MOD*ATTR.
struct ContactChange {
  enum class Kind : std::uint8_t {
    host_notification_period,     // `name`, a defined timeperiod
    service_notification_period,  //
    custom_variable,              // `name` (any case), `value`
    modified_attributes,          // CHANGE_CONTACT_MODATTR: `bits`
    modified_host_attributes,     // CHANGE_CONTACT_MODHATTR
    modified_service_attributes,  // CHANGE_CONTACT_MODSATTR
  };
  Kind kind;
  std::string_view name{};
  std::string_view value{};
  unsigned long bits = 0;
};

// ADD_SVC_COMMENT / ADD_HOST_COMMENT.
struct UserComment {
  bool persistent = false;  // kept across restarts
  std::string_view author{};
  std::string_view text{};
  Time entry_time = 0;  // the command's [epoch], as Naemon takes it
};

// SCHEDULE_*_DOWNTIME: a fixed downtime lasts from start to end; a flexible one starts when the object has
// a problem between start and end and lasts `duration` seconds.
struct DowntimeRequest {
  Time entry_time = 0;  // the command's [epoch]
  Time start_time = 0;
  Time end_time = 0;
  bool fixed = true;
  unsigned long triggered_by = 0;  // starts with that downtime (and is cancelled with it)
  unsigned long duration = 0;      // seconds; a fixed downtime's is end - start
  std::string_view author{};
  std::string_view comment{};
};

struct PassiveResult {
  std::string_view host_name{};
  std::string_view service_description{};  // empty for a host result
  int return_code = 0;
  std::string_view output{};  // raw plugin output, as submitted (may hold "\n" escapes and '|')
  Time check_time = 0;        // the command's [epoch]
  // The service, when the caller has looked it up already (the command file validates it): saves the
  // lookup by name, a quarter of the core's time per result at 100k results/s.
  model::ServiceId service = model::no_id<model::ServiceId>();
  std::string_view source{};  // Livestatus' check_source; empty: "command file worker", as in Naemon
};

}  // namespace vedette::engine
