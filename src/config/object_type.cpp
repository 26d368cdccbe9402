#include "config/object_type.hpp"

#include "base/name_table.hpp"

#include <array>
#include <string>

namespace vedette::config {

namespace {

struct TypeInfo {
  std::string_view name;
  std::string_view name_directive;
  // "canonical" or "canonical=alias1=alias2": every directive Naemon's xodtemplate accepts.
  std::initializer_list<std::string_view> directives;
  std::initializer_list<std::string_view> additive;
};

// Order matches ObjectType.
const std::array<TypeInfo, k_object_type_count> k_types = {{
    {"timeperiod", "timeperiod_name", {"timeperiod_name", "alias", "exclude"}, {}},
    {"command", "command_name", {"command_name", "command_line"}, {}},
    {"contact",
     "contact_name",
     {"contact_name",
      "alias",
      "contact_groups=contactgroups",
      "email",
      "pager",
      "address1",
      "address2",
      "address3",
      "address4",
      "address5",
      "address6",
      "host_notification_period",
      "host_notification_commands",
      "service_notification_period",
      "service_notification_commands",
      "host_notification_options",
      "service_notification_options",
      "host_notifications_enabled",
      "service_notifications_enabled",
      "can_submit_commands",
      "retain_status_information",
      "retain_nonstatus_information",
      "minimum_value"},
     {"contact_groups", "host_notification_commands", "service_notification_commands"}},
    {"contactgroup",
     "contactgroup_name",
     {"contactgroup_name", "alias", "members", "contactgroup_members"},
     {"members", "contactgroup_members"}},
    {"host",
     "host_name",
     {"host_name",
      "display_name",
      "alias",
      "address",
      "parents",
      "hostgroups=host_groups",
      "contact_groups",
      "contacts",
      "notification_period",
      "check_command",
      "check_period",
      "event_handler",
      "failure_prediction_options",
      "notes",
      "notes_url",
      "action_url",
      "icon_image",
      "icon_image_alt",
      "vrml_image",
      "gd2_image",
      "statusmap_image",
      "initial_state",
      "check_timeout",
      "check_interval=normal_check_interval",
      "retry_interval=retry_check_interval",
      "hourly_value",
      "max_check_attempts",
      "active_checks_enabled=checks_enabled",
      "passive_checks_enabled",
      "event_handler_enabled",
      "check_freshness",
      "freshness_threshold",
      "low_flap_threshold",
      "high_flap_threshold",
      "flap_detection_enabled",
      "flap_detection_options",
      "notification_options",
      "notifications_enabled",
      "notification_interval",
      "first_notification_delay",
      "stalking_options",
      "process_perf_data",
      "failure_prediction_enabled",
      "2d_coords",
      "3d_coords",
      "obsess=obsess_over_host",
      "retain_status_information",
      "retain_nonstatus_information"},
     {"contact_groups", "contacts", "parents", "hostgroups"}},
    {"hostgroup",
     "hostgroup_name",
     {"hostgroup_name", "alias", "members", "hostgroup_members", "notes", "notes_url", "action_url"},
     {"members", "hostgroup_members"}},
    {"service",
     "service_description",
     {"host_name=host=hosts",
      "service_description=description",
      "display_name",
      "parents",
      "hostgroup_name=hostgroup=hostgroups",
      "servicegroups=service_groups",
      "check_command",
      "check_period",
      "event_handler",
      "notification_period",
      "contact_groups",
      "contacts",
      "failure_prediction_options",
      "notes",
      "notes_url",
      "action_url",
      "icon_image",
      "icon_image_alt",
      "initial_state",
      "check_timeout",
      "hourly_value",
      "max_check_attempts",
      "check_interval=normal_check_interval",
      "retry_interval=retry_check_interval",
      "active_checks_enabled",
      "passive_checks_enabled",
      "parallelize_check",
      "is_volatile",
      "obsess=obsess_over_service",
      "event_handler_enabled",
      "check_freshness",
      "freshness_threshold",
      "low_flap_threshold",
      "high_flap_threshold",
      "flap_detection_enabled",
      "flap_detection_options",
      "notification_options",
      "notifications_enabled",
      "notification_interval",
      "first_notification_delay",
      "stalking_options",
      "process_perf_data",
      "failure_prediction_enabled",
      "retain_status_information",
      "retain_nonstatus_information"},
     {"contact_groups", "contacts", "host_name", "hostgroup_name", "servicegroups"}},
    {"servicegroup",
     "servicegroup_name",
     {"servicegroup_name", "alias", "members", "servicegroup_members", "notes", "notes_url", "action_url"},
     {"members", "servicegroup_members"}},
    {"hostdependency",
     "",
     {"hostgroup_name=hostgroup=hostgroups", "host_name=host=master_host=master_host_name",
      "dependent_hostgroup_name=dependent_hostgroup=dependent_hostgroups",
      "dependent_host_name=dependent_host", "dependency_period", "inherits_parent",
      "notification_failure_criteria=notification_failure_options",
      "execution_failure_criteria=execution_failure_options"},
     {"host_name", "dependent_host_name", "hostgroup_name", "dependent_hostgroup_name"}},
    {"servicedependency",
     "",
     {"servicegroup_name=servicegroup=servicegroups", "hostgroup_name=hostgroup=hostgroups",
      "host_name=host=master_host=master_host_name",
      "service_description=description=master_description=master_service_description",
      "dependent_servicegroup_name=dependent_servicegroup=dependent_servicegroups",
      "dependent_hostgroup_name=dependent_hostgroup=dependent_hostgroups",
      "dependent_host_name=dependent_host", "dependent_service_description=dependent_description",
      "dependency_period", "inherits_parent", "execution_failure_criteria=execution_failure_options",
      "notification_failure_criteria=notification_failure_options"},
     {"servicegroup_name", "hostgroup_name", "host_name", "service_description",
      "dependent_servicegroup_name", "dependent_hostgroup_name", "dependent_host_name",
      "dependent_service_description"}},
    {"hostescalation",
     "",
     {"hostgroup_name=hostgroup=hostgroups", "host_name=host", "contact_groups", "contacts",
      "escalation_period", "first_notification", "last_notification", "notification_interval",
      "escalation_options"},
     {"host_name", "hostgroup_name", "contact_groups", "contacts"}},
    {"serviceescalation",
     "",
     {"host_name=host", "service_description=description", "servicegroup_name=servicegroup=servicegroups",
      "hostgroup_name=hostgroup=hostgroups", "contact_groups", "contacts", "escalation_period",
      "first_notification", "last_notification", "notification_interval", "escalation_options"},
     {"servicegroup_name", "hostgroup_name", "host_name", "service_description", "contact_groups",
      "contacts"}},
    {"hostextinfo",
     "",
     {"host_name", "hostgroup_name=hostgroup", "notes", "notes_url", "action_url", "icon_image",
      "icon_image_alt", "vrml_image", "gd2_image", "statusmap_image", "2d_coords", "3d_coords"},
     {}},
    {"serviceextinfo",
     "",
     {"host_name", "hostgroup_name=hostgroup", "service_description", "notes", "notes_url", "action_url",
      "icon_image", "icon_image_alt"},
     {}},
}};

struct Tables {
  std::array<base::NameTable<DirectiveId>, k_object_type_count> canonical;
  base::NameTable<ObjectType> by_name;

