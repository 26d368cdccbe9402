#include "engine/timing_out.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace vedette::engine {
namespace {

TEST(TimingOutChecks, ACheckWhoseLastRunTimedOut) {
  TimingOutChecks t;
  t.resize(3, 2);
  EXPECT_FALSE(t.expects_timeout(0, 0));  // no history
  t.record(0, 0, true);
  EXPECT_TRUE(t.expects_timeout(0, 0));
  EXPECT_FALSE(t.expects_timeout(1, 1));
  t.record(0, 0, false);  // it recovered
  EXPECT_FALSE(t.expects_timeout(0, 0));
}

TEST(TimingOutChecks, OwnHistoryWinsOverItsCommands) {
  TimingOutChecks t;
  t.resize(40, 1);
  for (std::uint32_t c = 0; c < 30; ++c) t.record(c, 0, true);
  t.record(30, 0, false);
  EXPECT_FALSE(t.expects_timeout(30, 0));  // ran fine last time, though its command mostly hangs
  EXPECT_TRUE(t.expects_timeout(31, 0));   // never ran: its command mostly times out
}

TEST(TimingOutChecks, ACommandMostlyTimingOutClassesItsChecksWithoutARun) {
  TimingOutChecks t;
  t.resize(100, 2);
  // A few timeouts among many good runs do not make the command suspect.
  for (std::uint32_t c = 0; c < 40; ++c) t.record(c, 0, c % 5 == 0);
  EXPECT_FALSE(t.expects_timeout(99, 0));
  // A run of timeouts does, after about the last 16 runs' worth.
  int needed = 0;
  for (std::uint32_t c = 40; c < 80 && !t.expects_timeout(99, 0); ++c, ++needed) t.record(c, 0, true);
  EXPECT_TRUE(t.expects_timeout(99, 0));
  EXPECT_GT(needed, 5);
  EXPECT_LT(needed, 20);
  EXPECT_FALSE(t.expects_timeout(99, 1));  // another command
  EXPECT_FALSE(t.expects_timeout(99, TimingOutChecks::k_no_command));
  t.record(98, TimingOutChecks::k_no_command, true);  // counts for the check only
  EXPECT_TRUE(t.expects_timeout(98, 1));
}

TEST(TimingOutChecks, RemapKeepsChecksAndForgetsCommands) {
  TimingOutChecks t;
  t.resize(3, 1);
  for (int i = 0; i < 30; ++i) t.record(0, 0, true);
  t.record(1, 0, false);
  const std::vector<std::uint32_t> old_of_new = {1, TimingOutChecks::k_new_check, 0, 7};
  t.remap(old_of_new, 2);
  EXPECT_FALSE(t.expects_timeout(0, 0));  // was check 1
  EXPECT_FALSE(t.expects_timeout(1, 0));  // new; command history gone
  EXPECT_TRUE(t.expects_timeout(2, 0));   // was check 0
  EXPECT_FALSE(t.expects_timeout(3, 1));  // old id out of range: none
}

}  // namespace
}  // namespace vedette::engine
