// A monotonic counter and a gauge as Prometheus means them: their writers add, the scrape thread reads.
// Relaxed atomics, no ordering with anything else, no locks. A counter only its owner thread adds to
// (Writers::one: the core thread's) is a relaxed load and store, no locked instruction: ~1 ns where a
// `lock xadd` costs ~6 (bench/metrics/core_metrics_bench).
//
//   metrics::Counter checks{metrics::Writers::one};
//   checks.add();                      // the owner thread only
//   std::uint64_t n = checks.value();  // any thread, e.g. the scrape
#pragma once

#include <atomic>
#include <cstdint>

namespace vedette::metrics {

// Who adds: any thread (an atomic read-modify-write), or one thread only (a load and a store; a second
// writer would lose counts).
enum class Writers : std::uint8_t { any, one };

class Counter {
 public:
  explicit Counter(Writers writers = Writers::any) : writers_(writers) {}

  void add(std::uint64_t n = 1) {
    if (writers_ == Writers::one)
      value_.store(value_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    else
      value_.fetch_add(n, std::memory_order_relaxed);
  }
  [[nodiscard]] std::uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> value_{0};
  Writers writers_;
};

// A value that goes up and down: queue depths, things in flight. add() takes a signed delta, so several
// owners (one per executor thread) can each report their own changes into one gauge.
class Gauge {
 public:
  void add(std::int64_t delta) { value_.fetch_add(delta, std::memory_order_relaxed); }
  void set(std::int64_t v) { value_.store(v, std::memory_order_relaxed); }
  [[nodiscard]] std::int64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::int64_t> value_{0};
};

}  // namespace vedette::metrics
