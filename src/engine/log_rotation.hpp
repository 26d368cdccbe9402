// log_rotation_method (Nagios 4's rotation; Naemon leaves it to logrotate): the main log is rotated at the
// next hour, day, week or month in local time (files::LogFile::next_rotation, DST-correct), on a monotonic
// timer whose wall time only names it; the LogFile writes the "LOG ROTATION" lines and calls its
// on_rotated. Owns its timer. Core thread only.
//
//   LogRotation rotation(world);
//   rotation.schedule();  // start-up, and again after each reload
#pragma once

#include "engine/state/core_time.hpp"
#include "engine/world/world.hpp"
#include "loop/loop.hpp"

namespace vedette::engine {

class LogRotation final : public loop::TimerHandler {
 public:
  explicit LogRotation(World& world) : w_(world), timer_(world.loop.add_timer(*this)) {}
  LogRotation(const LogRotation&) = delete;
  LogRotation& operator=(const LogRotation&) = delete;

  // The next rotation for the log_rotation_method now in effect ('n': none).
  void schedule();
  // The time of the next rotation (epoch seconds); 0: none.
  [[nodiscard]] Time next() const { return next_; }

  void on_timer(loop::TimerId id) override;

 private:
  World& w_;
  loop::TimerId timer_;
  Time next_ = 0;
};

}  // namespace vedette::engine
