#include "loop/loop.hpp"

#include <cassert>

namespace vedette::loop {

Loop::Loop(Clock& clock) : clock_(clock), now_(clock.now()), owner_(std::this_thread::get_id()) {}

void Loop::reserve_timers(std::uint32_t count) {
  timers_.reserve(count);
  timer_handlers_.reserve(count);
  arm_count_.reserve(count);
  fired_pass_.reserve(count);
}

TimerId Loop::add_timer(TimerHandler& handler) {
  assert(is_loop_thread());
  if (!free_timers_.empty()) {
    const TimerId id = free_timers_.back();
    free_timers_.pop_back();
    timer_handlers_[id] = &handler;
    return id;
  }
  const auto id = static_cast<TimerId>(timer_handlers_.size());
  timer_handlers_.push_back(&handler);
  arm_count_.push_back(0);
  fired_pass_.push_back(0);
  return id;
}

void Loop::arm_timer(TimerId id, MonoTime when) {
  assert(is_loop_thread());
  assert(id < timer_handlers_.size() && timer_handlers_[id] != nullptr && "arming a removed timer");
  ++arm_count_[id];
  timers_.schedule(id, to_key(when));
}

void Loop::disarm_timer(TimerId id) {
  timers_.remove(id);
}

void Loop::remove_timer(TimerId id) {
  assert(id < timer_handlers_.size() && timer_handlers_[id] != nullptr && "removing a removed timer");
  timers_.remove(id);
  timer_handlers_[id] = nullptr;
  free_timers_.push_back(id);
}

void Loop::watch(int fd, Interest interest, FdHandler& handler) {
  assert(is_loop_thread());
  assert(fd >= 0);
  const auto index = static_cast<std::size_t>(fd);
  if (index >= fds_.size()) fds_.resize(index + 1 + fds_.size() / 2);
  FdSlot& slot = fds_[index];
  if (slot.handler == nullptr) slot.token = ++next_token_;
  slot.handler = &handler;
  slot.interest = interest;
  poller_.set_interest(fd, interest, slot.token);
}

void Loop::unwatch(int fd) {
  assert(is_loop_thread());
  const auto index = static_cast<std::size_t>(fd);
  if (fd < 0 || index >= fds_.size() || fds_[index].handler == nullptr) return;
  fds_[index] = FdSlot{};
  poller_.forget(fd);
}

void Loop::add_before_poll(BeforePollHook& hook) {
  hooks_.push_back(&hook);
}

Duration Loop::poll_timeout() const {
  if (work_pending_ || stopping_) return Duration::zero();
  if (timers_.empty()) return k_forever;
  const TimerKey next = timers_.next_key();
  const TimerKey now = to_key(now_);
  if (next <= now) return Duration::zero();
  const TimerKey wait = next - now;
  if (wait >= static_cast<TimerKey>(k_forever.count())) return k_forever;
  return Duration(static_cast<Duration::rep>(wait));
}

void Loop::run() {
  while (!stopping_) run_once();
  stopping_ = false;
}

// One iteration. The order, and why:
//  1. Poll. The timeout was decided by the previous iteration's state: 0 if anything is pending or due (never
//     sleep while an event is due), else the time to the earliest timer (never spin when nothing is due).
//     Queued fd interest changes are applied here, once per fd.
//  2. Read the clock, once. Everything below sees this instant. Reading after the poll means fd handlers see
//     the time their event arrived, not the time the loop went to sleep; the cost is that the next timeout is
//     measured from this instant and so ends late by this iteration's own processing time (microseconds).
//  3. Dispatch ready fds: results and commands arriving now are applied before the timers that depend on
//  them.
//  4. Run every due timer, earliest first, before the next poll.
//  5. Before-poll hooks in registration order (Redis's beforeSleep): flush work batched by steps 3 and 4.
void Loop::run_once(PollMode mode) {
  assert(is_loop_thread());
  const Duration timeout = mode == PollMode::no_wait ? Duration::zero() : poll_timeout();
  work_pending_ = false;
  ++stats_.iterations;
  stats_.last_poll_timeout = timeout;
  ++(timeout == Duration::zero() ? stats_.zero_timeout_polls : stats_.waiting_polls);
  const std::span<const Ready> ready = poller_.wait(timeout);

  now_ = clock_.now();
  dispatch_fds(ready);
  run_due_timers();
  for (BeforePollHook* hook : hooks_) hook->before_poll();
}

void Loop::dispatch_fds(std::span<const Ready> ready) {
  for (const Ready& r : ready) {
    // Re-read the slot for every report: an earlier handler in this batch may have unwatched this fd,
    // watched another number (fds_ may have grown), or closed and reused the number (new token).
    const auto index = static_cast<std::size_t>(r.fd);
    if (index >= fds_.size()) continue;
    const FdSlot& slot = fds_[index];
    if (slot.handler == nullptr || slot.token != r.token) continue;
    const Interest events = r.events & slot.interest;
    if (events == Interest::none) continue;
    ++stats_.fd_events;
    slot.handler->on_ready(r.fd, events);
  }
}

void Loop::run_due_timers() {
  const TimerKey now = to_key(now_ + slack_);
  ++pass_;
  while (!timers_.empty()) {
    const TimerEntry due = timers_.top();
    // A timer its own callback re-armed to a due time waits for the next iteration (poll timeout 0), so a
    // handler that always re-arms "now" cannot starve fds.
    if (due.key > now || fired_pass_[due.id] == pass_) break;
    fired_pass_[due.id] = pass_;
    const std::uint32_t arms = arm_count_[due.id];
    ++stats_.timers_fired;
    timer_handlers_[due.id]->on_timer(due.id);
    // Still at the root unless the callback moved it: one-shot semantics. A callback that re-armed it has
    // already re-keyed it in place (one sift from the root, as libev's ev_timer_again), with no
    // remove+insert.
    if (arm_count_[due.id] == arms) timers_.remove(due.id);
  }
}

}  // namespace vedette::loop
