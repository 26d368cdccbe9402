// Escalations by number, period and options, and notification dependencies.
#include "notification_rules_fixture.hpp"

#include <gtest/gtest.h>

namespace vedette::engine::testing {
namespace {

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
  model::Model& m = *loaded_.config.model;
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

}  // namespace
}  // namespace vedette::engine::testing
