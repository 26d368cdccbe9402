// The delay before the next attempt to reach a backend that failed: `first`, doubled after each further
// failure up to `limit`, back to `first` after a success. Owned by one writer thread.
//
//   Backoff backoff(1s, 60s);
//   if (!send()) sleep(backoff.next()); else backoff.reset();
#pragma once

#include <algorithm>
#include <chrono>

namespace vedette::tsdb {

class Backoff {
 public:
  Backoff(std::chrono::milliseconds first, std::chrono::milliseconds limit)
      : first_(first), limit_(std::max(first, limit)), next_(first) {}

  // The delay to wait now; the one after it is twice as long (at most `limit`).
  std::chrono::milliseconds next() {
    const std::chrono::milliseconds now = next_;
    next_ = std::min(limit_, next_ * 2);
    return now;
  }
  void reset() { next_ = first_; }
  [[nodiscard]] bool is_backing_off() const { return next_ != first_; }

 private:
  std::chrono::milliseconds first_;
  std::chrono::milliseconds limit_;
  std::chrono::milliseconds next_;
};

}  // namespace vedette::tsdb
