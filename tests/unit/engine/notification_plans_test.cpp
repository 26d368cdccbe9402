// Who is notified and when: re-notification intervals, notification numbers, the contacts and their filters.
#include "notification_rules_fixture.hpp"

#include <gtest/gtest.h>

namespace vedette::engine::testing {
namespace {

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
  model::Contactgroup& ops =
      loaded_.config.model->contactgroups[model::index(model().contactgroup_by_name.at("ops"))];
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
  model::Model& m = *loaded_.config.model;
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

}  // namespace
}  // namespace vedette::engine::testing
