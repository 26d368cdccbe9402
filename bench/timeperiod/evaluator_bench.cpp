// ns per timeperiod question, straight from libc (as Naemon asks) against the DayCache. Run:
//   build/<dir>/bench/evaluator_bench --benchmark_min_time=0.2
// Times walk a week in 7919-second steps, so every weekday, range edge and a DST-free week are visited.
#include "config/timeperiod_parser.hpp"
#include "timeperiod/day_cache.hpp"
#include "timeperiod/evaluator.hpp"
#include "timeperiod/period.hpp"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <ctime>
#include <deque>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::timeperiod {
namespace {

constexpr std::time_t k_week_start = 1717970400;  // Mon 2024-06-10 00:00 CEST
constexpr std::time_t k_step = 7919;
constexpr std::time_t k_week = 7 * 86400;

struct Fixture {
  std::deque<Rules> rules;
  std::vector<Period> periods;
  PeriodIndex workhours{}, holidays{}, on_call{};

  Fixture() {
    setenv("TZ", "Europe/Berlin", 1);
    tzset();
    workhours = add({"monday 09:00-17:00", "tuesday 09:00-17:00", "wednesday 09:00-17:00",
                     "thursday 09:00-17:00", "friday 09:00-17:00"});
    // Weekdays plus one exception of every type: each lookup walks all five lists.
    holidays = add({"monday 09:00-17:00", "tuesday 09:00-17:00", "wednesday 09:00-17:00",
                    "thursday 09:00-17:00", "friday 09:00-17:00", "2024-12-24 - 2024-12-26 00:00-00:00",
                    "january 1 00:00-00:00", "day -1 09:00-12:00", "monday -1 may 00:00-00:00",
                    "thursday 4 november 00:00-00:00", "friday 3 07:00-19:00"});
    on_call =
        add({"monday 00:00-24:00", "tuesday 00:00-24:00", "wednesday 00:00-24:00", "thursday 00:00-24:00",
             "friday 00:00-24:00", "saturday 00:00-24:00", "sunday 00:00-24:00"},
            {holidays});
  }

  PeriodIndex add(std::initializer_list<std::string_view> lines, std::vector<PeriodIndex> exclusions = {}) {
    Rules& r = rules.emplace_back();
    for (std::string_view line : lines) {
      if (!config::parse_timeperiod_line(line, r)) std::abort();
    }
    periods.push_back(Period{&r, std::move(exclusions)});
    return PeriodIndex{static_cast<std::uint32_t>(periods.size() - 1)};
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

PeriodIndex period_for(const benchmark::State& state) {
  const Fixture& f = fixture();
  switch (state.range(0)) {
    case 0:
      return f.workhours;
    case 1:
      return f.holidays;
    default:
      return f.on_call;
  }
}

void label(benchmark::State& state) {
  static const char* const names[] = {"weekdays", "weekdays+5 exception types", "24x7 exclude previous"};
  state.SetLabel(names[state.range(0)]);
}

void BM_IsTimeValid_Uncached(benchmark::State& state) {
  const Evaluator eval(fixture().periods, nullptr);
  const PeriodIndex p = period_for(state);
  std::time_t offset = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(eval.is_time_valid(p, k_week_start + offset));
    offset = (offset + k_step) % k_week;
  }
  label(state);
}

void BM_IsTimeValid_Cached(benchmark::State& state) {
  DayCache cache;
  const Evaluator eval(fixture().periods, &cache);
  const PeriodIndex p = period_for(state);
  std::time_t offset = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(eval.is_time_valid(p, k_week_start + offset));
    offset = (offset + k_step) % k_week;
  }
  label(state);
}

// The engine's common case: many checks asking about "now", which moves by less than a day between asks.
void BM_IsTimeValid_CachedSameDay(benchmark::State& state) {
  DayCache cache;
  const Evaluator eval(fixture().periods, &cache);
  const PeriodIndex p = period_for(state);
  std::time_t offset = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(eval.is_time_valid(p, k_week_start + 36000 + offset));
    offset = (offset + 1) % 3600;
  }
  label(state);
}

void BM_NextValidTime_Uncached(benchmark::State& state) {
  const Evaluator eval(fixture().periods, nullptr);
  const PeriodIndex p = period_for(state);
  std::time_t offset = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(eval.next_valid_time_from(p, k_week_start + offset));
    offset = (offset + k_step) % k_week;
  }
  label(state);
}

void BM_NextValidTime_Cached(benchmark::State& state) {
  DayCache cache;
  const Evaluator eval(fixture().periods, &cache);
  const PeriodIndex p = period_for(state);
  std::time_t offset = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(eval.next_valid_time_from(p, k_week_start + offset));
    offset = (offset + k_step) % k_week;
  }
  label(state);
}

void BM_ResetIfZoneChanged_Unchanged(benchmark::State& state) {
  fixture();
  DayCache cache;
  for (auto _ : state) benchmark::DoNotOptimize(cache.reset_if_zone_changed());
}

BENCHMARK(BM_IsTimeValid_Uncached)->DenseRange(0, 2);
BENCHMARK(BM_IsTimeValid_Cached)->DenseRange(0, 2);
BENCHMARK(BM_IsTimeValid_CachedSameDay)->DenseRange(0, 2);
BENCHMARK(BM_NextValidTime_Uncached)->DenseRange(0, 2);
BENCHMARK(BM_NextValidTime_Cached)->DenseRange(0, 2);
BENCHMARK(BM_ResetIfZoneChanged_Unchanged);

}  // namespace
}  // namespace vedette::timeperiod
