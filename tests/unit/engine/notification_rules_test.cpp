// Naemon's notification rules (engine/notification_rules.hpp) over a configuration loaded by the real loader:
// every suppression reason, its order, re-notification timing, escalations, contact filters, numbers, log
// lines, and one problem's life from first notification to recovery.
#include "engine/notification_rules.hpp"

#include "config/loader.hpp"
#include "engine/dependencies.hpp"
#include "timeperiod/evaluator.hpp"
#include "timeperiod/period.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

namespace vedette::engine {
namespace {

namespace fs = std::filesystem;
using R = SuppressionReason;
using T = NotificationType;
using Names = std::vector<std::string>;

constexpr Time k_monday = 1'704'067'200;  // 2024-01-01 00:00:00 UTC, a Monday
constexpr Time k_monday_10h = k_monday + 10 * 3600;
constexpr Time k_monday_20h = k_monday + 20 * 3600;

// alice wants everything, bob only critical and recoveries, dave and erin (group ops) everything, carol is
// the escalation contact. web01/HTTP re-notifies every 10 minutes and escalates notifications 3-4 to carol
// every 5 minutes; web01/DB has three escalations for the escalation tests.
constexpr const char* k_objects = R"(
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
    char pattern[] = "/tmp/vedette_notification_rules_XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    std::ofstream(dir_ + "/objects.cfg") << k_objects;
    std::ofstream(dir_ + "/naemon.cfg") << "cfg_file=" << dir_ << "/objects.cfg\n";
    cfg_ = config::load_configuration(dir_ + "/naemon.cfg", files_, diags_);
    for (const config::Diagnostic& d : diags_.all())
      if (d.severity == config::Severity::error) ADD_FAILURE() << config::Diagnostics::format(d);
    ASSERT_NE(cfg_.model, nullptr);
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
  void TearDown() override { fs::remove_all(dir_); }

