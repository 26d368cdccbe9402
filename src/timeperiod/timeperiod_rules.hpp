// The parsed form of one timeperiod definition: weekday time ranges and date exceptions, kept in the order
// and encoding Naemon registers them, so the evaluator can match Naemon's answers. A plain value: built and
// merged by the config loader on one thread; once built it is read-only and any thread may read it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vedette::timeperiod {

inline constexpr std::uint32_t k_seconds_per_day = 86400;

struct TimeRange {
  std::uint32_t start;  // seconds from the local day's origin
  std::uint32_t end;    // may be 86400 (24:00); Naemon does not require start <= end
  friend bool operator==(const TimeRange&, const TimeRange&) = default;
};

// Same order and values as Naemon's DATERANGE_* constants; the evaluator visits the types in this order.
enum class DateRangeType : std::uint8_t { calendar_date, month_date, month_day, month_week_day, week_day };
inline constexpr std::size_t k_date_range_types = 5;

// One exception line. Fields a type does not use are 0; nothing is range-checked, as in Naemon.
//   calendar_date   syear smon smday - eyear emon emday        "2008-12-25"      months 0-11 (file month - 1)
//   month_date      smon smday - emon emday                    "july 4"          negative mday counts from
//   month end month_day       smday - emday                              "day 21", "day -1" month_week_day
//   swday swday_offset smon - ewday ...  emon  "thursday 3 may"  weekdays 0 = sunday week_day        swday
//   swday_offset - ewday ewday_offset    "thursday 3"      negative offset counts from end
// skip_interval 0 means "no / N" was given.
struct DateRange {
  DateRangeType type = DateRangeType::calendar_date;
  int syear = 0, smon = 0, smday = 0, swday = 0, swday_offset = 0;
  int eyear = 0, emon = 0, emday = 0, ewday = 0, ewday_offset = 0;
  int skip_interval = 0;
  // In Naemon's order: the reverse of how they were written (each range was put at the head of the list).
  std::vector<TimeRange> ranges;

  // Everything but the time ranges is equal: the test template inheritance uses to skip an exception.
  [[nodiscard]] bool same_dates(const DateRange& other) const;
  // A hash of what same_dates() compares.
  [[nodiscard]] std::size_t dates_hash() const;
};

struct Rules {
  std::array<std::vector<TimeRange>, 7> weekdays;  // index 0 = sunday; each list sorted by start, stable
  std::array<bool, 7> has_weekday{};               // the definition (or a template) named this weekday
  std::array<std::vector<DateRange>, k_date_range_types> exceptions;  // indexed by DateRangeType

  // A weekday written again replaces the earlier line (Naemon keeps the last string it read).
  void set_weekday(int weekday, std::vector<TimeRange> ranges);
  // Exceptions accumulate in the order written, duplicates included. Templates are applied by the config
  // loader (config/model_builder_timeperiods.cpp).
  void add_exception(DateRange range);
};

}  // namespace vedette::timeperiod
