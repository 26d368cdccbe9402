#include "timeperiod/evaluator.hpp"

#include "timeperiod_test_support.hpp"

#include <gtest/gtest.h>

namespace vedette::timeperiod {
namespace {

using testing::EvaluatorPair;
using testing::local;
using testing::PeriodTable;
using testing::ScopedTz;

constexpr std::time_t k_hour = 3600;
constexpr std::time_t k_day = 86400;

// ---- Naemon's own expectations (t-tap/test_timeperiods.c and its minimal.cfg), in UTC unless stated ----

struct NaemonPeriods {
  PeriodTable table;
  PeriodIndex none, all_week, even_hours, exclude_even_hours, sun_jul_20, monday3_thursday4, workhours,
      non_workhours, weekly_complex, sunday_only, myexclude, test_exclude, myexclude2, test_exclude2,
      myexclude4, test_exclude4, exclude_always;

  NaemonPeriods() {
    none = table.add({});
    all_week = table.add({"monday 00:00-24:00", "tuesday 00:00-24:00", "wednesday 00:00-24:00",
                          "thursday 00:00-24:00", "friday 00:00-24:00", "saturday 00:00-24:00",
                          "sunday 00:00-24:00"});
    const char* even = "00:00-01:00,02:00-03:00,04:00-05:00";
    std::vector<std::string> lines;
    for (const char* day : {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}) {
      lines.push_back(std::string(day) + " " + even);
    }
    even_hours = table.add({lines[0], lines[1], lines[2], lines[3], lines[4], lines[5], lines[6]});
    exclude_even_hours = table.add(
        {"monday 00:00-24:00", "tuesday 00:00-24:00", "wednesday 00:00-24:00", "thursday 00:00-24:00",
         "friday 00:00-24:00", "saturday 00:00-24:00", "sunday 00:00-24:00"},
        {even_hours});
    sun_jul_20 = table.add({"2014-07-20 00:00-01:00,02:00-03:00,04:00-05:00"});
    monday3_thursday4 = table.add({"monday 3 - thursday 4 10:00-12:00,14:00-16:00"});
    workhours = table.add({"monday 07:00-18:00", "tuesday 07:00-18:00", "wednesday 07:00-18:00",
                           "thursday 07:00-18:00", "friday 07:00-18:00", "saturday 07:00-18:00",
                           "sunday 07:00-18:00"});
    non_workhours = table.add(
        {"monday 00:00-24:00", "tuesday 00:00-24:00", "wednesday 00:00-24:00", "thursday 00:00-24:00",
         "friday 00:00-24:00", "saturday 00:00-24:00", "sunday 00:00-24:00"},
        {workhours});
    weekly_complex = table.add({"monday 01:15-23:15", "tuesday 01:15-23:15", "wednesday 01:15-23:15",
                                "thursday 01:15-23:15", "friday 01:15-23:15",
                                "saturday 00:00-22:00,23:00-24:00", "sunday 00:00-09:45,14:15-24:00"});
    sunday_only = table.add({"sunday 00:00-01:15,03:15-22:00"});
    myexclude = table.add({"april 1 - august 16 00:00-24:00", "saturday -1 - monday 1  16:00-24:00"});
    test_exclude = table.add({"tuesday -1 - monday 1  16:30-24:00"}, {myexclude});
    myexclude2 = table.add({"tuesday 00:00-23:58"});
    test_exclude2 = table.add({"tuesday 2 16:30-24:00"}, {myexclude2});
    myexclude4 = table.add({"april 1 - august 16 00:00-24:00"});
    test_exclude4 = table.add({"tuesday -1 - monday 1  16:30-24:00"}, {myexclude4});
    exclude_always = table.add({"monday 00:00-24:00"}, {all_week});
  }
};

TEST(TimeperiodEvaluator, NaemonSuiteInUtc) {
  ScopedTz tz("UTC");
  NaemonPeriods n;
  EvaluatorPair e(n.table);

  const std::vector<std::pair<std::time_t, bool>> even = {{0, true},      {1800, true},  {3600, false},
                                                          {5400, false},  {7200, true},  {9000, true},
                                                          {10800, false}, {14400, true}, {17999, true}};
  for (const auto& [t, valid] : even) {
    EXPECT_EQ(e.valid(n.even_hours, t), valid) << t;
    EXPECT_EQ(e.valid(n.exclude_even_hours, t), !valid) << t;
  }
  EXPECT_TRUE(e.valid(n.exclude_even_hours, 18000));
  EXPECT_EQ(e.next_valid(n.even_hours, 1), 1);
  EXPECT_EQ(e.next_valid(n.even_hours, 3600), 7200);
  EXPECT_EQ(e.next_valid(n.even_hours, 10800), 14400);
  EXPECT_EQ(e.next_valid(n.even_hours, 17999), 17999);
  EXPECT_EQ(e.next_valid(n.even_hours, 18000), 86400);
  EXPECT_EQ(e.next_invalid(n.even_hours, 1), 3600);
  EXPECT_EQ(e.next_invalid(n.even_hours, 7200), 10800);
  EXPECT_EQ(e.next_invalid(n.even_hours, 10800), 10800);
  EXPECT_EQ(e.next_invalid(n.even_hours, 14400), 18000);
  EXPECT_EQ(e.next_invalid(n.even_hours, 18000), 18000);
  EXPECT_EQ(e.next_invalid(n.exclude_even_hours, 1), 1);
  EXPECT_EQ(e.next_invalid(n.exclude_even_hours, 1800), 1800);
  EXPECT_EQ(e.next_invalid(n.exclude_even_hours, 10800), 14400);
  EXPECT_EQ(e.next_invalid(n.exclude_even_hours, 17999), 17999);
  EXPECT_EQ(e.next_invalid(n.exclude_even_hours, 18000), 86400);
  EXPECT_EQ(e.next_valid(n.exclude_even_hours, 1), 3600);
  EXPECT_EQ(e.next_valid(n.exclude_even_hours, 7200), 10800);
  EXPECT_EQ(e.next_valid(n.exclude_even_hours, 10800), 10800);
  EXPECT_EQ(e.next_valid(n.exclude_even_hours, 14400), 18000);
  EXPECT_EQ(e.next_valid(n.exclude_even_hours, 18000), 18000);

  const std::time_t jul20 = 1405814400;  // Sun 2014-07-20 00:00 UTC
  for (const auto& [offset, valid] : even) EXPECT_EQ(e.valid(n.sun_jul_20, jul20 + offset), valid) << offset;
  EXPECT_FALSE(e.valid(n.sun_jul_20, jul20 + k_day));  // a calendar date, not every sunday

  // "monday 3 - thursday 4": nothing on sunday 20 july 2014 (between thursday 17 and monday 21: no match,
  // the weekday has no ranges), both ranges on monday 21 (third monday, start of the span).
  EXPECT_FALSE(e.valid(n.monday3_thursday4, jul20 + 11 * k_hour));
  EXPECT_TRUE(e.valid(n.monday3_thursday4, jul20 + k_day + 11 * k_hour));
  EXPECT_TRUE(e.valid(n.monday3_thursday4, jul20 + k_day + 15 * k_hour));
  EXPECT_FALSE(e.valid(n.monday3_thursday4, jul20 + k_day + 13 * k_hour));

  EXPECT_TRUE(e.valid(n.non_workhours, 123));
  EXPECT_FALSE(e.valid(n.workhours, 123));
  EXPECT_EQ(e.next_valid(n.workhours, 123), 25200);
  EXPECT_EQ(e.next_valid(n.non_workhours, 25200), 64800);

  EXPECT_FALSE(e.valid(n.none, 123));
  EXPECT_EQ(e.next_invalid(n.none, 123), 123);
  EXPECT_EQ(e.next_valid(n.none, 123), 123);  // nothing within the horizon: the start comes back
  EXPECT_TRUE(e.valid(n.all_week, 123));
  EXPECT_EQ(e.next_invalid(n.all_week, 123), 123);  // never invalid within the horizon

  EXPECT_TRUE(e.valid(n.weekly_complex, 248234));
  EXPECT_EQ(e.next_invalid(n.weekly_complex, 252000), 252000);
  EXPECT_EQ(e.next_valid(n.weekly_complex, 252000), 255600);

  const std::time_t jul12 = 1278939600;  // Mon 2010-07-12 13:00 UTC
  EXPECT_FALSE(e.valid(n.test_exclude, jul12));
  EXPECT_EQ(e.next_invalid(n.test_exclude, jul12), jul12);
  EXPECT_EQ(e.next_valid(n.test_exclude, jul12), 1288110600);
  EXPECT_FALSE(e.valid(n.exclude_always, jul12));
  EXPECT_EQ(e.next_valid(n.exclude_always, jul12), jul12);
}

TEST(TimeperiodEvaluator, NaemonSuiteInParis) {
  ScopedTz tz("Europe/Paris");
  NaemonPeriods n;
  EvaluatorPair e(n.table);
  const std::time_t jul12 = 1278939600;  // Mon 2010-07-12 15:00 CEST
  EXPECT_FALSE(e.valid(n.test_exclude, jul12));
  EXPECT_EQ(e.next_valid(n.test_exclude, jul12), 1288103400);
  EXPECT_FALSE(e.valid(n.test_exclude2, jul12));
  EXPECT_EQ(e.next_valid(n.test_exclude2, jul12), 1279058280);  // Tue 13 july 23:58
  EXPECT_FALSE(e.valid(n.test_exclude4, jul12));
  EXPECT_EQ(e.next_invalid(n.myexclude4, 1281065000), 1281996000);
  EXPECT_EQ(e.next_valid(n.test_exclude4, jul12), 1283265000);
}

TEST(TimeperiodEvaluator, NaemonSuiteAcrossLondonFallBack) {
  ScopedTz tz("Europe/London");
  NaemonPeriods n;
  EvaluatorPair e(n.table);
  // Sunday 2009-10-25, clocks go back at 02:00 BST; "sunday 00:00-01:15,03:15-22:00" reads the wall clock.
  const std::time_t sunday = 1256425200;  // 00:00 BST
  EXPECT_FALSE(e.valid(n.sunday_only, 1256421000));
  EXPECT_EQ(e.next_valid(n.sunday_only, 1256421000), sunday);
  EXPECT_EQ(e.next_valid(n.sunday_only, 1256421661), sunday);
  EXPECT_TRUE(e.valid(n.sunday_only, 1256425400));
  EXPECT_EQ(e.next_valid(n.sunday_only, 1256425400), 1256425400);
  EXPECT_TRUE(e.valid(n.sunday_only, 1256429699));
  EXPECT_FALSE(e.valid(n.sunday_only, 1256429700));                // 01:15 BST
  EXPECT_EQ(e.next_valid(n.sunday_only, 1256429700), 1256440500);  // 03:15 GMT
  EXPECT_FALSE(e.valid(n.sunday_only, 1256430400));
  EXPECT_EQ(e.next_valid(n.sunday_only, 1256430400), 1256440500);
  EXPECT_TRUE(e.valid(n.sunday_only, 1256440500));
  EXPECT_TRUE(e.valid(n.sunday_only, 1256500000));
  EXPECT_TRUE(e.valid(n.sunday_only, 1256507999));  // 21:59:59 GMT
  EXPECT_FALSE(e.valid(n.sunday_only, 1256508001));
  EXPECT_EQ(e.next_valid(n.sunday_only, 1256508001), 1257033600);  // next sunday 00:00 GMT
  EXPECT_EQ(e.next_valid(n.sunday_only, 1256513000), 1257033600);
  // 24x7 stays valid through the switch (Naemon's regression test: 1000 half-hour steps).
  for (std::time_t t = 1256511661 - k_day, i = 0; i < 1000; ++i, t += 1800) {
    ASSERT_TRUE(e.valid(n.all_week, t)) << t;
    ASSERT_EQ(e.next_valid(n.all_week, t), t) << t;
  }
}

TEST(TimeperiodEvaluator, NaemonSuiteInNewYork) {
  ScopedTz tz("America/New_York");
  NaemonPeriods n;
  EvaluatorPair e(n.table);
  EXPECT_FALSE(e.valid(n.weekly_complex, 1268109420));                // Mon 2010-03-08 23:37
  EXPECT_EQ(e.next_valid(n.weekly_complex, 1268109420), 1268115300);  // Tue 01:15
}

// ---- every syntax, in a zone with DST (Europe/Berlin) ----

class TimeperiodEvaluatorSyntax : public ::testing::Test {
 protected:
  ScopedTz tz_{"Europe/Berlin"};
};

TEST_F(TimeperiodEvaluatorSyntax, WeekdaysWithSeveralRangesAnd2400) {
  PeriodTable table;
  const PeriodIndex p = table.add({"monday 09:00-12:00,13:00-17:30", "tuesday 22:00-24:00"});
  EvaluatorPair e(table);
  // Monday 2024-06-03.
  EXPECT_FALSE(e.valid(p, local(2024, 6, 3, 8, 59, 59)));
  EXPECT_TRUE(e.valid(p, local(2024, 6, 3, 9)));
  EXPECT_FALSE(e.valid(p, local(2024, 6, 3, 12)));  // end is exclusive
  EXPECT_TRUE(e.valid(p, local(2024, 6, 3, 17, 29, 59)));
  EXPECT_FALSE(e.valid(p, local(2024, 6, 3, 17, 30)));
  EXPECT_TRUE(e.valid(p, local(2024, 6, 4, 23, 59, 59)));
  EXPECT_FALSE(e.valid(p, local(2024, 6, 5, 0, 0)));
  EXPECT_FALSE(e.valid(p, local(2024, 6, 8, 10)));  // saturday: no line
  EXPECT_EQ(e.next_valid(p, local(2024, 6, 3, 12, 10)), local(2024, 6, 3, 13));
  EXPECT_EQ(e.next_valid(p, local(2024, 6, 3, 18)), local(2024, 6, 4, 22));
  EXPECT_EQ(e.next_valid(p, local(2024, 6, 5, 0)), local(2024, 6, 10, 9));
  EXPECT_EQ(e.next_invalid(p, local(2024, 6, 3, 10)), local(2024, 6, 3, 12));
  EXPECT_EQ(e.next_invalid(p, local(2024, 6, 4, 23)), local(2024, 6, 5, 0));
}

TEST_F(TimeperiodEvaluatorSyntax, RangesMeetingAtMidnightStayValid) {
  PeriodTable table;
  const PeriodIndex p = table.add({"monday 20:00-24:00", "tuesday 00:00-02:00"});
  EvaluatorPair e(table);
  EXPECT_EQ(e.next_invalid(p, local(2024, 6, 3, 21)), local(2024, 6, 4, 2));
}

TEST_F(TimeperiodEvaluatorSyntax, DayOfMonthAndFromTheEnd) {
  PeriodTable table;
  const PeriodIndex fifteenth = table.add({"day 15 10:00-11:00"});
  const PeriodIndex last = table.add({"day -1 00:00-24:00"});
  const PeriodIndex second_last = table.add({"day -2 00:00-24:00"});
  const PeriodIndex first_week = table.add({"day 1 - 5 00:00-24:00"});
  const PeriodIndex wrapping = table.add({"day 25 - 5 00:00-24:00"});   // start after end: both ends of month
  const PeriodIndex past_end = table.add({"day 28 - 31 00:00-24:00"});  // end clipped to the month's end
  EvaluatorPair e(table);
  EXPECT_TRUE(e.valid(fifteenth, local(2024, 3, 15, 10, 30)));
  EXPECT_FALSE(e.valid(fifteenth, local(2024, 3, 15, 11)));
  EXPECT_FALSE(e.valid(fifteenth, local(2024, 3, 14, 10, 30)));
  EXPECT_EQ(e.next_valid(fifteenth, local(2024, 3, 15, 11)), local(2024, 4, 15, 10));
  EXPECT_TRUE(e.valid(last, local(2024, 2, 29, 12)));
  EXPECT_FALSE(e.valid(last, local(2024, 2, 28, 12)));
  EXPECT_TRUE(e.valid(last, local(2023, 2, 28, 12)));
  EXPECT_TRUE(e.valid(second_last, local(2024, 4, 29, 12)));
  EXPECT_EQ(e.next_valid(last, local(2024, 2, 1)), local(2024, 2, 29));
  EXPECT_TRUE(e.valid(first_week, local(2024, 5, 5, 23)));
  EXPECT_FALSE(e.valid(first_week, local(2024, 5, 6, 0)));
  EXPECT_TRUE(e.valid(wrapping, local(2024, 5, 3)));
  EXPECT_TRUE(e.valid(wrapping, local(2024, 5, 27)));
  EXPECT_FALSE(e.valid(wrapping, local(2024, 5, 15)));
  EXPECT_TRUE(e.valid(past_end, local(2023, 2, 28, 9)));
  EXPECT_FALSE(e.valid(past_end, local(2023, 2, 27, 9)));
}

TEST_F(TimeperiodEvaluatorSyntax, WeekdayOfMonth) {
  PeriodTable table;
  const PeriodIndex third_monday = table.add({"monday 3 00:00-24:00"});
  const PeriodIndex last_friday = table.add({"friday -1 08:00-09:00"});
  const PeriodIndex last_monday_may = table.add({"monday -1 may 00:00-24:00"});
  const PeriodIndex thanksgiving = table.add({"thursday 4 november 00:00-24:00"});
  const PeriodIndex span = table.add({"monday 2 - friday 2 12:00-13:00"});
  EvaluatorPair e(table);
  EXPECT_TRUE(e.valid(third_monday, local(2024, 6, 17, 5)));
  EXPECT_FALSE(e.valid(third_monday, local(2024, 6, 10, 5)));
  EXPECT_EQ(e.next_valid(third_monday, local(2024, 6, 18)), local(2024, 7, 15));
  EXPECT_TRUE(e.valid(last_friday, local(2024, 5, 31, 8, 30)));
  EXPECT_FALSE(e.valid(last_friday, local(2024, 5, 24, 8, 30)));
  EXPECT_TRUE(e.valid(last_monday_may, local(2024, 5, 27, 12)));
  EXPECT_FALSE(e.valid(last_monday_may, local(2024, 5, 20, 12)));
  EXPECT_FALSE(e.valid(last_monday_may, local(2024, 6, 24, 12)));
  EXPECT_EQ(e.next_valid(last_monday_may, local(2025, 1, 1)), local(2025, 5, 26));
  EXPECT_TRUE(e.valid(thanksgiving, local(2024, 11, 28, 12)));
  EXPECT_FALSE(e.valid(thanksgiving, local(2024, 11, 21, 12)));
  // June 2024: second monday is the 10th, second friday the 14th.
  EXPECT_FALSE(e.valid(span, local(2024, 6, 7, 12, 30)));
  EXPECT_TRUE(e.valid(span, local(2024, 6, 10, 12, 30)));
  EXPECT_TRUE(e.valid(span, local(2024, 6, 12, 12, 30)));
  EXPECT_TRUE(e.valid(span, local(2024, 6, 14, 12, 30)));
  EXPECT_FALSE(e.valid(span, local(2024, 6, 15, 12, 30)));
}

TEST_F(TimeperiodEvaluatorSyntax, MonthDates) {
  PeriodTable table;
  const PeriodIndex july4 = table.add({"july 4 00:00-24:00"});
  const PeriodIndex summer = table.add({"june 21 - september 22 06:00-07:00"});
  const PeriodIndex holidays = table.add({"december 25 - january 2 00:00-24:00"});
  EvaluatorPair e(table);
  EXPECT_TRUE(e.valid(july4, local(2030, 7, 4, 1)));
  EXPECT_FALSE(e.valid(july4, local(2030, 7, 5, 1)));
  EXPECT_TRUE(e.valid(summer, local(2024, 8, 1, 6, 30)));
  EXPECT_FALSE(e.valid(summer, local(2024, 8, 1, 7, 30)));
  EXPECT_FALSE(e.valid(summer, local(2024, 9, 23, 6, 30)));
  EXPECT_TRUE(e.valid(holidays, local(2024, 12, 28, 12)));
  // As in Naemon: a range across new year is anchored on the test year's start date, so 1 january (whose
  // "december 25" is 359 days later) is not in it.
  EXPECT_FALSE(e.valid(holidays, local(2025, 1, 1, 12)));
}

TEST_F(TimeperiodEvaluatorSyntax, CalendarDatesAndRangesAcrossYears) {
  PeriodTable table;
  const PeriodIndex christmas = table.add({"2024-12-25 00:00-24:00"});
  const PeriodIndex freeze = table.add({"2024-12-20 - 2025-01-06 08:00-18:00"});
  EvaluatorPair e(table);
  EXPECT_TRUE(e.valid(christmas, local(2024, 12, 25, 23, 59)));
  EXPECT_FALSE(e.valid(christmas, local(2025, 12, 25, 12)));
  EXPECT_TRUE(e.valid(freeze, local(2024, 12, 31, 9)));
  EXPECT_TRUE(e.valid(freeze, local(2025, 1, 6, 9)));
  EXPECT_FALSE(e.valid(freeze, local(2025, 1, 7, 9)));
  EXPECT_EQ(e.next_valid(freeze, local(2024, 12, 19, 12)), local(2024, 12, 20, 8));
  EXPECT_EQ(e.next_valid(christmas, local(2024, 12, 1)), local(2024, 12, 25));
}

TEST_F(TimeperiodEvaluatorSyntax, SkipIntervals) {
  PeriodTable table;
  const PeriodIndex every_third_day = table.add({"2024-01-01 - 2024-01-31 / 3 00:00-24:00"});
  const PeriodIndex weekly_forever = table.add({"2024-01-01 / 7 10:00-11:00"});  // no end: every 7 days
  const PeriodIndex odd_days = table.add({"day 1 - 31 / 2 00:00-24:00"});
  const PeriodIndex fortnightly = table.add({"monday 1 - friday -1 / 14 00:00-24:00"});
  EvaluatorPair e(table);
  EXPECT_TRUE(e.valid(every_third_day, local(2024, 1, 1, 12)));
  EXPECT_FALSE(e.valid(every_third_day, local(2024, 1, 2, 12)));
  EXPECT_TRUE(e.valid(every_third_day, local(2024, 1, 4, 12)));
  EXPECT_TRUE(e.valid(every_third_day, local(2024, 1, 31, 12)));
  EXPECT_FALSE(e.valid(every_third_day, local(2024, 2, 1, 12)));
  // As in Naemon: once the skip moves the start to the test day, a start after the end reads as a range
  // wrapping around, so every third day after the end date matches too.
  EXPECT_TRUE(e.valid(every_third_day, local(2024, 2, 3, 12)));
  EXPECT_EQ(e.next_valid(every_third_day, local(2024, 1, 2, 12)), local(2024, 1, 4));
  // Across the spring switch (31 march 2024): day counting stays on local dates.
  EXPECT_TRUE(e.valid(weekly_forever, local(2024, 4, 1, 10, 30)));  // 13 weeks later
  EXPECT_FALSE(e.valid(weekly_forever, local(2024, 4, 2, 10, 30)));
  EXPECT_TRUE(e.valid(weekly_forever, local(2025, 12, 29, 10, 30)));
  EXPECT_EQ(e.next_valid(weekly_forever, local(2024, 4, 2)), local(2024, 4, 8, 10));
  EXPECT_FALSE(e.valid(weekly_forever, local(2023, 12, 25, 10, 30)));  // before the start
  EXPECT_TRUE(e.valid(odd_days, local(2024, 5, 1, 1)));
  EXPECT_FALSE(e.valid(odd_days, local(2024, 5, 2, 1)));
  EXPECT_TRUE(e.valid(odd_days, local(2024, 5, 31, 1)));
  EXPECT_TRUE(e.valid(fortnightly, local(2024, 7, 1, 1)));  // first monday of july
  EXPECT_FALSE(e.valid(fortnightly, local(2024, 7, 8, 1)));
  EXPECT_TRUE(e.valid(fortnightly, local(2024, 7, 15, 1)));
}

TEST_F(TimeperiodEvaluatorSyntax, ExceptionTypesOverrideInNaemonOrder) {
  PeriodTable table;
  const PeriodIndex p = table.add({"monday 00:00-24:00", "monday 1 09:00-10:00", "day 1 11:00-12:00",
                                   "july 1 12:00-13:00", "2024-07-01 13:00-14:00"});
  const PeriodIndex day_off = table.add({"monday 00:00-24:00", "2024-07-08 00:00-00:00"});
  EvaluatorPair e(table);
  // 2024-07-01 is a monday, the 1st, the first monday and july 1: the calendar date wins.
  EXPECT_TRUE(e.valid(p, local(2024, 7, 1, 13, 30)));
  EXPECT_FALSE(e.valid(p, local(2024, 7, 1, 12, 30)));
  EXPECT_TRUE(e.valid(p, local(2025, 7, 1, 12, 30)));  // month date beats day of month (a tuesday)
  EXPECT_TRUE(e.valid(p, local(2024, 4, 1, 11, 30)));  // day of month beats first monday
  EXPECT_FALSE(e.valid(p, local(2024, 4, 1, 9, 30)));
  EXPECT_TRUE(e.valid(p, local(2024, 8, 5, 9, 30)));  // first monday beats the weekday
  EXPECT_FALSE(e.valid(p, local(2024, 8, 5, 15)));
  EXPECT_TRUE(e.valid(p, local(2024, 8, 12, 15)));  // plain monday
  // An exception with only 00:00-00:00 takes the day out.
  EXPECT_FALSE(e.valid(day_off, local(2024, 7, 8, 12)));
  EXPECT_EQ(e.next_valid(day_off, local(2024, 7, 8, 12)), local(2024, 7, 15));
}

TEST_F(TimeperiodEvaluatorSyntax, ExclusionsAreRecursive) {
  PeriodTable table;
  const PeriodIndex lunch = table.add({"monday 12:00-13:00"});
  const PeriodIndex work = table.add({"monday 09:00-17:00"}, {lunch});
  const PeriodIndex off_work = table.add({"monday 00:00-24:00", "tuesday 00:00-24:00"}, {work});
  EvaluatorPair e(table);
  EXPECT_FALSE(e.valid(off_work, local(2024, 6, 3, 10)));
  EXPECT_TRUE(e.valid(off_work, local(2024, 6, 3, 12, 30)));  // lunch is excluded from the exclusion
  EXPECT_TRUE(e.valid(off_work, local(2024, 6, 3, 20)));
  EXPECT_EQ(e.next_valid(off_work, local(2024, 6, 3, 10)), local(2024, 6, 3, 12));
  EXPECT_EQ(e.next_valid(off_work, local(2024, 6, 3, 13)), local(2024, 6, 3, 17));
  EXPECT_EQ(e.next_invalid(off_work, local(2024, 6, 3, 12, 30)), local(2024, 6, 3, 13));
  EXPECT_EQ(e.next_invalid(work, local(2024, 6, 3, 10)), local(2024, 6, 3, 12));
}

TEST_F(TimeperiodEvaluatorSyntax, ExclusionCycleTerminates) {
  PeriodTable table;
  const PeriodIndex a = table.add({"monday 00:00-24:00"});
  const PeriodIndex b = table.add({"monday 10:00-11:00"}, {a});
  table.set_exclusions(a, {b});
  EvaluatorPair e(table);
  const std::time_t t = local(2024, 6, 3, 10, 30);
  (void)e.valid(a, t);
  (void)e.next_valid(a, t);
  (void)e.next_invalid(b, t);
}

TEST_F(TimeperiodEvaluatorSyntax, NoPeriodIsAlwaysValidAndNowClampsTheStart) {
  PeriodTable table;
  const PeriodIndex p = table.add({"monday 09:00-10:00"});
  EvaluatorPair e(table);
  const Evaluator& eval = e.plain();
  EXPECT_TRUE(eval.is_time_valid(k_no_period, 12345));
  EXPECT_EQ(eval.next_valid_time(k_no_period, 0, 777), 777);
  const std::time_t now = local(2024, 6, 3, 9, 30);
  EXPECT_EQ(eval.next_valid_time(p, 0, now), now);                               // 0 means now
  EXPECT_EQ(eval.next_valid_time(p, now - 7 * k_day, now), now);                 // the past is now
  EXPECT_EQ(eval.next_valid_time(p, now + k_hour, now), local(2024, 6, 10, 9));  // the future stays
  EXPECT_EQ(e.cached().next_valid_time(p, 0, now), now);
}

TEST_F(TimeperiodEvaluatorSyntax, SearchHorizonGivesTheStartBack) {
  PeriodTable table;
  const PeriodIndex far = table.add({"2030-01-01 00:00-24:00"});
  const PeriodIndex near = table.add({"2024-10-01 00:00-24:00"});
  EvaluatorPair e(table);
  const std::time_t from = local(2024, 1, 1);
  EXPECT_EQ(e.next_valid(far, from), from);                 // beyond Naemon's 300 steps
  EXPECT_EQ(e.next_valid(near, from), local(2024, 10, 1));  // 274 days
}

// ---- DST days: ranges read the wall clock on both sides of the switch, as in Naemon ----

TEST(TimeperiodEvaluatorDst, NewYorkSpringForward) {
  ScopedTz tz("America/New_York");
  PeriodTable table;
  const PeriodIndex early = table.add({"sunday 03:00-04:00"});
  const PeriodIndex missing_hour = table.add({"sunday 02:00-03:00"});
  EvaluatorPair e(table);
  // Sunday 2024-03-10: 02:00 EST becomes 03:00 EDT (07:00 UTC).
  const std::time_t switch_at = 1710054000;
  EXPECT_TRUE(e.valid(early, switch_at));               // 03:00 EDT
  EXPECT_TRUE(e.valid(early, switch_at + k_hour - 1));  // 03:59:59 EDT
  EXPECT_FALSE(e.valid(early, switch_at + k_hour));
  EXPECT_FALSE(e.valid(early, switch_at - 1));  // 01:59:59 EST
  EXPECT_FALSE(e.valid(missing_hour, switch_at - 1));
  EXPECT_FALSE(e.valid(missing_hour, switch_at));
  EXPECT_EQ(e.next_valid(early, switch_at), switch_at);
  // As in Naemon: searching from before the switch, the range is placed with the pre-switch origin (04:00 EDT
  // onwards), then rejected with the post-switch one (it ended at 04:00 EDT), so that sunday is missed.
  EXPECT_EQ(e.next_valid(early, switch_at - 5 * k_hour), switch_at + 7 * k_day);
}

TEST(TimeperiodEvaluatorDst, NewYorkFallBackRepeatsTheHour) {
  ScopedTz tz("America/New_York");
  PeriodTable table;
  const PeriodIndex one_to_two = table.add({"sunday 01:00-02:00"});
  const PeriodIndex evening = table.add({"sunday 20:00-21:00"});
  EvaluatorPair e(table);
  // Sunday 2024-11-03: 02:00 EDT becomes 01:00 EST (06:00 UTC).
  const std::time_t switch_at = 1730613600;
  EXPECT_TRUE(e.valid(one_to_two, switch_at - 1800));  // 01:30 EDT
  EXPECT_TRUE(e.valid(one_to_two, switch_at + 1800));  // 01:30 EST
  EXPECT_FALSE(e.valid(one_to_two, switch_at + k_hour));
  EXPECT_TRUE(e.valid(evening, local(2024, 11, 3, 20, 30)));
  EXPECT_EQ(e.next_valid(evening, switch_at), local(2024, 11, 3, 20));
  // As in Naemon: from 01:30 EDT the range ends at 02:00 EDT, the switch, though 01:00 EST is valid again.
  EXPECT_EQ(e.next_invalid(one_to_two, switch_at - 1800), switch_at);
  EXPECT_EQ(e.next_invalid(one_to_two, switch_at + 1800), switch_at + k_hour);
}

}  // namespace
}  // namespace vedette::timeperiod