  [[nodiscard]] const model::Model& model() const { return *cfg_.model; }
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
  std::string dir_;
  config::SourceFiles files_;
  config::Diagnostics diags_;
  config::Configuration cfg_;
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

// ------------------------------------------------------------------------------------------- names and texts

TEST(NotificationNamesTest, TypesAsNaemonNamesThem) {
  EXPECT_EQ(notification_type_name(T::normal), "NORMAL");
  EXPECT_EQ(notification_type_name(T::acknowledgement), "ACKNOWLEDGEMENT");
  EXPECT_EQ(notification_type_name(T::flapping_start), "FLAPPINGSTART");
  EXPECT_EQ(notification_type_name(T::flapping_stop), "FLAPPINGSTOP");
  EXPECT_EQ(notification_type_name(T::flapping_disabled), "FLAPPINGDISABLED");
  EXPECT_EQ(notification_type_name(T::downtime_start), "DOWNTIMESTART");
  EXPECT_EQ(notification_type_name(T::downtime_end), "DOWNTIMEEND");
  EXPECT_EQ(notification_type_name(T::downtime_cancelled), "DOWNTIMECANCELLED");
  EXPECT_EQ(notification_type_name(T::custom), "CUSTOM");
  EXPECT_EQ(notification_type_macro(T::normal, k_state_critical), "PROBLEM");
  EXPECT_EQ(notification_type_macro(T::normal, k_state_ok), "RECOVERY");
  EXPECT_EQ(notification_type_macro(T::acknowledgement, k_state_critical), "ACKNOWLEDGEMENT");
  EXPECT_EQ(static_cast<int>(T::custom), 8) << "Naemon's NOTIFICATION_CUSTOM, as the broker sees it";
  EXPECT_EQ(k_notification_option_broadcast, 1u);
  EXPECT_EQ(k_notification_option_forced, 2u);
  EXPECT_EQ(k_notification_option_increment, 4u);
}

TEST(NotificationNamesTest, SuppressionLinesAsNaemonLogsThem) {
  EXPECT_EQ(format_service_suppression("web01", "HTTP", R::disabled, false),
            "SERVICE NOTIFICATION SUPPRESSED: web01;HTTP;Notifications are disabled globally.");
  EXPECT_EQ(
      format_host_suppression("web01", R::disabled_object, false),
      "HOST NOTIFICATION SUPPRESSED: web01;Notifications are disabled for this object by its configuration.");
  EXPECT_EQ(
      format_host_suppression("web01", R::disabled_object, true),
      "HOST NOTIFICATION SUPPRESSED: web01;Notifications are temporarily disabled for this object by an "
      "external command.");
  EXPECT_EQ(
      format_service_contact_suppression("bob", "web01", "HTTP", R::state_disabled, false),
      "SERVICE CONTACT NOTIFICATION SUPPRESSED: bob;web01;HTTP;Notifications disabled for current object "
      "state.");
  EXPECT_EQ(
      format_host_contact_suppression("bob", "web01", R::timeperiod_blocked, false),
      "HOST CONTACT NOTIFICATION SUPPRESSED: bob;web01;Notification blocked by timeperiod; notifications "
      "should not be sent out at this time.");
  EXPECT_EQ(
      format_host_suppression("web01", R::neb_blocked, false, "Module 'm' cancelled notification: 'x'"),
      "HOST NOTIFICATION SUPPRESSED: web01;Notification was blocked by a NEB module. Module 'm' cancelled "
      "notification: 'x'");
  EXPECT_EQ(suppression_reason_text(R::delay, false),
            "Notification blocked because first_notification_delay is configured and not enough time has "
            "elapsed since the object changed to a non-UP/non-OK state (or since program start).");
  EXPECT_EQ(suppression_reason_text(R::re_not_yet, false),
            "Re-notification blocked for this problem because not enough time has passed since last "
            "notification.");
  EXPECT_EQ(suppression_reason_text(R::service_host_down_unreachable, false),
            "Notification blocked for service because its associated host is either down or unreachable.");
  EXPECT_EQ(suppression_reason_text(R::ok, false), "");
  for (int r = static_cast<int>(R::disabled); r <= static_cast<int>(R::insufficient_importance); ++r)
    EXPECT_FALSE(suppression_reason_text(static_cast<R>(r), false).empty()) << r;
}

TEST(NotificationNamesTest, SuppressionIsLoggedOnlyWhenTheReasonChanges) {
  SuppressionLogFilter filter;
  EXPECT_TRUE(filter.should_log(SuppressionSubject::service, 7, R::soft_state));
  EXPECT_FALSE(filter.should_log(SuppressionSubject::service, 7, R::soft_state))
      << "same reason: debug log only";
  EXPECT_TRUE(filter.should_log(SuppressionSubject::host, 7, R::soft_state)) << "hosts are kept apart";
  EXPECT_TRUE(filter.should_log(SuppressionSubject::service, 8, R::soft_state));
  EXPECT_TRUE(filter.should_log(SuppressionSubject::service, 7, R::re_not_yet));
  EXPECT_TRUE(filter.should_log(SuppressionSubject::service, 7, R::soft_state))
      << "changed back: logged again";
  // Contacts are remembered by contact alone, whichever object the notification was about (as Naemon).
  EXPECT_TRUE(filter.should_log(SuppressionSubject::service_contact, 2, R::state_disabled));
  EXPECT_FALSE(filter.should_log(SuppressionSubject::service_contact, 2, R::state_disabled));
}

TEST(NotificationNamesTest, NotificationLinesAsNaemonLogsThem) {
  EXPECT_EQ(format_service_notification_line("alice", "web01", "HTTP", T::normal, k_state_critical,
                                             "notify-email!service", "CRITICAL - down", "", ""),
            "SERVICE NOTIFICATION: alice;web01;HTTP;CRITICAL;notify-email;CRITICAL - down");
  EXPECT_EQ(format_service_notification_line("alice", "web01", "HTTP", T::normal, k_state_ok, "notify-email",
                                             "OK", "", ""),
            "SERVICE NOTIFICATION: alice;web01;HTTP;OK;notify-email;OK");
  EXPECT_EQ(format_service_notification_line("alice", "web01", "HTTP", T::acknowledgement, k_state_critical,
                                             "notify-email!x!y", "CRITICAL - down", "admin", "on it"),
            "SERVICE NOTIFICATION: alice;web01;HTTP;ACKNOWLEDGEMENT (CRITICAL);notify-email;CRITICAL - down;"
            "admin;on it");
  EXPECT_EQ(format_service_notification_line("GLOBAL", "web01", "HTTP", T::flapping_start, k_state_warning,
                                             "global-handler", "W", "", ""),
            "SERVICE NOTIFICATION: GLOBAL;web01;HTTP;FLAPPINGSTART (WARNING);global-handler;W;;");
  EXPECT_EQ(format_host_notification_line("alice", "web01", T::normal, k_host_down, "host-notify!a",
                                          "PING down", "", ""),
            "HOST NOTIFICATION: alice;web01;DOWN;host-notify;PING down");
  EXPECT_EQ(format_host_notification_line("alice", "web01", T::downtime_start, k_host_up, "host-notify",
                                          "PING ok", "admin", "patching"),
            "HOST NOTIFICATION: alice;web01;DOWNTIMESTART (UP);host-notify;PING ok;admin;patching");
  EXPECT_EQ(
      format_host_notification_line("alice", "web01", T::custom, k_host_unreachable, "!!n!a", "o", "a", "c"),
      "HOST NOTIFICATION: alice;web01;CUSTOM (UNREACHABLE);n;o;a;c")
      << "strtok skips leading '!'";
}

// ----------------------------------------------------------------------------------------- service viability

TEST_F(NotificationRulesTest, ServiceProblemPasses) {
  const Viability v = check_service_notification_viability(ctx(k_monday_10h), svc("HTTP"), critical_service(),
                                                           T::normal, k_notification_option_none);
  EXPECT_EQ(v.reason, R::ok);
  EXPECT_FALSE(v.next_notification);
}

// One row per reason: a change to the passing problem (or recovery) and the reason it must give.
struct ServiceCase {
  const char* name;
  const char* service;
  T type;
  void (*change)(ServiceNotificationView&, NotificationSettings&);
  R expected;
};

TEST_F(NotificationRulesTest, EveryServiceSuppressionReason) {
  const ServiceCase cases[] = {
      {"disabled globally", "HTTP", T::normal,
       [](ServiceNotificationView&, NotificationSettings& s) { s.enable_notifications = false; },
       R::disabled},
      {"disabled for the object", "HTTP", T::normal,
       [](ServiceNotificationView& v, NotificationSettings&) { v.notifications_enabled = false; },
       R::disabled_object},
      {"custom in downtime", "HTTP", T::custom,
       [](ServiceNotificationView& v, NotificationSettings&) { v.scheduled_downtime_depth = 1; },
       R::custom_sched_downtime},
      {"custom in host downtime", "HTTP", T::custom,
       [](ServiceNotificationView& v, NotificationSettings&) { v.host_scheduled_downtime_depth = 1; },
       R::custom_sched_downtime},
      {"custom while soft and acknowledged", "HTTP", T::custom,
       [](ServiceNotificationView& v, NotificationSettings&) {
         v.state_type = StateType::soft;
         v.problem_has_been_acknowledged = true;
       },
       R::ok},
      {"ack of an OK service", "HTTP", T::acknowledgement,
       [](ServiceNotificationView& v, NotificationSettings&) { v.current_state = k_state_ok; },
       R::ack_object_ok},
      {"ack in downtime goes out", "HTTP", T::acknowledgement,
       [](ServiceNotificationView& v, NotificationSettings&) { v.scheduled_downtime_depth = 1; }, R::ok},
      {"flapping in host downtime", "HTTP", T::flapping_start,
       [](ServiceNotificationView& v, NotificationSettings&) { v.host_scheduled_downtime_depth = 1; },
       R::sched_downtime_flapping},
      {"flapping not in options", "Office", T::flapping_stop,
       [](ServiceNotificationView&, NotificationSettings&) {}, R::no_flapping},
      {"downtime not in options", "Office", T::downtime_start,
       [](ServiceNotificationView&, NotificationSettings&) {}, R::no_downtime},
      {"downtime start in own downtime", "HTTP", T::downtime_start,
       [](ServiceNotificationView& v, NotificationSettings&) { v.scheduled_downtime_depth = 1; },
       R::sched_downtime_downtime},
      {"downtime end in host downtime goes out", "HTTP", T::downtime_end,
       [](ServiceNotificationView& v, NotificationSettings&) { v.host_scheduled_downtime_depth = 1; }, R::ok},
      {"all parents failing", "HTTP", T::normal,
       [](ServiceNotificationView& v, NotificationSettings&) { v.all_parents_failing = true; },
       R::bad_parents},
      {"soft state", "HTTP", T::normal,
       [](ServiceNotificationView& v, NotificationSettings&) { v.state_type = StateType::soft; },
       R::soft_state},
      {"acknowledged", "HTTP", T::normal,
       [](ServiceNotificationView& v, NotificationSettings&) { v.problem_has_been_acknowledged = true; },
       R::acknowledged},
      {"dependency failed", "HTTP", T::normal,
       [](ServiceNotificationView& v, NotificationSettings&) { v.dependencies_failed = true; },
       R::dependency_failure},
      {"state not in notification_options", "Office", T::normal,
       [](ServiceNotificationView& v, NotificationSettings&) { v.current_state = k_state_warning; },
       R::state_disabled},
      {"recovery not in notification_options", "Office", T::normal,
       [](ServiceNotificationView& v, NotificationSettings&) {
         v.current_state = k_state_ok;
         v.notification.notified_on = model::k_opt_critical;
       },
       R::state_disabled},
      {"recovery of an unnotified problem", "HTTP", T::normal,
       [](ServiceNotificationView& v, NotificationSettings&) { v.current_state = k_state_ok; },
       R::recovery_unnotified_problem},
      {"first_notification_delay", "Delayed", T::normal,
       [](ServiceNotificationView& v, NotificationSettings&) {
         v.last_hard_state_change = k_monday_10h - 60;
       },
       R::delay},
      {"flapping", "HTTP", T::normal,
       [](ServiceNotificationView& v, NotificationSettings&) { v.is_flapping = true; }, R::is_flapping},
      {"flapping without flap detection", "HTTP", T::normal,
       [](ServiceNotificationView& v, NotificationSettings& s) {
         v.is_flapping = true;
         s.enable_flap_detection = false;
       },
       R::ok},
      {"recovery while host down and in downtime", "HTTP", T::normal,
       [](ServiceNotificationView& v, NotificationSettings&) {
         v.current_state = k_state_ok;
         v.notification.notified_on = model::k_opt_critical;
         v.host_state = k_host_down;
         v.scheduled_downtime_depth = 1;
         v.notification.next_notification = k_monday_20h;
       },
       R::ok},
      {"no more notifications", "HTTP", T::normal,
       [](ServiceNotificationView& v, NotificationSettings&) { v.notification.no_more_notifications = true; },
       R::re_no_more},
      {"host down", "HTTP", T::normal,
       [](ServiceNotificationView& v, NotificationSettings&) { v.host_state = k_host_unreachable; },
       R::service_host_down_unreachable},
      {"too early", "HTTP", T::normal,
       [](ServiceNotificationView& v, NotificationSettings&) {
         v.notification.next_notification = k_monday_10h + 1;
       },
       R::re_not_yet},
      {"too early but volatile", "Volatile", T::normal,
       [](ServiceNotificationView& v, NotificationSettings&) {
         v.notification.next_notification = k_monday_10h + 1;
       },
       R::ok},
      {"in downtime", "HTTP", T::normal,
       [](ServiceNotificationView& v, NotificationSettings&) { v.scheduled_downtime_depth = 2; },
       R::is_scheduled_downtime},
      {"host in downtime", "HTTP", T::normal,
       [](ServiceNotificationView& v, NotificationSettings&) { v.host_scheduled_downtime_depth = 1; },
       R::service_host_scheduled_downtime},
  };
  for (const ServiceCase& c : cases) {
    ServiceNotificationView view = critical_service();
    const NotificationSettings saved = settings_;
    c.change(view, settings_);
    const Viability v =
        check_service_notification_viability(ctx(k_monday_10h), svc(c.service), view, c.type, 0);
    EXPECT_EQ(v.reason, c.expected) << c.name << ": got '" << suppression_reason_text(v.reason, false) << "'";
    settings_ = saved;
  }
}

TEST_F(NotificationRulesTest, ServiceChecksRunInNaemonsOrder) {
  ServiceNotificationView view = critical_service();
  view.state_type = StateType::soft;
  view.problem_has_been_acknowledged = true;
  view.is_flapping = true;
  view.scheduled_downtime_depth = 1;
  view.host_state = k_host_down;
  auto reason = [&] {
    return check_service_notification_viability(ctx(k_monday_10h), svc("HTTP"), view, T::normal, 0).reason;
  };
  EXPECT_EQ(reason(), R::soft_state);
  view.state_type = StateType::hard;
  EXPECT_EQ(reason(), R::acknowledged);
  view.problem_has_been_acknowledged = false;
  EXPECT_EQ(reason(), R::is_flapping);
  view.is_flapping = false;
  EXPECT_EQ(reason(), R::service_host_down_unreachable) << "the host's state before the downtime";
  view.host_state = k_host_up;
  EXPECT_EQ(reason(), R::is_scheduled_downtime);
  view.notifications_enabled = false;
  settings_.enable_notifications = false;
  EXPECT_EQ(reason(), R::disabled) << "global switch first";
  EXPECT_EQ(check_service_notification_viability(ctx(k_monday_10h), svc("HTTP"), view, T::normal,
                                                 k_notification_option_forced)
                .reason,
            R::ok)
      << "forced notifications bust through everything";
}

TEST_F(NotificationRulesTest, NotificationPeriodBlocksAndMovesTheNextNotification) {
  // Monday 20:00 is outside "work": the next valid time is Tuesday 09:00.
  const Viability v = check_service_notification_viability(ctx(k_monday_20h), svc("Office"),
                                                           critical_service(), T::normal, 0);
  EXPECT_EQ(v.reason, R::timeperiod_blocked);
  ASSERT_TRUE(v.next_notification);
  EXPECT_EQ(*v.next_notification, k_monday + 24 * 3600 + 9 * 3600);

  const Viability ack = check_service_notification_viability(ctx(k_monday_20h), svc("Office"),
                                                             critical_service(), T::acknowledgement, 0);
  EXPECT_EQ(ack.reason, R::timeperiod_blocked);
  EXPECT_FALSE(ack.next_notification) << "only normal notifications move next_notification";

  ServiceNotificationView view = critical_service();
  view.notifications_enabled = false;
  EXPECT_EQ(check_service_notification_viability(ctx(k_monday_20h), svc("Office"), view, T::normal, 0).reason,
            R::timeperiod_blocked)
      << "the period is checked before the object's switch";

  NotificationPlan plan =
      plan_service_notification(ctx(k_monday_20h), svc("Office"), critical_service(), T::normal, 0);
  NotificationState state;
  record_notification(state, plan, 0);
  EXPECT_EQ(state.next_notification, k_monday + 33 * 3600);
  EXPECT_EQ(state.current_notification_number, 0);

  EXPECT_EQ(
      check_service_notification_viability(ctx(k_monday_10h), svc("Office"), critical_service(), T::normal, 0)
          .reason,
      R::ok);
}

TEST_F(NotificationRulesTest, NotificationPeriodChangedByCommandReplacesTheConfiguredOne) {
  // CHANGE_SVC_NOTIFICATION_TIMEPERIOD / CHANGE_HOST_NOTIFICATION_TIMEPERIOD: Naemon swaps the object's
  // period, so the changed one blocks (and moves next_notification) and the configured one no longer does.
  const model::TimeperiodId work = model().timeperiod_by_name.at("work");
  const model::TimeperiodId always = model().timeperiod_by_name.at("24x7");
  ServiceNotificationView http = critical_service();
  http.notification_period = work;
  const Viability blocked =
      check_service_notification_viability(ctx(k_monday_20h), svc("HTTP"), http, T::normal, 0);
  EXPECT_EQ(blocked.reason, R::timeperiod_blocked) << "HTTP is configured 24x7, changed to work hours";
  ASSERT_TRUE(blocked.next_notification);
  EXPECT_EQ(*blocked.next_notification, k_monday + 24 * 3600 + 9 * 3600) << "the changed period's next start";
  EXPECT_EQ(check_service_notification_viability(ctx(k_monday_10h), svc("HTTP"), http, T::normal, 0).reason,
            R::ok);

  ServiceNotificationView office = critical_service();
  office.notification_period = always;
  EXPECT_EQ(
      check_service_notification_viability(ctx(k_monday_20h), svc("Office"), office, T::normal, 0).reason,
      R::ok)
      << "Office is configured with work hours, changed to 24x7";

  HostNotificationView host_view = down_host();
  host_view.notification_period = work;
  const Viability host_blocked =
      check_host_notification_viability(ctx(k_monday_20h), host("web01"), host_view, T::normal, 0);
  EXPECT_EQ(host_blocked.reason, R::timeperiod_blocked);
  ASSERT_TRUE(host_blocked.next_notification);
  EXPECT_EQ(*host_blocked.next_notification, k_monday + 33 * 3600);
  EXPECT_EQ(
      check_host_notification_viability(ctx(k_monday_20h), host("web01"), down_host(), T::normal, 0).reason,
      R::ok);

  // A service without a period of its own follows its host's, as changed.
  cfg_.model->services[model::index(svc("Delayed"))].notification_period =
      model::no_id<model::TimeperiodId>();
  ServiceNotificationView delayed = critical_service();
  delayed.last_hard_state_change = k_monday;
  EXPECT_EQ(
      check_service_notification_viability(ctx(k_monday_20h), svc("Delayed"), delayed, T::normal, 0).reason,
      R::ok);
  delayed.host_notification_period = work;
  EXPECT_EQ(
      check_service_notification_viability(ctx(k_monday_20h), svc("Delayed"), delayed, T::normal, 0).reason,
      R::timeperiod_blocked);
  delayed.notification_period = always;
  EXPECT_EQ(
      check_service_notification_viability(ctx(k_monday_20h), svc("Delayed"), delayed, T::normal, 0).reason,
      R::ok)
      << "its own changed period comes first";
}

TEST_F(NotificationRulesTest, FirstNotificationDelay) {
  // first_notification_delay 5 (× interval_length 60): 300 s after the hard state change.
  ServiceNotificationView view = critical_service();
  view.last_hard_state_change = k_monday_10h;
  auto reason = [&](Time now) {
    return check_service_notification_viability(ctx(now), svc("Delayed"), view, T::normal, 0).reason;
  };
  EXPECT_EQ(reason(k_monday_10h), R::delay);
  EXPECT_EQ(reason(k_monday_10h + 299), R::delay);
  EXPECT_EQ(reason(k_monday_10h + 300), R::ok);

  view.last_hard_state_change = 0;  // never changed: counted from program start
  settings_.program_start = k_monday_10h - 100;
  EXPECT_EQ(reason(k_monday_10h + 199), R::delay);
  EXPECT_EQ(reason(k_monday_10h + 200), R::ok);

  view.notification.current_notification_number = 1;  // only the first notification waits
  EXPECT_EQ(reason(k_monday_10h), R::ok);
  view.notification.current_notification_number = 0;
  view.current_state = k_state_ok;  // nor does a recovery
  view.notification.notified_on = model::k_opt_critical;
  EXPECT_EQ(reason(k_monday_10h), R::ok);
  EXPECT_EQ(check_service_notification_viability(ctx(k_monday_10h), svc("Delayed"), critical_service(),
                                                 T::acknowledgement, 0)
                .reason,
            R::ok);
}

// -------------------------------------------------------------------------------------------- host viability

struct HostCase {
  const char* name;
  T type;
  void (*change)(HostNotificationView&, NotificationSettings&);
  R expected;
};

TEST_F(NotificationRulesTest, EveryHostSuppressionReason) {
  const HostCase cases[] = {
      {"passes", T::normal, [](HostNotificationView&, NotificationSettings&) {}, R::ok},
      {"disabled globally", T::normal,
       [](HostNotificationView&, NotificationSettings& s) { s.enable_notifications = false; }, R::disabled},
      {"disabled for the object", T::normal,
       [](HostNotificationView& v, NotificationSettings&) { v.notifications_enabled = false; },
       R::disabled_object},
      {"custom in downtime", T::custom,
       [](HostNotificationView& v, NotificationSettings&) { v.scheduled_downtime_depth = 1; },
       R::custom_sched_downtime},
      {"ack of an UP host", T::acknowledgement,
       [](HostNotificationView& v, NotificationSettings&) { v.current_state = k_host_up; }, R::ack_object_ok},
      {"flapping in downtime", T::flapping_disabled,
       [](HostNotificationView& v, NotificationSettings&) { v.scheduled_downtime_depth = 1; },
       R::sched_downtime_flapping},
      {"downtime in downtime", T::downtime_cancelled,
       [](HostNotificationView& v, NotificationSettings&) { v.scheduled_downtime_depth = 1; },
       R::sched_downtime_downtime},
      {"soft", T::normal,
       [](HostNotificationView& v, NotificationSettings&) { v.state_type = StateType::soft; }, R::soft_state},
      {"acknowledged", T::normal,
       [](HostNotificationView& v, NotificationSettings&) { v.problem_has_been_acknowledged = true; },
       R::acknowledged},
      {"dependency", T::normal,
       [](HostNotificationView& v, NotificationSettings&) { v.dependencies_failed = true; },
       R::dependency_failure},
      {"recovery of an unnotified problem", T::normal,
       [](HostNotificationView& v, NotificationSettings&) { v.current_state = k_host_up; },
       R::recovery_unnotified_problem},
      {"flapping", T::normal, [](HostNotificationView& v, NotificationSettings&) { v.is_flapping = true; },
       R::is_flapping},
      {"flap detection off for the host", T::normal,
       [](HostNotificationView& v, NotificationSettings&) {
         v.is_flapping = true;
         v.flap_detection_enabled = false;
       },
       R::ok},
      {"recovery in downtime", T::normal,
       [](HostNotificationView& v, NotificationSettings&) {
         v.current_state = k_host_up;
         v.notification.notified_on = model::k_opt_down;
         v.scheduled_downtime_depth = 1;
       },
       R::ok},
      {"downtime before no-more", T::normal,
       [](HostNotificationView& v, NotificationSettings&) {
         v.scheduled_downtime_depth = 1;
         v.notification.no_more_notifications = true;
       },
       R::is_scheduled_downtime},
      {"no more", T::normal,
       [](HostNotificationView& v, NotificationSettings&) { v.notification.no_more_notifications = true; },
       R::re_no_more},
      {"too early", T::normal,
       [](HostNotificationView& v, NotificationSettings&) {
         v.notification.next_notification = k_monday_10h + 60;
       },
       R::re_not_yet},
  };
  for (const HostCase& c : cases) {
    HostNotificationView view = down_host();
    const NotificationSettings saved = settings_;
    c.change(view, settings_);
    const Viability v = check_host_notification_viability(ctx(k_monday_10h), host("web01"), view, c.type, 0);
    EXPECT_EQ(v.reason, c.expected) << c.name << ": got '" << suppression_reason_text(v.reason, false) << "'";
    settings_ = saved;
  }
}

// --------------------------------------------------------------------------------- plans, numbers, intervals

TEST_F(NotificationRulesTest, ReNotificationWaitsForTheInterval) {
  const NotificationContext at = ctx(k_monday_10h);
  ServiceNotificationView view = critical_service();
  NotificationPlan first = plan_service_notification(at, svc("HTTP"), view, T::normal, 0);
  ASSERT_EQ(first.suppressed, R::ok);
  EXPECT_EQ(first.notification_number, 1);
  EXPECT_TRUE(first.increments);
  EXPECT_EQ(first.next_if_sent.at, k_monday_10h + 600) << "notification_interval 10 × 60 s";
  EXPECT_FALSE(first.next_if_sent.no_more_notifications);
  record_notification(view.notification, first, static_cast<int>(first.contacts.size()));
  EXPECT_EQ(view.notification.current_notification_number, 1);
  EXPECT_EQ(view.notification.last_notification, k_monday_10h);
  EXPECT_EQ(view.notification.next_notification, k_monday_10h + 600);
  EXPECT_EQ(view.notification.notified_on, model::k_opt_critical);

  EXPECT_EQ(plan_service_notification(ctx(k_monday_10h + 599), svc("HTTP"), view, T::normal, 0).suppressed,
            R::re_not_yet);
  NotificationPlan second =
      plan_service_notification(ctx(k_monday_10h + 600), svc("HTTP"), view, T::normal, 0);
  EXPECT_EQ(second.suppressed, R::ok);
  EXPECT_EQ(second.notification_number, 2);
}

TEST_F(NotificationRulesTest, IntervalZeroNotifiesOnce) {
  // db01 has notification_interval 0: one problem notification, then none until the state changes.
  HostNotificationView view = down_host();
  NotificationPlan plan = plan_host_notification(ctx(k_monday_10h), host("db01"), view, T::normal, 0);
  ASSERT_EQ(plan.suppressed, R::ok);
  EXPECT_TRUE(plan.next_if_sent.no_more_notifications);
  EXPECT_EQ(plan.next_if_sent.at, k_monday_10h);
  record_notification(view.notification, plan, 1);
  EXPECT_TRUE(view.notification.no_more_notifications);
  EXPECT_EQ(plan_host_notification(ctx(k_monday_20h), host("db01"), view, T::normal, 0).suppressed,
            R::re_no_more);

  reset_notifications_on_state_change(view.notification);  // e.g. DOWN -> UNREACHABLE
  view.current_state = k_host_unreachable;
  EXPECT_EQ(plan_host_notification(ctx(k_monday_20h), host("db01"), view, T::normal, 0).suppressed, R::ok);
  EXPECT_EQ(view.notification.current_notification_number, 1) << "the number survives a hard change";

  // A volatile service with interval 0 notifies on every hard problem result.
  ServiceNotificationView vol = critical_service();
  NotificationPlan v1 = plan_service_notification(ctx(k_monday_10h), svc("Volatile"), vol, T::normal, 0);
  EXPECT_FALSE(v1.next_if_sent.no_more_notifications);
  record_notification(vol.notification, v1, 1);
  EXPECT_EQ(plan_service_notification(ctx(k_monday_10h + 1), svc("Volatile"), vol, T::normal, 0).suppressed,
            R::ok);
}

TEST_F(NotificationRulesTest, NumberRules) {
  ServiceNotificationView view = critical_service();
  view.notification.current_notification_number = 2;
  NotificationPlan ack =
      plan_service_notification(ctx(k_monday_10h), svc("HTTP"), view, T::acknowledgement, 0);
  EXPECT_FALSE(ack.increments);
  EXPECT_EQ(ack.notification_number, 2) << "acknowledgements repeat the current number";
  NotificationState state = view.notification;
  record_notification(state, ack, 3);
  EXPECT_EQ(state.current_notification_number, 2);
  EXPECT_EQ(state.last_notification, 0) << "only normal notifications set the times";

  NotificationPlan custom = plan_service_notification(ctx(k_monday_10h), svc("HTTP"), view, T::custom,
                                                      k_notification_option_increment);
  EXPECT_TRUE(custom.increments);
  EXPECT_EQ(custom.notification_number, 3);
  record_notification(state, custom, 0);
  EXPECT_EQ(state.current_notification_number, 3) << "Naemon keeps it even when no one was reached";

  NotificationPlan normal = plan_service_notification(ctx(k_monday_10h), svc("HTTP"), view, T::normal, 0);
  state = view.notification;
  record_notification(state, normal, 0);  // every contact cancelled by a module
  EXPECT_EQ(state.current_notification_number, 2) << "a normal notification that reached no one is undone";
  EXPECT_EQ(state.next_notification, 0);

  // Recovery: numbered after the problem notifications, then reset by the check result handling.
  view.current_state = k_state_ok;
  view.notification.notified_on = model::k_opt_critical;
  NotificationPlan recovery = plan_service_notification(ctx(k_monday_10h), svc("HTTP"), view, T::normal, 0);
  EXPECT_EQ(recovery.notification_number, 3);
  state = view.notification;
  record_notification(state, recovery, 4);
  EXPECT_EQ(state.current_notification_number, 3);
  reset_service_notifications_when_ok(state);
  EXPECT_EQ(state.current_notification_number, 0);
  EXPECT_EQ(state.notified_on, 0u);
  EXPECT_EQ(state.last_notification, 0);
  EXPECT_EQ(state.next_notification, 0);

  NotificationState host_state;
  host_state.current_notification_number = 4;
  host_state.last_notification = 5;
  host_state.next_notification = 6;
  host_state.no_more_notifications = true;
  host_state.notified_on = model::k_opt_down;
  reset_host_notifications_on_recovery(host_state);
  EXPECT_EQ(host_state.current_notification_number, 0);
  EXPECT_EQ(host_state.notified_on, 0u);
  EXPECT_EQ(host_state.last_notification, 5) << "a host keeps its times (cleared on its state change)";
}

TEST_F(NotificationRulesTest, NoContactsLeft) {
  // Every contact of HTTP is disabled: no_contacts, and the number stays.
  for (const model::Contact& c : model().contacts) {
    ContactNotificationState s = ContactNotificationState::from(c);
    s.service_notifications_enabled = false;
    contact_states_.push_back(s);
  }
  ServiceNotificationView view = critical_service();
  NotificationPlan plan = plan_service_notification(ctx(k_monday_10h), svc("HTTP"), view, T::normal, 0);
  EXPECT_EQ(plan.suppressed, R::no_contacts);
  EXPECT_TRUE(plan.contacts.empty());
  EXPECT_EQ(plan.skipped_contacts.size(), 4u);
  for (const SkippedContact& s : plan.skipped_contacts) EXPECT_EQ(s.reason, R::disabled_object);
  record_notification(view.notification, plan, 0);
  EXPECT_EQ(view.notification.current_notification_number, 0);

  // A global handler is notified even then, and counts as a notified contact.
  settings_.has_global_service_handler = true;
  plan = plan_service_notification(ctx(k_monday_10h), svc("HTTP"), view, T::normal, 0);
  EXPECT_EQ(plan.suppressed, R::ok);
  EXPECT_TRUE(plan.contacts.empty());
  record_notification(view.notification, plan, 1);
  EXPECT_EQ(view.notification.current_notification_number, 1);
}

// -------------------------------------------------------------------------------------------------- contacts

TEST_F(NotificationRulesTest, ContactsInNaemonsOrderOnceEach) {
  // Naemon's lists are built by prepending: HTTP's contacts run bob, alice ("alice,bob" reversed), ops's
  // members erin, dave. Its notification list prepends again, so the last contact added is notified first,
  // while $NOTIFICATIONRECIPIENTS$ keeps the order they were added in.
  model::Contactgroup& ops = cfg_.model->contactgroups[model::index(model().contactgroup_by_name.at("ops"))];
  ASSERT_EQ(names(ops.listed_members), (Names{"erin", "dave"}));
  NotificationPlan plan =
      plan_service_notification(ctx(k_monday_10h), svc("HTTP"), critical_service(), T::normal, 0);
  EXPECT_EQ(names(plan.contacts), (Names{"dave", "erin", "alice", "bob"}));
  EXPECT_FALSE(plan.escalated);
  EXPECT_EQ(notification_recipients(model(), plan), "bob,alice,erin,dave");

  // A contact met twice is notified once, where it was first added.
  ops.listed_members.push_back(contact("alice"));
  plan = plan_service_notification(ctx(k_monday_10h), svc("HTTP"), critical_service(), T::normal, 0);
  EXPECT_EQ(names(plan.contacts), (Names{"dave", "erin", "alice", "bob"}));
}

TEST_F(NotificationRulesTest, ContactFilters) {
  const model::ServiceId http = svc("HTTP");
  auto reason = [&](std::string_view who, int state, model::OptionSet notified_on, T type,
                    NotificationOptions options = 0) {
    return check_contact_service_notification_viability(ctx(k_monday_10h), contact(who), http, state,
                                                        notified_on, type, options);
  };
  EXPECT_EQ(reason("alice", k_state_warning, 0, T::normal), R::ok);
  EXPECT_EQ(reason("bob", k_state_warning, 0, T::normal), R::state_disabled) << "bob wants c,r";
  EXPECT_EQ(reason("bob", k_state_warning, 0, T::acknowledgement), R::state_disabled)
      << "acks follow the state";
  EXPECT_EQ(reason("bob", k_state_warning, 0, T::custom), R::ok) << "custom skips the options";
  EXPECT_EQ(reason("bob", k_state_critical, 0, T::flapping_start), R::no_flapping);
  EXPECT_EQ(reason("bob", k_state_critical, 0, T::downtime_end), R::no_downtime);
  EXPECT_EQ(reason("alice", k_state_critical, 0, T::downtime_end), R::ok);
  EXPECT_EQ(reason("bob", k_state_warning, 0, T::normal, k_notification_option_forced), R::ok);
  // Recoveries go to contacts who wanted one of the notified states.
  EXPECT_EQ(reason("bob", k_state_ok, model::k_opt_warning, T::normal), R::recovery_unnotified_problem);
  EXPECT_EQ(reason("bob", k_state_ok, model::k_opt_warning | model::k_opt_critical, T::normal), R::ok);
  EXPECT_EQ(reason("alice", k_state_ok, model::k_opt_warning, T::normal), R::ok);

  // Hosts: any notified problem lets the recovery through.
  EXPECT_EQ(check_contact_host_notification_viability(ctx(k_monday_10h), contact("bob"), host("web01"),
                                                      k_host_up, model::k_opt_unreachable, T::normal, 0),
            R::ok);
  EXPECT_EQ(check_contact_host_notification_viability(ctx(k_monday_10h), contact("bob"), host("web01"),
                                                      k_host_up, 0, T::normal, 0),
            R::recovery_unnotified_problem);
  EXPECT_EQ(check_contact_host_notification_viability(ctx(k_monday_10h), contact("bob"), host("web01"),
                                                      k_host_unreachable, 0, T::normal, 0),
            R::state_disabled);

  // Run-time switches and periods.
  for (const model::Contact& c : model().contacts)
    contact_states_.push_back(ContactNotificationState::from(c));
  contact_states_[model::index(contact("alice"))].service_notifications_enabled = false;
  contact_states_[model::index(contact("alice"))].host_notification_period =
      model().timeperiod_by_name.at("work");
  EXPECT_EQ(reason("alice", k_state_critical, 0, T::normal), R::disabled_object);
  EXPECT_EQ(check_contact_host_notification_viability(ctx(k_monday_20h), contact("alice"), host("web01"),
                                                      k_host_down, 0, T::custom, 0),
            R::timeperiod_blocked);
  EXPECT_EQ(check_contact_host_notification_viability(ctx(k_monday_10h), contact("alice"), host("web01"),
                                                      k_host_down, 0, T::custom, 0),
            R::ok);
}

TEST_F(NotificationRulesTest, ContactMinimumValue) {
  // minimum_value against hourly_value: web01 is worth 1, plus 1 per service (5 services) for host mail.
  model::Model& m = *cfg_.model;
  model::Contact& alice = m.contacts[model::index(contact("alice"))];
  alice.minimum_value = 2;
  EXPECT_EQ(check_contact_service_notification_viability(ctx(k_monday_10h), contact("alice"), svc("HTTP"),
                                                         k_state_critical, 0, T::normal, 0),
            R::insufficient_importance);
  EXPECT_EQ(check_contact_host_notification_viability(ctx(k_monday_10h), contact("alice"), host("web01"),
                                                      k_host_down, 0, T::normal, 0),
            R::ok)
      << "the host's services count for host notifications";
  alice.minimum_value = 7;
  EXPECT_EQ(check_contact_host_notification_viability(ctx(k_monday_10h), contact("alice"), host("web01"),
                                                      k_host_down, 0, T::normal, 0),
            R::insufficient_importance);
  EXPECT_EQ(index_->host_services_value(host("web01")), 5u);
}

// ----------------------------------------------------------------------------------------------- escalations

TEST_F(NotificationRulesTest, EscalationsByNumberPeriodAndOptions) {
  // DB: notification_interval 60; escalation A (2-∞, 20 min, c,r, carol); escalation B (3-3, 3 min, work
  // hours, ops).
  const model::ServiceId db = svc("DB");
  auto plan_at = [&](Time now, int state, int number_before) {
    ServiceNotificationView view = critical_service();
    view.current_state = state;
    view.notification.current_notification_number = number_before;
    view.notification.notified_on = model::k_opt_critical;
    return plan_service_notification(ctx(now), db, view, T::normal, 0);
  };
  NotificationPlan p = plan_at(k_monday_10h, k_state_critical, 0);
  EXPECT_FALSE(p.escalated);
  EXPECT_EQ(names(p.contacts), Names{"alice"});
  EXPECT_EQ(p.next_if_sent.interval, 60);

  p = plan_at(k_monday_10h, k_state_critical, 1);  // notification 2: A
  EXPECT_TRUE(p.escalated);
  EXPECT_EQ(names(p.contacts), Names{"carol"})
      << "escalated: the escalation's contacts instead of the service's";
  EXPECT_EQ(p.next_if_sent.interval, 20);
  EXPECT_EQ(p.next_if_sent.at, k_monday_10h + 20 * 60);

  p = plan_at(k_monday_10h, k_state_critical, 2);  // notification 3: A and B (work hours)
  EXPECT_TRUE(p.escalated);
  // Escalation A comes first in DB's escalation list (A's carol, then B's ops: erin, dave), notified from
  // the last added.
  ASSERT_EQ(index_->service_escalations(db).size(), 2u);
  EXPECT_EQ(index_->service_escalations(db)[0]->first_notification, 2);
  EXPECT_EQ(names(p.contacts), (Names{"dave", "erin", "carol"}));
  EXPECT_EQ(p.next_if_sent.interval, 3) << "the smallest interval of the valid escalations";

  p = plan_at(k_monday_20h, k_state_critical, 2);  // notification 3 outside B's period
  EXPECT_EQ(names(p.contacts), Names{"carol"});
  EXPECT_EQ(p.next_if_sent.interval, 20);

  p = plan_at(k_monday_10h, k_state_warning, 3);  // A wants c,r only; B is over
  EXPECT_FALSE(p.escalated);
  EXPECT_EQ(names(p.contacts), Names{"alice"});
  EXPECT_EQ(p.next_if_sent.interval, 60);

  // A recovery is judged by the number of the problem notification before it: after notification 1 it
  // is not escalated, after notification 2 it goes to carol.
  p = plan_at(k_monday_10h, k_state_ok, 1);
  EXPECT_EQ(p.notification_number, 2);
  EXPECT_FALSE(p.escalated);
  EXPECT_EQ(names(p.contacts), Names{"alice"});
  p = plan_at(k_monday_10h, k_state_ok, 2);
  EXPECT_TRUE(p.escalated);
  EXPECT_EQ(names(p.contacts), Names{"carol"});

  // Broadcast: every escalation's contacts and the service's, whatever the number.
  ServiceNotificationView view = critical_service();
  p = plan_service_notification(ctx(k_monday_20h), db, view, T::custom, k_notification_option_broadcast);
  EXPECT_FALSE(p.escalated);
  EXPECT_EQ(names(p.contacts), (Names{"alice", "dave", "erin", "carol"}));
}

TEST_F(NotificationRulesTest, EscalationRulesByHand) {
  model::EscalationRule rule;
  rule.first_notification = 2;
  rule.last_notification = 4;
  rule.notification_interval = 7;
  rule.options = model::k_opt_critical | model::k_opt_recovery;
  const timeperiod::Evaluator& tp = *evaluator_;
  EXPECT_FALSE(is_escalation_valid(rule, k_state_critical, 1, 0, tp, k_monday));
  EXPECT_TRUE(is_escalation_valid(rule, k_state_critical, 2, 0, tp, k_monday));
  EXPECT_TRUE(is_escalation_valid(rule, k_state_critical, 4, 0, tp, k_monday));
  EXPECT_FALSE(is_escalation_valid(rule, k_state_critical, 5, 0, tp, k_monday));
  EXPECT_TRUE(is_escalation_valid(rule, k_state_ok, 5, 0, tp, k_monday)) << "recovery: number - 1";
  EXPECT_FALSE(is_escalation_valid(rule, k_state_warning, 3, 0, tp, k_monday)) << "options";
  EXPECT_TRUE(is_escalation_valid(rule, k_state_warning, 9, k_notification_option_broadcast, tp, k_monday));
  rule.last_notification = 0;
  EXPECT_TRUE(is_escalation_valid(rule, k_state_critical, 500, 0, tp, k_monday)) << "last 0: no end";

  model::EscalationRule keeps_interval = rule;
  keeps_interval.notification_interval = -2;  // not set anywhere
  model::EscalationRule longer = rule;
  longer.notification_interval = 9;
  const model::EscalationRule* rules[] = {&keeps_interval, &longer, &rule};
  const NextNotification next =
      next_notification_time(rules, 30, false, k_state_critical, 3, 60, tp, k_monday);
  EXPECT_EQ(next.interval, 7);
  EXPECT_EQ(next.at, k_monday + 7 * 60);
  const model::EscalationRule* only_unset[] = {&keeps_interval};
  EXPECT_EQ(next_notification_time(only_unset, 30, false, k_state_critical, 3, 60, tp, k_monday).interval,
            30);
  EXPECT_TRUE(should_escalate(only_unset, k_state_critical, 3, tp, k_monday))
      << "an escalation without an interval still escalates";
  model::EscalationRule zero = rule;
  zero.notification_interval = 0;
  const model::EscalationRule* with_zero[] = {&rule, &zero};
  EXPECT_TRUE(next_notification_time(with_zero, 30, false, k_state_critical, 3, 60, tp, k_monday)
                  .no_more_notifications);
  EXPECT_EQ(next_notification_time({}, 1.5, false, k_state_critical, 3, 60, tp, k_monday).at, k_monday + 90);
}

TEST_F(NotificationRulesTest, HostEscalation) {
  HostNotificationView view = down_host();
  NotificationPlan p = plan_host_notification(ctx(k_monday_10h), host("db01"), view, T::normal, 0);
  EXPECT_FALSE(p.escalated);
  EXPECT_EQ(names(p.contacts), Names{"alice"});
  EXPECT_TRUE(p.next_if_sent.no_more_notifications);
  view.notification.current_notification_number = 1;
  p = plan_host_notification(ctx(k_monday_10h), host("db01"), view, T::normal, 0);
  EXPECT_TRUE(p.escalated);
  EXPECT_EQ(p.contacts.size(), 2u);
  EXPECT_EQ(p.next_if_sent.interval, 15) << "the escalation's interval replaces the host's 0";
  EXPECT_FALSE(p.next_if_sent.no_more_notifications);
}

// ------------------------------------------------------------------------------------- dependencies, parents

TEST_F(NotificationRulesTest, NotificationDependencies) {
  model::Model& m = *cfg_.model;
  const model::ServiceId http = svc("HTTP"), db = svc("DB"), office = svc("Office");
  const model::TimeperiodId always = model::no_id<model::TimeperiodId>();
  const model::TimeperiodId work = m.timeperiod_by_name.at("work");
  using K = model::DependencyKind;
  m.service_dependencies.push_back(
      {K::notification, db, http, always, model::k_opt_critical | model::k_opt_pending, true});
  m.service_dependencies.push_back({K::notification, office, db, work, model::k_opt_warning, false});
  m.service_dependencies.push_back({K::execution, office, http, always, model::k_opt_all, false});
  m.host_dependencies.push_back(
      {K::notification, host("db01"), host("web01"), always, model::k_opt_down, false});
  index_ = std::make_unique<NotificationIndex>(m);

  auto svc_failed = [&](Time now) {
    return service_notification_dependencies_failed(ctx(now), http, services_);
  };
  EXPECT_FALSE(svc_failed(k_monday_10h));
  services_[model::index(db)].current_state = k_state_critical;
  EXPECT_TRUE(svc_failed(k_monday_10h));
  services_[model::index(db)].state_type = StateType::soft;  // soft: its last hard state counts
  EXPECT_FALSE(svc_failed(k_monday_10h));
  settings_.soft_state_dependencies = true;
  EXPECT_TRUE(svc_failed(k_monday_10h));
  settings_.soft_state_dependencies = false;
  services_[model::index(db)].has_been_checked = false;
  EXPECT_TRUE(svc_failed(k_monday_10h)) << "pending master with 'p'";
  services_[model::index(db)].has_been_checked = true;
  services_[model::index(office)].current_state = k_state_warning;
  EXPECT_TRUE(svc_failed(k_monday_10h)) << "inherits_parent: DB's own dependency on Office";
  EXPECT_FALSE(svc_failed(k_monday_20h)) << "outside the dependency_period it is skipped";

  EXPECT_FALSE(host_notification_dependencies_failed(ctx(k_monday_10h), host("web01"), hosts_));
  hosts_[model::index(host("db01"))].current_state = k_host_down;
  EXPECT_TRUE(host_notification_dependencies_failed(ctx(k_monday_10h), host("web01"), hosts_));

  m.services[model::index(http)].parents = {db, office};
  EXPECT_TRUE(all_service_parents_failing(m.service(http), services_));
  services_[model::index(office)].current_state = k_state_ok;
  EXPECT_FALSE(all_service_parents_failing(m.service(http), services_));
  EXPECT_FALSE(all_service_parents_failing(m.service(db), services_)) << "no parents";
}

// ------------------------------------------------------------------------------------------ a problem's life

// The core's part, as Naemon's check result handling does it around service_notification().
class ProblemLife {
 public:
  explicit ProblemLife(const NotificationContext& base) : base_(base) {}

