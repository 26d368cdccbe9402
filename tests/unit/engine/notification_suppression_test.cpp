// Whether a service or host notification may go out: every suppression reason and the order Naemon checks
// them in, notification periods and the first notification delay.
#include "notification_rules_fixture.hpp"

#include <gtest/gtest.h>

namespace vedette::engine::testing {
namespace {

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
  loaded_.config.model->services[model::index(svc("Delayed"))].notification_period =
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

}  // namespace
}  // namespace vedette::engine::testing
