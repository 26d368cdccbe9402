#include "timeperiod/day_cache.hpp"

#include "timeperiod_test_support.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace vedette::timeperiod {
namespace {

using testing::local;
using testing::ScopedTz;

TEST(TimeperiodDayCache, OrdinaryDayIsOneSegmentWithLibcAnswers) {
  ScopedTz tz("Europe/Berlin");
  DayCache cache;
  const std::time_t noon = local(2024, 6, 5, 12);
  EXPECT_EQ(cache.local_day(noon), compute_local_day(noon));
  EXPECT_EQ(cache.local_day(local(2024, 6, 5, 0)), compute_local_day(noon));
  EXPECT_EQ(cache.local_day(local(2024, 6, 5, 23, 59, 59)), compute_local_day(noon));
  EXPECT_NE(cache.local_day(local(2024, 6, 6, 0)), compute_local_day(noon));
  const DayCache::Stats stats = cache.stats();
  EXPECT_EQ(stats.segments, 2U);
  EXPECT_EQ(stats.misses, 2U);
  EXPECT_EQ(stats.hits, 2U);
  EXPECT_EQ(cache.local_day(noon).origin, local(2024, 6, 5, 0));
}

TEST(TimeperiodDayCache, DstDayHasTwoOriginsAnHourApart) {
  ScopedTz tz("America/New_York");
  DayCache cache;
  const std::time_t switch_at = 1710054000;  // 2024-03-10 02:00 EST -> 03:00 EDT
  const LocalDay before = cache.local_day(switch_at - 1);
  const LocalDay after = cache.local_day(switch_at);
  EXPECT_EQ(before, compute_local_day(switch_at - 1));
  EXPECT_EQ(after, compute_local_day(switch_at));
  EXPECT_EQ(before.origin - after.origin, 3600);  // Naemon's post-switch midnight reads the wall clock
  EXPECT_EQ(before.weekday, after.weekday);
  EXPECT_EQ(cache.stats().segments, 2U);
  EXPECT_EQ(cache.local_day(switch_at + 20 * 3600), after);
  EXPECT_EQ(cache.local_day(switch_at - 7200), before);
  EXPECT_EQ(cache.stats().segments, 2U);
}

TEST(TimeperiodDayCache, MonthDateAnswersAreMemoised) {
  ScopedTz tz("America/Sao_Paulo");
  DayCache cache;
  // 2018-11-04 had no 00:00 in Sao Paulo: Naemon's helpers see the shifted hour, and so must the cache.
  EXPECT_EQ(cache.weekday_of_month(118, 10, 0, 1), compute_weekday_of_month(118, 10, 0, 1));
  EXPECT_EQ(cache.day_of_month(118, 10, -27), compute_day_of_month(118, 10, -27));
  EXPECT_EQ(cache.calendar_date(2018, 10, 4), compute_calendar_date(2018, 10, 4));
  const std::uint64_t misses = cache.stats().misses;
  EXPECT_EQ(cache.weekday_of_month(118, 10, 0, 1), compute_weekday_of_month(118, 10, 0, 1));
  EXPECT_EQ(cache.stats().misses, misses);
}

TEST(TimeperiodDayCache, ResetsWhenTheZoneChanges) {
  ScopedTz tz("UTC");
  DayCache cache;
  const std::time_t t = 1700000000;
  EXPECT_EQ(cache.local_day(t).origin, t - t % 86400);
  EXPECT_FALSE(cache.reset_if_zone_changed());
  setenv("TZ", "Asia/Kolkata", 1);  // the cache must not trust libc's lazily reloaded zone
  EXPECT_TRUE(cache.reset_if_zone_changed());
  EXPECT_EQ(cache.stats().segments, 0U);
  EXPECT_EQ(cache.local_day(t), compute_local_day(t));
  EXPECT_EQ(cache.local_day(t).origin, t - (t + 19800) % 86400);
  EXPECT_FALSE(cache.reset_if_zone_changed());
  unsetenv("TZ");
  EXPECT_TRUE(cache.reset_if_zone_changed());
}

TEST(TimeperiodDayCache, RemembersDaysItCannotCache) {
  ScopedTz tz("Europe/Berlin");
  DayCache cache;
  const std::time_t far = std::numeric_limits<std::time_t>::max() - 10;  // beyond what localtime_r converts
  EXPECT_FALSE(cache.local_day(far).known);
  EXPECT_FALSE(cache.local_day(far).known);
  const DayCache::Stats stats = cache.stats();
  EXPECT_EQ(stats.misses, 1U);  // built once, then answered from libc without retrying
  EXPECT_EQ(stats.uncacheable_lookups, 2U);
}

}  // namespace
}  // namespace vedette::timeperiod
