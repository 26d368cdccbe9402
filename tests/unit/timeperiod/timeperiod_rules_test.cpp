#include "timeperiod/timeperiod_rules.hpp"

#include <gtest/gtest.h>

namespace vedette::timeperiod {
namespace {

constexpr int k_monday = 1;
constexpr int k_tuesday = 2;

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

TEST(TimeperiodRules, InheritsOnlyWeekdaysTheObjectLacks) {
  Rules tmpl;
  tmpl.set_weekday(k_monday, {{0, 100}});
  tmpl.set_weekday(k_tuesday, {{0, 200}});
  Rules obj;
  obj.set_weekday(k_monday, {{0, 300}});
  obj.inherit_from(tmpl);
  EXPECT_EQ(obj.weekdays[k_monday], (std::vector<TimeRange>{{0, 300}}));
  EXPECT_TRUE(obj.has_weekday[k_tuesday]);
  EXPECT_EQ(obj.weekdays[k_tuesday], (std::vector<TimeRange>{{0, 200}}));
  EXPECT_FALSE(obj.has_weekday[0]);
}

TEST(TimeperiodRules, FirstTemplateOfAUseListWinsForWeekdays) {
  Rules first, second, obj;
  first.set_weekday(k_monday, {{0, 100}});
  second.set_weekday(k_monday, {{0, 200}});
  obj.inherit_from(first);
  obj.inherit_from(second);
  EXPECT_EQ(obj.weekdays[k_monday], (std::vector<TimeRange>{{0, 100}}));
}

TEST(TimeperiodRules, InheritedExceptionsFollowOwnOnesInReverseTemplateOrder) {
  Rules tmpl, obj;
  tmpl.add_exception(month_day(1, 1));
  tmpl.add_exception(month_day(2, 2));
  obj.add_exception(month_day(9, 9));
  obj.inherit_from(tmpl);
  const auto& list = obj.exceptions[static_cast<std::size_t>(DateRangeType::month_day)];
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].smday, 9);
  EXPECT_EQ(list[1].smday, 2);
  EXPECT_EQ(list[2].smday, 1);
}

TEST(TimeperiodRules, ExceptionWithSameDatesIsNotInheritedEvenWithOtherRanges) {
  Rules tmpl, obj;
  tmpl.add_exception(month_day(1, 1, 3600));
  obj.add_exception(month_day(1, 1, 7200));
  obj.inherit_from(tmpl);
  const auto& list = obj.exceptions[static_cast<std::size_t>(DateRangeType::month_day)];
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].ranges[0].start, 7200u);
}

TEST(TimeperiodRules, DifferentSkipIntervalIsADifferentException) {
  Rules tmpl, obj;
  tmpl.add_exception(month_day(1, 5, 0, 2));
  obj.add_exception(month_day(1, 5, 0, 0));
  obj.inherit_from(tmpl);
  EXPECT_EQ(obj.exceptions[static_cast<std::size_t>(DateRangeType::month_day)].size(), 2u);
}

TEST(TimeperiodRules, TemplateDuplicatesCollapseToTheOneWrittenLast) {
  Rules tmpl, obj;
  tmpl.add_exception(month_day(1, 1, 10));
  tmpl.add_exception(month_day(1, 1, 20));
  obj.inherit_from(tmpl);
  const auto& list = obj.exceptions[static_cast<std::size_t>(DateRangeType::month_day)];
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].ranges[0].start, 20u);
}

TEST(TimeperiodRules, OwnDuplicatesAreKeptWhenInheriting) {
  Rules tmpl, obj;
  obj.add_exception(month_day(1, 1, 10));
  obj.add_exception(month_day(1, 1, 20));
  tmpl.add_exception(month_day(1, 1, 30));
  obj.inherit_from(tmpl);
  EXPECT_EQ(obj.exceptions[static_cast<std::size_t>(DateRangeType::month_day)].size(), 2u);
}

TEST(TimeperiodRules, SecondTemplateExceptionsComeAfterFirstAndAreDeduplicatedAgainstIt) {
  Rules first, second, obj;
  first.add_exception(month_day(1, 1, 10));
  second.add_exception(month_day(1, 1, 20));
  second.add_exception(month_day(3, 3));
  obj.inherit_from(first);
  obj.inherit_from(second);
  const auto& list = obj.exceptions[static_cast<std::size_t>(DateRangeType::month_day)];
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].ranges[0].start, 10u);
  EXPECT_EQ(list[1].smday, 3);
}

TEST(TimeperiodRules, ExceptionTypesAreInheritedSeparately) {
  Rules tmpl, obj;
  DateRange calendar = month_day(1, 1);
  calendar.type = DateRangeType::calendar_date;
  tmpl.add_exception(calendar);
  obj.add_exception(month_day(1, 1));
  obj.inherit_from(tmpl);
  EXPECT_EQ(obj.exceptions[static_cast<std::size_t>(DateRangeType::calendar_date)].size(), 1u);
  EXPECT_EQ(obj.exceptions[static_cast<std::size_t>(DateRangeType::month_day)].size(), 1u);
}

}  // namespace
}  // namespace vedette::timeperiod
