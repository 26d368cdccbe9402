// Conversions between the loop's clocks and the epoch seconds Naemon's files, commands and macros use.
// Header-only and pure; any thread.
//
//   const Instant now{loop.now(), clock.wall_now()};
//   loop.arm_timer(timer, now.mono + until_epoch(downtime.end_time, now.wall));
#pragma once

#include "loop/clock.hpp"
#include "state/check_state.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace vedette::engine {

using Time = state::Time;

// A point in time on both clocks: the monotonic one drives timers, the wall one names times in files.
struct Instant {
  loop::MonoTime mono;
  loop::WallTime wall;
};

inline Time to_epoch(loop::WallTime t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

inline std::int64_t to_epoch_us(loop::WallTime t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

// Naemon's last_update: the instant in seconds and microseconds.
inline state::Timeval to_timeval(loop::WallTime t) {
  const std::int64_t us = to_epoch_us(t);
  const std::int64_t sec = us >= 0 ? us / 1'000'000 : (us - 999'999) / 1'000'000;
  return state::Timeval{.sec = sec, .usec = static_cast<std::int32_t>(us - sec * 1'000'000)};
}

// The fraction of its second, for the downtime book's order of events due in the same second.
inline std::uint32_t phase_us(loop::WallTime t) {
  const auto us = to_epoch_us(t);
  return static_cast<std::uint32_t>(((us % 1'000'000) + 1'000'000) % 1'000'000);
}

// From `now` until `phase_us` microseconds into epoch second `when`: never negative and at most a century,
// so that any 64-bit time a command gives (9223372036854775807, a negative one read as a ulong) stays clear
// of the nanosecond arithmetic's overflow. A time that far off is never reached either way.
inline loop::Duration until_epoch(Time when, std::uint32_t phase_us, loop::WallTime now) {
  constexpr Time k_century = Time{100} * 366 * 86400;
  const Time now_s = to_epoch(now);
  if (when > now_s + k_century) return std::chrono::seconds(k_century);
  if (when < now_s) return loop::Duration::zero();
  const loop::Duration until =
      std::chrono::seconds(when) + std::chrono::microseconds(phase_us) - now.time_since_epoch();
  return std::max(until, loop::Duration::zero());
}

inline loop::Duration until_epoch(Time when, loop::WallTime now) {
  return until_epoch(when, 0, now);
}

inline loop::Duration seconds(double s) {
  return std::chrono::duration_cast<loop::Duration>(std::chrono::duration<double>(s));
}

}  // namespace vedette::engine
