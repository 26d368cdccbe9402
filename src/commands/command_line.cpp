#include "commands/command_line.hpp"

#include "base/check.hpp"
#include "base/name_table.hpp"
#include "model/model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>

namespace vedette::commands {
namespace {

struct RawSpec {
  CommandId id;
  std::string_view name;
  int naemon_id;
  // Naemon's argspec form, "type=name;type=name…", plus "=default" after a name for the few arguments Naemon
  // registers with a default value (the DEL_DOWNTIME_BY_* filters).
  std::string_view args;
};

// Naemon's register_core_commands, in its order: names, CMD_* ids and argument lists.
constexpr RawSpec k_raw_specs[] = {
    {CommandId::add_host_comment, "ADD_HOST_COMMENT", 1,
     "host=host_name;bool=persistent;str=author;str=comment"},
    {CommandId::del_host_comment, "DEL_HOST_COMMENT", 2, "ulong=comment_id"},
    {CommandId::add_svc_comment, "ADD_SVC_COMMENT", 3,
     "service=service;bool=persistent;str=author;str=comment"},
    {CommandId::del_svc_comment, "DEL_SVC_COMMENT", 4, "ulong=comment_id"},
    {CommandId::enable_svc_check, "ENABLE_SVC_CHECK", 5, "service=service"},
    {CommandId::disable_svc_check, "DISABLE_SVC_CHECK", 6, "service=service"},
    {CommandId::schedule_svc_check, "SCHEDULE_SVC_CHECK", 7, "service=service;timestamp=check_time"},
    {CommandId::delay_svc_notification, "DELAY_SVC_NOTIFICATION", 9,
     "service=service;timestamp=notification_time"},
    {CommandId::delay_host_notification, "DELAY_HOST_NOTIFICATION", 10,
     "host=host_name;timestamp=notification_time"},
    {CommandId::disable_notifications, "DISABLE_NOTIFICATIONS", 11, ""},
    {CommandId::enable_notifications, "ENABLE_NOTIFICATIONS", 12, ""},
    {CommandId::restart_process, "RESTART_PROCESS", 13, ""},
    {CommandId::restart_program, "RESTART_PROGRAM", -1, ""},
    {CommandId::shutdown_process, "SHUTDOWN_PROCESS", 14, ""},
    {CommandId::shutdown_program, "SHUTDOWN_PROGRAM", -1, ""},
    {CommandId::enable_host_svc_checks, "ENABLE_HOST_SVC_CHECKS", 15, "host=host_name"},
    {CommandId::disable_host_svc_checks, "DISABLE_HOST_SVC_CHECKS", 16, "host=host_name"},
    {CommandId::schedule_host_svc_checks, "SCHEDULE_HOST_SVC_CHECKS", 17,
     "host=host_name;timestamp=check_time"},
    {CommandId::del_all_host_comments, "DEL_ALL_HOST_COMMENTS", 20, "host=host_name"},
    {CommandId::del_all_svc_comments, "DEL_ALL_SVC_COMMENTS", 21, "service=service"},
    {CommandId::enable_svc_notifications, "ENABLE_SVC_NOTIFICATIONS", 22, "service=service"},
    {CommandId::disable_svc_notifications, "DISABLE_SVC_NOTIFICATIONS", 23, "service=service"},
    {CommandId::enable_host_notifications, "ENABLE_HOST_NOTIFICATIONS", 24, "host=host_name"},
    {CommandId::disable_host_notifications, "DISABLE_HOST_NOTIFICATIONS", 25, "host=host_name"},
    {CommandId::enable_all_notifications_beyond_host, "ENABLE_ALL_NOTIFICATIONS_BEYOND_HOST", 26,
     "host=host_name"},
    {CommandId::disable_all_notifications_beyond_host, "DISABLE_ALL_NOTIFICATIONS_BEYOND_HOST", 27,
     "host=host_name"},
    {CommandId::enable_host_svc_notifications, "ENABLE_HOST_SVC_NOTIFICATIONS", 28, "host=host_name"},
    {CommandId::disable_host_svc_notifications, "DISABLE_HOST_SVC_NOTIFICATIONS", 29, "host=host_name"},
    {CommandId::process_service_check_result, "PROCESS_SERVICE_CHECK_RESULT", 30,
     "service=service;int=status_code;str=plugin_output"},
    {CommandId::save_state_information, "SAVE_STATE_INFORMATION", 31, ""},
    {CommandId::read_state_information, "READ_STATE_INFORMATION", 32, ""},
    {CommandId::acknowledge_host_problem, "ACKNOWLEDGE_HOST_PROBLEM", 33,
     "host=host_name;int=sticky;bool=notify;bool=persistent;str=author;str=comment"},
    {CommandId::acknowledge_host_problem_expire, "ACKNOWLEDGE_HOST_PROBLEM_EXPIRE", 173,
     "host=host_name;int=sticky;bool=notify;bool=persistent;timestamp=end_time;str=author;str=comment"},
    {CommandId::acknowledge_svc_problem, "ACKNOWLEDGE_SVC_PROBLEM", 34,
     "service=service;int=sticky;bool=notify;bool=persistent;str=author;str=comment"},
    {CommandId::acknowledge_svc_problem_expire, "ACKNOWLEDGE_SVC_PROBLEM_EXPIRE", 174,
     "service=service;int=sticky;bool=notify;bool=persistent;timestamp=end_time;str=author;str=comment"},
    {CommandId::start_executing_svc_checks, "START_EXECUTING_SVC_CHECKS", 35, ""},
    {CommandId::stop_executing_svc_checks, "STOP_EXECUTING_SVC_CHECKS", 36, ""},
    {CommandId::start_accepting_passive_svc_checks, "START_ACCEPTING_PASSIVE_SVC_CHECKS", 37, ""},
    {CommandId::stop_accepting_passive_svc_checks, "STOP_ACCEPTING_PASSIVE_SVC_CHECKS", 38, ""},
    {CommandId::enable_passive_svc_checks, "ENABLE_PASSIVE_SVC_CHECKS", 39, "service=service"},
    {CommandId::disable_passive_svc_checks, "DISABLE_PASSIVE_SVC_CHECKS", 40, "service=service"},
    {CommandId::send_custom_host_notification, "SEND_CUSTOM_HOST_NOTIFICATION", 159,
     "host=host_name;int=options;str=author;str=comment"},
    {CommandId::send_custom_svc_notification, "SEND_CUSTOM_SVC_NOTIFICATION", 160,
     "service=service;int=options;str=author;str=comment"},
    {CommandId::change_host_notification_timeperiod, "CHANGE_HOST_NOTIFICATION_TIMEPERIOD", 161,
     "host=host_name;timeperiod=notification_timeperiod"},
    {CommandId::change_svc_notification_timeperiod, "CHANGE_SVC_NOTIFICATION_TIMEPERIOD", 162,
     "service=service;timeperiod=notification_timeperiod"},
    {CommandId::change_contact_host_notification_timeperiod, "CHANGE_CONTACT_HOST_NOTIFICATION_TIMEPERIOD",
     163, "contact=contact_name;timeperiod=notification_timeperiod"},
    {CommandId::change_contact_svc_notification_timeperiod, "CHANGE_CONTACT_SVC_NOTIFICATION_TIMEPERIOD", 164,
     "contact=contact_name;timeperiod=notification_timeperiod"},
    {CommandId::change_host_modattr, "CHANGE_HOST_MODATTR", 165, "host=host_name;ulong=value"},
    {CommandId::change_svc_modattr, "CHANGE_SVC_MODATTR", 166, "service=service;ulong=value"},
    {CommandId::change_contact_modattr, "CHANGE_CONTACT_MODATTR", 167, "contact=contact_name;ulong=value"},
    {CommandId::change_contact_modhattr, "CHANGE_CONTACT_MODHATTR", 168, "contact=contact_name;ulong=value"},
    {CommandId::change_contact_modsattr, "CHANGE_CONTACT_MODSATTR", 169, "contact=contact_name;ulong=value"},
    {CommandId::del_downtime_by_host_name, "DEL_DOWNTIME_BY_HOST_NAME", 170,
     "str=hostname=;str=service_description=;timestamp=downtime_start_time=0;str=comment="},
    {CommandId::del_downtime_by_hostgroup_name, "DEL_DOWNTIME_BY_HOSTGROUP_NAME", 171,
     "hostgroup=hostgroup_name;str=hostname=;str=service_description=;timestamp=downtime_start_time=0;str="
     "comment="},
    {CommandId::del_downtime_by_start_time_comment, "DEL_DOWNTIME_BY_START_TIME_COMMENT", 172,
     "timestamp=downtime_start_time=0;str=comment="},
    {CommandId::enable_event_handlers, "ENABLE_EVENT_HANDLERS", 41, ""},
    {CommandId::disable_event_handlers, "DISABLE_EVENT_HANDLERS", 42, ""},
    {CommandId::enable_host_event_handler, "ENABLE_HOST_EVENT_HANDLER", 43, "host=host_name"},
    {CommandId::disable_host_event_handler, "DISABLE_HOST_EVENT_HANDLER", 44, "host=host_name"},
    {CommandId::enable_svc_event_handler, "ENABLE_SVC_EVENT_HANDLER", 45, "service=service"},
    {CommandId::disable_svc_event_handler, "DISABLE_SVC_EVENT_HANDLER", 46, "service=service"},
    {CommandId::enable_host_check, "ENABLE_HOST_CHECK", 47, "host=host_name"},
    {CommandId::disable_host_check, "DISABLE_HOST_CHECK", 48, "host=host_name"},
    {CommandId::start_obsessing_over_svc_checks, "START_OBSESSING_OVER_SVC_CHECKS", 49, ""},
    {CommandId::stop_obsessing_over_svc_checks, "STOP_OBSESSING_OVER_SVC_CHECKS", 50, ""},
    {CommandId::remove_host_acknowledgement, "REMOVE_HOST_ACKNOWLEDGEMENT", 51, "host=host_name"},
    {CommandId::remove_svc_acknowledgement, "REMOVE_SVC_ACKNOWLEDGEMENT", 52, "service=service"},
    {CommandId::schedule_forced_host_svc_checks, "SCHEDULE_FORCED_HOST_SVC_CHECKS", 53,
     "host=host_name;timestamp=check_time"},
    {CommandId::schedule_forced_svc_check, "SCHEDULE_FORCED_SVC_CHECK", 54,
     "service=service;timestamp=check_time"},
    {CommandId::schedule_host_downtime, "SCHEDULE_HOST_DOWNTIME", 55,
     "host=host_name;timestamp=start_time;timestamp=end_time;bool=fixed;ulong=trigger_id;ulong=duration;str="
     "author;str=comment"},
    {CommandId::schedule_svc_downtime, "SCHEDULE_SVC_DOWNTIME", 56,
     "service=service;timestamp=start_time;timestamp=end_time;bool=fixed;ulong=trigger_id;ulong=duration;str="
     "author;str=comment"},
    {CommandId::enable_host_flap_detection, "ENABLE_HOST_FLAP_DETECTION", 57, "host=host_name"},
    {CommandId::disable_host_flap_detection, "DISABLE_HOST_FLAP_DETECTION", 58, "host=host_name"},
    {CommandId::enable_svc_flap_detection, "ENABLE_SVC_FLAP_DETECTION", 59, "service=service"},
    {CommandId::disable_svc_flap_detection, "DISABLE_SVC_FLAP_DETECTION", 60, "service=service"},
    {CommandId::enable_flap_detection, "ENABLE_FLAP_DETECTION", 61, ""},
    {CommandId::disable_flap_detection, "DISABLE_FLAP_DETECTION", 62, ""},
    {CommandId::enable_hostgroup_svc_notifications, "ENABLE_HOSTGROUP_SVC_NOTIFICATIONS", 63,
     "hostgroup=hostgroup_name"},
    {CommandId::disable_hostgroup_svc_notifications, "DISABLE_HOSTGROUP_SVC_NOTIFICATIONS", 64,
     "hostgroup=hostgroup_name"},
    {CommandId::enable_hostgroup_host_notifications, "ENABLE_HOSTGROUP_HOST_NOTIFICATIONS", 65,
     "hostgroup=hostgroup_name"},
    {CommandId::disable_hostgroup_host_notifications, "DISABLE_HOSTGROUP_HOST_NOTIFICATIONS", 66,
     "hostgroup=hostgroup_name"},
    {CommandId::enable_hostgroup_svc_checks, "ENABLE_HOSTGROUP_SVC_CHECKS", 67, "hostgroup=hostgroup_name"},
    {CommandId::disable_hostgroup_svc_checks, "DISABLE_HOSTGROUP_SVC_CHECKS", 68, "hostgroup=hostgroup_name"},
    {CommandId::del_host_downtime, "DEL_HOST_DOWNTIME", 78, "ulong=downtime_id"},
    {CommandId::del_svc_downtime, "DEL_SVC_DOWNTIME", 79, "ulong=downtime_id"},
    {CommandId::enable_performance_data, "ENABLE_PERFORMANCE_DATA", 82, ""},
    {CommandId::disable_performance_data, "DISABLE_PERFORMANCE_DATA", 83, ""},
    {CommandId::schedule_hostgroup_host_downtime, "SCHEDULE_HOSTGROUP_HOST_DOWNTIME", 84,
     "hostgroup=hostgroup_name;timestamp=start_time;timestamp=end_time;bool=fixed;ulong=trigger_id;ulong="
     "duration;str=author;str=comment"},
    {CommandId::schedule_hostgroup_svc_downtime, "SCHEDULE_HOSTGROUP_SVC_DOWNTIME", 85,
     "hostgroup=hostgroup_name;timestamp=start_time;timestamp=end_time;bool=fixed;ulong=trigger_id;ulong="
     "duration;str=author;str=comment"},
    {CommandId::schedule_host_svc_downtime, "SCHEDULE_HOST_SVC_DOWNTIME", 86,
     "host=host_name;timestamp=start_time;timestamp=end_time;bool=fixed;ulong=trigger_id;ulong=duration;str="
     "author;str=comment"},
    {CommandId::process_host_check_result, "PROCESS_HOST_CHECK_RESULT", 87,
     "host=host_name;int=status_code;str=plugin_output"},
    {CommandId::start_executing_host_checks, "START_EXECUTING_HOST_CHECKS", 88, ""},
    {CommandId::stop_executing_host_checks, "STOP_EXECUTING_HOST_CHECKS", 89, ""},
    {CommandId::start_accepting_passive_host_checks, "START_ACCEPTING_PASSIVE_HOST_CHECKS", 90, ""},
    {CommandId::stop_accepting_passive_host_checks, "STOP_ACCEPTING_PASSIVE_HOST_CHECKS", 91, ""},
    {CommandId::enable_passive_host_checks, "ENABLE_PASSIVE_HOST_CHECKS", 92, "host=host_name"},
    {CommandId::disable_passive_host_checks, "DISABLE_PASSIVE_HOST_CHECKS", 93, "host=host_name"},
    {CommandId::start_obsessing_over_host_checks, "START_OBSESSING_OVER_HOST_CHECKS", 94, ""},
    {CommandId::stop_obsessing_over_host_checks, "STOP_OBSESSING_OVER_HOST_CHECKS", 95, ""},
    {CommandId::schedule_host_check, "SCHEDULE_HOST_CHECK", 96, "host=host_name;timestamp=check_time"},
    {CommandId::schedule_forced_host_check, "SCHEDULE_FORCED_HOST_CHECK", 98,
     "host=host_name;timestamp=check_time"},
    {CommandId::start_obsessing_over_svc, "START_OBSESSING_OVER_SVC", 99, "service=service"},
    {CommandId::stop_obsessing_over_svc, "STOP_OBSESSING_OVER_SVC", 100, "service=service"},
    {CommandId::start_obsessing_over_host, "START_OBSESSING_OVER_HOST", 101, "host=host_name"},
    {CommandId::stop_obsessing_over_host, "STOP_OBSESSING_OVER_HOST", 102, "host=host_name"},
    {CommandId::enable_hostgroup_host_checks, "ENABLE_HOSTGROUP_HOST_CHECKS", 103,
     "hostgroup=hostgroup_name"},
    {CommandId::disable_hostgroup_host_checks, "DISABLE_HOSTGROUP_HOST_CHECKS", 104,
     "hostgroup=hostgroup_name"},
    {CommandId::enable_hostgroup_passive_svc_checks, "ENABLE_HOSTGROUP_PASSIVE_SVC_CHECKS", 105,
     "hostgroup=hostgroup_name"},
    {CommandId::disable_hostgroup_passive_svc_checks, "DISABLE_HOSTGROUP_PASSIVE_SVC_CHECKS", 106,
     "hostgroup=hostgroup_name"},
    {CommandId::enable_hostgroup_passive_host_checks, "ENABLE_HOSTGROUP_PASSIVE_HOST_CHECKS", 107,
     "hostgroup=hostgroup_name"},
    {CommandId::disable_hostgroup_passive_host_checks, "DISABLE_HOSTGROUP_PASSIVE_HOST_CHECKS", 108,
     "hostgroup=hostgroup_name"},
    {CommandId::enable_servicegroup_svc_notifications, "ENABLE_SERVICEGROUP_SVC_NOTIFICATIONS", 109,
     "servicegroup=servicegroup_name"},
    {CommandId::disable_servicegroup_svc_notifications, "DISABLE_SERVICEGROUP_SVC_NOTIFICATIONS", 110,
     "servicegroup=servicegroup_name"},
    {CommandId::enable_servicegroup_host_notifications, "ENABLE_SERVICEGROUP_HOST_NOTIFICATIONS", 111,
     "servicegroup=servicegroup_name"},
    {CommandId::disable_servicegroup_host_notifications, "DISABLE_SERVICEGROUP_HOST_NOTIFICATIONS", 112,
     "servicegroup=servicegroup_name"},
    {CommandId::enable_servicegroup_svc_checks, "ENABLE_SERVICEGROUP_SVC_CHECKS", 113,
     "servicegroup=servicegroup_name"},
    {CommandId::disable_servicegroup_svc_checks, "DISABLE_SERVICEGROUP_SVC_CHECKS", 114,
     "servicegroup=servicegroup_name"},
    {CommandId::enable_servicegroup_host_checks, "ENABLE_SERVICEGROUP_HOST_CHECKS", 115,
     "servicegroup=servicegroup_name"},
    {CommandId::disable_servicegroup_host_checks, "DISABLE_SERVICEGROUP_HOST_CHECKS", 116,
     "servicegroup=servicegroup_name"},
    {CommandId::enable_servicegroup_passive_svc_checks, "ENABLE_SERVICEGROUP_PASSIVE_SVC_CHECKS", 117,
     "servicegroup=servicegroup_name"},
    {CommandId::disable_servicegroup_passive_svc_checks, "DISABLE_SERVICEGROUP_PASSIVE_SVC_CHECKS", 118,
     "servicegroup=servicegroup_name"},
    {CommandId::enable_servicegroup_passive_host_checks, "ENABLE_SERVICEGROUP_PASSIVE_HOST_CHECKS", 119,
     "servicegroup=servicegroup_name"},
    {CommandId::disable_servicegroup_passive_host_checks, "DISABLE_SERVICEGROUP_PASSIVE_HOST_CHECKS", 120,
     "servicegroup=servicegroup_name"},
    {CommandId::schedule_servicegroup_host_downtime, "SCHEDULE_SERVICEGROUP_HOST_DOWNTIME", 121,
     "servicegroup=servicegroup_name;timestamp=start_time;timestamp=end_time;bool=fixed;ulong=trigger_id;"
     "ulong=duration;str=author;str=comment"},
    {CommandId::schedule_servicegroup_svc_downtime, "SCHEDULE_SERVICEGROUP_SVC_DOWNTIME", 122,
     "servicegroup=servicegroup_name;timestamp=start_time;timestamp=end_time;bool=fixed;ulong=trigger_id;"
     "ulong=duration;str=author;str=comment"},
    {CommandId::change_global_host_event_handler, "CHANGE_GLOBAL_HOST_EVENT_HANDLER", 123,
     "str=event_handler_command"},
    {CommandId::change_global_svc_event_handler, "CHANGE_GLOBAL_SVC_EVENT_HANDLER", 124,
     "str=event_handler_command"},
    {CommandId::change_host_event_handler, "CHANGE_HOST_EVENT_HANDLER", 125,
     "host=host_name;str=event_handler_command"},
    {CommandId::change_svc_event_handler, "CHANGE_SVC_EVENT_HANDLER", 126,
     "service=service;str=event_handler_command"},
    {CommandId::change_host_check_command, "CHANGE_HOST_CHECK_COMMAND", 127,
     "host=host_name;str=check_command"},
    {CommandId::change_svc_check_command, "CHANGE_SVC_CHECK_COMMAND", 128,
     "service=service;str=check_command"},
    {CommandId::change_normal_host_check_interval, "CHANGE_NORMAL_HOST_CHECK_INTERVAL", 129,
     "host=host_name;timestamp=check_interval"},
    {CommandId::change_normal_svc_check_interval, "CHANGE_NORMAL_SVC_CHECK_INTERVAL", 130,
     "service=service;timestamp=check_interval"},
    {CommandId::change_retry_svc_check_interval, "CHANGE_RETRY_SVC_CHECK_INTERVAL", 131,
     "service=service;timestamp=check_interval"},
    {CommandId::change_max_host_check_attempts, "CHANGE_MAX_HOST_CHECK_ATTEMPTS", 132,
     "host=host_name;int=check_attempts"},
    {CommandId::change_max_svc_check_attempts, "CHANGE_MAX_SVC_CHECK_ATTEMPTS", 133,
     "service=service;int=check_attempts"},
    {CommandId::schedule_and_propagate_triggered_host_downtime,
     "SCHEDULE_AND_PROPAGATE_TRIGGERED_HOST_DOWNTIME", 134,
     "host=host_name;timestamp=start_time;timestamp=end_time;bool=fixed;ulong=trigger_id;ulong=duration;str="
     "author;str=comment"},
    {CommandId::enable_host_and_child_notifications, "ENABLE_HOST_AND_CHILD_NOTIFICATIONS", 135,
     "host=host_name"},
    {CommandId::disable_host_and_child_notifications, "DISABLE_HOST_AND_CHILD_NOTIFICATIONS", 136,
     "host=host_name"},
    {CommandId::schedule_and_propagate_host_downtime, "SCHEDULE_AND_PROPAGATE_HOST_DOWNTIME", 137,
     "host=host_name;timestamp=start_time;timestamp=end_time;bool=fixed;ulong=trigger_id;ulong=duration;str="
     "author;str=comment"},
    {CommandId::enable_service_freshness_checks, "ENABLE_SERVICE_FRESHNESS_CHECKS", 138, ""},
    {CommandId::disable_service_freshness_checks, "DISABLE_SERVICE_FRESHNESS_CHECKS", 139, ""},
    {CommandId::enable_host_freshness_checks, "ENABLE_HOST_FRESHNESS_CHECKS", 140, ""},
    {CommandId::disable_host_freshness_checks, "DISABLE_HOST_FRESHNESS_CHECKS", 141, ""},
    {CommandId::set_host_notification_number, "SET_HOST_NOTIFICATION_NUMBER", 142,
     "host=host_name;int=notification_number"},
    {CommandId::set_svc_notification_number, "SET_SVC_NOTIFICATION_NUMBER", 143,
     "service=service;int=notification_number"},
    {CommandId::change_host_check_timeperiod, "CHANGE_HOST_CHECK_TIMEPERIOD", 144,
     "host=host_name;timeperiod=check_timeperiod"},
    {CommandId::change_svc_check_timeperiod, "CHANGE_SVC_CHECK_TIMEPERIOD", 145,
     "service=service;timeperiod=check_timeperiod"},
    {CommandId::process_file, "PROCESS_FILE", 146, "str=file_name;bool=delete"},
    {CommandId::change_custom_host_var, "CHANGE_CUSTOM_HOST_VAR", 147,
     "host=host_name;str=varname;str=varvalue"},
    {CommandId::change_custom_svc_var, "CHANGE_CUSTOM_SVC_VAR", 148,
     "service=service;str=varname;str=varvalue"},
    {CommandId::change_custom_contact_var, "CHANGE_CUSTOM_CONTACT_VAR", 149,
     "contact=contact_name;str=varname;str=varvalue"},
    {CommandId::enable_contact_host_notifications, "ENABLE_CONTACT_HOST_NOTIFICATIONS", 150,
     "contact=contact_name"},
    {CommandId::disable_contact_host_notifications, "DISABLE_CONTACT_HOST_NOTIFICATIONS", 151,
     "contact=contact_name"},
    {CommandId::enable_contact_svc_notifications, "ENABLE_CONTACT_SVC_NOTIFICATIONS", 152,
     "contact=contact_name"},
    {CommandId::disable_contact_svc_notifications, "DISABLE_CONTACT_SVC_NOTIFICATIONS", 153,
     "contact=contact_name"},
    {CommandId::enable_contactgroup_host_notifications, "ENABLE_CONTACTGROUP_HOST_NOTIFICATIONS", 154,
     "contactgroup=contactgroup_name"},
    {CommandId::disable_contactgroup_host_notifications, "DISABLE_CONTACTGROUP_HOST_NOTIFICATIONS", 155,
     "contactgroup=contactgroup_name"},
    {CommandId::enable_contactgroup_svc_notifications, "ENABLE_CONTACTGROUP_SVC_NOTIFICATIONS", 156,
     "contactgroup=contactgroup_name"},
    {CommandId::disable_contactgroup_svc_notifications, "DISABLE_CONTACTGROUP_SVC_NOTIFICATIONS", 157,
     "contactgroup=contactgroup_name"},
    {CommandId::change_retry_host_check_interval, "CHANGE_RETRY_HOST_CHECK_INTERVAL", 158,
     "host=host_name;timestamp=check_interval"},
    {CommandId::log, "LOG", 175, ""},
};

// Each row's id is its index, so a spec is found by id with no search (command_spec).
constexpr bool ids_are_indexes() {
  for (std::size_t i = 0; i < std::size(k_raw_specs); ++i)
    if (index(k_raw_specs[i].id) != i) return false;
  return std::size(k_raw_specs) == k_command_count;
}
static_assert(ids_are_indexes(), "k_raw_specs must list every CommandId once, in the enum's order");

constexpr std::string_view k_no_timestamp = "Commands must begin with a timestamp inside square brackets";
constexpr std::string_view k_no_name = "Couldn't find command name: missing semicolon in command string";

ArgType arg_type_from_spec(std::string_view word) {
  constexpr std::pair<std::string_view, ArgType> k_types[] = {
      {"host", ArgType::host},
      {"hostgroup", ArgType::hostgroup},
      {"service", ArgType::service},
      {"servicegroup", ArgType::servicegroup},
      {"contact", ArgType::contact},
      {"contactgroup", ArgType::contactgroup},
      {"timeperiod", ArgType::timeperiod},
      {"str", ArgType::str},
      {"bool", ArgType::boolean},
      {"int", ArgType::integer},
      {"ulong", ArgType::ulong},
      {"timestamp", ArgType::timestamp},
  };
  for (const auto& [text, type] : k_types) {
    if (text == word) return type;
  }
  base::fatal(__FILE__, __LINE__, "bad argument type '" + std::string(word) + "' in the command table");
}

// Naemon's arg_t2str, for its messages.
std::string_view type_name(ArgType type) {
  switch (type) {
    case ArgType::host:
      return "host";
    case ArgType::hostgroup:
      return "hostgroup";
    case ArgType::service:
      return "service";
    case ArgType::servicegroup:
      return "servicegroup";
    case ArgType::contact:
      return "contact";
    case ArgType::contactgroup:
      return "contactgroup";
    case ArgType::timeperiod:
      return "timeperiod";
    case ArgType::str:
      return "string";
    case ArgType::boolean:
      return "bool";
    case ArgType::integer:
      return "integer";
    case ArgType::ulong:
      return "ulong";
    case ArgType::timestamp:
      return "timestamp";
  }
  return "Unknown type";
}

struct Table {
  std::vector<ArgSpec> params;
  std::vector<CommandSpec> specs;
  base::NameTable<const CommandSpec*> by_name;

