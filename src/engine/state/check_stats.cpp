#include "engine/state/check_stats.hpp"

#include <cmath>

namespace vedette::engine {

int CheckStats::bucket_of(Time t) const {
  const auto minutes = static_cast<unsigned long>(t - program_start_) / 60;
  return static_cast<int>(minutes % k_buckets);
}

// Stale buckets are emptied: all of them after more than fifteen minutes without an update, else those
// between the last current minute and the new one; the new minute's old count moves to the overflow.
void CheckStats::age(Kind& k, int new_current, Time now) {
  if (static_cast<unsigned long>(now - k.last_update) / 60 > static_cast<unsigned long>(k_buckets)) {
    k.bucket.fill(0);
    k.overflow = 0;
    return;
  }
  if (new_current == k.current) return;
  for (int x = k.current; x < 2 * k_buckets; ++x) {
    const int b = (x + k_buckets + 1) % k_buckets;
    if (b == new_current) break;
    k.bucket[static_cast<std::size_t>(b)] = 0;
  }
  k.overflow = k.bucket[static_cast<std::size_t>(new_current)];
  k.current = new_current;
  k.bucket[static_cast<std::size_t>(new_current)] = 0;
}

void CheckStats::count(files::CheckStat kind, Time when, Time now) {
  Kind& k = kinds_[static_cast<std::size_t>(kind)];
  if (when == 0) when = now;
  const int b = bucket_of(when);
  age(k, b, now);
  ++k.bucket[static_cast<std::size_t>(b)];
  k.last_update = now;
}

CheckStats::Report CheckStats::report(Time now) {
  Report out{};
  const int current = bucket_of(now);
  const int seconds = static_cast<int>(static_cast<unsigned long>(now - program_start_) % 60);
  // Naemon computes these in float.
  const float this_weight = static_cast<float>(seconds / 60.0);
  const float last_weight = static_cast<float>((60 - seconds) / 60.0);
  for (std::size_t i = 0; i < k_kinds; ++i) {
    Kind& k = kinds_[i];
    age(k, current, now);
    k.last_update = now;
    for (int x = 0; x < k_buckets; ++x) {
      const int this_bucket = (k.current + k_buckets - x) % k_buckets;
      const int last_bucket = (this_bucket + k_buckets - 1) % k_buckets;
      const int this_value = k.bucket[static_cast<std::size_t>(this_bucket)];
      const int last_value =
          last_bucket == k.current ? k.overflow : k.bucket[static_cast<std::size_t>(last_bucket)];
      const int value =
          x == 0 ? static_cast<int>(this_value + std::floor(static_cast<double>(last_value) * last_weight))
                 : static_cast<int>(
                       std::ceil(static_cast<double>(this_value) * this_weight) +
                       std::floor(static_cast<double>(last_value) * static_cast<double>(last_weight)));
      if (x == 0) out[i][0] = value;
      if (x < 5) out[i][1] += value;
      out[i][2] += value;
    }
  }
  return out;
}

}  // namespace vedette::engine
