// Helpers shared by the timeperiod tests: a scoped TZ, periods built from Naemon's syntax, and an evaluator
// pair (uncached and cached) whose answers must agree. Test thread only.
#pragma once

#include "config/timeperiod_parser.hpp"
#include "timeperiod/day_cache.hpp"
#include "timeperiod/evaluator.hpp"
#include "timeperiod/period.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <deque>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::timeperiod::testing {

// Sets TZ for its lifetime and restores the previous value (or its absence) afterwards.
class ScopedTz {
 public:
  explicit ScopedTz(const char* zone) {
    if (const char* old = std::getenv("TZ"); old != nullptr) saved_ = old;
    setenv("TZ", zone, 1);
    tzset();
  }
  ~ScopedTz() {
    if (saved_) {
      setenv("TZ", saved_->c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }
  ScopedTz(const ScopedTz&) = delete;
  ScopedTz& operator=(const ScopedTz&) = delete;

 private:
  std::optional<std::string> saved_;
};

// A table of periods written in Naemon's syntax; add() returns the new period's index.
class PeriodTable {
 public:
  PeriodIndex add(std::initializer_list<std::string_view> lines, std::vector<PeriodIndex> exclusions = {}) {
    Rules& rules = rules_.emplace_back();
    for (std::string_view line : lines) {
      const base::Status s = config::parse_timeperiod_line(line, rules);
      EXPECT_TRUE(s) << line << ": " << s.error();
    }
    periods_.push_back(Period{&rules, std::move(exclusions)});
    return PeriodIndex{static_cast<std::uint32_t>(periods_.size() - 1)};
  }
  void set_exclusions(PeriodIndex period, std::vector<PeriodIndex> exclusions) {
    periods_.at(static_cast<std::uint32_t>(period)).exclusions = std::move(exclusions);
  }
  [[nodiscard]] std::span<const Period> periods() const { return periods_; }

 private:
  std::deque<Rules> rules_;  // stable addresses
  std::vector<Period> periods_;
};

// Asks the same question with and without a DayCache and fails the test if the answers differ.
class EvaluatorPair {
 public:
  explicit EvaluatorPair(const PeriodTable& table)
      : plain_(table.periods(), nullptr), cached_(table.periods(), &cache_) {}

  bool valid(PeriodIndex p, std::time_t t) {
    const bool answer = plain_.is_time_valid(p, t);
    EXPECT_EQ(cached_.is_time_valid(p, t), answer) << "is_time_valid at " << t;
    return answer;
  }
  std::time_t next_valid(PeriodIndex p, std::time_t from) {
    const std::time_t answer = plain_.next_valid_time_from(p, from);
    EXPECT_EQ(cached_.next_valid_time_from(p, from), answer) << "next_valid_time_from " << from;
    return answer;
  }
  std::time_t next_invalid(PeriodIndex p, std::time_t from) {
    const std::time_t answer = plain_.next_invalid_time(p, from);
    EXPECT_EQ(cached_.next_invalid_time(p, from), answer) << "next_invalid_time " << from;
    return answer;
  }
  [[nodiscard]] const Evaluator& plain() const { return plain_; }
  [[nodiscard]] const Evaluator& cached() const { return cached_; }
  [[nodiscard]] DayCache& cache() { return cache_; }

 private:
  DayCache cache_;  // constructed first: snapshots the zone the caller set
  Evaluator plain_;
  Evaluator cached_;
};

// Local wall-clock time in the current zone (mktime with tm_isdst = -1: libc picks on ambiguous times).
inline std::time_t local(int year, int month, int day, int hour = 0, int minute = 0, int second = 0) {
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  tm.tm_isdst = -1;
  return mktime(&tm);
}

}  // namespace vedette::timeperiod::testing