  [[nodiscard]] const CommandSpec* find(std::string_view name) const {
    const CommandSpec* const* spec = by_name.find(name);
    return spec == nullptr ? nullptr : *spec;
  }

  Table() {
    std::size_t total = 0;
    for (const RawSpec& raw : k_raw_specs)
      total += raw.args.empty() ? 0 : 1 + std::ranges::count(raw.args, ';');
    params.reserve(total);  // spans below point into it: it must never reallocate
    specs.reserve(std::size(k_raw_specs));
    for (const RawSpec& raw : k_raw_specs) {
      const std::size_t first = params.size();
      std::size_t fields = 0;
      for (std::string_view rest = raw.args; !rest.empty();) {
        const std::size_t end = std::min(rest.find(';'), rest.size());
        const std::string_view item = rest.substr(0, end);
        rest.remove_prefix(std::min(end + 1, rest.size()));
        const std::size_t eq = item.find('=');
        ArgSpec arg{arg_type_from_spec(item.substr(0, eq)), item.substr(eq + 1), std::nullopt};
        if (const std::size_t eq2 = arg.name.find('='); eq2 != std::string_view::npos) {
          arg.default_value = arg.name.substr(eq2 + 1);
          arg.name = arg.name.substr(0, eq2);
        }
        fields += arg.type == ArgType::service ? 2 : 1;
        params.push_back(arg);
      }
      specs.push_back(CommandSpec{raw.id, raw.name, raw.naemon_id,
                                  std::span<const ArgSpec>(params.data() + first, params.size() - first),
                                  fields});
    }
    for (const CommandSpec& spec : specs) by_name.add(spec.name, &spec);
  }
};

const Table& table() {
  static const Table instance;
  return instance;
}

bool is_c_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

struct Number {
  std::int64_t value = 0;
  std::optional<std::string> error;  // Naemon's parse_integer/parse_ulong message
};

// strtol (is_signed) or strtoul semantics in base 10, with Naemon's checks around them: leading white space
// and a sign are accepted, at least one digit is required, nothing may follow, out of range is an error. As
// strtoul does, a '-' before a ulong negates it modulo 2^64.
Number parse_number(std::string_view text, bool is_signed) {
  const std::string_view what = is_signed ? "integer" : "ulong";
  std::size_t i = 0;
  while (i < text.size() && is_c_space(text[i])) ++i;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  const std::size_t digits_start = i;
  const std::uint64_t limit = !is_signed ? std::numeric_limits<std::uint64_t>::max()
                              : negative ? std::uint64_t{1} << 63
                                         : (std::uint64_t{1} << 63) - 1;
  std::uint64_t magnitude = 0;
  bool overflow = false;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    const auto digit = static_cast<std::uint64_t>(text[i] - '0');
    if (magnitude > (limit - digit) / 10) overflow = true;
    if (!overflow) magnitude = magnitude * 10 + digit;
  }
  Number out;
  if (overflow) {
    out.error = fmt::format("'Numerical result out of range' while parsing {} '{}'", what, text);
  } else if (i == digits_start) {
    out.error = fmt::format("No digits found in {} '{}'", what, text);
  } else if (i != text.size()) {
    out.error = fmt::format("Invalid characters ({}) in {} '{}'", text.substr(i), what, text);
  }
  out.value = static_cast<std::int64_t>(negative ? std::uint64_t{0} - magnitude : magnitude);
  return out;
}

bool is_signed_type(ArgType type) {
  return type == ArgType::integer || type == ArgType::boolean;
}
bool is_numeric_type(ArgType type) {
  return type == ArgType::integer || type == ArgType::boolean || type == ArgType::ulong ||
         type == ArgType::timestamp;
}

// Naemon's parse_arguments: fields split at ';', a string last argument keeps the rest of the line, a
// service argument takes the next field as its description, empty fields fall back to the default.
std::optional<CommandError> split_arguments(const CommandSpec& spec, std::string_view text,
                                            std::vector<std::string_view>& fields) {
  const std::span<const ArgSpec> params = spec.params;
  fields.reserve(spec.field_count);
  // As Naemon, a command without arguments ignores whatever follows its name ("legacy reasons").
  if (params.empty()) return std::nullopt;
  constexpr auto npos = std::string_view::npos;
  std::size_t pos = 0;
  std::size_t i = 0;
  for (bool more = true; more; ++i) {
    if (i >= params.size()) {
      return CommandError{CommandErrorCode::excess_argument,
                          fmt::format("Too many arguments to command - expected {}", params.size())};
    }
    const ArgSpec& param = params[i];
    // A last string argument takes the rest of the line: no need to scan the plugin output for a ';'.
    std::size_t next = i + 1 == params.size() && param.type == ArgType::str ? npos : text.find(';', pos);
    std::string_view value = text.substr(pos, next == npos ? npos : next - pos);
    if (value.empty()) {
      if (!param.default_value) {
        return CommandError{
            CommandErrorCode::missing_argument,
            fmt::format("No value for argument {} provided, and no default found", param.name)};
      }
      fields.push_back(*param.default_value);
    } else if (param.type == ArgType::service) {
      if (next == npos) {
        return CommandError{CommandErrorCode::type_mismatch,
                            fmt::format("No service description provided at argument {}", i + 1)};
      }
      const std::size_t description = next + 1;
      next = text.find(';', description);
      fields.push_back(value);
      fields.push_back(text.substr(description, next == npos ? npos : next - description));
    } else {
      if (is_numeric_type(param.type)) {
        const Number number = parse_number(value, is_signed_type(param.type));
        if (number.error) {
          return CommandError{CommandErrorCode::type_mismatch,
                              fmt::format("Couldn't parse {} argument {} (argument {}): {}",
                                          type_name(param.type), param.name, i, *number.error)};
        }
        if (param.type == ArgType::boolean && number.value != 0 && number.value != 1) {
          return CommandError{CommandErrorCode::validation_failure,
                              fmt::format("Failed validation of {} as type {} (argument {})", param.name,
                                          type_name(param.type), i)};
        }
      }
      fields.push_back(value);
    }
    more = next != npos;
    pos = next + 1;
  }
  for (; i < params.size() && params[i].default_value; ++i) fields.push_back(*params[i].default_value);
  if (i < params.size()) {
    return CommandError{CommandErrorCode::missing_argument,
                        fmt::format("Missing argument: expected {} arguments, found {}", params.size(), i)};
  }
  return std::nullopt;
}

}  // namespace

