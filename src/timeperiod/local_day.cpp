#include "timeperiod/local_day.hpp"

#include <initializer_list>

namespace vedette::timeperiod {
namespace {

bool is_month(int month) {
  return month >= 0 && month <= 11;
}

long offset_at(std::time_t t) {
  std::tm tm{};
  return localtime_r(&t, &tm) != nullptr ? tm.tm_gmtoff : 0;
}

// mktime() with tm_isdst = -1, except that a local time occurring twice (clocks going back across it) always
// resolves to its first occurrence. glibc resolves it from an offset hint left by the previous mktime() call,
// so Naemon's answer depends on what it computed just before; a cache cannot reproduce that, so both paths
// take the first occurrence. `t` is left normalised, as mktime() leaves it.
std::time_t mktime_first_occurrence(std::tm& t) {
  const std::time_t found = mktime(&t);
  if (found == -1) return found;
  constexpr std::time_t k_two_days = 2 * 86400;
  const long offset = t.tm_gmtoff;
  std::time_t earliest = found;
  for (const long other : {offset_at(found - k_two_days), offset_at(found + k_two_days)}) {
    if (other == offset) continue;
    const std::time_t twin = found + offset - other;  // the same wall-clock time under the other offset
    if (twin < earliest && offset_at(twin) == other) earliest = twin;
  }
  if (earliest != found) localtime_r(&earliest, &t);
  return earliest;
}

}  // namespace

LocalDay compute_local_day(std::time_t t) {
  std::tm tm{};
  if (localtime_r(&t, &tm) == nullptr) return LocalDay{};
  LocalDay day;
  day.year = tm.tm_year;
  day.month = tm.tm_mon;
  day.weekday = tm.tm_wday;
  day.isdst = tm.tm_isdst;
  day.known = true;
  // tm_isdst is deliberately kept from the instant: that is what gives a DST day its two origins in Naemon.
  tm.tm_sec = 0;
  tm.tm_min = 0;
  tm.tm_hour = 0;
  day.origin = mktime(&tm);
  return day;
}

int compute_isdst(std::time_t t) {
  std::tm tm{};
  if (localtime_r(&t, &tm) == nullptr) return 0;
  return tm.tm_isdst;
}

// The sequences of mktime() calls below are Naemon's, including that each call starts from the previous
// call's normalised fields: when 00:00 does not exist (a DST switch at midnight) mktime moves tm_hour to 1
// and later calls keep it. Departures: Naemon leaves tm_sec/min/hour uninitialised on the negative path (we
// start at 0), and a midnight that occurs twice is taken at its first occurrence (see
// mktime_first_occurrence).
std::time_t compute_day_of_month(int year, int month, int monthday) {
  if (!is_month(month)) return 0;
  std::tm t{};
  if (monthday > 0) {
    t.tm_year = year;
    t.tm_mon = month;
    t.tm_mday = monthday;
    t.tm_isdst = -1;
    const std::time_t midnight = mktime_first_occurrence(t);
    return t.tm_mon == month ? midnight : 0;
  }
  int day = 32;
  do {
    --day;
    t.tm_mon = month;
    t.tm_year = year;
    t.tm_mday = day;
    t.tm_isdst = -1;
    mktime_first_occurrence(t);  // on failure t is left as set, which ends the loop
  } while (t.tm_mon != month);
  t.tm_mon = month;
  t.tm_year = year;
  t.tm_mday += monthday < -30 ? -30 : monthday + 1;
  t.tm_isdst = -1;
  const std::time_t midnight = mktime_first_occurrence(t);
  return t.tm_mon == month ? midnight : 0;
}

std::time_t compute_weekday_of_month(int year, int month, int weekday, int offset) {
  if (!is_month(month)) return 0;
  std::tm t{};
  t.tm_year = year;
  t.tm_mon = month;
  t.tm_mday = 1;
  t.tm_isdst = -1;
  mktime_first_occurrence(t);
  int days = weekday - t.tm_wday;
  if (days < 0) days += 7;
  if (offset > 0) {
    const int weeks = offset > 5 ? 5 : offset;
    days += (weeks - 1) * 7;
    t.tm_mon = month;
    t.tm_year = year;
    t.tm_mday = days + 1;
    t.tm_isdst = -1;
    const std::time_t midnight = mktime_first_occurrence(t);
    return t.tm_mon == month ? midnight : 0;
  }
  days += 5 * 7;
  int guard = 0;
  do {
    days -= 7;
    t.tm_mon = month;
    t.tm_year = year;
    t.tm_mday = days + 1;
    t.tm_isdst = -1;
    mktime_first_occurrence(t);
    if (++guard > 8) return 0;  // conversion failure or a weekday outside 0-6; Naemon would spin here
  } while (t.tm_mon != month);
  const int weeks = offset < -5 ? -5 : offset;
  t.tm_mon = month;
  t.tm_year = year;
  t.tm_mday += (weeks + 1) * 7;
  t.tm_isdst = -1;
  const std::time_t midnight = mktime_first_occurrence(t);
  return t.tm_mon == month ? midnight : 0;
}

std::time_t compute_calendar_date(int year, int month, int monthday) {
  std::tm t{};
  t.tm_year = year - 1900;
  t.tm_mon = month;
  t.tm_mday = monthday;
  t.tm_isdst = -1;
  return mktime_first_occurrence(t);
}

}  // namespace vedette::timeperiod
