// Naemon's timeperiod evaluation (check_time_against_period, get_next_valid_time, get_next_invalid_time) over
// a table of Periods, in the process's local time zone. With a DayCache, libc answers come from the cache:
// core thread only. Without one (nullptr) every answer comes from localtime_r/mktime as in Naemon: any
// thread.
//   Evaluator eval(table, &day_cache);
//   if (!eval.is_time_valid(check_period, now)) next = eval.next_valid_time(check_period, next, now);
// Naemon's quirks are kept (tests name them "As in Naemon"): on a DST day the origin moves with tm_isdst,
// so a search started before a spring-forward switch can miss that day's post-switch range. Departures, to
// be listed in docs/compatibility.md: exclusions nest at most k_max_exclusion_depth deep (Naemon recurses
// until the stack overflows on a cycle); a date-exception midnight that occurs twice is taken at its first
// occurrence (Naemon's depends on glibc's mktime hint); "day -N" starts from 00:00:00 where Naemon reads
// uninitialised tm fields; an out-of-range month or weekday matches nothing where Naemon loops forever.
#pragma once

#include "timeperiod/period.hpp"

#include <ctime>
#include <span>

namespace vedette::timeperiod {

class DayCache;

// Deeper exclusions are ignored; only a cycle (a excludes b excludes a) gets there in a real config.
inline constexpr int k_max_exclusion_depth = 16;

class Evaluator {
 public:
  // Neither is owned: `periods` (and the Rules it points to) and `cache` must outlive the evaluator.
  Evaluator(std::span<const Period> periods, DayCache* cache) : periods_(periods), cache_(cache) {}

  // Naemon's check_time_against_period: false if any excluded period (recursively) holds `t`, else whether
  // one of the ranges of the day's matching rule contains `t`. k_no_period is always valid.
  [[nodiscard]] bool is_time_valid(PeriodIndex period, std::time_t t) const;

  // Naemon's get_next_valid_time: the earliest valid time at or after max(from, now), so 0 means "from now".
  // When none is found within Naemon's search horizon (300 steps, roughly 300 days) it returns that start
  // time itself, as Naemon does; callers cannot tell "valid now" from "never" without is_time_valid().
  [[nodiscard]] std::time_t next_valid_time(PeriodIndex period, std::time_t from, std::time_t now) const;
  // The same search without the clamp to `now` (Naemon's _get_next_valid_time).
  [[nodiscard]] std::time_t next_valid_time_from(PeriodIndex period, std::time_t from) const;
  // Naemon's get_next_invalid_time: the earliest time at or after `from` that is not valid; `from` when
  // `from` is not valid, or when the search horizon runs out.
  [[nodiscard]] std::time_t next_invalid_time(PeriodIndex period, std::time_t from) const;

 private:
  [[nodiscard]] bool is_valid(PeriodIndex period, std::time_t t, int depth) const;
  [[nodiscard]] std::time_t next_valid(PeriodIndex period, std::time_t from, int depth) const;
  [[nodiscard]] std::time_t next_invalid(PeriodIndex period, std::time_t from, int depth) const;
  [[nodiscard]] const Period* find(PeriodIndex period) const;

  std::span<const Period> periods_;
  DayCache* cache_;
};

}  // namespace vedette::timeperiod
