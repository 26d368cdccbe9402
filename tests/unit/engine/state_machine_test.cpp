#include "engine/checks/state_machine.hpp"

#include <gtest/gtest.h>

namespace vedette::engine {
namespace {

CheckOutcome result(int rc, std::string output, Time at, CheckType type = CheckType::active) {
  CheckOutcome r;
  r.type = type;
  r.state = rc;
  r.output = std::move(output);
  r.start = at;
  r.finish = at;
  r.execution_time = 0.01;
  return r;
}

class ServiceStateTest : public ::testing::Test {
 protected:
  // As the core does: the effects run on the state the result left (alert_*_ records it), then an OK
  // service is settled.
  ServiceEffects check(int rc, const char* output = "out") {
    now_ += 60;
    const ServiceEffects fx = apply_service_result(svc_, rules_, {host_, k_host_up}, result(rc, output, now_),
                                                   settings_, now_, numbering_);
    alert_type_ = svc_.state_type;
    alert_attempt_ = svc_.current_attempt;
    if (fx.settle_ok) settle_service_ok(svc_);
    return fx;
  }

  StateType alert_type_ = StateType::hard;
  int alert_attempt_ = 0;

  ServiceState svc_;
  HostState host_;
  ServiceRules rules_{3, false, true, model::k_opt_nothing};
  StateSettings settings_;
  EventNumbering numbering_;
  Time now_ = 1'700'000'000;

