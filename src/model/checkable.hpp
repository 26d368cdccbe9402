// What hosts and services share: the configuration of a checked, notified object (cold data, read-only
// after load). Host and Service add what is theirs.
// Built by config/ on one thread; read-only, and read from any thread, once the model is published.
#pragma once

#include "model/command.hpp"
#include "model/custom_variable.hpp"
#include "model/ids.hpp"
#include "model/options.hpp"

#include <string_view>
#include <vector>

namespace vedette::model {

// The directives hosts and services read alike. Objects using the same templates and setting none of these
// themselves share them: config/ reads them once per template list and copies them.
struct CheckableSettings {
  std::string_view notes, notes_url, action_url, icon_image, icon_image_alt;
  double check_interval = 5.0;
  double retry_interval = 1.0;
  int max_check_attempts = 0;
  int hourly_value = 0;
  double freshness_threshold = 0;
  double low_flap_threshold = 0;
  double high_flap_threshold = 0;
  double notification_interval = 30.0;
  double first_notification_delay = 0;
  OptionSet flap_detection_options = k_opt_all;
  OptionSet notification_options = k_opt_all;
  OptionSet stalking_options = k_opt_nothing;
  bool active_checks_enabled = true;
  bool passive_checks_enabled = true;
  bool obsess = true;
  bool event_handler_enabled = true;
  bool check_freshness = false;
  bool flap_detection_enabled = true;
  bool notifications_enabled = true;
  bool process_perf_data = true;
  bool retain_status_information = true;
  bool retain_nonstatus_information = true;
};

struct Checkable : CheckableSettings {
  std::vector<ContactId> contacts;
  std::vector<ContactgroupId> contact_groups;
  CommandCall check_command;
  CommandCall event_handler;
  TimeperiodId check_period = no_id<TimeperiodId>();
  TimeperiodId notification_period = no_id<TimeperiodId>();
  int initial_state = 0;
  int check_timeout = 0;  // seconds; host_check_timeout / service_check_timeout when not set
  std::vector<CustomVariable> custom_variables;
};

}  // namespace vedette::model
