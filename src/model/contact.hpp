// A contact's configuration (cold data, read-only after load).
// Built by config/ on one thread; read-only, and read from any thread, once the model is published.
#pragma once

#include "model/command.hpp"
#include "model/custom_variable.hpp"
#include "model/ids.hpp"
#include "model/options.hpp"

#include <array>
#include <string_view>
#include <vector>

namespace vedette::model {

struct Contact {
  std::string_view name;
  std::string_view alias;
  std::string_view email;
  std::string_view pager;
  std::array<std::string_view, 6> addresses;
  std::vector<ContactgroupId> contactgroups;
  TimeperiodId host_notification_period = no_id<TimeperiodId>();
  TimeperiodId service_notification_period = no_id<TimeperiodId>();
  std::vector<CommandCall> host_notification_commands;
  std::vector<CommandCall> service_notification_commands;
  OptionSet host_notification_options = k_opt_nothing;
  OptionSet service_notification_options = k_opt_nothing;
  bool host_notifications_enabled = true;
  bool service_notifications_enabled = true;
  bool can_submit_commands = true;
  bool retain_status_information = true;
  bool retain_nonstatus_information = true;
  int minimum_value = 0;
  std::vector<CustomVariable> custom_variables;
};

}  // namespace vedette::model
