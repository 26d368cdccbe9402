// What the tests of Naemon's notification rules (engine/notify/notification_rules.hpp,
// notification_*_test.cpp) share: their configuration, loaded by the real loader, TZ=UTC, and the fixture
// that builds the rules' context over it. Test thread only.
#pragma once

#include "engine/notify/notification_rules.hpp"
#include "engine/state/dependencies.hpp"
#include "loaded_config.hpp"
#include "timeperiod/evaluator.hpp"
#include "timeperiod/period.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace vedette::engine::testing {

using R = SuppressionReason;
using T = NotificationType;
using Names = std::vector<std::string>;

inline constexpr Time k_monday = 1'704'067'200;  // 2024-01-01 00:00:00 UTC, a Monday
inline constexpr Time k_monday_10h = k_monday + 10 * 3600;
inline constexpr Time k_monday_20h = k_monday + 20 * 3600;

// alice wants everything, bob only critical and recoveries, dave and erin (group ops) everything, carol is
// the escalation contact. web01/HTTP re-notifies every 10 minutes and escalates notifications 3-4 to carol
// every 5 minutes; web01/DB has three escalations for the escalation tests.
inline constexpr const char* k_objects = R"(
define command {
  command_name  check_dummy
  command_line  /bin/true
}
define command {
  command_name  notify-email
  command_line  /bin/true $ARG1$
}
define timeperiod {
  timeperiod_name  24x7
  alias            always
  sunday           00:00-24:00
  monday           00:00-24:00
  tuesday          00:00-24:00
  wednesday        00:00-24:00
  thursday         00:00-24:00
  friday           00:00-24:00
  saturday         00:00-24:00
}
define timeperiod {
  timeperiod_name  work
  alias            work hours
  monday           09:00-17:00
  tuesday          09:00-17:00
}
define contact {
  name                           base-contact
  register                       0
  host_notification_commands     notify-email!host
  service_notification_commands  notify-email!service
  host_notification_period       24x7
  service_notification_period    24x7
  host_notification_options      d,u,r,f,s
  service_notification_options   w,u,c,r,f,s
}
define contact {
  contact_name  alice
  use           base-contact
}
define contact {
  contact_name                  bob
  use                           base-contact
  service_notification_options  c,r
  host_notification_options     d,r
}
define contact {
  contact_name  carol
  use           base-contact
}
define contact {
  contact_name  dave
  use           base-contact
}
define contact {
  contact_name  erin
  use           base-contact
}
define contactgroup {
  contactgroup_name  ops
  alias              ops
  members            dave,erin
}
define host {
  host_name              web01
  check_command          check_dummy
  max_check_attempts     3
  contacts               alice,bob
  notification_interval  30
  notification_period    24x7
  hourly_value           1
}
define service {
  host_name              web01
  service_description    HTTP
  check_command          check_dummy
  max_check_attempts     3
  contacts               alice,bob
  contact_groups         ops
  notification_interval  10
  notification_period    24x7
}
define serviceescalation {
  host_name              web01
  service_description    HTTP
  first_notification     3
  last_notification      4
  notification_interval  5
  contacts               carol
}
define service {
  host_name              web01
  service_description    DB
  check_command          check_dummy
  max_check_attempts     3
  contacts               alice
  notification_interval  60
  notification_period    24x7
}
define serviceescalation {
  host_name              web01
  service_description    DB
  first_notification     2
  last_notification      0
  notification_interval  20
  escalation_options     c,r
  contacts               carol
}
define serviceescalation {
  host_name              web01
  service_description    DB
  first_notification     3
  last_notification      3
  notification_interval  3
  escalation_period      work
  contact_groups         ops
}
define service {
  host_name              web01
  service_description    Volatile
  check_command          check_dummy
  max_check_attempts     1
  is_volatile            1
  contacts               alice
  notification_interval  0
  notification_period    24x7
}
define service {
  host_name                 web01
  service_description       Delayed
  check_command             check_dummy
  max_check_attempts        1
  contacts                  alice
  notification_interval     10
  first_notification_delay  5
  notification_period       24x7
}
define service {
  host_name              web01
  service_description    Office
  check_command          check_dummy
  max_check_attempts     1
  contacts               alice
  notification_period    work
  notification_options   c
}
define host {
  host_name              db01
  check_command          check_dummy
  max_check_attempts     3
  contacts               alice
  notification_interval  0
  notification_period    24x7
}
define hostescalation {
  host_name              db01
  first_notification     2
  last_notification      0
  notification_interval  15
  contact_groups         ops
}
)";

