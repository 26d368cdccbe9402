#include "engine/checks/check_scheduler.hpp"

#include "retention/apply.hpp"

#include <algorithm>
#include <random>

namespace vedette::engine {

void CheckScheduler::arm(CheckId check, Instant base, loop::Duration delay, std::uint8_t options) {
  CheckState& st = w_.state_of(check);
  st.next_check = to_epoch(timers_.arm(check, base, delay));
  st.check_options = options;
}

void CheckScheduler::initial(bool retained) {
  const Time now = w_.now_epoch();
  auto first_delay = [&](const CheckState& st, double interval) {
    const double random01 = std::uniform_real_distribution<double>(0, 1)(w_.rng);
    if (!retained) return seconds(random01 * interval);
    return seconds(retention::initial_check_delay(st.next_check, now, interval,
                                                  w_.main.retained_scheduling_randomize_window, random01));
  };
  for (std::uint32_t s = 0; s < w_.services.size(); ++s) {
    const double interval =
        w_.interval_seconds(state::check_interval_of(w_.model->services[s], w_.services[s]));
    if (interval <= 0) continue;
    arm(w_.check_of(model::ServiceId{s}), w_.now_instant(), first_delay(w_.services[s], interval));
  }
  for (std::uint32_t h = 0; h < w_.hosts.size(); ++h) {
    const double interval = w_.interval_seconds(state::check_interval_of(w_.model->hosts[h], w_.hosts[h]));
    if (interval <= 0) continue;
    arm(w_.check_of(model::HostId{h}), w_.now_instant(), first_delay(w_.hosts[h], interval));
  }
}

void CheckScheduler::at(CheckId check, Time when, bool forced, std::uint8_t options) {
  if (timers_.is_armed(check) && w_.state_of(check).next_check < when && !forced) return;
  timers_.set_forced(check, forced);
  arm(check, w_.now_instant(), until_epoch(when, w_.clock.wall_now()),
      forced ? static_cast<std::uint8_t>(options | state::k_check_option_force_execution) : options);
}

void CheckScheduler::now(CheckId check) {
  if (w_.state_of(check).is_executing) return;
  if (timers_.is_armed(check) && timers_.scheduled_at(check) <= w_.clock.wall_now()) return;
  arm(check, w_.now_instant(), loop::Duration::zero());
}

void CheckScheduler::within_interval(CheckId check) {
  const CheckState& st = w_.state_of(check);
  const double interval = w_.interval_seconds(state::check_interval_of(w_.checkable_of(check), st));
  if (interval <= 0 || st.is_executing) return;
  arm(check, w_.now_instant(), seconds(std::uniform_real_distribution<double>(0, 1)(w_.rng) * interval));
}

void CheckScheduler::follow(CheckId check, const ScheduleFollowups& next, Instant base) {
  using Next = ScheduleFollowups::Next;
  // Naemon's retry "respects the retry interval even if an earlier check is scheduled": ALLOW_POSTPONE.
  if (next.next == Next::retry)
    arm(check, base, seconds(next.interval_s), state::k_check_option_allow_postpone);
  else if (next.next == Next::regular_if_unset && !timers_.is_armed(check))
    arm(check, base, seconds(next.interval_s));
  for (CheckId other : next.check_now) now(other);
  for (model::ServiceId master : next.force_now)
    at(w_.check_of(master), 0, /*forced=*/false, state::k_check_option_dependency);
}

void CheckScheduler::after_reload(const ByCheck<std::uint8_t>& was_armed) {
  const Instant now = w_.now_instant();
  for (std::uint32_t i = 0; i < w_.check_count(); ++i) {
    const CheckId c{i};
    const double interval = w_.interval_seconds(state::check_interval_of(w_.checkable_of(c), w_.state_of(c)));
    if (interval <= 0) continue;
    if (was_armed[c] != 0) {
      const loop::Duration left = std::max(loop::Duration::zero(), timers_.due_at(c) - now.mono);
      if (left <= seconds(interval)) {
        arm(c, now, left, w_.state_of(c).check_options);  // the same check, where it was
        continue;
      }
    }
    if (!w_.state_of(c).is_executing)
      arm(c, now, seconds(std::uniform_real_distribution<double>(0, 1)(w_.rng) * interval));
  }
}

}  // namespace vedette::engine
