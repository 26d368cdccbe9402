// What executor.cpp and executor_thread.cpp share: one executor thread ("exec-N"), Executor::Worker.
// executor.cpp starts, wakes and stops it (the constructor, cancel_held(), stop(), cpu_time()) and hands it
// jobs (enqueue(), here so that submit() inlines it); executor_thread.cpp is everything the thread itself
// runs (run() and what it calls): holding jobs until their start time, spawning, reading the pipes, reaping,
// timeouts, native checks. Private to exec.
#pragma once

#include "exec/check_job.hpp"
#include "exec/executor.hpp"
#include "exec/spawner.hpp"
#include "loop/epoll.hpp"
#include "loop/wakeup.hpp"
#include "native/native_runner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <queue>
#include <span>
#include <string>
#include <thread>
#include <time.h>
#include <vector>

namespace vedette::exec {

// epoll tokens: serial (32) | slot (30) | stream (2). The serial rejects events that were already in the
// ready array when their job finished and its slot was reused in the same iteration.
enum Stream : std::uint64_t { k_stdout = 0, k_stderr = 1, k_pidfd = 2, k_native = 3 };
inline constexpr std::uint64_t k_inbox_token = ~std::uint64_t{0};

// One read(2) per 64 KiB; a chatty plugin gets at most this many per wakeup so others are not starved
// (epoll is level-triggered, the rest is read on the next iteration).
inline constexpr std::size_t k_read_chunk = 64 * 1024;
inline constexpr int k_reads_per_event = 16;

// A spawn that failed for want of fds, processes or memory is the daemon's trouble, not the plugin's: the
// job is held and tried again, after a pause that doubles with each failure in a row, within these.
inline constexpr std::int64_t k_first_retry_pause_ns = 100'000'000;
inline constexpr std::int64_t k_longest_retry_pause_ns = 5'000'000'000;

// What the threads have to say to the log (the core writes it): one warning a minute at most about spawns
// retried for want of resources, with the count since the last one.
class Executor::Warnings {
 public:
  void note_shortage(int error);  // any executor thread
  [[nodiscard]] bool pending() const { return pending_.load(std::memory_order_acquire); }
  std::vector<std::string> take();

 private:
  std::mutex mutex_;
  std::vector<std::string> messages_;
  std::uint64_t retried_ = 0;
  std::chrono::steady_clock::time_point next_{};
  std::atomic<bool> pending_{false};
};

class Executor::Worker {
 public:
  // Starts the thread.
  Worker(unsigned index, const Spawner& spawner, ResultQueue& results, Warnings& warnings,
         const ExecutorOptions& options, unsigned timing_out_limit, native::Resolver& resolver);
  ~Worker();  // stop()
  // Any thread. Appends [first, last) to the inbox. Wakes the thread only if it sleeps past the earliest
  // start time among them: a thread that wakes in time anyway (for a job it holds or a timeout) looks at the
  // inbox then, and the eventfd write, with the cross-CPU wakeup it causes, is saved.
  template <typename It>
  void enqueue(It first, It last) {
    std::int64_t earliest = std::numeric_limits<std::int64_t>::max();
    for (It it = first; it != last; ++it) earliest = std::min(earliest, it->not_before_ns);
    bool wake;
    {
      std::lock_guard lock(inbox_mutex_);
      inbox_.insert(inbox_.end(), first, last);
      wake = earliest < sleeps_until_ns_ - start_slack_ns();
    }
    if (wake) inbox_wakeup_.signal();
  }

  void cancel_held();  // wakes the thread, which cancels what it holds (cancel_waiting())
  void stop();         // joins the thread

  // The thread's CPU clock dies with the thread, so its last reading is kept for after stop().
  std::chrono::nanoseconds cpu_time() const;

 private:
  enum class State : std::uint8_t { free, running, exited, reaping };

  struct Running {
    State state = State::free;
    std::uint32_t serial = 0;
    SpawnedChild child;
    CheckResult result;  // filled as the job goes; id, generation, kind, start set at spawn
    std::uint32_t cap = 0;
    bool reaped = false;
    bool pipes_watched = false;
    bool timing_out = false;  // holds one of the thread's timing_out_limit_ slots
  };

  // A CheckJob::timing_out job that fell due while every slot for those was taken.
  struct Parked {
    std::int64_t dequeued_us;
    CheckJob job;
  };

  // A job handed over before its start time, in a min-heap on (not_before_ns, order): equal times start
  // in the order they were submitted.
  struct Waiting {
    std::int64_t not_before_ns;
    std::uint64_t order;
    CheckJob job;
    bool operator>(const Waiting& other) const {
      return not_before_ns != other.not_before_ns ? not_before_ns > other.not_before_ns : order > other.order;
    }
  };

