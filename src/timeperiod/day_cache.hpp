// Per-local-day cache of what the evaluator asks libc: each instant's local day and Naemon "midnight" origin,
// plus Naemon's month-date computations. Answers equal compute_local_day() & co. exactly (dst_stress_test
// proves it), at a few ns per hit instead of a localtime_r + mktime pair (evaluator_bench).
// Core thread only: not synchronised. The engine must call reset_if_zone_changed() after applying
// use_timezone (setenv TZ) at start and on every reload; it is cheap enough to call once per loop iteration.
#pragma once

#include "timeperiod/local_day.hpp"

#include <cstddef>
#include <cstdint>
#include <ctime>
#include <map>
#include <string>
#include <unordered_map>

namespace vedette::timeperiod {

class DayCache {
 public:
  // Snapshots TZ and calls tzset().
  DayCache();

  [[nodiscard]] LocalDay local_day(std::time_t t);
  [[nodiscard]] int isdst(std::time_t t) { return local_day(t).isdst; }
  [[nodiscard]] std::time_t day_of_month(int year, int month, int monthday);
  [[nodiscard]] std::time_t weekday_of_month(int year, int month, int weekday, int offset);
  [[nodiscard]] std::time_t calendar_date(int year, int month, int monthday);

  // Forgets everything and snapshots the zone again. Required after the zone changed: libc's localtime_r
  // does not reread TZ by itself, and nothing here notices a change between two lookups.
  void reset();
  // reset() if the TZ environment variable differs from the snapshot (set, unset or changed); one getenv and
  // one string compare when nothing changed (evaluator_bench). tzname/timezone are no use for this: glibc
  // rewrites them on every localtime_r to suit the instant converted. Like glibc, which only rereads the
  // zone when TZ changes, this does not notice /etc/localtime being replaced while TZ is unset.
  bool reset_if_zone_changed();

  struct Stats {
    std::uint64_t hits = 0;
    std::uint64_t misses = 0;               // a segment (or a month-date answer) had to be computed
    std::uint64_t uncacheable_lookups = 0;  // answered by libc because the day could not be cached
    std::size_t segments = 0;
  };
  [[nodiscard]] Stats stats() const;

 private:
  // A stretch [lo, hi) of one local date with one tm_isdst: every instant in it has the same LocalDay. An
  // ordinary day is one segment; a DST day is two (one origin each); a day that cannot be split this way
  // (libc cannot convert around it) is kept as an uncacheable segment so it is not retried on every lookup.
  struct Segment {
    std::time_t lo = 0;
    std::time_t hi = 0;
    LocalDay day;
    bool cacheable = true;
  };
  struct MonthKey {
    int kind, year, month, a, b;
    friend bool operator==(const MonthKey&, const MonthKey&) = default;
  };
  struct MonthKeyHash {
    std::size_t operator()(const MonthKey& k) const;
  };

  const Segment& find_or_build(std::time_t t);
  Segment build_segment(std::time_t t) const;
  std::time_t memo(const MonthKey& key);

  std::map<std::time_t, Segment> segments_;  // keyed by hi; segments never overlap
  const Segment* last_ = nullptr;            // the segment of the previous lookup: most lookups hit it
  std::unordered_map<MonthKey, std::time_t, MonthKeyHash> months_;
  bool tz_set_ = false;  // TZ as it was at the last reset(); unset and "" are different zones
  std::string tz_;
  Stats stats_;
};

}  // namespace vedette::timeperiod
