// Naemon's local-time computations, straight from libc (localtime_r/mktime in the process's time zone) with
// no caching: the reference the DayCache must reproduce exactly. Any thread may call them; they read the zone
// libc loaded at the last tzset()/mktime().
#pragma once

#include <ctime>

namespace vedette::timeperiod {

// What the evaluator needs to know about the local day an instant falls in.
struct LocalDay {
  // Naemon's "midnight" for this instant: mktime() of the instant's local date at 00:00:00 with the instant's
  // own tm_isdst. On a DST day the instants before and after the switch get different origins (one hour
  // apart), which makes `t - origin` read as the wall clock on both sides, as in Naemon.
  std::time_t origin = 0;
  int year = 0;        // tm_year, years since 1900
  int month = 0;       // tm_mon, 0-11
  int weekday = 0;     // tm_wday, 0 = sunday
  int isdst = 0;       // tm_isdst of the instant
  bool known = false;  // false when localtime_r failed (instant outside what the platform can convert)

  friend bool operator==(const LocalDay&, const LocalDay&) = default;
};

[[nodiscard]] LocalDay compute_local_day(std::time_t t);

// tm_isdst of the instant (Naemon's get_dst_shift reads it for skip intervals); 0 when it cannot convert.
[[nodiscard]] int compute_isdst(std::time_t t);

// Naemon's date helpers; each returns the mktime() of 00:00 on the day found, or 0 when the day falls outside
// `month` (Naemon's "invalid" marker). `year` is tm_year, `month` 0-11 (others give 0; Naemon loops forever).
//   monthday > 0: that day of the month; monthday <= 0: counted from the end, -1 = last (clamped at -30).
[[nodiscard]] std::time_t compute_day_of_month(int year, int month, int monthday);
//   offset > 0: the offset-th `weekday` of the month (clamped at 5); offset <= 0: counted from the end.
[[nodiscard]] std::time_t compute_weekday_of_month(int year, int month, int weekday, int offset);
// A calendar-date exception's day: mktime() of 00:00 with tm_isdst = -1; `year` is the full year (2008).
[[nodiscard]] std::time_t compute_calendar_date(int year, int month, int monthday);

}  // namespace vedette::timeperiod
