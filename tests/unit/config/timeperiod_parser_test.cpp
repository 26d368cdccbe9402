#include "config/timeperiod_parser.hpp"

#include <gtest/gtest.h>

#include <string>

namespace vedette::config {
namespace {

using timeperiod::DateRange;
using timeperiod::DateRangeType;
using timeperiod::Rules;
using timeperiod::TimeRange;
using Ranges = std::vector<TimeRange>;

constexpr std::uint32_t h(std::uint32_t hours, std::uint32_t minutes = 0) {
  return hours * 3600 + minutes * 60;
}

Rules parse_ok(std::string_view line) {
  Rules rules;
  const base::Status s = parse_timeperiod_line(line, rules);
  EXPECT_TRUE(s) << line << ": " << s.error();
  return rules;
}

std::string parse_error(std::string_view line) {
  Rules rules;
  const base::Status s = parse_timeperiod_line(line, rules);
  if (s) {
    ADD_FAILURE() << line;
    return {};
  }
  EXPECT_FALSE(s.error().empty()) << line;
  return s.error();
}

// The single exception a line produced; fails the test if there is not exactly one.
DateRange only_exception(const Rules& rules) {
  const DateRange* found = nullptr;
  int count = 0;
  for (const auto& list : rules.exceptions) {
    for (const auto& r : list) found = &r, ++count;
  }
  EXPECT_EQ(count, 1);
  return found != nullptr ? *found : DateRange{};
}

void expect_dates(const DateRange& r, DateRangeType type, std::array<int, 11> f) {
  EXPECT_EQ(r.type, type);
  EXPECT_EQ((std::array<int, 11>{r.syear, r.smon, r.smday, r.swday, r.swday_offset, r.eyear, r.emon, r.emday,
                                 r.ewday, r.ewday_offset, r.skip_interval}),
            f);
}

TEST(TimeperiodParser, WeekdayWithSeveralRanges) {
  const Rules rules = parse_ok("monday 00:00-09:00,17:00-24:00");
  EXPECT_TRUE(rules.has_weekday[1]);
  EXPECT_EQ(rules.weekdays[1], (Ranges{{0, h(9)}, {h(17), 86400}}));
  for (int day : {0, 2, 3, 4, 5, 6}) EXPECT_FALSE(rules.has_weekday[day]) << day;
}

TEST(TimeperiodParser, WeekdayRangesAreSortedAndSundayIsZero) {
  const Rules rules = parse_ok("sunday 04:00-06:00,00:00-02:00");
  EXPECT_EQ(rules.weekdays[0], (Ranges{{0, h(2)}, {h(4), h(6)}}));
}

TEST(TimeperiodParser, SingleDigitHoursAndMinutes) {
  EXPECT_EQ(parse_ok("saturday 9:05-9:30").weekdays[6], (Ranges{{h(9, 5), h(9, 30)}}));
}

TEST(TimeperiodParser, WhitespaceBeforeTheRangesMayBeTabsOrSeveral) {
  EXPECT_EQ(parse_ok("friday\t \t08:00-17:00").weekdays[5], (Ranges{{h(8), h(17)}}));
}

TEST(TimeperiodParser, SpaceSeparatesRangesLikeAComma) {
  EXPECT_EQ(parse_ok("tuesday 01:00-02:00 03:00-04:00").weekdays[2], (Ranges{{h(1), h(2)}, {h(3), h(4)}}));
}

TEST(TimeperiodParser, WeekdayDefinedTwiceKeepsTheLastLine) {
  Rules rules;
  ASSERT_TRUE(parse_timeperiod_line("monday 00:00-01:00", rules));
  ASSERT_TRUE(parse_timeperiod_line("monday 02:00-03:00", rules));
  EXPECT_EQ(rules.weekdays[1], (Ranges{{h(2), h(3)}}));
}

TEST(TimeperiodParser, CalendarDate) {
  const DateRange r = only_exception(parse_ok("2008-12-25 00:00-24:00"));
  expect_dates(r, DateRangeType::calendar_date, {2008, 11, 25, 0, 0, 2008, 11, 25, 0, 0, 0});
  EXPECT_EQ(r.ranges, (Ranges{{0, 86400}}));
}

TEST(TimeperiodParser, CalendarDateWithSkip) {
  expect_dates(only_exception(parse_ok("2008-01-02 / 5 00:00-24:00")), DateRangeType::calendar_date,
               {2008, 0, 2, 0, 0, 2008, 0, 2, 0, 0, 5});
}

TEST(TimeperiodParser, CalendarDateRange) {
  expect_dates(only_exception(parse_ok("2007-01-01 - 2008-02-01 00:00-24:00")), DateRangeType::calendar_date,
               {2007, 0, 1, 0, 0, 2008, 1, 1, 0, 0, 0});
}

TEST(TimeperiodParser, CalendarDateRangeWithSkip) {
  expect_dates(only_exception(parse_ok("2007-01-01 - 2008-02-01 / 3 00:00-24:00")),
               DateRangeType::calendar_date, {2007, 0, 1, 0, 0, 2008, 1, 1, 0, 0, 3});
}

TEST(TimeperiodParser, CalendarDateToleratesSpacesAfterDashesAndShortFields) {
  expect_dates(only_exception(parse_ok("2007- 1- 1 00:00-24:00")), DateRangeType::calendar_date,
               {2007, 0, 1, 0, 0, 2007, 0, 1, 0, 0, 0});
}

TEST(TimeperiodParser, MonthDate) {
  expect_dates(only_exception(parse_ok("july 4 00:00-24:00")), DateRangeType::month_date,
               {0, 6, 4, 0, 0, 0, 6, 4, 0, 0, 0});
}

TEST(TimeperiodParser, MonthDateRangeAcrossMonths) {
  const DateRange r = only_exception(parse_ok("december 25 - january 2 08:00-12:00"));
  expect_dates(r, DateRangeType::month_date, {0, 11, 25, 0, 0, 0, 0, 2, 0, 0, 0});
  EXPECT_EQ(r.ranges, (Ranges{{h(8), h(12)}}));
}

TEST(TimeperiodParser, MonthDateRangeWithSkip) {
  expect_dates(only_exception(parse_ok("february 1 - march 15 / 3 00:00-24:00")), DateRangeType::month_date,
               {0, 1, 1, 0, 0, 0, 2, 15, 0, 0, 3});
}

TEST(TimeperiodParser, MonthDateShortRange) {
  expect_dates(only_exception(parse_ok("february 3 - 5 00:00-24:00")), DateRangeType::month_date,
               {0, 1, 3, 0, 0, 0, 1, 5, 0, 0, 0});
}

TEST(TimeperiodParser, MonthDateShortRangeWithSkip) {
  expect_dates(only_exception(parse_ok("february 1 - 15 / 3 00:00-24:00")), DateRangeType::month_date,
               {0, 1, 1, 0, 0, 0, 1, 15, 0, 0, 3});
}

TEST(TimeperiodParser, MonthDay) {
  expect_dates(only_exception(parse_ok("day 21 00:00-24:00")), DateRangeType::month_day,
               {0, 0, 21, 0, 0, 0, 0, 21, 0, 0, 0});
}

TEST(TimeperiodParser, LastDayOfMonth) {
  expect_dates(only_exception(parse_ok("day -1 00:00-24:00")), DateRangeType::month_day,
               {0, 0, -1, 0, 0, 0, 0, -1, 0, 0, 0});
}

TEST(TimeperiodParser, MonthDayShortRangeWithSkip) {
  expect_dates(only_exception(parse_ok("day 1 - 15 / 3 00:00-24:00")), DateRangeType::month_day,
               {0, 0, 1, 0, 0, 0, 0, 15, 0, 0, 3});
}

TEST(TimeperiodParser, MonthDayShortRange) {
  expect_dates(only_exception(parse_ok("day 1 - 4 00:00-24:00")), DateRangeType::month_day,
               {0, 0, 1, 0, 0, 0, 0, 4, 0, 0, 0});
}

TEST(TimeperiodParser, MonthDayRangeWithDayTwice) {
  expect_dates(only_exception(parse_ok("day 1 - day 5 00:00-24:00")), DateRangeType::month_day,
               {0, 0, 1, 0, 0, 0, 0, 5, 0, 0, 0});
}

TEST(TimeperiodParser, MonthDayRangeWithDayTwiceAndSkip) {
  expect_dates(only_exception(parse_ok("day 4 - day 6 / 2 00:00-24:00")), DateRangeType::month_day,
               {0, 0, 4, 0, 0, 0, 0, 6, 0, 0, 2});
}

TEST(TimeperiodParser, MonthDayRangeNeedsNoSpacesAroundTheDash) {
  expect_dates(only_exception(parse_ok("day 1-15 00:00-24:00")), DateRangeType::month_day,
               {0, 0, 1, 0, 0, 0, 0, 15, 0, 0, 0});
}

TEST(TimeperiodParser, WeekDayOfAnyMonth) {
  expect_dates(only_exception(parse_ok("thursday 2 00:00-24:00")), DateRangeType::week_day,
               {0, 0, 0, 4, 2, 0, 0, 0, 4, 2, 0});
}

TEST(TimeperiodParser, WeekDayShortRange) {
  expect_dates(only_exception(parse_ok("thursday 2 - 4 00:00-24:00")), DateRangeType::week_day,
               {0, 0, 0, 4, 2, 0, 0, 0, 4, 4, 0});
}

TEST(TimeperiodParser, WeekDayShortRangeWithSkip) {
  expect_dates(only_exception(parse_ok("monday 2 - 3 / 2 00:00-24:00")), DateRangeType::week_day,
               {0, 0, 0, 1, 2, 0, 0, 0, 1, 3, 2});
}

TEST(TimeperiodParser, WeekDayRange) {
  expect_dates(only_exception(parse_ok("monday 2 - thursday 3 00:00-24:00")), DateRangeType::week_day,
               {0, 0, 0, 1, 2, 0, 0, 0, 4, 3, 0});
}

TEST(TimeperiodParser, WeekDayRangeWithSkip) {
  expect_dates(only_exception(parse_ok("monday 2 - thursday -1 / 2 00:00-24:00")), DateRangeType::week_day,
               {0, 0, 0, 1, 2, 0, 0, 0, 4, -1, 2});
}

TEST(TimeperiodParser, MonthWeekDay) {
  expect_dates(only_exception(parse_ok("monday 3 may 00:00-24:00")), DateRangeType::month_week_day,
               {0, 4, 0, 1, 3, 0, 4, 0, 1, 3, 0});
}

TEST(TimeperiodParser, MonthWeekDayRange) {
  expect_dates(only_exception(parse_ok("monday -1 may - thursday 2 june 00:00-24:00")),
               DateRangeType::month_week_day, {0, 4, 0, 1, -1, 0, 5, 0, 4, 2, 0});
}

TEST(TimeperiodParser, MonthWeekDayRangeWithSkip) {
  expect_dates(only_exception(parse_ok("wednesday 1 january - thursday 2 july / 3 00:00-24:00")),
               DateRangeType::month_week_day, {0, 0, 0, 3, 1, 0, 6, 0, 4, 2, 3});
}

TEST(TimeperiodParser, ExceptionRangesAreKeptInNaemonsReversedOrder) {
  EXPECT_EQ(only_exception(parse_ok("day 1 01:00-02:00,03:00-04:00")).ranges,
            (Ranges{{h(3), h(4)}, {h(1), h(2)}}));
}

TEST(TimeperiodParser, ExceptionsAccumulateInWrittenOrder) {
  Rules rules;
  ASSERT_TRUE(parse_timeperiod_line("day 2 00:00-24:00", rules));
  ASSERT_TRUE(parse_timeperiod_line("day 1 00:00-24:00", rules));
  const auto& list = rules.exceptions[static_cast<std::size_t>(DateRangeType::month_day)];
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].smday, 2);
  EXPECT_EQ(list[1].smday, 1);
}

