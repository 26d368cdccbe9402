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

std::size_t DateRange::dates_hash() const {
  std::size_t h = static_cast<std::size_t>(type);
  for (int f :
       {syear, smon, smday, swday, swday_offset, eyear, emon, emday, ewday, ewday_offset, skip_interval})
    h = h * 1000003u ^ static_cast<unsigned>(f);
  return h;
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

}  // namespace vedette::timeperiod
