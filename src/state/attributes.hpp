// What external commands change on a host or service at run time (ENABLE_SVC_CHECKS,
// CHANGE_SVC_CHECK_INTERVAL, CHANGE_CUSTOM_HOST_VAR, …) and Naemon's modified-attribute bits (MODATTR_* in
// its common.h) that record it, so that retention.dat carries the change across a restart. The numbers are
// Naemon's because they are written as-is into retention.dat, status.dat and the retained_*_attribute_mask
// options. Part of the hot state: changed on the core thread; Overrides are immutable and may be read
// anywhere.
#pragma once

#include "model/checkable.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::state {

inline namespace modattr {  // so a user may take in the bits alone: `using namespace state::modattr;`
inline constexpr unsigned long k_modattr_none = 0;
inline constexpr unsigned long k_modattr_notifications_enabled = 1;
inline constexpr unsigned long k_modattr_active_checks_enabled = 2;
inline constexpr unsigned long k_modattr_passive_checks_enabled = 4;
inline constexpr unsigned long k_modattr_event_handler_enabled = 8;
inline constexpr unsigned long k_modattr_flap_detection_enabled = 16;
inline constexpr unsigned long k_modattr_failure_prediction_enabled = 32;  // obsolete; never set
inline constexpr unsigned long k_modattr_performance_data_enabled = 64;
inline constexpr unsigned long k_modattr_obsessive_handler_enabled = 128;
inline constexpr unsigned long k_modattr_event_handler_command = 256;
inline constexpr unsigned long k_modattr_check_command = 512;
inline constexpr unsigned long k_modattr_normal_check_interval = 1024;
inline constexpr unsigned long k_modattr_retry_check_interval = 2048;
inline constexpr unsigned long k_modattr_max_check_attempts = 4096;
inline constexpr unsigned long k_modattr_freshness_checks_enabled = 8192;
inline constexpr unsigned long k_modattr_check_timeperiod = 16384;
inline constexpr unsigned long k_modattr_custom_variable = 32768;
inline constexpr unsigned long k_modattr_notification_timeperiod = 65536;
inline constexpr unsigned long k_modattr_notification_handler_command = 131072;
}  // namespace modattr

// The enable flags of a host or a service that an external command can change, in the order Naemon writes
// them into a host block.
enum class Flag : std::uint8_t {
  notifications,
  active_checks,
  passive_checks,
  event_handler,
  flap_detection,
  process_perf_data,
  obsess,
  count
};
inline constexpr std::size_t k_flag_count = static_cast<std::size_t>(Flag::count);

struct FlagInfo {
  std::string_view key;  // the retention.dat key; "config:<key>" holds the configured value
  unsigned long modattr;
};

inline constexpr std::array<FlagInfo, k_flag_count> k_flags{{
    {"notifications_enabled", k_modattr_notifications_enabled},
    {"active_checks_enabled", k_modattr_active_checks_enabled},
    {"passive_checks_enabled", k_modattr_passive_checks_enabled},
    {"event_handler_enabled", k_modattr_event_handler_enabled},
    {"flap_detection_enabled", k_modattr_flap_detection_enabled},
    {"process_performance_data", k_modattr_performance_data_enabled},
    {"obsess", k_modattr_obsessive_handler_enabled},
}};

[[nodiscard]] constexpr const FlagInfo& flag_info(Flag f) {
  return k_flags[static_cast<std::size_t>(f)];
}

[[nodiscard]] constexpr std::uint8_t flag_bit(Flag f) {
  return static_cast<std::uint8_t>(1u << static_cast<unsigned>(f));
}

// The configured value of a flag (model::Checkable's field for it).
[[nodiscard]] bool configured_flag(const model::Checkable& c, Flag f);
// Every flag as configured, one bit per Flag: an object's value before any command or retention.dat.
[[nodiscard]] std::uint8_t configured_flags(const model::Checkable& c);

// A custom variable changed at run time: its name as the model stores it (upper case, no '_').
struct ChangedVariable {
  std::string name;
  std::string value;
};

// CHANGE_CUSTOM_*_VAR: Naemon upper-cases the name and changes only a variable the object has. Sets it in
// `changed` (the object's changed variables) and returns true, or returns false for an unknown one.
bool change_variable(std::vector<ChangedVariable>& changed,
                     const std::vector<model::CustomVariable>& configured, std::string_view name,
                     std::string_view value);

// The values that replace configured ones after a CHANGE_* command (or as retention.dat restored them).
// Rare, so held apart from the hot state: immutable and shared, replaced as a whole on a change, so a
// snapshot for a writer thread keeps the record it saw. Empty optional: the configuration applies.
struct Overrides {
  std::optional<std::string> check_command;  // as written, "name!arg!arg"
  std::optional<std::string> event_handler;
  std::optional<std::string> check_period;  // timeperiod names
  std::optional<std::string> notification_period;
  std::optional<double> check_interval;  // in interval_length units, as configured
  std::optional<double> retry_interval;
  std::optional<int> max_check_attempts;
  std::vector<ChangedVariable> custom_variables;

  [[nodiscard]] bool empty() const {
    return !check_command && !event_handler && !check_period && !notification_period && !check_interval &&
           !retry_interval && !max_check_attempts && custom_variables.empty();
  }
  // The changed value of a custom variable, or null.
  [[nodiscard]] const std::string* custom_variable(std::string_view name) const {
    for (const ChangedVariable& v : custom_variables)
      if (v.name == name) return &v.value;
    return nullptr;
  }
};

// How a snapshot for a writer thread keeps an object's Overrides: the record joins `kept` (only objects that
// have one pay for it) and the object refers to it by 1 + its index there; 0: none.
[[nodiscard]] inline std::uint32_t keep_overrides(const std::shared_ptr<const Overrides>& overrides,
                                                  std::vector<std::shared_ptr<const Overrides>>& kept) {
  if (overrides == nullptr) return 0;
  kept.push_back(overrides);
  return static_cast<std::uint32_t>(kept.size());
}

}  // namespace vedette::state
