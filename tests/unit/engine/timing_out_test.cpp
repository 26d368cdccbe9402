#include "engine/checks/timing_out.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace vedette::engine {
namespace {

TEST(TimingOutChecks, ACheckWhoseLastRunTimedOut) {
  TimingOutChecks t;
  t.resize(3, 2);
  EXPECT_FALSE(t.expects_timeout(CheckId{0}, 0));  // no history
  t.record(CheckId{0}, 0, true);
  EXPECT_TRUE(t.expects_timeout(CheckId{0}, 0));
  EXPECT_FALSE(t.expects_timeout(CheckId{1}, 1));
  t.record(CheckId{0}, 0, false);  // it recovered
  EXPECT_FALSE(t.expects_timeout(CheckId{0}, 0));
}

TEST(TimingOutChecks, OwnHistoryWinsOverItsCommands) {
  TimingOutChecks t;
  t.resize(40, 1);
  for (std::uint32_t c = 0; c < 30; ++c) t.record(CheckId{c}, 0, true);
  t.record(CheckId{30}, 0, false);
  EXPECT_FALSE(t.expects_timeout(CheckId{30}, 0));  // ran fine last time, though its command mostly hangs
  EXPECT_TRUE(t.expects_timeout(CheckId{31}, 0));   // never ran: its command mostly times out
}

TEST(TimingOutChecks, ACommandMostlyTimingOutClassesItsChecksWithoutARun) {
  TimingOutChecks t;
  t.resize(100, 2);
  // A few timeouts among many good runs do not make the command suspect.
  for (std::uint32_t c = 0; c < 40; ++c) t.record(CheckId{c}, 0, c % 5 == 0);
  EXPECT_FALSE(t.expects_timeout(CheckId{99}, 0));
  // A run of timeouts does, after about the last 16 runs' worth.
  int needed = 0;
  for (std::uint32_t c = 40; c < 80 && !t.expects_timeout(CheckId{99}, 0); ++c, ++needed)
    t.record(CheckId{c}, 0, true);
  EXPECT_TRUE(t.expects_timeout(CheckId{99}, 0));
  EXPECT_GT(needed, 5);
  EXPECT_LT(needed, 20);
  EXPECT_FALSE(t.expects_timeout(CheckId{99}, 1));  // another command
  EXPECT_FALSE(t.expects_timeout(CheckId{99}, TimingOutChecks::k_no_command));
  t.record(CheckId{98}, TimingOutChecks::k_no_command, true);  // counts for the check only
  EXPECT_TRUE(t.expects_timeout(CheckId{98}, 1));
}

TEST(TimingOutChecks, RemapKeepsChecksAndForgetsCommands) {
  TimingOutChecks t;
  t.resize(3, 1);
  for (int i = 0; i < 30; ++i) t.record(CheckId{0}, 0, true);
  t.record(CheckId{1}, 0, false);
  ByCheck<CheckId> old_of_new(4, k_no_check);
  old_of_new[CheckId{0}] = CheckId{1};
  old_of_new[CheckId{2}] = CheckId{0};
  old_of_new[CheckId{3}] = CheckId{7};
  t.remap(old_of_new, 2);
  EXPECT_FALSE(t.expects_timeout(CheckId{0}, 0));  // was check 1
  EXPECT_FALSE(t.expects_timeout(CheckId{1}, 0));  // new; command history gone
  EXPECT_TRUE(t.expects_timeout(CheckId{2}, 0));   // was check 0
  EXPECT_FALSE(t.expects_timeout(CheckId{3}, 1));  // old id out of range: none
}

}  // namespace
}  // namespace vedette::engine