  void SetUp() override {
    settings_.log_service_retries = true;
    host_.has_been_checked = true;
    host_.last_check = 0;  // long ago: not a cached result
    host_.next_check = now_ + 60;
  }
};

TEST_F(ServiceStateTest, SoftAttemptsThenHardThenRecovery) {
  ServiceEffects fx = check(0, "fine");
  EXPECT_FALSE(fx.log_alert);
  EXPECT_EQ(svc_.state_type, StateType::hard);
  EXPECT_EQ(svc_.current_attempt, 1);

  fx = check(2, "broken");
  EXPECT_TRUE(fx.state_change);
  EXPECT_TRUE(fx.log_alert);
  EXPECT_TRUE(fx.use_retry_interval);
  EXPECT_TRUE(fx.check_host_now) << "a service problem triggers an on-demand host check";
  EXPECT_EQ(svc_.current_state, k_state_critical);
  EXPECT_EQ(svc_.state_type, StateType::soft);
  EXPECT_EQ(svc_.current_attempt, 1);
  const Time first_failure = now_;

  fx = check(2, "broken");
  EXPECT_FALSE(fx.state_change);
  EXPECT_TRUE(fx.log_alert) << "soft retries are logged with log_service_retries";
  EXPECT_EQ(svc_.state_type, StateType::soft);
  EXPECT_EQ(svc_.current_attempt, 2);

  fx = check(2, "broken");
  EXPECT_TRUE(fx.hard_state_change);
  EXPECT_TRUE(fx.log_alert);
  EXPECT_FALSE(fx.use_retry_interval);
  EXPECT_EQ(svc_.state_type, StateType::hard);
  EXPECT_EQ(svc_.current_attempt, 3);
  EXPECT_EQ(svc_.last_hard_state_change, now_);
  EXPECT_EQ(svc_.last_state_change, first_failure);

  fx = check(2, "broken");
  EXPECT_FALSE(fx.log_alert) << "an unchanged hard state is not logged again";
  EXPECT_EQ(svc_.current_attempt, 3);

  fx = check(0, "fine again");
  EXPECT_TRUE(fx.hard_state_change);
  EXPECT_TRUE(fx.log_alert);
  EXPECT_EQ(alert_type_, StateType::hard);
  EXPECT_EQ(alert_attempt_, 3) << "Naemon logs and notifies the recovery at the attempt it had";
  EXPECT_EQ(svc_.state_type, StateType::hard);
  EXPECT_EQ(svc_.current_attempt, 1);
  EXPECT_EQ(svc_.last_hard_state, k_state_ok);
  EXPECT_EQ(svc_.last_time_critical, now_);
}

TEST_F(ServiceStateTest, SoftRecoveryIsSoft) {
  check(1, "warn");
  ServiceEffects fx = check(0, "ok");
  EXPECT_TRUE(fx.state_change);
  EXPECT_FALSE(fx.hard_state_change);
  EXPECT_TRUE(fx.log_alert);
  EXPECT_TRUE(fx.run_event_handler);
  EXPECT_EQ(alert_type_, StateType::soft) << "logged and handled as SOFT, at attempt 2";
  EXPECT_EQ(alert_attempt_, 2);
  EXPECT_EQ(svc_.state_type, StateType::hard) << "then OK is settled hard";
  EXPECT_EQ(svc_.current_attempt, 1);
}

TEST_F(ServiceStateTest, SoftStatesNotLoggedWithoutLogServiceRetries) {
  settings_.log_service_retries = false;
  EXPECT_FALSE(check(2).log_alert);
  EXPECT_FALSE(check(2).log_alert);
  EXPECT_TRUE(check(2).log_alert) << "the hard state is logged";
}

TEST_F(ServiceStateTest, MaxCheckAttemptsOneGoesHardAtOnce) {
  rules_.max_check_attempts = 1;
  ServiceEffects fx = check(2);
  EXPECT_TRUE(fx.hard_state_change);
  EXPECT_EQ(svc_.state_type, StateType::hard);
}

TEST_F(ServiceStateTest, HardStateChangeBetweenProblems) {
  check(2);
  check(2);
  check(2);
  ServiceEffects fx = check(1, "now warning");
  EXPECT_TRUE(fx.state_change);
  EXPECT_TRUE(fx.hard_state_change);
  EXPECT_TRUE(fx.log_alert);
  EXPECT_EQ(svc_.state_type, StateType::hard);
}

TEST_F(ServiceStateTest, HostDownMakesTheProblemHardAtOnce) {
  host_.current_state = k_host_down;
  ServiceEffects fx = check(2);
  EXPECT_TRUE(fx.hard_state_change);
  EXPECT_TRUE(fx.log_hard_due_to_host);
  EXPECT_TRUE(fx.log_alert);
  EXPECT_EQ(svc_.state_type, StateType::hard);
  EXPECT_TRUE(svc_.host_problem_at_last_check);
  host_.current_state = k_host_up;
  fx = check(0);
  EXPECT_TRUE(fx.hard_state_change) << "recovery after a host problem is hard";
}

TEST_F(ServiceStateTest, EmptyOutputIsNamed) {
  check(0, "");
  EXPECT_EQ(svc_.plugin_output, "(No output returned from plugin)");
}

TEST_F(ServiceStateTest, PassiveResultsAreLoggedPerSetting) {
  now_ += 60;
  ServiceEffects fx =
      apply_service_result(svc_, rules_, {host_, k_host_up}, result(1, "passive", now_, CheckType::passive),
                           settings_, now_, numbering_);
  EXPECT_TRUE(fx.log_passive);
  EXPECT_EQ(svc_.check_type, CheckType::passive);
}

// Naemon's rules: a normal acknowledgement ends with the next state change (not when the problem only turns
// hard), a sticky one survives changes between problems and ends with the recovery.
TEST_F(ServiceStateTest, AcknowledgementsEndAsInNaemon) {
  rules_.max_check_attempts = 2;
  check(2);  // CRITICAL, soft 1
  svc_.problem_has_been_acknowledged = true;
  svc_.acknowledgement_type = 1;
  ServiceEffects fx = check(2);  // hard now: a hard change within the same state
  EXPECT_TRUE(fx.hard_state_change);
  EXPECT_FALSE(fx.acknowledgement_ended);
  EXPECT_TRUE(svc_.problem_has_been_acknowledged);
  fx = check(1);  // WARNING: a state change
  EXPECT_TRUE(fx.acknowledgement_ended);
  EXPECT_FALSE(svc_.problem_has_been_acknowledged);
  EXPECT_EQ(svc_.acknowledgement_type, 0);

  svc_.problem_has_been_acknowledged = true;
  svc_.acknowledgement_type = 2;  // sticky
  svc_.acknowledgement_end_time = now_ + 3600;
  fx = check(2);
  EXPECT_FALSE(fx.acknowledgement_ended);
  EXPECT_TRUE(svc_.problem_has_been_acknowledged);
  fx = check(0);
  EXPECT_TRUE(fx.acknowledgement_ended);
  EXPECT_FALSE(svc_.problem_has_been_acknowledged);
  EXPECT_EQ(svc_.acknowledgement_end_time, 0);
}

// What Naemon does after a result, in its order: the soft retries run the event handler, the hard problem
// checks flapping, may start flexible downtimes and notifies, the recovery notifies and then resets the
// counters; every state change gets the next event id, a problem its id and times.
TEST_F(ServiceStateTest, EffectsAndIdsAlongAProblem) {
  numbering_.next_event_id = 40;
  ServiceEffects fx = check(0, "fine");
  EXPECT_FALSE(fx.notify || fx.run_event_handler || fx.check_flapping);
  EXPECT_TRUE(fx.settle_ok) << "every OK result clears the counters";
  EXPECT_EQ(svc_.events.current_event_id, 0u) << "no state change";

  svc_.notification.last_notification = 5;
  svc_.notification.next_notification = 6;
  fx = check(2, "broken");  // soft 1
  EXPECT_TRUE(fx.run_event_handler);
  EXPECT_FALSE(fx.notify);
  EXPECT_FALSE(fx.check_flapping)
      << "soft problems: flapping is checked at the end, not before a notification";
  EXPECT_EQ(svc_.events.current_event_id, 40u);
  EXPECT_EQ(numbering_.next_event_id, 41u);
  EXPECT_TRUE(svc_.events.current_problem_id.is_set());
  EXPECT_EQ(svc_.events.problem_start, now_);
  EXPECT_EQ(svc_.notification.last_notification, 0) << "a state change restarts re-notification";
  EXPECT_EQ(svc_.notification.next_notification, 0);
  const state::Uuid problem = svc_.events.current_problem_id;

  fx = check(2, "broken");  // soft 2
  EXPECT_TRUE(fx.run_event_handler) << "Naemon runs it for every soft retry";
  fx = check(2, "broken");  // hard 3
  EXPECT_TRUE(fx.notify);
  EXPECT_TRUE(fx.check_flapping);
  EXPECT_TRUE(fx.flexible_downtime_may_start);
  EXPECT_TRUE(fx.run_event_handler);
  EXPECT_EQ(svc_.events.current_event_id, 40u) << "a hard change is no state change";
  fx = check(2, "broken");  // hard again
  EXPECT_TRUE(fx.notify) << "re-notification is the notifier's decision";
  EXPECT_FALSE(fx.run_event_handler);
  EXPECT_FALSE(fx.flexible_downtime_may_start);

  fx = check(0, "fixed");
  EXPECT_TRUE(fx.notify);
  EXPECT_TRUE(fx.run_event_handler);
  EXPECT_TRUE(fx.settle_ok);
  EXPECT_EQ(svc_.notification.current_notification_number, 0);
  EXPECT_EQ(svc_.events.last_event_id, 40u);
  EXPECT_EQ(svc_.events.current_event_id, 41u);
  EXPECT_FALSE(svc_.events.current_problem_id.is_set());
  EXPECT_EQ(svc_.events.last_problem_id, problem);
  EXPECT_EQ(svc_.events.problem_end, now_);
}

TEST_F(ServiceStateTest, StalkingLogsAnUnchangedHardStateWhoseOutputChanged) {
  // Naemon's handle_async_service_check_result: hard, no state change, nothing logged for this result,
  // output or long output changed, and stalking_options has the state.
  rules_.stalking_options = model::k_opt_ok | model::k_opt_critical;
  EXPECT_TRUE(check(0, "fine").log_stalking) << "the first output differs from none";
  EXPECT_FALSE(check(0, "fine").log_stalking) << "the same output";
  ServiceEffects fx = check(0, "fine, 3 ms");
  EXPECT_TRUE(fx.log_stalking);
  EXPECT_FALSE(fx.log_alert);

  EXPECT_FALSE(check(1, "slow").log_stalking) << "a state change is logged as such";
  EXPECT_FALSE(check(1, "slower").log_stalking) << "soft";
  fx = check(1, "slowest");
  EXPECT_TRUE(fx.log_alert) << "hard now";
  EXPECT_FALSE(fx.log_stalking);
  EXPECT_FALSE(check(1, "still slow").log_stalking) << "WARNING is not stalked";

  fx = check(2, "down");  // from a hard WARNING at the last attempt: hard at once
  ASSERT_EQ(svc_.state_type, StateType::hard);
  EXPECT_TRUE(fx.log_alert);
  EXPECT_FALSE(fx.log_stalking);
  EXPECT_FALSE(check(2, "down").log_stalking) << "the same output";
  EXPECT_TRUE(check(2, "down, other reason").log_stalking);
  EXPECT_FALSE(check(2, "down, other reason").log_stalking);

  now_ += 60;
  CheckOutcome r = result(2, "down, other reason", now_);
  r.long_output = "detail";
  fx = apply_service_result(svc_, rules_, {host_, k_host_up}, r, settings_, now_, numbering_);
  EXPECT_TRUE(fx.log_stalking) << "only the long output changed";

  rules_.is_volatile = true;
  fx = check(2, "volatile and changed");
  EXPECT_TRUE(fx.log_alert) << "a volatile service logs every hard problem";
  EXPECT_FALSE(fx.log_stalking) << "already logged";

  rules_.is_volatile = false;
  settings_.log_service_retries = false;
  rules_.stalking_options = model::k_opt_nothing;
  EXPECT_FALSE(check(2, "no stalking").log_stalking);
}

class HostStateTest : public ::testing::Test {
 protected:
  HostEffects check(int rc, bool any_parent_up = true, bool has_parents = false) {
    now_ += 60;
    HostRules rules{max_attempts_, true, true, has_parents, any_parent_up, model::k_opt_nothing};
    const HostEffects fx =
        apply_host_result(host_, rules, result(rc, "ping", now_), settings_, now_, numbering_);
    alert_type_ = host_.state_type;
    alert_attempt_ = host_.current_attempt;
    if (fx.settle_up) settle_host_up(host_);
    return fx;
  }
  int max_attempts_ = 3;
  StateType alert_type_ = StateType::hard;
  int alert_attempt_ = 0;
  HostState host_;
  StateSettings settings_;
  EventNumbering numbering_;
  Time now_ = 1'700'000'000;
};

TEST_F(HostStateTest, NotifiesOnHardStatesAndResetsAfterTheRecovery) {
  HostEffects fx = check(2);  // soft DOWN
  EXPECT_FALSE(fx.notify);
  EXPECT_TRUE(fx.run_event_handler);
  EXPECT_TRUE(fx.flexible_downtime_may_start) << "host downtimes may start on soft states";
  EXPECT_TRUE(host_.events.current_problem_id.is_set());
  check(2);
  fx = check(2);  // hard DOWN
  EXPECT_TRUE(fx.notify);
  fx = check(2);  // still hard DOWN: re-notification
  EXPECT_TRUE(fx.notify);
  EXPECT_FALSE(fx.run_event_handler);
  host_.notification.current_notification_number = 2;
  fx = check(0);
  EXPECT_TRUE(fx.notify);
  EXPECT_TRUE(fx.settle_up);
  EXPECT_EQ(host_.notification.current_notification_number, 0);
  EXPECT_TRUE(host_.events.last_problem_id.is_set());
}

TEST_F(HostStateTest, DownSoftThenHardThenRecovery) {
  EXPECT_FALSE(check(0).log_alert);
  HostEffects fx = check(2);
  EXPECT_EQ(host_.current_state, k_host_down);
  EXPECT_EQ(host_.state_type, StateType::soft);
  EXPECT_EQ(host_.current_attempt, 1);
  EXPECT_FALSE(fx.log_alert) << "soft host states need log_host_retries";
  EXPECT_TRUE(fx.use_retry_interval);
  EXPECT_TRUE(fx.check_neighbours_after_failure);
  check(2);
  EXPECT_EQ(host_.current_attempt, 2);
  fx = check(2);
  EXPECT_EQ(host_.state_type, StateType::hard);
  EXPECT_EQ(host_.current_attempt, 3);
  EXPECT_TRUE(fx.log_alert);
  fx = check(0);
  EXPECT_TRUE(fx.log_alert);
  EXPECT_EQ(host_.current_state, k_host_up);
  EXPECT_EQ(host_.state_type, StateType::hard);
  EXPECT_EQ(host_.current_attempt, 1);
  EXPECT_TRUE(fx.check_neighbours_after_recovery);
}

// Naemon's adjust_host_check_attempt counts the recovering result as one more attempt of a soft problem;
// the recovery is logged at that attempt, the attempt reset to 1 after its event handler.
TEST_F(HostStateTest, SoftRecoveryIsLoggedAtTheNextAttempt) {
  settings_.log_host_retries = true;
  max_attempts_ = 4;
  check(2);
  check(2);
  EXPECT_EQ(host_.current_attempt, 2);
  HostEffects fx = check(0);
  EXPECT_TRUE(fx.log_alert);
  EXPECT_EQ(alert_type_, StateType::soft);
  EXPECT_EQ(alert_attempt_, 3);
  EXPECT_EQ(host_.current_attempt, 1);
}

TEST_F(HostStateTest, AcknowledgementsEndAsInNaemon) {
  check(2);
  check(2);
  host_.problem_has_been_acknowledged = true;
  host_.acknowledgement_type = 1;
  HostEffects fx = check(2);  // DOWN turns hard: not a state change
  EXPECT_FALSE(fx.acknowledgement_ended);
  EXPECT_TRUE(host_.problem_has_been_acknowledged);
  host_.acknowledgement_type = 2;  // sticky: a recovery ends it
  fx = check(0);
  EXPECT_TRUE(fx.acknowledgement_ended);
  EXPECT_FALSE(host_.problem_has_been_acknowledged);
}

TEST_F(HostStateTest, StalkingLogsTheSameStateWhenItsOutputChanged) {
  // Naemon's process_host_check_result: the state is the one before the result and the output changed;
  // neither the state type nor what was logged already matters for hosts.
  settings_.log_host_retries = true;
  auto check_output = [&](int rc, const char* output) {
    now_ += 60;
    HostRules rules{3, true, true, false, true, model::k_opt_down};
    return apply_host_result(host_, rules, result(rc, output, now_), settings_, now_, numbering_);
  };
  EXPECT_FALSE(check_output(0, "up").log_stalking) << "UP is not stalked";
  EXPECT_FALSE(check_output(2, "down 1").log_stalking) << "a state change";
  HostEffects fx = check_output(2, "down 2");
  EXPECT_EQ(host_.state_type, StateType::soft);
  EXPECT_TRUE(fx.log_alert) << "the soft retry";
  EXPECT_TRUE(fx.log_stalking) << "and stalking again, as Naemon";
  fx = check_output(2, "down 2");
  EXPECT_TRUE(fx.log_alert) << "hard now";
  EXPECT_FALSE(fx.log_stalking) << "the same output";
  EXPECT_TRUE(check_output(2, "down 3").log_stalking);
  EXPECT_FALSE(check_output(0, "up again").log_stalking);
}

TEST_F(HostStateTest, WarningMeansUpUnlessAggressive) {
  check(1);
  EXPECT_EQ(host_.current_state, k_host_up);
  settings_.use_aggressive_host_checking = true;
  check(1);
  EXPECT_EQ(host_.current_state, k_host_down);
}

TEST_F(HostStateTest, UnreachableWhenAllParentsAreDown) {
  check(2, /*any_parent_up=*/false, /*has_parents=*/true);
  EXPECT_EQ(host_.current_state, k_host_unreachable);
  check(2, /*any_parent_up=*/true, /*has_parents=*/true);
  EXPECT_EQ(host_.current_state, k_host_down);
}

TEST_F(HostStateTest, NoCheckCommandMeansUp) {
  now_ += 60;
  apply_host_result(host_, {3, false, true, false, true, model::k_opt_nothing}, result(2, "", now_),
                    settings_, now_, numbering_);
  EXPECT_EQ(host_.current_state, k_host_up);
  EXPECT_EQ(host_.plugin_output, "(Host assumed to be UP)");
}

TEST_F(HostStateTest, PassiveHostResultsAreHardUnlessConfiguredSoft) {
  now_ += 60;
  apply_host_result(host_, {3, true, true, false, true, model::k_opt_nothing},
                    result(1, "down", now_, CheckType::passive), settings_, now_, numbering_);
  EXPECT_EQ(host_.current_state, k_host_down);
  EXPECT_EQ(host_.state_type, StateType::hard);
}

}  // namespace
}  // namespace vedette::engine
