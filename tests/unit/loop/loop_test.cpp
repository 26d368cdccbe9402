#include "loop/loop.hpp"

#include "loop/signals.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <pthread.h>
#include <unistd.h>
#include <vector>

namespace vedette::loop {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Records firings as (id, loop time) and runs an optional action.
class Recorder final : public TimerHandler {
 public:
  explicit Recorder(Loop& loop) : loop_(loop) {}
  void on_timer(TimerId id) override {
    fired.push_back(id);
    at.push_back(loop_.now());
    if (action) action(id);
  }
  std::vector<TimerId> fired;
  std::vector<MonoTime> at;
  std::function<void(TimerId)> action;

 private:
  Loop& loop_;
};

class FdRecorder final : public FdHandler {
 public:
  void on_ready(int fd, Interest events) override {
    ready.emplace_back(fd, events);
    if (action) action(fd);
  }
  std::vector<std::pair<int, Interest>> ready;
  std::function<void(int)> action;
};

struct Pipe {
  int fds[2] = {-1, -1};
  Pipe() { EXPECT_EQ(pipe(fds), 0); }
  ~Pipe() {
    for (int fd : fds) {
      if (fd >= 0) close(fd);
    }
  }
  int r() const { return fds[0]; }
  int w() const { return fds[1]; }
};

TEST(Loop, TimersFireInOrderAndOnTimeWithManualClock) {
  ManualClock clock;
  Loop loop(clock);
  Recorder rec(loop);
  const MonoTime t0 = loop.now();
  const TimerId a = loop.add_timer(rec);
  const TimerId b = loop.add_timer(rec);
  const TimerId c = loop.add_timer(rec);
  loop.arm_timer(a, t0 + seconds(3));
  loop.arm_timer(b, t0 + seconds(1));
  loop.arm_timer(c, t0 + seconds(2));
  EXPECT_EQ(loop.poll_timeout(), seconds(1));

  clock.advance(milliseconds(999));
  loop.run_once(PollMode::no_wait);
  EXPECT_TRUE(rec.fired.empty());
  EXPECT_EQ(loop.poll_timeout(), milliseconds(1));

  clock.advance(milliseconds(1));
  loop.run_once(PollMode::no_wait);
  EXPECT_EQ(rec.fired, (std::vector<TimerId>{b}));
  EXPECT_FALSE(loop.is_armed(b));
  EXPECT_EQ(loop.poll_timeout(), seconds(1));

  clock.advance(seconds(5));  // both remaining are due: one iteration runs them all, earliest first
  loop.run_once(PollMode::no_wait);
  EXPECT_EQ(rec.fired, (std::vector<TimerId>{b, c, a}));
  EXPECT_EQ(rec.at[1], t0 + seconds(6));
  EXPECT_EQ(loop.poll_timeout(), k_forever);
}

TEST(Loop, TimerSlackRunsTimersDueWithinItInTheSameIteration) {
  ManualClock clock;
  Loop loop(clock);
  loop.set_timer_slack(milliseconds(20));
  Recorder rec(loop);
  const MonoTime t0 = loop.now();
  const TimerId a = loop.add_timer(rec);
  const TimerId b = loop.add_timer(rec);
  const TimerId c = loop.add_timer(rec);
  loop.arm_timer(a, t0 + milliseconds(100));
  loop.arm_timer(b, t0 + milliseconds(115));  // within the slack of a: runs with it, 15 ms early
  loop.arm_timer(c, t0 + milliseconds(130));  // beyond it: waits for its own iteration
  EXPECT_EQ(loop.poll_timeout(), milliseconds(100)) << "the loop still sleeps until the first timer is due";
  clock.advance(milliseconds(100));
  loop.run_once(PollMode::no_wait);
  EXPECT_EQ(rec.fired, (std::vector<TimerId>{a, b}));
  EXPECT_EQ(loop.poll_timeout(), milliseconds(30));
  clock.advance(milliseconds(30));
  loop.run_once(PollMode::no_wait);
  EXPECT_EQ(rec.fired, (std::vector<TimerId>{a, b, c}));
}

TEST(Loop, ReArmingInTheCallbackReKeysInPlace) {
  ManualClock clock;
  Loop loop(clock);
  Recorder rec(loop);
  const TimerId t = loop.add_timer(rec);
  rec.action = [&](TimerId id) { loop.arm_timer(id, loop.now() + seconds(10)); };
  loop.arm_timer(t, loop.now() + seconds(10));
  for (int i = 0; i < 5; ++i) {
    clock.advance(seconds(10));
    loop.run_once(PollMode::no_wait);
  }
  EXPECT_EQ(rec.fired.size(), 5u);
  EXPECT_TRUE(loop.is_armed(t));
  EXPECT_EQ(loop.poll_timeout(), seconds(10));
}

TEST(Loop, ATimerReArmedDueRunsOncePerIterationAndKeepsThePollFromSleeping) {
  ManualClock clock;
  Loop loop(clock);
  Recorder rec(loop);
  const TimerId t = loop.add_timer(rec);
  rec.action = [&](TimerId id) { loop.arm_timer(id, loop.now()); };
  loop.arm_timer(t, loop.now());
  loop.run_once(PollMode::no_wait);
  EXPECT_EQ(rec.fired.size(), 1u);
  EXPECT_EQ(loop.poll_timeout(), Duration::zero());  // still due: never sleep
  loop.run_once();                                   // zero timeout: returns at once
  EXPECT_EQ(rec.fired.size(), 2u);
  EXPECT_EQ(loop.stats().zero_timeout_polls, 2u);
  EXPECT_EQ(loop.stats().waiting_polls, 0u);
}

TEST(Loop, CallbacksMayRemoveTimers) {
  ManualClock clock;
  Loop loop(clock);
  Recorder rec(loop);
  const TimerId a = loop.add_timer(rec);
  const TimerId b = loop.add_timer(rec);
  const TimerId c = loop.add_timer(rec);
  loop.arm_timer(a, loop.now() + seconds(1));
  loop.arm_timer(b, loop.now() + seconds(2));
  loop.arm_timer(c, loop.now() + seconds(3));
  rec.action = [&](TimerId id) {
    if (id == a) {
      loop.remove_timer(a);  // itself
      loop.disarm_timer(b);  // a due timer not yet run
    }
  };
  clock.advance(seconds(5));
  loop.run_once(PollMode::no_wait);
  EXPECT_EQ(rec.fired, (std::vector<TimerId>{a, c}));
  Recorder other(loop);
  EXPECT_EQ(loop.add_timer(other), a);  // the freed id is reused
}

TEST(Loop, ZeroTimeoutOnlyWhenWorkIsPending) {
  ManualClock clock;
  Loop loop(clock);
  EXPECT_EQ(loop.poll_timeout(), k_forever);
  loop.mark_work_pending();
  EXPECT_EQ(loop.poll_timeout(), Duration::zero());
  loop.run_once();
  EXPECT_EQ(loop.stats().zero_timeout_polls, 1u);
  EXPECT_EQ(loop.poll_timeout(), k_forever);  // the flag lasts one iteration

  Recorder rec(loop);
  const TimerId far = loop.add_timer(rec);
  loop.arm_timer(far, from_key(UINT64_MAX));  // the extreme key: a timeout, never an overflow
  EXPECT_GT(loop.poll_timeout(), seconds(1'000'000));
  loop.arm_timer(far, loop.now() + milliseconds(250));
  EXPECT_EQ(loop.poll_timeout(), milliseconds(250));
}

TEST(Loop, BeforePollHooksRunInOrderAndCanMakeThePollNonBlocking) {
  ManualClock clock;
  Loop loop(clock);
  std::vector<int> order;
  struct Hook final : BeforePollHook {
    Hook(std::vector<int>& o, int n, std::function<void()> f) : order(o), number(n), then(std::move(f)) {}
    void before_poll() override {
      order.push_back(number);
      if (then) then();
    }
    std::vector<int>& order;
    int number;
    std::function<void()> then;
  };
  Recorder rec(loop);
  const TimerId t = loop.add_timer(rec);
  Hook first(order, 1, nullptr);
  Hook second(order, 2, [&] { loop.arm_timer(t, loop.now()); });  // due: the next poll must not sleep
  loop.add_before_poll(first);
  loop.add_before_poll(second);
  loop.run_once(PollMode::no_wait);
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_EQ(loop.poll_timeout(), Duration::zero());
  loop.run_once();
  EXPECT_EQ(rec.fired.size(), 1u);
}

TEST(Loop, TimersFireOnTimeWithTheRealClockWithoutSpinning) {
  RealClock clock;
  Loop loop(clock);
  Recorder rec(loop);
  const MonoTime start = loop.now();
  const TimerId t = loop.add_timer(rec);
  const TimerId never = loop.add_timer(rec);
  rec.action = [&](TimerId) { loop.stop(); };
  loop.arm_timer(never, start + seconds(3600));
  loop.arm_timer(t, start + milliseconds(30));
  loop.run();
  ASSERT_EQ(rec.fired, (std::vector<TimerId>{t}));
  EXPECT_GE(rec.at[0], start + milliseconds(30));        // never early
  EXPECT_LT(rec.at[0], start + milliseconds(30 + 200));  // and not much late, even on a loaded machine
  EXPECT_LE(loop.stats().iterations, 3u);                // slept to the deadline instead of spinning
  EXPECT_EQ(loop.stats().zero_timeout_polls, 0u);
}

TEST(Loop, DispatchesReadableFdsAndHonoursChangesMadeByEarlierHandlers) {
  RealClock clock;
  Loop loop(clock);
  Pipe a;
  Pipe b;
  FdRecorder ra;
  FdRecorder rb;
  loop.watch(a.r(), Interest::read, ra);
  loop.watch(b.r(), Interest::read, rb);
  ASSERT_EQ(write(a.w(), "x", 1), 1);
  ASSERT_EQ(write(b.w(), "y", 1), 1);
  // Whichever runs first unwatches the other: the second report of the batch must not be delivered.
  ra.action = [&](int) { loop.unwatch(b.r()); };
  rb.action = [&](int) { loop.unwatch(a.r()); };
  loop.run_once(PollMode::no_wait);
  EXPECT_EQ(ra.ready.size() + rb.ready.size(), 1u);
  EXPECT_EQ(loop.stats().fd_events, 1u);

  Pipe c;
  FdRecorder rc;
  loop.watch(c.r(), Interest::read, rc);
  loop.run_once(PollMode::no_wait);
  EXPECT_TRUE(rc.ready.empty());
  ASSERT_EQ(write(c.w(), "z", 1), 1);
  loop.run_once();  // readable: wakes at once though no timer exists
  ASSERT_EQ(rc.ready.size(), 1u);
  EXPECT_EQ(rc.ready[0], std::make_pair(c.r(), Interest::read));
}

TEST(Loop, WatchChangesCostOneSyscallPerIteration) {
  RealClock clock;
  Loop loop(clock);
  Pipe p;
  FdRecorder rec;
  for (int i = 0; i < 10; ++i) {
    loop.watch(p.w(), Interest::read_write, rec);
    loop.watch(p.w(), Interest::write, rec);
  }
  loop.run_once(PollMode::no_wait);
  EXPECT_EQ(loop.poller().ctl_calls(), 1u);
  EXPECT_EQ(rec.ready.size(), 1u);
  EXPECT_EQ(rec.ready[0].second, Interest::write);
}

class StopOnSignal final : public FdHandler {
 public:
  StopOnSignal(Loop& loop, SignalFd& signals) : loop_(loop), signals_(signals) {}
  void on_ready(int, Interest) override {
    received = signals_.drain();
    loop_.stop();
  }
  SignalSet received;

 private:
  Loop& loop_;
  SignalFd& signals_;
};

TEST(Loop, StopsOnSigtermThroughSignalfd) {
  const sigset_t previous = block_loop_signals();
  {
    RealClock clock;
    Loop loop(clock);
    SignalFd signals;
    StopOnSignal handler(loop, signals);
    loop.watch(signals.fd(), Interest::read, handler);
    Recorder rec(loop);
    const TimerId t = loop.add_timer(rec);
    rec.action = [&](TimerId) { raise(SIGTERM); };  // delivered while the loop runs, not before
    loop.arm_timer(t, loop.now() + milliseconds(5));
    loop.run();
    EXPECT_TRUE(handler.received.contains(SIGTERM));
    EXPECT_FALSE(handler.received.contains(SIGHUP));

    raise(SIGHUP);
    raise(SIGINT);
    loop.run();
    EXPECT_TRUE(handler.received.contains(SIGHUP));
    EXPECT_TRUE(handler.received.contains(SIGINT));
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

}  // namespace
}  // namespace vedette::loop
