#include "timeperiod/evaluator.hpp"

#include "timeperiod/day_cache.hpp"
#include "timeperiod/local_day.hpp"

#include <cstdint>

namespace vedette::timeperiod {
namespace {

// Naemon's get_next_valid_time / get_next_invalid_time search horizon, counted exactly as Naemon counts it
// (one step per day visited plus one per range looked at), so both give up on the same inputs.
constexpr int k_max_search_steps = 300;
constexpr std::time_t k_seconds_in_day = k_seconds_per_day;

// Every libc question the evaluation asks, answered by the cache when there is one. The evaluation code is
// the same either way, so the stress test comparing both paths tests only the cache.
class LocalTime {
 public:
  explicit LocalTime(DayCache* cache) : cache_(cache) {}

  [[nodiscard]] LocalDay day(std::time_t t) const {
    return cache_ != nullptr ? cache_->local_day(t) : compute_local_day(t);
  }
  [[nodiscard]] int isdst(std::time_t t) const {
    return cache_ != nullptr ? cache_->isdst(t) : compute_isdst(t);
  }
  [[nodiscard]] std::time_t day_of_month(int year, int month, int monthday) const {
    return cache_ != nullptr ? cache_->day_of_month(year, month, monthday)
                             : compute_day_of_month(year, month, monthday);
  }
  [[nodiscard]] std::time_t weekday_of_month(int year, int month, int weekday, int offset) const {
    return cache_ != nullptr ? cache_->weekday_of_month(year, month, weekday, offset)
                             : compute_weekday_of_month(year, month, weekday, offset);
  }
  [[nodiscard]] std::time_t calendar_date(int year, int month, int monthday) const {
    return cache_ != nullptr ? cache_->calendar_date(year, month, monthday)
                             : compute_calendar_date(year, month, monthday);
  }

