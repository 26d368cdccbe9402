// Object directive names as small integer ids, so looking a directive up compares integers and a
// template finds any directive by index. Any thread: compile-time tables.
//
//   obj.get("check_command")   // "check_command" becomes a DirectiveKey at compile time
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace vedette::config {

using DirectiveId = std::uint16_t;

// Every canonical directive of every object type, sorted. Custom variables (`_NAME`) have no id of
// their own: they share k_custom_variable and are told apart by name.
inline constexpr std::array k_directive_names = {
    "2d_coords",
    "3d_coords",
    "action_url",
    "active_checks_enabled",
    "address",
    "address1",
    "address2",
    "address3",
    "address4",
    "address5",
    "address6",
    "alias",
    "can_submit_commands",
    "check_command",
    "check_freshness",
    "check_interval",
    "check_period",
    "check_timeout",
    "command_line",
    "command_name",
    "contact_groups",
    "contact_name",
    "contactgroup_members",
    "contactgroup_name",
    "contacts",
    "dependency_period",
    "dependent_host_name",
    "dependent_hostgroup_name",
    "dependent_service_description",
    "dependent_servicegroup_name",
    "display_name",
    "email",
    "escalation_options",
    "escalation_period",
    "event_handler",
    "event_handler_enabled",
    "exclude",
    "execution_failure_criteria",
    "failure_prediction_enabled",
    "failure_prediction_options",
    "first_notification",
    "first_notification_delay",
    "flap_detection_enabled",
    "flap_detection_options",
    "freshness_threshold",
    "gd2_image",
    "high_flap_threshold",
    "host_name",
    "host_notification_commands",
    "host_notification_options",
    "host_notification_period",
    "host_notifications_enabled",
    "hostgroup_members",
    "hostgroup_name",
    "hostgroups",
    "hourly_value",
    "icon_image",
    "icon_image_alt",
    "inherits_parent",
    "initial_state",
    "is_volatile",
    "last_notification",
    "low_flap_threshold",
    "max_check_attempts",
    "members",
    "minimum_value",
    "notes",
    "notes_url",
    "notification_failure_criteria",
    "notification_interval",
    "notification_options",
    "notification_period",
    "notifications_enabled",
    "obsess",
    "pager",
    "parallelize_check",
    "parents",
    "passive_checks_enabled",
    "process_perf_data",
    "retain_nonstatus_information",
    "retain_status_information",
    "retry_interval",
    "service_description",
    "service_notification_commands",
    "service_notification_options",
    "service_notification_period",
    "service_notifications_enabled",
    "servicegroup_members",
    "servicegroup_name",
    "servicegroups",
    "stalking_options",
    "statusmap_image",
    "timeperiod_name",
    "vrml_image",
};
inline constexpr DirectiveId k_directive_count = static_cast<DirectiveId>(k_directive_names.size());
inline constexpr DirectiveId k_custom_variable = k_directive_count;

// The id of a canonical directive name, or k_custom_variable when it is not one.
constexpr DirectiveId directive_id(std::string_view name) {
  std::size_t lo = 0, hi = k_directive_names.size();
  while (lo < hi) {
    std::size_t mid = (lo + hi) / 2;
    if (k_directive_names[mid] < name)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < k_directive_names.size() && k_directive_names[lo] == name ? static_cast<DirectiveId>(lo)
                                                                        : k_custom_variable;
}

// A directive named in code. The constructor runs at compile time, so a misspelt name does not build.
struct DirectiveKey {
  consteval DirectiveKey(const char* text) : name(text), id(directive_id(text)) {
    if (id == k_custom_variable) throw "not a known object directive";
  }
  std::string_view name;
  DirectiveId id;
};

}  // namespace vedette::config