TEST(TimeperiodParser, TwentyFourHundredIsTheLatestTime) {
  EXPECT_EQ(parse_ok("monday 24:00-24:00").weekdays[1], (Ranges{{86400, 86400}}));
  EXPECT_EQ(parse_error("monday 00:00-24:01"), "invalid time range '00:00-24:01'");
}

TEST(TimeperiodParser, NaemonLeniencyInTimesIsKept) {
  // Minutes are not range-checked, seconds and a third time are ignored, start may follow end.
  EXPECT_EQ(parse_ok("monday 10:75-11:00").weekdays[1], (Ranges{{h(11, 15), h(11)}}));
  EXPECT_EQ(parse_ok("monday 01:00:59-02:00-03:00").weekdays[1], (Ranges{{h(1), h(2)}}));
  EXPECT_EQ(parse_ok("monday 17:00-09:00").weekdays[1], (Ranges{{h(17), h(9)}}));
}

TEST(TimeperiodParser, DatesAreNotRangeCheckedAsInNaemon) {
  expect_dates(only_exception(parse_ok("2007-13-45 00:00-24:00")), DateRangeType::calendar_date,
               {2007, 12, 45, 0, 0, 2007, 12, 45, 0, 0, 0});
}

TEST(TimeperiodParser, RejectsTimesPastTheEndOfTheDay) {
  EXPECT_EQ(parse_error("monday 25:00-26:00"), "invalid time range '25:00-26:00'");
  EXPECT_EQ(parse_error("day 1 00:00-09:00,23:75-24:00"), "invalid time range '23:75-24:00'");
}

