#include "timeperiod/timeperiod_rules.hpp"

#include <algorithm>
#include <utility>

namespace vedette::timeperiod {

bool DateRange::same_dates(const DateRange& other) const {
  return type == other.type && syear == other.syear && smon == other.smon && smday == other.smday &&
         swday == other.swday && swday_offset == other.swday_offset && eyear == other.eyear &&
         emon == other.emon && emday == other.emday && ewday == other.ewday &&
         ewday_offset == other.ewday_offset && skip_interval == other.skip_interval;
}

void Rules::set_weekday(int weekday, std::vector<TimeRange> ranges) {
  // Naemon insertion-sorts each weekday's ranges by start, placing equal starts after earlier ones.
  std::stable_sort(ranges.begin(), ranges.end(),
                   [](const TimeRange& a, const TimeRange& b) { return a.start < b.start; });
  weekdays.at(static_cast<std::size_t>(weekday)) = std::move(ranges);
  has_weekday.at(static_cast<std::size_t>(weekday)) = true;
}

void Rules::add_exception(DateRange range) {
  exceptions.at(static_cast<std::size_t>(range.type)).push_back(std::move(range));
}

void Rules::inherit_from(const Rules& tmpl) {
  for (std::size_t day = 0; day < weekdays.size(); ++day) {
    if (has_weekday[day] || !tmpl.has_weekday[day]) continue;
    weekdays[day] = tmpl.weekdays[day];
    has_weekday[day] = true;
  }
  for (std::size_t type = 0; type < exceptions.size(); ++type) {
    std::vector<DateRange>& mine = exceptions[type];
    const std::vector<DateRange>& theirs = tmpl.exceptions[type];
    // Checked against what is already inherited too, so a template's own duplicates collapse to the one
    // written last, as in Naemon.
    for (auto it = theirs.rbegin(); it != theirs.rend(); ++it) {
      const bool present =
          std::any_of(mine.begin(), mine.end(), [&](const DateRange& r) { return r.same_dates(*it); });
      if (!present) mine.push_back(*it);
    }
  }
}

}  // namespace vedette::timeperiod