  enum class DeadlineKind : std::uint8_t {
    timeout,      // while running: kill the group
    watch_pipes,  // while running, pipes not yet watched: watch them (see start())
    exit_grace,   // exited, a pipe still open: take what arrived and finish
  };

  struct Deadline {
    std::int64_t at_ns;
    std::uint32_t slot;
    std::uint32_t serial;
    DeadlineKind kind;
    bool operator>(const Deadline& other) const { return at_ns > other.at_ns; }
  };

  // The thread's own, in executor_thread.cpp (defined inline there, all but run()).
  // --- The loop, and the jobs not started yet (held for their start time or a timing-out slot, cancelled)
  void run();
  void cancel_waiting();
  void start_or_hold(std::vector<CheckJob>& jobs);
  void hold(CheckJob& job, std::int64_t until_ns);
  void start_waiting(std::int64_t now);
  void start_parked();

  std::int64_t start_slack_ns() const { return std::chrono::nanoseconds(options_.start_slack).count(); }
  bool has_timing_out_slot() const {
    return timing_out_limit_ == 0 || timing_out_running_ < timing_out_limit_;
  }
  int wait(std::span<loop::Epoll::Event> events, std::int64_t wake_at);
  std::int64_t next_wake_ns();
  bool deadline_is_live(const Deadline& d) const;

  // --- The children, from their spawn to their reap
  void start(CheckJob& job, std::int64_t dequeued_us);
  void watch_pipes(std::uint32_t slot);
  void watch(int fd, std::uint64_t token);
  void read_stream(Running& r, int& fd, std::string& text, bool& truncated, int max_reads);
  void try_reap(std::uint32_t slot);
  void settle(std::uint32_t slot);
  void finish(std::uint32_t slot);
  void release(std::uint32_t slot);
  void expire_deadlines(std::int64_t now);
  void time_out(std::uint32_t slot);
  void poll_children();

  // --- Native checks
  bool start_native(const CheckJob& job, std::int64_t dequeued_us);
  void take_native();

  // --- The gauges, and the thread's end
  void publish_depth(std::int64_t waiting, std::int64_t running);
  void shut_down();

  const Spawner& spawner_;
  ResultQueue& results_;
  Warnings& warnings_;
  const ExecutorOptions options_;
  const unsigned timing_out_limit_;  // 0: no bound
  loop::Epoll epoll_;
  clockid_t cpu_clock_{};
  std::atomic<std::int64_t> cpu_at_exit_ns_{0};
  std::atomic<bool> exited_{false};

  static constexpr std::int64_t k_never = std::numeric_limits<std::int64_t>::max();

  std::mutex inbox_mutex_;
  std::vector<CheckJob> inbox_;             // guarded by inbox_mutex_
  std::int64_t sleeps_until_ns_ = k_never;  // guarded by inbox_mutex_; in the past while the thread is awake
  loop::Wakeup inbox_wakeup_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> cancel_held_{false};

  // Executor thread only from here on.
  std::vector<Running> slots_;
  std::vector<std::uint32_t> free_;
  std::uint32_t serial_ = 0;
  std::priority_queue<Deadline, std::vector<Deadline>, std::greater<>> deadlines_;  // lazily pruned
  std::vector<std::uint32_t> polled_;  // slots of children without a pidfd
  std::vector<std::uint32_t> polled_copy_;
  std::vector<CheckResult> done_;  // pushed to results_ once per iteration
  std::vector<Waiting> waiting_;   // heap, earliest first
  std::deque<Parked> parked_;      // timing-out jobs waiting for a slot, in the order they fell due
  unsigned timing_out_running_ = 0;
  std::uint64_t next_order_ = 0;
  std::unique_ptr<native::NativeRunner> native_;
  std::vector<CheckResult> native_results_;  // by ticket, while the native check runs
  std::vector<std::uint64_t> native_free_;
  int spawns_this_round_ = 0;  // since the last epoll wait
  // publish_depth(): what this thread last added to the gauges.
  std::int64_t published_waiting_ = 0, published_running_ = 0;
  std::int64_t spawns_resume_ns_ = 0;  // after a shortage: no spawn before this (0: none)
  std::int64_t retry_pause_ns_ = k_first_retry_pause_ns;
  char scratch_[k_read_chunk];

  std::thread thread_;  // last: started once everything above is constructed
};

}  // namespace vedette::exec
