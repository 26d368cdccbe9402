#include "engine/state/check_stats.hpp"

#include <gtest/gtest.h>

namespace vedette::engine {
namespace {

using files::CheckStat;
constexpr Time k_start = 1'700'000'000;

std::array<int, 3> of(const CheckStats::Report& r, CheckStat kind) {
  return r[static_cast<std::size_t>(kind)];
}

TEST(CheckStatsTest, ChecksOfTheCurrentMinuteCountInEveryWindow) {
  CheckStats stats(k_start);
  for (int i = 0; i < 3; ++i) stats.count(CheckStat::passive_service, k_start + 30, k_start + 30);
  const CheckStats::Report r = stats.report(k_start + 30);
  EXPECT_EQ(of(r, CheckStat::passive_service), (std::array<int, 3>{3, 3, 3}));
  EXPECT_EQ(of(r, CheckStat::passive_host), (std::array<int, 3>{0, 0, 0}));
}

// Naemon's weighing, worked by hand: 15 s into minute 1, the 1-minute figure takes floor(2 * 45/60) of the
// two checks of minute 0, the 5-minute figure adds ceil(2 * 15/60).
TEST(CheckStatsTest, TheLastMinuteIsWeighedAsNaemonDoes) {
  CheckStats stats(k_start);
  stats.count(CheckStat::external_command, k_start + 10, k_start + 10);
  stats.count(CheckStat::external_command, k_start + 10, k_start + 10);
  const CheckStats::Report r = stats.report(k_start + 75);
  EXPECT_EQ(of(r, CheckStat::external_command), (std::array<int, 3>{1, 2, 2}));
}

TEST(CheckStatsTest, SixMinutesLaterOnlyTheFifteenMinuteWindowHasThem) {
  CheckStats stats(k_start);
  stats.count(CheckStat::active_scheduled_service, 0, k_start + 5);  // 0: now
  const CheckStats::Report r = stats.report(k_start + 6 * 60);
  EXPECT_EQ(of(r, CheckStat::active_scheduled_service), (std::array<int, 3>{0, 0, 1}));
}

TEST(CheckStatsTest, MoreThanFifteenIdleMinutesClearEverything) {
  CheckStats stats(k_start);
  stats.count(CheckStat::passive_host, k_start, k_start);
  EXPECT_EQ(of(stats.report(k_start + 20 * 60), CheckStat::passive_host), (std::array<int, 3>{0, 0, 0}));
  stats.count(CheckStat::passive_host, k_start + 20 * 60, k_start + 20 * 60);
  EXPECT_EQ(of(stats.report(k_start + 20 * 60), CheckStat::passive_host), (std::array<int, 3>{1, 1, 1}));
}

}  // namespace
}  // namespace vedette::engine
