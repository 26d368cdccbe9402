// Loop: the core thread's event loop: timers, fd readiness and a per-iteration "before poll" phase, with the
// clock read once per iteration. Everything here is core-thread only (the thread that constructed the Loop);
// other threads reach it through a Wakeup or a signal. Handlers are borrowed: the caller keeps each handler
// alive while it is registered.
//
//   Loop loop(clock);
//   TimerId t = loop.add_timer(handler);  loop.arm_timer(t, loop.now() + std::chrono::seconds(5));
//   loop.watch(fd, Interest::read, reader);  loop.run();   // until a handler calls loop.stop()
#pragma once

#include "loop/clock.hpp"
#include "loop/poller.hpp"
#include "loop/timer_heap.hpp"

#include <cstdint>
#include <span>
#include <thread>
#include <vector>

namespace vedette::loop {

class TimerHandler {
 public:
  // The timer is disarmed when this runs unless the handler re-arms it (then it is re-keyed in place).
  virtual void on_timer(TimerId id) = 0;

 protected:
  ~TimerHandler() = default;
};

class FdHandler {
 public:
  // events is within the watched interest; error and hang-up are reported as the interest watched.
  virtual void on_ready(int fd, Interest events) = 0;

 protected:
  ~FdHandler() = default;
};

class BeforePollHook {
 public:
  virtual void before_poll() = 0;

 protected:
  ~BeforePollHook() = default;
};

struct LoopStats {
  std::uint64_t iterations = 0;
  std::uint64_t zero_timeout_polls = 0;  // polls made with timeout 0 because work was pending
  std::uint64_t waiting_polls = 0;       // polls allowed to sleep (timeout > 0 or forever)
  std::uint64_t timers_fired = 0;
  std::uint64_t fd_events = 0;
  Duration last_poll_timeout{0};
};

enum class PollMode : bool { wait, no_wait };

class Loop {
 public:
  explicit Loop(Clock& clock);
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;

  // The monotonic time read at the start of this iteration (after the poll returned).
  MonoTime now() const { return now_; }
  Clock& clock() const { return clock_; }

  // Timers. Ids are dense and reused after remove_timer(); arm_timer() inserts or re-keys in place.
  void reserve_timers(std::uint32_t count);
  // Timers due within `slack` of now run in the same iteration, a little early, instead of each waking the
  // loop on its own: on virtual machines a sleep/wake costs tens of µs, more than the work of a check.
  void set_timer_slack(Duration slack) { slack_ = slack; }
  TimerId add_timer(TimerHandler& handler);
  void arm_timer(TimerId id, MonoTime when);
  void disarm_timer(TimerId id);
  void remove_timer(TimerId id);  // disarms and frees the id; allowed from the timer's own callback
  bool is_armed(TimerId id) const { return timers_.contains(id); }

  // fds. Interest changes are batched into one epoll_ctl per fd per iteration. Call unwatch() before close().
  void watch(int fd, Interest interest, FdHandler& handler);
  void unwatch(int fd);

  // Hooks run every iteration, in the order they were added (see run_once()).
  void add_before_poll(BeforePollHook& hook);
  // Makes the next poll return at once: for a handler that stopped a batch early and has more to do.
  void mark_work_pending() { work_pending_ = true; }

  // Runs iterations until stop(); returns after the iteration in which stop() was called.
  void run();
  void run_once(PollMode mode = PollMode::wait);
  void stop() { stopping_ = true; }
  bool is_stopping() const { return stopping_; }

  // The timeout the next poll will use: 0 when work is pending, a timer is due or the loop is stopping; else
  // the time to the earliest timer; k_forever without timers.
  Duration poll_timeout() const;

  const LoopStats& stats() const { return stats_; }
  const Poller& poller() const { return poller_; }
  bool is_loop_thread() const { return std::this_thread::get_id() == owner_; }

 private:
  struct FdSlot {
    FdHandler* handler = nullptr;
    Interest interest = Interest::none;
    Token token =
        0;  // new per watch of an unwatched fd: reports for an earlier watch of the number are dropped
  };

  void dispatch_fds(std::span<const Ready> ready);
  void run_due_timers();

  Clock& clock_;
  MonoTime now_;
  Poller poller_;
  TimerHeap timers_;
  std::vector<TimerHandler*> timer_handlers_;  // by TimerId; nullptr when free
  std::vector<std::uint32_t> arm_count_;       // by TimerId: tells a re-armed timer from a fired one
  std::vector<std::uint64_t> fired_pass_;      // by TimerId: the timer pass that last fired it
  std::vector<TimerId> free_timers_;
  std::uint64_t pass_ = 0;
  std::vector<FdSlot> fds_;
  Token next_token_ = 0;
  std::vector<BeforePollHook*> hooks_;
  bool work_pending_ = false;
  Duration slack_{0};
  bool stopping_ = false;
  std::thread::id owner_;
  LoopStats stats_;
};

}  // namespace vedette::loop