  void result(int state, StateType type, Time at) {
    const bool state_change = state != view.current_state;
    const bool hard_change =
        type == StateType::hard && (state != last_hard_state_ || view.state_type == StateType::soft);
    if (state_change || hard_change) {
      reset_notifications_on_state_change(view.notification);
      view.problem_has_been_acknowledged = false;  // a normal (non-sticky) acknowledgement ends
    }
    if (hard_change) {
      view.last_hard_state_change = at;
      last_hard_state_ = state;
    }
    view.current_state = state;
    view.state_type = type;
  }

  NotificationPlan notify(T type, Time at) {
    NotificationContext c{.model = base_.model,
                          .index = base_.index,
                          .timeperiods = base_.timeperiods,
                          .settings = base_.settings,
                          .contacts = base_.contacts,
                          .now = at};
    NotificationPlan plan = plan_service_notification(c, id, view, type, 0);
    const bool reached = plan.suppressed == R::ok && !plan.contacts.empty();
    record_notification(view.notification, plan, reached ? static_cast<int>(plan.contacts.size()) : 0);
    if (view.current_state == k_state_ok && view.state_type == StateType::hard)
      reset_service_notifications_when_ok(view.notification);
    return plan;
  }

  model::ServiceId id{};
  ServiceNotificationView view;

