// A monotonic counter and a gauge as Prometheus means them: any thread adds, the scrape thread reads. Relaxed
// atomics: one uncontended `lock add` (a few ns) per event, no ordering with anything else, no locks.
//
//   metrics::Counter checks;
//   checks.add();                      // any thread
//   std::uint64_t n = checks.value();  // any thread, e.g. the scrape
#pragma once

#include <atomic>
#include <cstdint>

namespace vedette::metrics {

class Counter {
 public:
  void add(std::uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  [[nodiscard]] std::uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> value_{0};
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