TEST(TimeperiodParser, RejectsMalformedRanges) {
  EXPECT_EQ(parse_error("monday 09:00"), "invalid time range '09:00'");
  EXPECT_EQ(parse_error("monday 09-17"), "invalid time range '09-17'");
  EXPECT_EQ(parse_error("monday 09:00-"), "invalid time range '09:00-'");
}

TEST(TimeperiodParser, RejectsSpaceAfterCommaAsNaemonDoes) {
  EXPECT_EQ(parse_error("monday 00:00-09:00, 17:00-24:00"), "empty time range in '00:00-09:00, 17:00-24:00'");
  EXPECT_EQ(parse_error("monday 00:00-09:00,"), "empty time range in '00:00-09:00,'");
}

TEST(TimeperiodParser, RejectsUnknownDirective) {
  EXPECT_EQ(parse_error("funday 00:00-24:00"), "unknown timeperiod directive 'funday'");
  EXPECT_EQ(parse_error("Monday 00:00-24:00"), "unknown timeperiod directive 'Monday'");
}

TEST(TimeperiodParser, RejectsNullAndMissingRanges) {
  // Naemon's directive formats accept only digits, ':', ',', ' ' and '-' as time ranges.
  EXPECT_EQ(parse_error("monday null"), "malformed timeperiod directive 'monday null'");
  EXPECT_EQ(parse_error("monday"), "malformed timeperiod directive 'monday'");
}

