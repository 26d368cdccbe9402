#include "engine/log_rotation.hpp"

#include "files/log_file.hpp"

#include <algorithm>
#include <chrono>

namespace vedette::engine {

void LogRotation::schedule() {
  next_ = files::LogFile::next_rotation(w_.now_epoch(), w_.main.log_rotation_method);
  if (next_ == 0) {
    w_.loop.disarm_timer(timer_);
    return;
  }
  const loop::Duration until = std::chrono::seconds(next_) - w_.clock.wall_now().time_since_epoch();
  w_.loop.arm_timer(timer_, w_.loop.now() + std::max(loop::Duration::zero(), until));
}

void LogRotation::on_timer(loop::TimerId id) {
  if (id != timer_) return;
  // Timers may fire up to the loop's slack early; a rotation waits for its exact time.
  const loop::Duration early = std::chrono::seconds(next_) - w_.clock.wall_now().time_since_epoch();
  if (early > loop::Duration::zero()) {
    w_.loop.arm_timer(timer_, w_.loop.now() + early);
    return;
  }
  w_.log_file.rotate(next_, w_.main.log_rotation_method);
  schedule();
}

}  // namespace vedette::engine
