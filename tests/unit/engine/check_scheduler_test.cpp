#include "engine/checks/check_scheduler.hpp"

#include "world_fixture.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace vedette::engine {
namespace {

using namespace std::chrono_literals;

// Two services checked every 300 s (interval_length 1), retried every 30 s.
constexpr const char* k_objects =
    "define command {\n  command_name ok\n  command_line /bin/true\n}\n"
    "define host {\n  host_name web01\n  max_check_attempts 1\n  check_interval 0\n}\n"
    "define service {\n  host_name web01\n  service_description APP\n  check_command ok\n"
    "  max_check_attempts 3\n  check_interval 300\n  retry_interval 30\n}\n"
    "define service {\n  host_name web01\n  service_description DB\n  check_command ok\n"
    "  max_check_attempts 3\n  check_interval 300\n  retry_interval 30\n}\n";

class Scheduler {
 public:
  Scheduler() { schedule.resize(f.world().check_count()); }
  CheckId app() { return CheckId{0}; }
  CheckId db() { return CheckId{1}; }
  Time now() { return f.world().now_epoch(); }
  Time next_check(CheckId c) { return f.world().state_of(c).next_check; }

  testing::WorldFixture f{k_objects, "interval_length=1\n"};
  CheckTimers schedule{f.world().loop};
  CheckScheduler scheduler{f.world(), schedule};
};

TEST(CheckSchedulerTest, FirstChecksSpreadOverTheirInterval) {
  Scheduler t;
  t.scheduler.initial(/*retained=*/false);
  for (CheckId c : {t.app(), t.db()}) {
    EXPECT_TRUE(t.schedule.is_armed(c));
    EXPECT_GE(t.next_check(c), t.now());
    EXPECT_LE(t.next_check(c), t.now() + 300);
  }
  EXPECT_FALSE(t.schedule.is_armed(t.f.world().check_of(model::HostId{0})));  // check_interval 0
}

TEST(CheckSchedulerTest, AnEarlierCheckStandsUnlessTheNewOneIsForced) {
  Scheduler t;
  t.scheduler.at(t.app(), t.now() + 60, false);
  t.scheduler.at(t.app(), t.now() + 120, false);
  EXPECT_EQ(t.next_check(t.app()), t.now() + 60);
  t.scheduler.at(t.app(), t.now() + 120, /*forced=*/true);
  EXPECT_EQ(t.next_check(t.app()), t.now() + 120);
  t.f.advance(120s);
  ASSERT_EQ(t.schedule.due().size(), 1u);
  EXPECT_TRUE(t.schedule.take_forced(t.app()));
}

// Naemon's check_options: how the check scheduled next was scheduled, shown until it runs.
TEST(CheckSchedulerTest, CheckOptionsTellHowTheNextCheckWasScheduled) {
  Scheduler t;
  const auto options = [&](CheckId c) { return t.f.world().state_of(c).check_options; };
  t.scheduler.initial(/*retained=*/false);
  EXPECT_EQ(options(t.app()), 0);
  t.scheduler.at(t.app(), t.now() + 10, /*forced=*/true);
  EXPECT_EQ(options(t.app()), state::k_check_option_force_execution);
  t.scheduler.at(t.app(), t.now() + 5, /*forced=*/true,
                 state::k_check_option_freshness);  // as freshness does
  EXPECT_EQ(options(t.app()), 3);
  t.scheduler.at(t.app(), t.now() + 60, /*forced=*/false);  // an earlier check stands, and its options
  EXPECT_EQ(options(t.app()), 3);
  // A soft problem's retry may postpone an earlier check: ALLOW_POSTPONE (16), until it runs.
  t.scheduler.follow(t.app(), {.next = ScheduleFollowups::Next::retry, .interval_s = 30},
                     t.f.world().now_instant());
  EXPECT_EQ(options(t.app()), state::k_check_option_allow_postpone);
  // A service's dependency master checked for a prediction: DEPENDENCY_CHECK (8).
  t.scheduler.follow(t.db(), {.force_now = {model::ServiceId{0}}}, t.f.world().now_instant());
  EXPECT_EQ(options(t.app()), state::k_check_option_dependency);
  t.scheduler.arm(t.app(), t.f.world().now_instant(), 300s);  // the check ran and is rescheduled
  EXPECT_EQ(options(t.app()), 0);
}

TEST(CheckSchedulerTest, NowLeavesARunningCheckAndAnEarlierOneAlone) {
  Scheduler t;
  t.f.world().state_of(t.app()).is_executing = true;
  t.scheduler.now(t.app());
  EXPECT_FALSE(t.schedule.is_armed(t.app()));
  t.scheduler.now(t.db());
  EXPECT_EQ(t.next_check(t.db()), t.now());
}

TEST(CheckSchedulerTest, ARetryCountsFromWhenTheResultWasAppliedAndARegularOneKeepsAnArmedCheck) {
  Scheduler t;
  const Instant ended = t.f.world().now_instant();
  t.f.advance(1s);  // the result is applied a second after the check ended
  t.scheduler.follow(t.app(), {.next = ScheduleFollowups::Next::retry, .interval_s = 30}, ended);
  EXPECT_EQ(t.next_check(t.app()), to_epoch(ended.wall) + 30);
  t.scheduler.follow(t.app(), {.next = ScheduleFollowups::Next::regular_if_unset, .interval_s = 300}, ended);
  EXPECT_EQ(t.next_check(t.app()), to_epoch(ended.wall) + 30);
  t.scheduler.follow(t.app(), {.next = ScheduleFollowups::Next::keep, .check_now = {t.db()}}, ended);
  EXPECT_EQ(t.next_check(t.db()), t.now());
}

TEST(CheckSchedulerTest, AfterAReloadKeptChecksKeepTheirPlace) {
  Scheduler t;
  t.scheduler.at(t.app(), t.now() + 100, false);
  ByCheck<CheckId> same(t.f.world().check_count(), k_no_check);
  same[t.app()] = t.app();
  same[t.db()] = t.db();
  const ByCheck<std::uint8_t> was_armed = t.schedule.remap(same);
  t.scheduler.after_reload(was_armed);
  EXPECT_EQ(t.next_check(t.app()), t.now() + 100);
  EXPECT_TRUE(t.schedule.is_armed(t.db()));  // had none: spread over its interval
  EXPECT_LE(t.next_check(t.db()), t.now() + 300);
}

}  // namespace
}  // namespace vedette::engine