std::span<const CommandSpec> command_specs() {
  return table().specs;
}

const CommandSpec* find_command_spec(std::string_view name) {
  return table().find(name);
}

const CommandSpec& command_spec(CommandId id) {
  return table().specs[index(id)];
}

std::int64_t ExternalCommand::number(std::size_t field) const {
  return parse_number(args.at(field), /*is_signed=*/false).value;
}

std::string_view strip_command_line(std::string_view line) {
  // Naemon handles the line as a C string: a NUL ends it.
  line = line.substr(0, line.find('\0'));
  // Naemon's strip(): not \v or \f. A loop, not find_first_not_of, which calls memchr on the set per byte.
  const auto is_strip = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  std::size_t first = 0;
  std::size_t end = line.size();
  while (first < end && is_strip(line[first])) ++first;
  while (end > first && is_strip(line[end - 1])) --end;
  return line.substr(first, end - first);
}

ParsedLine parse_external_command(std::string_view line) {
  const std::string_view cmd = strip_command_line(line);
  // Naemon ignores whatever precedes the '['; it needs the '[' and at least one byte after it.
  const std::size_t open = cmd.find('[');
  if (open == std::string_view::npos || open + 1 == cmd.size()) {
    return CommandError{CommandErrorCode::malformed_command, std::string(k_no_timestamp)};
  }
  const std::string_view rest = cmd.substr(open + 1);
  const std::size_t close = rest.find(']');
  const Number entry_time = parse_number(rest.substr(0, close), /*is_signed=*/false);
  if (entry_time.error) {
    return CommandError{CommandErrorCode::malformed_command,
                        fmt::format("Failed to parse command timestamp: {}", *entry_time.error)};
  }
  const std::string_view after =
      close == std::string_view::npos ? std::string_view{} : rest.substr(close + 1);
  if (after.empty()) return CommandError{CommandErrorCode::malformed_command, std::string(k_no_name)};

  const std::size_t semicolon = after.find(';');
  const std::string_view name_field = after.substr(0, semicolon);
  ExternalCommand command;
  command.entry_time = entry_time.value;
  // Naemon takes the name from the second byte after ']': it expects exactly one separating space.
  command.name = name_field.empty() ? name_field : name_field.substr(1);
  command.raw_args = semicolon == std::string_view::npos ? std::string_view{} : after.substr(semicolon + 1);
  // Custom commands (leading '_') are not Naemon's to check: they go to broker modules as they are.
  if (!command.name.empty() && command.name.front() == '_') return command;

  command.spec = find_command_spec(command.name);
  if (command.spec == nullptr) {
    return CommandError{CommandErrorCode::unknown_command, fmt::format("Unknown command '{}'", command.name)};
  }
  if (auto error = split_arguments(*command.spec, command.raw_args, command.args)) return std::move(*error);
  return command;
}