 private:
  DayCache* cache_;
};

const Rules k_empty_rules{};

bool is_single_day(const DateRange& r) {
  return r.syear == r.eyear && r.smon == r.emon && r.smday == r.emday && r.swday == r.ewday &&
         r.swday_offset == r.ewday_offset;
}

// Naemon's get_dst_shift: +3600 / -3600 when tm_isdst rises / falls between the two instants, whatever the
// zone's real DST amount (30 min on Lord Howe, 2 h on Troll): matched, not corrected.
int dst_shift(const LocalTime& clock, std::time_t from, std::time_t to) {
  const int from_dst = clock.isdst(from);
  const int to_dst = clock.isdst(to);
  if (from_dst < to_dst) return 3600;
  if (from_dst > to_dst) return -3600;
  return 0;
}

// Naemon's _get_matching_timerange: the first exception (types in DateRangeType order, each list in Naemon's
// order) whose days cover the instant's day overrides the weekday; its ranges apply, even if empty.
std::span<const TimeRange> matching_ranges(const Rules& rules, std::time_t test_time, const LocalDay& day,
                                           const LocalTime& clock) {
  if (!day.known) return {};
  const std::time_t midnight = day.origin;
  for (std::size_t type_index = 0; type_index < k_date_range_types; ++type_index) {
    const auto type = static_cast<DateRangeType>(type_index);
    for (const DateRange& r : rules.exceptions[type_index]) {
      std::time_t start = 0;
      std::time_t end = 0;
      int year = day.year;
      switch (type) {
        case DateRangeType::calendar_date:
          start = clock.calendar_date(r.syear, r.smon, r.smday);
          end = clock.calendar_date(r.eyear, r.emon, r.emday);
          break;
        case DateRangeType::month_date:
          start = clock.day_of_month(day.year, r.smon, r.smday);
          end = clock.day_of_month(year, r.emon, r.emday);
          if (end < start) end = clock.day_of_month(++year, r.emon, r.emday);  // "august 2 - february 5"
          break;
        case DateRangeType::month_day:
          start = clock.day_of_month(day.year, day.month, r.smday);
          end = clock.day_of_month(day.year, day.month, r.emday);
          break;
        case DateRangeType::month_week_day:
          start = clock.weekday_of_month(day.year, r.smon, r.swday, r.swday_offset);
          end = clock.weekday_of_month(year, r.emon, r.ewday, r.ewday_offset);
          if (end < start) end = clock.weekday_of_month(++year, r.emon, r.ewday, r.ewday_offset);
          break;
        case DateRangeType::week_day:
          start = clock.weekday_of_month(day.year, day.month, r.swday, r.swday_offset);
          end = clock.weekday_of_month(day.year, day.month, r.ewday, r.ewday_offset);
          break;
      }
      if (start == 0) continue;  // the start day does not exist that month
      if (end == 0) {
        // An end day past the month's end means "to the month's last day"; one counted from the end cannot
        // be helped. Naemon takes the test month, not emon, for month_week_day; matched.
        switch (type) {
          case DateRangeType::calendar_date:
            continue;
          case DateRangeType::month_date:
            if (r.emday < 0) continue;
            end = clock.day_of_month(year, r.emon, -1);
            break;
          case DateRangeType::month_day:
            if (r.emday < 0) continue;
            end = clock.day_of_month(day.year, day.month, -1);
            break;
          case DateRangeType::month_week_day:
            if (r.ewday_offset < 0) continue;
            end = clock.day_of_month(year, day.month, -1);
            break;
          case DateRangeType::week_day:
            if (r.ewday_offset < 0) continue;
            end = clock.day_of_month(day.year, day.month, -1);
            break;
        }
      }
      if (r.skip_interval > 1) {
        if (start > test_time) continue;
        // Whole days since the start, compensated by Naemon's one-hour DST shift. Computed in unsigned
        // 64-bit arithmetic as Naemon's unsigned long: a "midnight" before the start wraps, as there.
        const std::uint64_t elapsed = static_cast<std::uint64_t>(dst_shift(clock, start, midnight)) +
                                      static_cast<std::uint64_t>(midnight) -
                                      static_cast<std::uint64_t>(start);
        const std::uint64_t days = elapsed / k_seconds_per_day;
        if (days % static_cast<std::uint64_t>(r.skip_interval) != 0) continue;
        start = midnight;
        if (type == DateRangeType::calendar_date && is_single_day(r)) end = midnight;  // open-ended skip
      }
      // The second and third clauses cover a range wrapping past the end of its month or year.
      if ((midnight >= start && (midnight <= end || start > end)) || (midnight <= end && start > end)) {
        return r.ranges;
      }
    }
  }
  return rules.weekdays[static_cast<std::size_t>(day.weekday)];
}

}  // namespace

const Period* Evaluator::find(PeriodIndex period) const {
  const auto index = static_cast<std::uint32_t>(period);
  if (period == k_no_period || index >= periods_.size()) return nullptr;
  return &periods_[index];
}

bool Evaluator::is_time_valid(PeriodIndex period, std::time_t t) const {
  return is_valid(period, t, 0);
}

std::time_t Evaluator::next_valid_time(PeriodIndex period, std::time_t from, std::time_t now) const {
  return next_valid(period, from < now ? now : from, 0);
}

std::time_t Evaluator::next_valid_time_from(PeriodIndex period, std::time_t from) const {
  return next_valid(period, from, 0);
}

std::time_t Evaluator::next_invalid_time(PeriodIndex period, std::time_t from) const {
  return next_invalid(period, from, 0);
}

bool Evaluator::is_valid(PeriodIndex period, std::time_t t, int depth) const {
  const Period* p = find(period);
  if (p == nullptr) return true;
  if (depth < k_max_exclusion_depth) {
    for (const PeriodIndex excluded : p->exclusions) {
      if (is_valid(excluded, t, depth + 1)) return false;
    }
  }
  const LocalTime clock(cache_);
  const LocalDay day = clock.day(t);
  const std::time_t into_day = t - day.origin;
  const Rules& rules = p->rules != nullptr ? *p->rules : k_empty_rules;
  for (const TimeRange& range : matching_ranges(rules, t, day, clock)) {
    if (into_day >= static_cast<std::time_t>(range.start) && into_day < static_cast<std::time_t>(range.end)) {
      return true;
    }
  }
  return false;
}

// Naemon's _get_next_valid_time, step for step: walk day by day from `from`; on a day with a range ending
// after the current candidate take the earliest such start (or the candidate itself); then, if an excluded
// period holds that time, jump to where the exclusion ends and look again.
std::time_t Evaluator::next_valid(PeriodIndex period, std::time_t from, int depth) const {
  const Period* p = find(period);
  if (p == nullptr) return from;
  const Rules& rules = p->rules != nullptr ? *p->rules : k_empty_rules;
  const LocalTime clock(cache_);
  int steps = 0;
  std::time_t earliest = from;
  std::time_t last_earliest = 0;
  while (earliest != last_earliest && steps < k_max_search_steps) {
    std::time_t potential = from;
    bool have_earliest = false;
    ++steps;
    last_earliest = earliest;
    const LocalDay day = clock.day(earliest);
    const std::time_t midnight = day.origin;
    for (const TimeRange& range : matching_ranges(rules, earliest, day, clock)) {
      ++steps;
      if (range.start == 0 && range.end == 0) continue;  // "exclude this day"
      const std::time_t range_start = midnight + range.start;
      const std::time_t range_end = midnight + range.end;
      if (range_end <= last_earliest) continue;
      if (range_start >= last_earliest) {
        potential = range_start;
      } else if (range_end >= last_earliest) {
        potential = last_earliest;
      }
      if (!have_earliest || potential < earliest) {
        earliest = potential;
        have_earliest = true;
      }
    }
    if (!have_earliest) {
      earliest = midnight + k_seconds_in_day;
      continue;
    }
    if (depth >= k_max_exclusion_depth) continue;
    std::time_t max_excluded = 0;
    for (const PeriodIndex excluded : p->exclusions) {
      if (!is_valid(excluded, earliest, depth + 1)) continue;
      const std::time_t excluded_until = next_invalid(excluded, earliest, depth + 1);
      if (max_excluded == 0 || max_excluded < excluded_until) {
        max_excluded = excluded_until;
        earliest = excluded_until;  // Naemon tests the remaining exclusions at the moved time
      }
    }
    if (max_excluded != 0) earliest = max_excluded;
  }
  // Naemon compares for equality, so a search whose last day had ranges can step past the horizon and still
  // return what it found; matched.
  return steps == k_max_search_steps ? from : earliest;
}

// Naemon's get_next_invalid_time, step for step, including its carrying of the previous day's last range.
std::time_t Evaluator::next_invalid(PeriodIndex period, std::time_t from, int depth) const {
  const Period* p = find(period);
  if (p == nullptr || !is_valid(period, from, depth)) return from;
  const Rules& rules = p->rules != nullptr ? *p->rules : k_empty_rules;
  std::time_t excluded_from = 0;
  if (depth < k_max_exclusion_depth) {
    for (const PeriodIndex excluded : p->exclusions) {
      if (is_valid(excluded, from, depth + 1)) return from;
      const std::time_t potential = next_valid(excluded, from, depth + 1);
      if (excluded_from == 0 || excluded_from > potential) excluded_from = potential;
    }
  }
  const LocalTime clock(cache_);
  int steps = 0;
  std::time_t earliest = from;
  std::time_t last_earliest = 0;
  std::time_t last_range_end = 0;
  const TimeRange* last_range = nullptr;
  bool have_earliest = false;
  while (earliest != last_earliest && steps < k_max_search_steps) {
    have_earliest = false;
    ++steps;
    last_earliest = earliest;
    const LocalDay day = clock.day(earliest);
    const std::time_t midnight = day.origin;
    for (const TimeRange& range : matching_ranges(rules, earliest, day, clock)) {
      const std::time_t range_start = midnight + range.start;
      const std::time_t range_end = midnight + range.end;
      if (range.start == 0 && range.end == 0) {
        last_range = &range;
        continue;
      }
      if (excluded_from != 0 && range_end > excluded_from) {
        earliest = excluded_from;
        have_earliest = true;
        break;
      }
      // Ranges that meet across midnight continue the valid time; any other gap after a range ending at
      // 24:00 is where it ends (this also covers days with no ranges at all).
      if (last_range != nullptr && last_range->end == k_seconds_per_day && last_range_end != 0 &&
          range_start != last_range_end) {
        earliest = last_range_end;
        have_earliest = true;
        break;
      }
      last_range_end = range_end;
      if (from <= range_end && range.end != k_seconds_per_day) {
        earliest = range_end;
        have_earliest = true;
        break;
      }
      last_range = &range;
    }
    if (have_earliest) break;
    earliest = midnight + k_seconds_in_day;
  }
  return steps == k_max_search_steps ? from : earliest;
}

}  // namespace vedette::timeperiod
