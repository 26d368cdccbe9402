// A host's configuration (cold data, read-only after load). Run-time state lives elsewhere.
#pragma once

#include "model/command.hpp"
#include "model/custom_variable.hpp"
#include "model/ids.hpp"
#include "model/options.hpp"

#include <string_view>
#include <vector>

namespace vedette::model {

struct Host {
  std::string_view name;
  std::string_view display_name;
  std::string_view alias;
  std::string_view address;
  std::vector<HostId> parents;
  std::vector<HostId> children;
  std::vector<HostgroupId> hostgroups;
  std::vector<ServiceId> services;
  std::vector<ContactId> contacts;
  std::vector<ContactgroupId> contact_groups;
  CommandCall check_command;
  CommandCall event_handler;
  TimeperiodId check_period = no_id<TimeperiodId>();
  TimeperiodId notification_period = no_id<TimeperiodId>();
  std::string_view notes, notes_url, action_url, icon_image, icon_image_alt, vrml_image, statusmap_image;
  int initial_state = 0;
  int check_timeout = 0;  // seconds; 0 = host_check_timeout
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
  bool have_2d_coords = false;
  bool have_3d_coords = false;
  int x_2d = -1, y_2d = -1;
  double x_3d = 0, y_3d = 0, z_3d = 0;
  std::vector<CustomVariable> custom_variables;
};

}  // namespace vedette::model
