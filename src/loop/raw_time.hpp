// The two raw clock readings executor-side code stamps jobs with: CLOCK_MONOTONIC in ns (deadlines, start
// times) and CLOCK_REALTIME in µs (CheckResult's start_us/end_us). Plain integers because they travel in
// CheckJob/CheckResult; the loop's own time is loop/clock.hpp. Any thread.
#pragma once

#include <cstdint>
#include <time.h>

namespace vedette::loop {

inline std::int64_t raw_mono_ns() {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

inline std::int64_t raw_wall_us() {
  timespec ts;
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000 + ts.tv_nsec / 1000;
}

}  // namespace vedette::loop