TEST(TimeperiodParser, RejectsMixedNames) {
  EXPECT_EQ(parse_error("monday 2 - may 3 00:00-24:00"),
            "malformed timeperiod directive 'monday 2 - may 3 00:00-24:00'");
  EXPECT_EQ(parse_error("day 1 - monday 3 00:00-24:00"),
            "malformed timeperiod directive 'day 1 - monday 3 00:00-24:00'");
  EXPECT_FALSE(parse_error("may 3 monday 00:00-24:00").empty());
  EXPECT_FALSE(parse_error("monday 3 day 00:00-24:00").empty());
}

TEST(TimeperiodParser, RejectsMonthWithoutDayAndTextAfterSpace) {
  EXPECT_FALSE(parse_error("may 00:00-24:00").empty());
  EXPECT_FALSE(parse_error("monday 00:00-09:00 garbage").empty());
  EXPECT_FALSE(parse_error("2007-01-01 - 00:00-24:00").empty());
}

TEST(TimeperiodParser, FailureLeavesRulesUnchanged) {
  Rules rules;
  EXPECT_FALSE(parse_timeperiod_line("monday 00:00-01:00,99:00-99:00", rules));
  EXPECT_FALSE(parse_timeperiod_line("day 1 00:00-01:00,99:00-99:00", rules));
  EXPECT_FALSE(rules.has_weekday[1]);
  for (const auto& list : rules.exceptions) EXPECT_TRUE(list.empty());
}

}  // namespace
}  // namespace vedette::config
