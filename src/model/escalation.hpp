// Host and service escalations, one per host/service after expansion.
// Built by config/ on one thread; read-only, and read from any thread, once the model is published.
#pragma once

#include "model/ids.hpp"
#include "model/options.hpp"

#include <vector>

namespace vedette::model {

struct EscalationRule {
  int first_notification = -2;
  int last_notification = -2;
  double notification_interval = -2;  // -2: not set, inherit the object's interval
  TimeperiodId period = no_id<TimeperiodId>();
  OptionSet options = k_opt_all;
  std::vector<ContactId> contacts;
  std::vector<ContactgroupId> contact_groups;
};

struct HostEscalation {
  HostId host;
  EscalationRule rule;
};

struct ServiceEscalation {
  ServiceId service;
  EscalationRule rule;
};

}  // namespace vedette::model
