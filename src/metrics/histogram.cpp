#include "metrics/histogram.hpp"

#include <cmath>

namespace vedette::metrics {

namespace {

void add(std::atomic<std::uint64_t>& to, std::uint64_t n, Writers writers) {
  if (writers == Writers::one)
    to.store(to.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  else
    to.fetch_add(n, std::memory_order_relaxed);
}

}  // namespace

Histogram::Histogram(Writers writers, std::initializer_list<double> bounds_seconds) : writers_(writers) {
  for (double b : bounds_seconds) {
    if (size_ == k_max_bounds) break;
    bounds_us_[size_++] = static_cast<std::uint64_t>(std::llround(b * 1e6));
  }
}

void Histogram::observe(double seconds) {
  // Rounded to the nearest µs without llround(), which is a libm call.
  observe_us(seconds > 0 ? static_cast<std::int64_t>(seconds * 1e6 + 0.5) : 0);
}

void Histogram::observe_us(std::int64_t microseconds) {
  const std::uint64_t v = microseconds > 0 ? static_cast<std::uint64_t>(microseconds) : 0;
  std::size_t i = 0;
  while (i < size_ && v > bounds_us_[i]) ++i;
  add(counts_[i], 1, writers_);
  add(sum_us_, v, writers_);
}

HistogramValues Histogram::values() const {
  HistogramValues out;
  out.bounds.reserve(size_);
  out.buckets.reserve(size_);
  std::uint64_t running = 0;
  for (std::size_t i = 0; i < size_; ++i) {
    running += counts_[i].load(std::memory_order_relaxed);
    out.bounds.push_back(static_cast<double>(bounds_us_[i]) / 1e6);
    out.buckets.push_back(running);
  }
  out.count = running + counts_[size_].load(std::memory_order_relaxed);
  out.sum = static_cast<double>(sum_us_.load(std::memory_order_relaxed)) / 1e6;
  return out;
}

}  // namespace vedette::metrics
