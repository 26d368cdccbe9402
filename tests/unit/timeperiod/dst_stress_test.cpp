// Cached and uncached evaluation must agree everywhere: 1990-2036, in zones with 30/45-minute offsets, the
// southern hemisphere, DST switches at midnight, zones that skipped a day, permanent offset changes. Samples
// every transition +-1 h, the local midnights around it, and random (mostly quarter-hour aligned) instants.
#include "timeperiod/day_cache.hpp"
#include "timeperiod/evaluator.hpp"
#include "timeperiod_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace vedette::timeperiod {
namespace {

using testing::PeriodTable;
using testing::ScopedTz;

#if defined(__SANITIZE_ADDRESS__)
constexpr int k_sanitizer_divisor = 4;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr int k_sanitizer_divisor = 4;
#else
constexpr int k_sanitizer_divisor = 1;
#endif
#else
constexpr int k_sanitizer_divisor = 1;
#endif

constexpr std::time_t k_from = 631152000;  // 1990-01-01 00:00 UTC
constexpr std::time_t k_to = 2114380800;   // 2037-01-01 00:00 UTC
constexpr int k_random_samples = 1000 / k_sanitizer_divisor;
// The sparse period walks up to Naemon's 300-day horizon on each search; ask it on every Nth sample only.
constexpr std::size_t k_sparse_every = 16;

const char* const k_zones[] = {
    "UTC",
    "Europe/London",
    "Europe/Berlin",
    "Europe/Dublin",  // negative DST in tzdata: tm_isdst is 1 in winter
    "Europe/Moscow",  // permanent offset changes 2011 and 2014
    "America/New_York",
    "America/Los_Angeles",
    "America/St_Johns",     // -03:30, switched at 00:01 until 2011
    "America/Sao_Paulo",    // southern, switched at 00:00 until 2019
    "America/Santiago",     // southern, switches at 24:00
    "America/Asuncion",     // southern, switches at 00:00
    "America/Havana",       // switches at 00:00 / 01:00
    "America/Caracas",      // -04:30 from 2007 to 2016
    "Asia/Beirut",          // switches at 00:00
    "Asia/Tehran",          // +03:30, switched at 24:00 until 2022
    "Asia/Kolkata",         // +05:30, no DST
    "Asia/Kathmandu",       // +05:45
    "Asia/Dhaka",           // DST in 2009 only, ending at 24:00
    "Asia/Gaza",            // frequent midnight switches
    "Africa/Cairo",         // switches at 00:00 / 24:00, suspended and resumed
    "Australia/Adelaide",   // +09:30, southern DST
    "Australia/Lord_Howe",  // 30-minute DST
    "Pacific/Auckland",     // southern
    "Pacific/Chatham",      // +12:45 / +13:45
    "Pacific/Apia",         // skipped 2011-12-30
    "Pacific/Kiritimati",   // skipped 1995-01-01
    "Antarctica/Troll",     // two-hour DST
};

std::string zone_file(const std::string& zone) {
  const char* dir = std::getenv("TZDIR");
  return std::string(dir != nullptr && *dir != '\0' ? dir : "/usr/share/zoneinfo") + "/" + zone;
}

bool zone_installed(const std::string& zone) {
  struct stat st {};
  return ::stat(zone_file(zone).c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Periods whose ranges sit on the hours DST switches touch, with every exception type, skips, exclusions
// nested two deep, and one sparse period that makes searches run to the horizon.
struct StressPeriods {
  PeriodTable table;
  std::vector<PeriodIndex> dense;
  PeriodIndex sparse{};

  StressPeriods() {
    const PeriodIndex hours = table.add({
        "sunday 00:00-01:15,02:00-03:00,03:15-22:00",
        "monday 00:00-00:30,01:00-02:00,23:30-24:00",
        "tuesday 00:00-24:00",
        "wednesday 02:30-03:30",
        "thursday 00:15-01:45,12:00-13:00",
        "friday 23:00-24:00",
        "saturday 00:00-01:00,01:00-02:00,22:00-24:00",
    });
    const PeriodIndex exceptions = table.add({
        "monday 08:00-17:00",
        "sunday 01:00-04:00",
        "day 1 00:00-02:00",
        "day -1 01:00-03:00,22:00-24:00",
        "day 10 - 20 / 3 00:00-24:00",
        "day 28 - 31 00:30-01:30",
        "sunday -1 00:00-03:00",
        "sunday 1 - sunday 2 01:30-02:30",
        "saturday 2 00:00-24:00",
        "friday 3 - monday 4 / 2 00:00-01:00,23:00-24:00",
        "sunday -1 march 00:00-04:00",
        "sunday 1 november 00:00-02:00",
        "friday -1 october - monday 1 november 00:30-23:30",
        "october 1 - november 10 / 2 01:00-03:00",
        "march 20 - april 10 00:00-01:30",
        "december 25 - january 2 00:00-24:00",
        "1995-03-26 - 1995-04-02 00:00-24:00",
        "2001-01-01 / 5 02:00-03:00",
        "2011-12-29 - 2012-01-02 00:00-12:00",
        "2019-11-03 00:00-24:00",
        "2024-12-31 00:00-00:00",
    });
    const PeriodIndex inner = table.add({"sunday 02:00-02:15", "day 1 00:00-00:45"});
    const PeriodIndex middle =
        table.add({"sunday 01:00-02:30", "day -1 00:00-01:00", "saturday 23:30-24:00"}, {inner});
    const PeriodIndex all_week =
        table.add({"sunday 00:00-24:00", "monday 00:00-24:00", "tuesday 00:00-24:00", "wednesday 00:00-24:00",
                   "thursday 00:00-24:00", "friday 00:00-24:00", "saturday 00:00-24:00"},
                  {exceptions});
    const PeriodIndex hours_excluding =
        table.add({"sunday 00:00-24:00", "monday 00:00-03:00", "friday 22:00-24:00", "saturday 00:00-03:00"},
                  {middle, hours});
    dense = {hours, exceptions, middle, all_week, hours_excluding};
    sparse = table.add({"february 29 01:00-02:00", "2030-03-31 / 400 00:00-24:00"});
  }
};

struct Transition {
  std::time_t at;  // first instant with the new offset or tm_isdst
};

struct OffsetKey {
  long gmtoff = 0;
  int isdst = 0;
  bool operator==(const OffsetKey&) const = default;
};

OffsetKey offset_at(std::time_t t) {
  std::tm tm{};
  localtime_r(&t, &tm);
  return {tm.tm_gmtoff, tm.tm_isdst};
}

// Every change of UTC offset or tm_isdst in [from, to), found by 6-hour steps and bisection.
std::vector<std::time_t> find_transitions(std::time_t from, std::time_t to) {
  std::vector<std::time_t> found;
  constexpr std::time_t k_step = 6 * 3600;
  OffsetKey previous = offset_at(from);
  for (std::time_t t = from + k_step; t < to; t += k_step) {
    const OffsetKey now = offset_at(t);
    if (now == previous) continue;
    std::time_t before = t - k_step;
    std::time_t after = t;
    while (after - before > 1) {
      const std::time_t mid = before + (after - before) / 2;
      (offset_at(mid) == previous ? before : after) = mid;
    }
    found.push_back(after);
    previous = now;
  }
  return found;
}

std::time_t seconds_into_local_day(std::time_t t) {
  std::tm tm{};
  localtime_r(&t, &tm);
  return tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec;
}

std::vector<std::time_t> sample_times(const std::vector<std::time_t>& transitions, std::mt19937_64& rng) {
  std::vector<std::time_t> samples;
  for (std::time_t at : transitions) {
    for (std::time_t d : {-3601, -3600, -1800, -901, -1, 0, 1, 899, 1800, 3599, 3600, 3601}) {
      samples.push_back(at + d);
    }
    // The local midnights on both sides, as the old and the new offset place them.
    for (std::time_t x : {at - 1, at}) {
      const std::time_t midnight = x - seconds_into_local_day(x);
      for (std::time_t d : {-86400, -1, 0, 1, 86399, 86400}) samples.push_back(midnight + d);
    }
  }
  std::uniform_int_distribution<std::time_t> anywhere(k_from, k_to - 1);
  for (int i = 0; i < k_random_samples; ++i) {
    const std::time_t t = anywhere(rng);
    samples.push_back(i % 4 == 0 ? t : t - t % 900);  // range edges sit on quarter hours
  }
  std::shuffle(samples.begin(), samples.end(), rng);  // so the cache is filled from every side of a day
  return samples;
}

class TimeperiodDstStress : public ::testing::TestWithParam<const char*> {};

TEST_P(TimeperiodDstStress, CachedAnswersEqualUncached) {
  const std::string zone = GetParam();
  if (!zone_installed(zone))
    GTEST_SKIP() << "time zone " << zone << " is not installed (" << zone_file(zone) << ")";
  ScopedTz tz(zone.c_str());
  const StressPeriods periods;
  DayCache cache;
  const Evaluator plain(periods.table.periods(), nullptr);
  const Evaluator cached(periods.table.periods(), &cache);

  std::mt19937_64 rng(std::hash<std::string>{}(zone));
  const std::vector<std::time_t> transitions = find_transitions(k_from, k_to);
  const std::vector<std::time_t> samples = sample_times(transitions, rng);

  std::uint64_t comparisons = 0;
  std::uint64_t mismatches = 0;
  std::ostringstream first;
  const auto compare = [&](const char* what, PeriodIndex p, std::time_t t, std::time_t expected,
                           std::time_t actual) {
    ++comparisons;
    if (expected == actual) return;
    if (++mismatches <= 10) {
      first << "  " << what << " period " << static_cast<std::uint32_t>(p) << " at " << t << ": uncached "
            << expected << ", cached " << actual << "\n";
    }
  };
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const std::time_t t = samples[i];
    std::vector<PeriodIndex> asked = periods.dense;
    if (i % k_sparse_every == 0) asked.push_back(periods.sparse);
    for (const PeriodIndex p : asked) {
      compare("is_time_valid", p, t, plain.is_time_valid(p, t), cached.is_time_valid(p, t));
      compare("next_valid_time", p, t, plain.next_valid_time_from(p, t), cached.next_valid_time_from(p, t));
      compare("next_invalid_time", p, t, plain.next_invalid_time(p, t), cached.next_invalid_time(p, t));
    }
  }
  const DayCache::Stats stats = cache.stats();
  std::printf(
      "[ zone     ] %-20s %3zu transitions, %5zu samples, %7llu comparisons; cache %zu segments, "
      "%llu hits, %llu misses, %llu uncacheable\n",
      zone.c_str(), transitions.size(), samples.size(), static_cast<unsigned long long>(comparisons),
      stats.segments, static_cast<unsigned long long>(stats.hits),
      static_cast<unsigned long long>(stats.misses),
      static_cast<unsigned long long>(stats.uncacheable_lookups));
  EXPECT_EQ(mismatches, 0U) << zone << ": " << mismatches << " of " << comparisons
                            << " answers differ; first ones:\n"
                            << first.str();
  const bool fixed_offset = zone == "UTC" || zone == "Asia/Kolkata" || zone == "Asia/Kathmandu";
  if (!fixed_offset) {
    EXPECT_GT(transitions.size(), 0U) << zone << ": no transitions found, is the zone file usable?";
  }
}

std::string zone_test_name(const ::testing::TestParamInfo<const char*>& info) {
  std::string name = info.param;
  std::replace_if(
      name.begin(), name.end(), [](char c) { return c == '/' || c == '-'; }, '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Zones, TimeperiodDstStress, ::testing::ValuesIn(k_zones), zone_test_name);

TEST(TimeperiodDstStressCoverage, AtLeastSixteenZonesInstalled) {
  std::vector<std::string> missing;
  for (const char* zone : k_zones) {
    if (!zone_installed(zone)) missing.emplace_back(zone);
  }
  const std::size_t installed = std::size(k_zones) - missing.size();
  std::printf("[ zones    ] %zu of %zu installed", installed, std::size(k_zones));
  for (const std::string& zone : missing) std::printf("; skipped %s", zone.c_str());
  std::printf("\n");
  EXPECT_GE(installed, 16U) << "install tzdata: the DST stress test needs at least 16 zones";
}

}  // namespace
}  // namespace vedette::timeperiod