 private:
  const NotificationContext& base_;
  int last_hard_state_ = k_state_ok;
};

TEST_F(NotificationRulesTest, AProblemsLife) {
  // HTTP: interval 10 min; notifications 3-4 escalate to carol every 5 min. t0 is Monday 10:00.
  const Time t0 = k_monday_10h;
  const NotificationContext base = ctx(t0);
  ProblemLife life(base);
  life.id = svc("HTTP");
  life.view.last_hard_state_change = k_monday;

  const Names normal = {"dave", "erin", "alice", "bob"};
  const Names escalated = {"carol"};
  const Names normal_without_bob = {"dave", "erin", "alice"};

  enum class Event { soft_critical, hard_critical, recheck, ack, hard_warning, hard_ok };
  struct Step {
    Time at;
    Event event;
    T type;
    R expected;
    Names contacts;
    int number_after;
    Time next_after;
    bool is_escalated;
  };
  const Step steps[] = {
      // at, event, notification, decision, contacts, number and next_notification afterwards, escalated
      {t0, Event::soft_critical, T::normal, R::soft_state, {}, 0, 0, false},
      {t0 + 60, Event::hard_critical, T::normal, R::ok, normal, 1, t0 + 660, false},
      {t0 + 300, Event::recheck, T::normal, R::re_not_yet, {}, 1, t0 + 660, false},
      {t0 + 660, Event::recheck, T::normal, R::ok, normal, 2, t0 + 1260, false},
      {t0 + 1260, Event::recheck, T::normal, R::ok, escalated, 3, t0 + 1560, true},  // escalation: 5 min
      {t0 + 1500, Event::recheck, T::normal, R::re_not_yet, {}, 3, t0 + 1560, false},
      {t0 + 1560, Event::recheck, T::normal, R::ok, escalated, 4, t0 + 1860, true},
      {t0 + 1860, Event::recheck, T::normal, R::ok, normal, 5, t0 + 2460, false},  // past last_notification 4
      {t0 + 1900, Event::ack, T::acknowledgement, R::ok, normal, 5, t0 + 2460, false},
      {t0 + 2500, Event::recheck, T::normal, R::acknowledged, {}, 5, t0 + 2460, false},
      // CRITICAL -> WARNING ends the (non-sticky) ack; the number keeps counting; bob does not want warnings.
      {t0 + 2560, Event::hard_warning, T::normal, R::ok, normal_without_bob, 6, t0 + 3160, false},
      // Recovery #7, to everyone who wanted one of the notified states (bob: the criticals), then reset.
      {t0 + 3000, Event::hard_ok, T::normal, R::ok, normal, 0, 0, false},
      {t0 + 3060, Event::recheck, T::normal, R::recovery_unnotified_problem, {}, 0, 0, false},
  };
  for (const Step& s : steps) {
    switch (s.event) {
      case Event::soft_critical:
        life.result(k_state_critical, StateType::soft, s.at);
        break;
      case Event::hard_critical:
        life.result(k_state_critical, StateType::hard, s.at);
        break;
      case Event::hard_warning:
        life.result(k_state_warning, StateType::hard, s.at);
        break;
      case Event::hard_ok:
        life.result(k_state_ok, StateType::hard, s.at);
        break;
      case Event::ack:
        life.view.problem_has_been_acknowledged = true;
        break;
      case Event::recheck:
        break;
    }
    const NotificationPlan plan = life.notify(s.type, s.at);
    const std::string where = "at t0+" + std::to_string(s.at - t0);
    EXPECT_EQ(plan.suppressed, s.expected)
        << where << ": " << suppression_reason_text(plan.suppressed, false);
    EXPECT_EQ(plan.suppressed == R::ok ? names(plan.contacts) : Names{}, s.contacts) << where;
    EXPECT_EQ(life.view.notification.current_notification_number, s.number_after) << where;
    EXPECT_EQ(life.view.notification.next_notification, s.next_after) << where;
    EXPECT_EQ(plan.escalated, s.is_escalated) << where;
  }
}

}  // namespace
}  // namespace vedette::engine