// Sets TZ for the test and restores it afterwards, so the timeperiods mean the same everywhere.
class ScopedUtc {
 public:
  ScopedUtc() {
    if (const char* old = std::getenv("TZ"); old != nullptr) saved_ = old;
    setenv("TZ", "UTC", 1);
    tzset();
  }
  ~ScopedUtc() {
    if (saved_) {
      setenv("TZ", saved_->c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }
  ScopedUtc(const ScopedUtc&) = delete;
  ScopedUtc& operator=(const ScopedUtc&) = delete;

 private:
  std::optional<std::string> saved_;
};

class NotificationRulesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    loaded_.load(k_objects);
    periods_.assign(model().timeperiods.size(), {});
    for (std::size_t i = 0; i < periods_.size(); ++i) {
      periods_[i].rules = &model().timeperiods[i].rules;
      for (model::TimeperiodId e : model().timeperiods[i].exclusions)
        periods_[i].exclusions.push_back(timeperiod::PeriodIndex{model::index(e)});
    }
    evaluator_ = std::make_unique<timeperiod::Evaluator>(periods_, nullptr);
    index_ = std::make_unique<NotificationIndex>(model());
    hosts_.assign(model().hosts.size(), {});
    services_.assign(model().services.size(), {});
    for (HostState& h : hosts_) h.has_been_checked = true;
    for (ServiceState& s : services_) s.has_been_checked = true;
  }
  [[nodiscard]] const model::Model& model() const { return loaded_.model(); }
  [[nodiscard]] model::ServiceId svc(std::string_view description) const {
    return model().find_service("web01", description);
  }
  [[nodiscard]] model::HostId host(std::string_view name) const { return model().host_by_name.at(name); }
  [[nodiscard]] model::ContactId contact(std::string_view name) const {
    return model().contact_by_name.at(name);
  }

  [[nodiscard]] NotificationContext ctx(Time now) const {
    return {.model = model(),
            .index = *index_,
            .timeperiods = *evaluator_,
            .settings = settings_,
            .contacts = contact_states_,
            .now = now};
  }

  // A service in a hard CRITICAL state for a while, never notified, host UP: a notification goes out.
  static ServiceNotificationView critical_service() {
    ServiceNotificationView v;
    v.current_state = k_state_critical;
    v.state_type = StateType::hard;
    v.last_hard_state_change = k_monday;
    return v;
  }
  static HostNotificationView down_host() {
    HostNotificationView v;
    v.current_state = k_host_down;
    v.state_type = StateType::hard;
    v.last_hard_state_change = k_monday;
    return v;
  }

  [[nodiscard]] Names names(const std::vector<model::ContactId>& ids) const {
    Names out;
    for (model::ContactId id : ids) out.emplace_back(model().contacts[model::index(id)].name);
    return out;
  }

  ScopedUtc utc_;
  test::LoadedConfig loaded_{"vedette_notification_rules"};
  std::vector<timeperiod::Period> periods_;
  std::unique_ptr<timeperiod::Evaluator> evaluator_;
  std::unique_ptr<NotificationIndex> index_;
  NotificationSettings settings_ = [] {
    NotificationSettings s;
    s.program_start = k_monday - 3600;
    return s;
  }();
  std::vector<ContactNotificationState> contact_states_;
  std::vector<HostState> hosts_;
  std::vector<ServiceState> services_;
};

}  // namespace vedette::engine::testing
