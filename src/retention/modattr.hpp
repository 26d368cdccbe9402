// Naemon's modified-attribute bits (MODATTR_* in its common.h): which attributes an external command changed
// at run time, and so which ones retention.dat carries across a restart. The numbers are Naemon's because
// they are written as-is into retention.dat, status.dat and the retained_*_attribute_mask options.
// Any thread; constants only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace vedette::retention {

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

}  // namespace vedette::retention
