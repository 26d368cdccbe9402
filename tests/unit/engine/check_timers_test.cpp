#include "engine/checks/check_timers.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace vedette::engine {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class CheckScheduleTest : public ::testing::Test {
 protected:
  Instant now() const { return {loop.now(), clock.wall_now()}; }
  // One loop iteration after `d` of manual time: the timers due by then fire.
  void advance(loop::Duration d) {
    clock.advance(d);
    loop.run_once(loop::PollMode::no_wait);
  }

  loop::ManualClock clock;
  loop::Loop loop{clock};
  CheckTimers schedule{loop};
};

TEST_F(CheckScheduleTest, ChecksFallDueAtTheirTimeInOrder) {
  schedule.resize(3);
  const Instant t0 = now();
  EXPECT_EQ(schedule.arm(CheckId{0}, t0, seconds(30)), t0.wall + seconds(30));
  (void)schedule.arm(CheckId{1}, t0, seconds(10));
  (void)schedule.arm(CheckId{2}, t0, seconds(20));
  EXPECT_TRUE(schedule.is_armed(CheckId{1}));
  advance(seconds(9));
  EXPECT_TRUE(schedule.due().empty());
  advance(seconds(11));
  EXPECT_EQ(schedule.due(), (std::vector<CheckId>{CheckId{1}, CheckId{2}}));
  EXPECT_FALSE(schedule.is_armed(CheckId{1}));
  EXPECT_TRUE(schedule.is_armed(CheckId{0}));
  schedule.clear_due();
  advance(seconds(10));
  EXPECT_EQ(schedule.due(), (std::vector<CheckId>{CheckId{0}}));
}

TEST_F(CheckScheduleTest, ReArmingMovesTheDueTime) {
  schedule.resize(1);
  const Instant t0 = now();
  (void)schedule.arm(CheckId{0}, t0, seconds(60));
  (void)schedule.arm(CheckId{0}, t0, seconds(5));  // SCHEDULE_SVC_CHECK earlier
  EXPECT_EQ(schedule.due_at(CheckId{0}), t0.mono + seconds(5));
  EXPECT_EQ(schedule.scheduled_at(CheckId{0}), t0.wall + seconds(5));
  advance(seconds(5));
  EXPECT_EQ(schedule.due().size(), 1u);
}

TEST_F(CheckScheduleTest, ACheckRunsAsOfItsOwnDueTime) {
  schedule.resize(2);
  const Instant t0 = now();
  (void)schedule.arm(CheckId{0}, t0, seconds(10));
  (void)schedule.arm(CheckId{1}, t0, seconds(3));
  advance(seconds(5));
  // Due in the future (a timer firing early): as of its due time, on both clocks.
  const Instant early = schedule.run_time(CheckId{0}, now());
  EXPECT_EQ(early.mono, t0.mono + seconds(10));
  EXPECT_EQ(early.wall, t0.wall + seconds(10));
  // Overdue: as of now.
  EXPECT_EQ(schedule.run_time(CheckId{1}, now()).mono, now().mono);
}

TEST_F(CheckScheduleTest, AForcedRunIsTakenOnce) {
  schedule.resize(1);
  EXPECT_FALSE(schedule.take_forced(CheckId{0}));
  schedule.set_forced(CheckId{0}, true);
  EXPECT_TRUE(schedule.take_forced(CheckId{0}));
  EXPECT_FALSE(schedule.take_forced(CheckId{0}));
}

TEST_F(CheckScheduleTest, ReloadKeepsTheScheduleUnderNewIdsAndNewTimers) {
  schedule.resize(3);
  const Instant t0 = now();
  (void)schedule.arm(CheckId{0}, t0, seconds(10));
  (void)schedule.arm(CheckId{2}, t0, seconds(20));
  schedule.set_forced(CheckId{2}, true);
  // New numbering: new 0 was old 2, new 1 is new, new 2 was old 1 (never armed); old 0 is gone.
  ByCheck<CheckId> old_of_new(3, k_no_check);
  old_of_new[CheckId{0}] = CheckId{2};
  old_of_new[CheckId{2}] = CheckId{1};
  const ByCheck<std::uint8_t> was_armed = schedule.remap(old_of_new);
  EXPECT_EQ(was_armed[CheckId{0}], 1);
  EXPECT_EQ(was_armed[CheckId{1}], 0);
  EXPECT_EQ(was_armed[CheckId{2}], 0);
  EXPECT_EQ(schedule.due_at(CheckId{0}), t0.mono + seconds(20));
  EXPECT_TRUE(schedule.take_forced(CheckId{0}));
  // The new timers start disarmed: the old ones fire no more.
  EXPECT_FALSE(schedule.is_armed(CheckId{0}));
  advance(seconds(30));
  EXPECT_TRUE(schedule.due().empty());
  (void)schedule.arm(CheckId{1}, now(), milliseconds(1));
  advance(milliseconds(1));
  EXPECT_EQ(schedule.due(), (std::vector<CheckId>{CheckId{1}}));
}

TEST_F(CheckScheduleTest, TheLoopsOtherTimersAreNotChecks) {
  struct Other final : loop::TimerHandler {
    int fired = 0;
    void on_timer(loop::TimerId) override { ++fired; }
  } other;
  const loop::TimerId before = loop.add_timer(other);
  schedule.resize(1);
  const loop::TimerId after = loop.add_timer(other);
  loop.arm_timer(before, loop.now() + seconds(1));
  loop.arm_timer(after, loop.now() + seconds(1));
  advance(seconds(1));
  EXPECT_EQ(other.fired, 2);
  EXPECT_TRUE(schedule.due().empty());
}

}  // namespace
}  // namespace vedette::engine
