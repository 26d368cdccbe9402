// Time for the loop: monotonic and wall instants with their unit (ns) in the type, and the Clock that reads
// them. The loop and the engine take a Clock& so tests drive time with ManualClock (DESIGN.md: time is
// injected). Clocks are read by the core thread; ManualClock is not thread-safe.
//
//   ManualClock clock;  Loop loop(clock);  clock.advance(std::chrono::seconds(5));  loop.run_once();
#pragma once

#include <chrono>
#include <cstdint>

namespace vedette::loop {

using Duration = std::chrono::nanoseconds;
// Monotonic instants (CLOCK_MONOTONIC): intervals, timers, timeouts. Never compare with wall time.
using MonoTime = std::chrono::time_point<std::chrono::steady_clock, Duration>;
// Wall instants (CLOCK_REALTIME): what is written to logs and status files, never used for intervals.
using WallTime = std::chrono::time_point<std::chrono::system_clock, Duration>;

// Timer structures sort on a plain 64-bit key: nanoseconds on the monotonic clock. Instants before the
// clock's epoch (only reachable with a ManualClock) clamp to 0.
using TimerKey = std::uint64_t;
constexpr TimerKey to_key(MonoTime t) {
  const auto ns = t.time_since_epoch().count();
  return ns < 0 ? 0 : static_cast<TimerKey>(ns);
}
constexpr MonoTime from_key(TimerKey key) {
  constexpr auto k_max = static_cast<TimerKey>(Duration::max().count());
  return MonoTime(Duration(static_cast<Duration::rep>(key > k_max ? k_max : key)));
}

class Clock {
 public:
  virtual ~Clock() = default;
  virtual MonoTime now() const = 0;
  virtual WallTime wall_now() const = 0;
};

// The system clocks (vDSO reads, no syscall on x86-64 Linux).
class RealClock final : public Clock {
 public:
  MonoTime now() const override;
  WallTime wall_now() const override;
};

// Time that moves only when told; wall time moves with monotonic time.
class ManualClock final : public Clock {
 public:
  ManualClock();  // monotonic 1000 s, wall 2024-01-01T00:00:00Z: arbitrary, non-zero, deterministic
  ManualClock(MonoTime mono, WallTime wall) : mono_(mono), wall_(wall) {}

  MonoTime now() const override { return mono_; }
  WallTime wall_now() const override { return wall_; }

  void advance(Duration d) {
    mono_ += d;
    wall_ += d;
  }
  void set(MonoTime mono) {
    wall_ += mono - mono_;
    mono_ = mono;
  }
  void set_wall(WallTime wall) { wall_ = wall; }

 private:
  MonoTime mono_;
  WallTime wall_;
};

}  // namespace vedette::loop
