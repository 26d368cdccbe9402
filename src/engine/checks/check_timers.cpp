#include "engine/checks/check_timers.hpp"

#include <utility>

namespace vedette::engine {

CheckTimers::~CheckTimers() {
  remove_timers();
}

void CheckTimers::resize(std::size_t checks) {
  remove_timers();
  add_timers(checks);
  due_at_ = ByCheck<loop::MonoTime>(checks);
  scheduled_at_ = ByCheck<loop::WallTime>(checks);
  forced_ = ByCheck<std::uint8_t>(checks, 0);
}

loop::WallTime CheckTimers::arm(CheckId check, Instant base, loop::Duration delay) {
  due_at_[check] = base.mono + delay;
  scheduled_at_[check] = base.wall + delay;
  loop_.arm_timer(timer_of_[check], due_at_[check]);
  return scheduled_at_[check];
}

Instant CheckTimers::run_time(CheckId check, Instant now) const {
  const loop::MonoTime due = due_at_[check];
  return due > now.mono ? Instant{due, now.wall + (due - now.mono)} : now;
}

bool CheckTimers::take_forced(CheckId check) {
  return std::exchange(forced_[check], 0) != 0;
}

ByCheck<std::uint8_t> CheckTimers::remap(const ByCheck<CheckId>& old_of_new) {
  const std::size_t checks = old_of_new.size();
  ByCheck<loop::MonoTime> due_at(checks);
  ByCheck<loop::WallTime> scheduled_at(checks);
  ByCheck<std::uint8_t> forced(checks, 0), was_armed(checks, 0);
  for (std::uint32_t i = 0; i < checks; ++i) {
    const CheckId c{i};
    const CheckId o = old_of_new[c];
    if (!timer_of_.contains(o)) continue;
    due_at[c] = due_at_[o];
    scheduled_at[c] = scheduled_at_[o];
    forced[c] = forced_[o];
    was_armed[c] = is_armed(o) ? 1 : 0;
  }
  remove_timers();
  add_timers(checks);
  due_at_ = std::move(due_at);
  scheduled_at_ = std::move(scheduled_at);
  forced_ = std::move(forced);
  due_.clear();
  return was_armed;
}

void CheckTimers::on_timer(loop::TimerId id) {
  if (id < check_of_timer_.size() && check_of_timer_[id] != k_no_check) due_.push_back(check_of_timer_[id]);
}

void CheckTimers::add_timers(std::size_t checks) {
  timer_of_ = ByCheck<loop::TimerId>(checks);
  for (std::uint32_t i = 0; i < checks; ++i) {
    const CheckId c{i};
    timer_of_[c] = loop_.add_timer(*this);
    if (check_of_timer_.size() <= timer_of_[c]) check_of_timer_.resize(timer_of_[c] + 1, k_no_check);
    check_of_timer_[timer_of_[c]] = c;
  }
}

void CheckTimers::remove_timers() {
  for (const loop::TimerId timer : timer_of_) {
    check_of_timer_[timer] = k_no_check;
    loop_.remove_timer(timer);
  }
  timer_of_ = ByCheck<loop::TimerId>();
}

}  // namespace vedette::engine
