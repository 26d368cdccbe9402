#include "timeperiod/timeperiod_rules.hpp"

#include <gtest/gtest.h>

namespace vedette::timeperiod {
namespace {

constexpr int k_monday = 1;

DateRange month_day(int from, int to, std::uint32_t start = 0, int skip = 0) {
  DateRange r;
  r.type = DateRangeType::month_day;
  r.smday = from;
  r.emday = to;
  r.skip_interval = skip;
  r.ranges = {{start, 86400}};
  return r;
}

TEST(TimeperiodRules, DateRangeTypesFollowNaemonConstants) {
  EXPECT_EQ(static_cast<int>(DateRangeType::calendar_date), 0);
  EXPECT_EQ(static_cast<int>(DateRangeType::month_date), 1);
  EXPECT_EQ(static_cast<int>(DateRangeType::month_day), 2);
  EXPECT_EQ(static_cast<int>(DateRangeType::month_week_day), 3);
  EXPECT_EQ(static_cast<int>(DateRangeType::week_day), 4);
}

TEST(TimeperiodRules, WeekdayRangesAreSortedByStartKeepingEqualStartsInOrder) {
  Rules rules;
  rules.set_weekday(k_monday, {{3600, 7200}, {0, 60}, {3600, 5000}});
  EXPECT_TRUE(rules.has_weekday[k_monday]);
  EXPECT_EQ(rules.weekdays[k_monday], (std::vector<TimeRange>{{0, 60}, {3600, 7200}, {3600, 5000}}));
}

TEST(TimeperiodRules, WeekdayWrittenTwiceKeepsTheLastLine) {
  Rules rules;
  rules.set_weekday(k_monday, {{0, 60}});
  rules.set_weekday(k_monday, {{120, 180}});
  EXPECT_EQ(rules.weekdays[k_monday], (std::vector<TimeRange>{{120, 180}}));
}

TEST(TimeperiodRules, ExceptionsAccumulateInWrittenOrderIncludingDuplicates) {
  Rules rules;
  rules.add_exception(month_day(1, 1, 10));
  rules.add_exception(month_day(2, 2));
  rules.add_exception(month_day(1, 1, 20));
  const auto& list = rules.exceptions[static_cast<std::size_t>(DateRangeType::month_day)];
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].ranges[0].start, 10u);
  EXPECT_EQ(list[1].smday, 2);
  EXPECT_EQ(list[2].ranges[0].start, 20u);
}

TEST(TimeperiodRules, SameDatesComparesEveryDateFieldButNotRanges) {
  EXPECT_TRUE(month_day(1, 5, 0).same_dates(month_day(1, 5, 3600)));
  EXPECT_FALSE(month_day(1, 5).same_dates(month_day(1, 6)));
  EXPECT_FALSE(month_day(1, 5, 0, 2).same_dates(month_day(1, 5, 0, 3)));
  DateRange other_type = month_day(1, 5);
  other_type.type = DateRangeType::calendar_date;
  EXPECT_FALSE(month_day(1, 5).same_dates(other_type));
}

TEST(TimeperiodRules, DatesHashIsEqualForSameDates) {
  EXPECT_EQ(month_day(1, 5, 0).dates_hash(), month_day(1, 5, 3600).dates_hash());
  EXPECT_NE(month_day(1, 5).dates_hash(), month_day(1, 6).dates_hash());
  EXPECT_NE(month_day(1, 5, 0, 2).dates_hash(), month_day(1, 5, 0, 3).dates_hash());
}

}  // namespace
}  // namespace vedette::timeperiod
