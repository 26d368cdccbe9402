// One problem's life from its first notification to its recovery, through the rules as the notifier uses
// them.
#include "notification_rules_fixture.hpp"

#include <gtest/gtest.h>

namespace vedette::engine::testing {
namespace {

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
}  // namespace vedette::engine::testing
