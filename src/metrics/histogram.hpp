// A Prometheus histogram with fixed bucket bounds: its writers observe, the scrape thread reads. observe()
// is a scan over at most k_max_bounds bounds and two relaxed atomic adds (its bucket, the sum), or with
// Writers::one a relaxed load and store each: no lock, no allocation. The count is the sum of the buckets,
// so `_count` always equals the `+Inf` bucket.
//
//   metrics::Histogram latency(Writers::any, {0.001, 0.01, 0.1, 1});  // upper bounds in seconds, ascending
//   latency.observe(0.004);                                             // any thread
//   metrics::HistogramValues v = latency.values();       // cumulative, for the exposition
#pragma once

#include "metrics/counter.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace vedette::metrics {

// What a scrape reads: per bound the observations <= it (cumulative, as Prometheus' `le`), then the total.
struct HistogramValues {
  std::vector<double> bounds;          // seconds
  std::vector<std::uint64_t> buckets;  // cumulative, one per bound
  std::uint64_t count = 0;             // every observation (the +Inf bucket)
  double sum = 0;                      // seconds
};

class Histogram {
 public:
  static constexpr std::size_t k_max_bounds = 16;

  // Bounds in seconds, ascending, at most k_max_bounds (more are ignored). Stored in microseconds, the
  // resolution of observe_us() and of the sum.
  Histogram(Writers writers, std::initializer_list<double> bounds_seconds);
  Histogram(const Histogram&) = delete;
  Histogram& operator=(const Histogram&) = delete;

  // Any thread, or with Writers::one the owner only. Negative values count as 0.
  void observe(double seconds);
  void observe_us(std::int64_t microseconds);

  // Any thread. Buckets are read one after the other while others observe, so a scrape may see an
  // observation in its bucket and not yet in the sum, never a count that is not the +Inf bucket.
  [[nodiscard]] HistogramValues values() const;

 private:
  std::array<std::uint64_t, k_max_bounds> bounds_us_{};
  std::size_t size_ = 0;
  std::array<std::atomic<std::uint64_t>, k_max_bounds + 1> counts_{};  // not cumulative; [size_] = +Inf
  std::atomic<std::uint64_t> sum_us_{0};
  Writers writers_;
};

}  // namespace vedette::metrics