  Tables() {
    for (std::size_t t = 0; t < k_object_type_count; ++t) {
      by_name.add(k_types[t].name, static_cast<ObjectType>(t));
      for (std::string_view spec : k_types[t].directives) {
        const DirectiveId canon = directive_id(spec.substr(0, spec.find('=')));
        canonical[t].add(spec.substr(0, spec.find('=')), canon);
        for (std::size_t pos = spec.find('='); pos != std::string_view::npos;) {
          std::size_t next = spec.find('=', pos + 1);
          canonical[t].add(spec.substr(pos + 1, next - pos - 1), canon);
          pos = next;
        }
      }
    }
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

}  // namespace

std::optional<ObjectType> object_type_from_name(std::string_view name) {
  if (const ObjectType* type = tables().by_name.find(name)) return *type;
  return std::nullopt;
}

std::string_view object_type_name(ObjectType type) {
  return k_types[static_cast<std::size_t>(type)].name;
}

std::string_view name_directive(ObjectType type) {
  return k_types[static_cast<std::size_t>(type)].name_directive;
}

std::optional<DirectiveId> canonical_directive(ObjectType type, std::string_view key) {
  if (const DirectiveId* id = tables().canonical[static_cast<std::size_t>(type)].find(key)) return *id;
  return std::nullopt;
}

bool is_additive_directive(ObjectType type, std::string_view canonical) {
  for (std::string_view a : k_types[static_cast<std::size_t>(type)].additive)
    if (a == canonical) return true;
  return false;
}

bool is_accumulating_directive(ObjectType type, std::string_view canonical) {
  switch (type) {
    case ObjectType::contactgroup:
    case ObjectType::hostgroup:
    case ObjectType::servicegroup:
      return canonical == "members" || canonical.ends_with("group_members");
    default:
      return false;
  }
}

}  // namespace vedette::config
