// Which structure should hold the check schedule? The scheduler's real pattern at 10k and 100k checks: take
// the earliest due check, run it, put it back one check interval later; plus random re-keys (a result that
// changes the next check time, a command that reschedules) and removals (a check disabled, then re-added).
// Reported as ns per fired timer (the extra re-keys and removals of the mixed pattern included in its cost).
//
//   build/<dir>/timer_heap_bench --benchmark_filter=Reschedule --benchmark_min_time=1

#include "loop/timer_heap.hpp"
#include "timer_wheel.hpp"  // the wheel lives here, beside its only users

#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <random>
#include <vector>

namespace vedette::loop {
namespace {

constexpr TimerKey k_second = 1'000'000'000;

// The naive structure: a sorted multimap with an iterator per id (one node allocation per insert).
class MultimapTimers {
 public:
  void reserve(std::uint32_t ids) { where_.resize(ids); }
  void insert(TimerId id, TimerKey key) { where_[id] = map_.emplace(key, id); }
  void update(TimerId id, TimerKey key) {
    auto node = map_.extract(where_[id]);
    node.key() = key;
    where_[id] = map_.insert(std::move(node));
  }
  bool remove(TimerId id) {
    map_.erase(where_[id]);
    return true;
  }
  TimerKey next_key() const { return map_.begin()->first; }
  template <class OnDue>
  void expire(TimerKey now, OnDue&& on_due) {
    while (!map_.empty() && map_.begin()->first <= now) {
      const auto [key, id] = *map_.begin();
      map_.erase(map_.begin());
      on_due(id, key);
    }
  }

 private:
  std::multimap<TimerKey, TimerId> map_;
  std::vector<std::multimap<TimerKey, TimerId>::iterator> where_;
};

class Wheel4096 : public TimerWheel {
 public:
  Wheel4096() : TimerWheel(20, 4096) {}
};

// Check intervals of 1 to 5 minutes, first runs spread over one interval (no thundering herd).
struct Workload {
  explicit Workload(std::uint32_t n) : interval(n), first(n), random(1 << 16) {
    std::mt19937_64 rng(42);
    for (std::uint32_t id = 0; id < n; ++id) {
      interval[id] = 60 * k_second + rng() % (240 * k_second);
      first[id] = rng() % interval[id];
    }
    for (auto& r : random) r = rng();
  }
  std::uint64_t next_random() { return random[cursor++ & (random.size() - 1)]; }
  std::vector<TimerKey> interval;
  std::vector<TimerKey> first;
  std::vector<std::uint64_t> random;
  std::size_t cursor = 0;
};

template <class Timers>
void fill(Timers& timers, const Workload& w) {
  timers.reserve(static_cast<std::uint32_t>(w.interval.size()));
  for (TimerId id = 0; id < w.interval.size(); ++id) timers.insert(id, w.first[id]);
}

// Expire the earliest and insert it again one interval later: the interface every structure shares.
template <class Timers>
void BM_Reschedule(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  Workload w(n);
  Timers timers;
  fill(timers, w);
  std::int64_t fired = 0;
  for (auto _ : state) {
    timers.expire(timers.next_key(), [&](TimerId id, TimerKey key) {
      timers.insert(id, key + w.interval[id]);
      ++fired;
    });
  }
  state.counters["ns_per_fired"] = benchmark::Counter(
      static_cast<double>(fired), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// The heap's own way, as the Loop does it: re-key the root in place (one sift instead of remove + insert).
template <class Heap>
void BM_RescheduleInPlace(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  Workload w(n);
  Heap timers;
  fill(timers, w);
  std::int64_t fired = 0;
  for (auto _ : state) {
    const TimerEntry top = timers.top();
    timers.update(top.id, top.key + w.interval[top.id]);
    ++fired;
  }
  state.counters["ns_per_fired"] = benchmark::Counter(
      static_cast<double>(fired), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Per fired timer, also: 1 in 4 a random check re-keyed within its interval, 1 in 8 one removed and re-added.
template <class Timers>
void BM_Mixed(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  Workload w(n);
  Timers timers;
  fill(timers, w);
  std::int64_t fired = 0;
  for (auto _ : state) {
    const TimerKey now = timers.next_key();
    timers.expire(now, [&](TimerId id, TimerKey key) {
      timers.insert(id, key + w.interval[id]);
      ++fired;
    });
    const std::uint64_t r = w.next_random();
    const auto id = static_cast<TimerId>((r >> 8) % n);
    if ((r & 3) == 0) timers.update(id, now + 1 + (r >> 32) % w.interval[id]);
    if ((r & 0x70) == 0) {
      timers.remove(id);
      timers.insert(id, now + 1 + (r >> 24) % w.interval[id]);
    }
  }
  state.counters["ns_per_fired"] = benchmark::Counter(
      static_cast<double>(fired), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

#define VEDETTE_TIMER_BENCH(fn, type) BENCHMARK_TEMPLATE(fn, type)->Arg(10'000)->Arg(100'000)

VEDETTE_TIMER_BENCH(BM_Reschedule, TimerHeap);
VEDETTE_TIMER_BENCH(BM_Reschedule, BasicTimerHeap<2>);
VEDETTE_TIMER_BENCH(BM_Reschedule, TimerWheel);
VEDETTE_TIMER_BENCH(BM_Reschedule, Wheel4096);
VEDETTE_TIMER_BENCH(BM_Reschedule, MultimapTimers);
VEDETTE_TIMER_BENCH(BM_RescheduleInPlace, TimerHeap);
VEDETTE_TIMER_BENCH(BM_RescheduleInPlace, BasicTimerHeap<2>);
VEDETTE_TIMER_BENCH(BM_Mixed, TimerHeap);
VEDETTE_TIMER_BENCH(BM_Mixed, BasicTimerHeap<2>);
VEDETTE_TIMER_BENCH(BM_Mixed, TimerWheel);
VEDETTE_TIMER_BENCH(BM_Mixed, Wheel4096);
VEDETTE_TIMER_BENCH(BM_Mixed, MultimapTimers);

}  // namespace
}  // namespace vedette::loop