std::optional<CommandError> validate_objects(const ExternalCommand& command, const model::Model& model) {
  if (command.spec == nullptr) return std::nullopt;
  std::size_t field = 0;
  for (std::size_t i = 0; i < command.spec->params.size(); ++i) {
    const ArgSpec& arg = command.spec->params[i];
    const std::string_view value = field < command.args.size() ? command.args[field] : std::string_view{};
    bool found = true;
    switch (arg.type) {
      case ArgType::host:
        found = model.host_by_name.contains(value);
        break;
      case ArgType::hostgroup:
        found = model.hostgroup_by_name.contains(value);
        break;
      case ArgType::servicegroup:
        found = model.servicegroup_by_name.contains(value);
        break;
      case ArgType::contact:
        found = model.contact_by_name.contains(value);
        break;
      case ArgType::contactgroup:
        found = model.contactgroup_by_name.contains(value);
        break;
      case ArgType::timeperiod:
        found = model.timeperiod_by_name.contains(value);
        break;
      case ArgType::service: {
        const std::string_view description =
            field + 1 < command.args.size() ? command.args[field + 1] : std::string_view{};
        found = model::is_set(model.find_service(value, description));
        ++field;
        break;
      }
      default:
        break;
    }
    ++field;
    if (!found) {
      return CommandError{
          CommandErrorCode::validation_failure,
          fmt::format("Failed validation of {} as type {} (argument {})", arg.name, type_name(arg.type), i)};
    }
  }
  return std::nullopt;
}

std::string parse_warning_text(std::string_view line, const CommandError& error) {
  return fmt::format("Warning: External command parse error {} ({})", strip_command_line(line),
                     error.message);
}

std::string external_command_log_text(const ExternalCommand& command) {
  return fmt::format("EXTERNAL COMMAND: {};{}", command.name, command.raw_args);
}

bool is_logged(const ExternalCommand& command, bool log_external_commands, bool log_passive_checks) {
  if (command.is_custom()) return log_external_commands;
  switch (command.spec->id) {
    case CommandId::process_service_check_result:
    case CommandId::process_host_check_result:
      return log_passive_checks;
    case CommandId::log:
      return false;
    default:
      return log_external_commands;
  }
}

}  // namespace vedette::commands
