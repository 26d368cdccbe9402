// When each check runs next: one loop timer per check, the instant it is due on both clocks, and whether
// that run is a forced one (SCHEDULE_FORCED_*). A timer that fires puts its check on the due list, which the
// core takes once per loop iteration and runs in one batch. What a check's next_check says is the caller's
// business (arm() returns the wall time to show). Core thread only.
//
//   CheckTimers timers(loop);  timers.resize(checks);
//   state.next_check = to_epoch(timers.arm(check, now, std::chrono::seconds(300)));
//   loop.run_once();  for (CheckId c : timers.due()) run(c, timers.run_time(c, now));
//   timers.clear_due();
#pragma once

#include "engine/state/check_id.hpp"
#include "engine/state/core_time.hpp"
#include "loop/loop.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vedette::engine {

class CheckTimers final : public loop::TimerHandler {
 public:
  explicit CheckTimers(loop::Loop& loop) : loop_(loop) {}
  ~CheckTimers();
  CheckTimers(const CheckTimers&) = delete;
  CheckTimers& operator=(const CheckTimers&) = delete;

  // Start-up: one disarmed timer per check.
  void resize(std::size_t checks);

  // Arms the check's timer `delay` after `base`, leaving the forced flag as it is. Returns the wall time
  // the check is due at.
  loop::WallTime arm(CheckId check, Instant base, loop::Duration delay);
  [[nodiscard]] bool is_armed(CheckId check) const { return loop_.is_armed(timer_of_[check]); }
  // When its timer is (or was last) due, on both clocks.
  [[nodiscard]] loop::MonoTime due_at(CheckId check) const { return due_at_[check]; }
  [[nodiscard]] loop::WallTime scheduled_at(CheckId check) const { return scheduled_at_[check]; }
  // The instant a due check runs as of: its due time, or `now` if that has passed (timers may fire a
  // little early; the check still runs as of its own time).
  [[nodiscard]] Instant run_time(CheckId check, Instant now) const;

  void set_forced(CheckId check, bool forced) { forced_[check] = forced ? 1 : 0; }
  // Whether the run now starting was forced; the next one is not, unless set again.
  bool take_forced(CheckId check);

  // The checks whose timers fired since clear_due(), in firing order.
  [[nodiscard]] const std::vector<CheckId>& due() const { return due_; }
  void clear_due() { due_.clear(); }

  // A reload: check c of the new numbering takes over the due times and forced flag of old_of_new[c]
  // (k_no_check: none), and every check gets a new, disarmed timer. Returns which new checks had an armed
  // timer before, for the caller to re-arm as it decides.
  ByCheck<std::uint8_t> remap(const ByCheck<CheckId>& old_of_new);

  void on_timer(loop::TimerId id) override;

 private:
  void add_timers(std::size_t checks);
  void remove_timers();

  loop::Loop& loop_;
  ByCheck<loop::TimerId> timer_of_;
  std::vector<CheckId> check_of_timer_;  // by timer id; k_no_check for the loop's other timers
  ByCheck<loop::MonoTime> due_at_;
  ByCheck<loop::WallTime> scheduled_at_;
  ByCheck<std::uint8_t> forced_;
  std::vector<CheckId> due_;
};

}  // namespace vedette::engine
