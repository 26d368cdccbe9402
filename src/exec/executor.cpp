#include "exec/executor.hpp"

#include "base/check.hpp"
#include "exec/result_queue.hpp"
#include "exec/spawner.hpp"
#include "loop/raw_time.hpp"
#include "loop/wakeup.hpp"
#include "metrics/core_metrics.hpp"
#include "native/native_runner.hpp"
#include "native/resolver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <mutex>
#include <pthread.h>
#include <queue>
#include <signal.h>
#include <string>
#include <string_view>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <time.h>
#include <unistd.h>
#include <utility>

namespace vedette::exec {
namespace {

constexpr auto& mono_ns = loop::raw_mono_ns;  // loop/raw_time.hpp, by their short local names
constexpr auto& wall_us = loop::raw_wall_us;

std::int64_t timeval_us(const timeval& tv) {
  return static_cast<std::int64_t>(tv.tv_sec) * 1'000'000 + tv.tv_usec;
}

// epoll tokens: serial (32) | slot (30) | stream (2). The serial rejects events that were already in the
// ready array when their job finished and its slot was reused in the same iteration.
enum Stream : std::uint64_t { k_stdout = 0, k_stderr = 1, k_pidfd = 2, k_native = 3 };
constexpr std::uint64_t k_inbox_token = ~std::uint64_t{0};

std::uint64_t make_token(std::uint32_t serial, std::uint32_t slot, Stream stream) {
  return (static_cast<std::uint64_t>(serial) << 32) | (static_cast<std::uint64_t>(slot) << 2) | stream;
}

// One read(2) per 64 KiB; a chatty plugin gets at most this many per wakeup so others are not starved
// (epoll is level-triggered, the rest is read on the next iteration).
constexpr std::size_t k_read_chunk = 64 * 1024;
constexpr int k_reads_per_event = 16;

// Spawns per pass of the thread's loop. Behind schedule (more checks due than the machine can start), a
// thread that started every due job in one go would not reap any child meanwhile: zombies, pipes and
// runnable processes pile up, each spawn costs more, and throughput collapsed to half the machine's
// rate (bench/perfbench/max_rate.sh). Between rounds it reaps what finished.
constexpr int k_spawns_per_round = 8;

// A spawn that failed for want of fds, processes or memory is the daemon's trouble, not the plugin's: the
// job is held and tried again, after a pause that doubles with each failure in a row, within these.
constexpr std::int64_t k_first_retry_pause_ns = 100'000'000;
constexpr std::int64_t k_longest_retry_pause_ns = 5'000'000'000;

bool is_shortage(int error) {
  return error == EMFILE || error == ENFILE || error == EAGAIN || error == ENOMEM;
}

}  // namespace

// What the threads have to say to the log (the core writes it): one warning a minute at most about spawns
// retried for want of resources, with the count since the last one.
class Executor::Warnings {
 public:
  void note_shortage(int error) {
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(mutex_);
    ++retried_;
    if (now < next_) return;
    messages_.push_back(fmt::format(
        "Warning: Could not start a check or command: {} ({} retried since the last warning); nothing is "
        "reported for them, they are tried again within {} s",
        std::strerror(error), retried_, k_longest_retry_pause_ns / 1'000'000'000));
    retried_ = 0;
    next_ = now + std::chrono::minutes(1);
    pending_.store(true, std::memory_order_release);
  }
  [[nodiscard]] bool pending() const { return pending_.load(std::memory_order_acquire); }
  std::vector<std::string> take() {
    std::lock_guard lock(mutex_);
    pending_.store(false, std::memory_order_relaxed);
    return std::exchange(messages_, {});
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> messages_;
  std::uint64_t retried_ = 0;
  std::chrono::steady_clock::time_point next_{};
  std::atomic<bool> pending_{false};
};

class Executor::Worker {
 public:
  Worker(unsigned index, const Spawner& spawner, ResultQueue& results, Warnings& warnings,
         const ExecutorOptions& options, unsigned timing_out_limit, native::Resolver& resolver)
      : spawner_(spawner),
        results_(results),
        warnings_(warnings),
        options_(options),
        timing_out_limit_(timing_out_limit),
        epoll_fd_(::epoll_create1(EPOLL_CLOEXEC)) {
    VEDETTE_CHECK_ERRNO(epoll_fd_ >= 0, "exec: epoll_create1");
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = k_inbox_token;
    VEDETTE_CHECK_ERRNO(::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, inbox_wakeup_.fd(), &ev) == 0,
                        "exec: epoll_ctl");
    native_ = std::make_unique<native::NativeRunner>(epoll_fd_, k_native, resolver);
    thread_ = base::start_thread([this] { run(); });
    // Named from here, not from inside the thread, so the name is in place when the constructor returns.
    ::pthread_setname_np(thread_.native_handle(), fmt::format("exec-{}", index).c_str());
    ::pthread_getcpuclockid(thread_.native_handle(), &cpu_clock_);
  }

  ~Worker() {
    stop();
    native_.reset();
    ::close(epoll_fd_);
  }

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

  void cancel_held() {
    cancel_held_.store(true, std::memory_order_release);
    inbox_wakeup_.signal();
  }

  void stop() {
    if (!thread_.joinable()) return;
    stopping_.store(true, std::memory_order_release);
    inbox_wakeup_.signal();
    thread_.join();
  }

  // The thread's CPU clock dies with the thread, so its last reading is kept for after stop().
  std::chrono::nanoseconds cpu_time() const {
    if (!exited_.load(std::memory_order_acquire)) {
      timespec ts{};
      if (::clock_gettime(cpu_clock_, &ts) == 0) {
        return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
      }
    }
    return std::chrono::nanoseconds(cpu_at_exit_ns_.load(std::memory_order_acquire));
  }

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

  void run() {
    std::vector<CheckJob> jobs;
    epoll_event events[64];
    while (true) {
      // Take the inbox, then publish when this thread will wake next, under the lock enqueue() takes: a job
      // enqueued after the look is either seen by the next look or compared with that time (enqueue).
      std::int64_t wake_at;
      if (cancel_held_.exchange(false, std::memory_order_acq_rel)) cancel_waiting();
      while (true) {
        start_or_hold(jobs);
        wake_at = next_wake_ns();
        std::lock_guard lock(inbox_mutex_);
        if (inbox_.empty()) {
          sleeps_until_ns_ = wake_at;
          break;
        }
        jobs.swap(inbox_);
      }
      take_native();
      if (!done_.empty()) results_.push_batch(done_);  // jobs that failed to spawn, native ones done at once
      publish_depth(static_cast<std::int64_t>(waiting_.size()),
                    static_cast<std::int64_t>(slots_.size() - free_.size()));
      const int n = wait(events, 64, wake_at);
      spawns_this_round_ = 0;
      VEDETTE_CHECK_ERRNO(n >= 0 || errno == EINTR, "exec: epoll_wait");
      for (int i = 0; i < n; ++i) {
        const std::uint64_t token = events[i].data.u64;
        if (token == k_inbox_token) {
          inbox_wakeup_.drain();
          if (stopping_.load(std::memory_order_acquire)) return shut_down();
          continue;  // the inbox is taken at the top of the loop
        }
        if ((token & 3) == k_native) {
          native_->on_event(token, events[i].events);
          continue;
        }
        const auto slot = static_cast<std::uint32_t>((token & 0xffffffffu) >> 2);
        const auto serial = static_cast<std::uint32_t>(token >> 32);
        if (slot >= slots_.size() || slots_[slot].serial != serial) continue;
        Running& r = slots_[slot];
        switch (static_cast<Stream>(token & 3)) {
          case k_stdout:
            read_stream(r, r.child.stdout_fd, r.result.output, r.result.output_truncated, k_reads_per_event);
            break;
          case k_stderr:
            read_stream(r, r.child.stderr_fd, r.result.error_output, r.result.error_output_truncated,
                        k_reads_per_event);
            break;
          case k_pidfd:
            try_reap(slot);
            break;
          case k_native:
            break;  // handled above
        }
        if (r.serial == serial) settle(slot);
      }
      const std::int64_t now = mono_ns();
      start_waiting(now);
      expire_deadlines(now);
      native_->expire(now);
      if (!polled_.empty()) poll_children();
      start_parked();
      take_native();
      results_.push_batch(done_);
    }
  }

  std::int64_t start_slack_ns() const { return std::chrono::nanoseconds(options_.start_slack).count(); }

  // cancel_held(): everything queued or held comes back as cancelled.
  void cancel_waiting() {
    std::vector<CheckJob> queued;
    {
      std::lock_guard lock(inbox_mutex_);
      queued.swap(inbox_);
    }
    auto cancel = [this](const CheckJob& job) {
      CheckResult result;
      result.id = job.id;
      result.generation = job.generation;
      result.kind = job.kind;
      result.outcome = Outcome::cancelled;
      result.start_us = result.end_us = wall_us();
      done_.push_back(std::move(result));
    };
    for (const CheckJob& job : queued) cancel(job);
    for (const Waiting& w : waiting_) cancel(w.job);
    waiting_.clear();
    for (const Parked& p : parked_) cancel(p.job);
    parked_.clear();
  }

  // Starts the jobs of `jobs` whose time has come (up to this round's spawns), holds the others; leaves
  // `jobs` empty.
  void start_or_hold(std::vector<CheckJob>& jobs) {
    if (jobs.empty()) return;
    const std::int64_t start_by = mono_ns() + start_slack_ns();
    for (auto& job : jobs) {
      if (job.not_before_ns <= start_by && spawns_this_round_ < k_spawns_per_round) {
        ++spawns_this_round_;
        start(job, wall_us());
      } else {
        hold(job, job.not_before_ns);
      }
    }
    jobs.clear();
  }

  void hold(CheckJob& job, std::int64_t until_ns) {
    waiting_.push_back({until_ns, next_order_++, std::move(job)});
    std::push_heap(waiting_.begin(), waiting_.end(), std::greater<>{});
  }

  // Starts the held jobs whose time has come (within the start slack), earliest first, up to this round's
  // spawns; the rest wait for the next round, which comes without sleeping (next_wake_ns()).
  void start_waiting(std::int64_t now) {
    const std::int64_t start_by = now + start_slack_ns();
    while (!waiting_.empty() && waiting_.front().not_before_ns <= start_by &&
           spawns_this_round_ < k_spawns_per_round) {
      ++spawns_this_round_;
      std::pop_heap(waiting_.begin(), waiting_.end(), std::greater<>{});
      Waiting w = std::move(waiting_.back());
      waiting_.pop_back();
      start(w.job, wall_us());
    }
  }

  // Timing-out jobs that queued for a slot, oldest first, as far as slots were freed (by reaping) and this
  // round's spawns allow; the rest wait for the next round (next_wake_ns()) or the next reap.
  void start_parked() {
    while (!parked_.empty() && has_timing_out_slot() && spawns_this_round_ < k_spawns_per_round) {
      ++spawns_this_round_;
      Parked p = std::move(parked_.front());
      parked_.pop_front();
      start(p.job, p.dequeued_us);
    }
  }

  bool has_timing_out_slot() const {
    return timing_out_limit_ == 0 || timing_out_running_ < timing_out_limit_;
  }

  // epoll_wait until `wake_at` (CLOCK_MONOTONIC ns; k_never: no timeout). epoll_pwait2 takes the timeout
  // in ns: a job due in 0.3 ms is not started up to 1 ms late.
  int wait(epoll_event* events, int max, std::int64_t wake_at) {
    const std::int64_t wait_ns = wake_at == k_never ? -1 : std::max<std::int64_t>(0, wake_at - mono_ns());
    if (has_pwait2_) {
      timespec ts{static_cast<time_t>(wait_ns / 1'000'000'000), static_cast<long>(wait_ns % 1'000'000'000)};
      const int n = ::epoll_pwait2(epoll_fd_, events, max, wait_ns < 0 ? nullptr : &ts, nullptr);
      if (n >= 0 || errno != ENOSYS) return n;
      has_pwait2_ = false;  // kernels before 5.11
    }
    const int ms =
        wait_ns < 0 ? -1 : static_cast<int>(std::min<std::int64_t>((wait_ns + 999'999) / 1'000'000, 60'000));
    return ::epoll_wait(epoll_fd_, events, max, ms);
  }

  // When the thread must wake without an event: the next timeout, held job or poll; k_never if none.
  std::int64_t next_wake_ns() {
    while (!deadlines_.empty() && !deadline_is_live(deadlines_.top())) deadlines_.pop();
    std::int64_t at = k_never;
    if (!deadlines_.empty()) at = deadlines_.top().at_ns;
    if (!waiting_.empty()) at = std::min(at, waiting_.front().not_before_ns);
    if (!polled_.empty())
      at = std::min(at, mono_ns() + std::chrono::nanoseconds(options_.poll_interval).count());
    if (!parked_.empty() && has_timing_out_slot()) at = 0;  // a round's spawns ran out, slots did not
    return std::min(at, native_->next_deadline_ns());
  }

  bool deadline_is_live(const Deadline& d) const {
    if (d.slot >= slots_.size() || slots_[d.slot].serial != d.serial) return false;
    const Running& r = slots_[d.slot];
    switch (d.kind) {
      case DeadlineKind::timeout:
        return r.state == State::running;
      case DeadlineKind::watch_pipes:
        return r.state == State::running && !r.pipes_watched;
      case DeadlineKind::exit_grace:
        return r.state == State::exited;
    }
    return false;
  }

  void start(CheckJob& job, std::int64_t dequeued_us) {
    if (job.native != model::NativePlugin::none && !job.use_shell && start_native(job, dequeued_us)) {
      --spawns_this_round_;  // the callers counted a spawn; a native check is no spawn to throttle
      return;
    }
    if (job.timing_out && !has_timing_out_slot()) {
      parked_.push_back({dequeued_us, std::move(job)});
      return;
    }
    if (spawns_resume_ns_ != 0 && mono_ns() < spawns_resume_ns_) return hold(job, spawns_resume_ns_);
    CheckResult result;
    result.id = job.id;
    result.generation = job.generation;
    result.kind = job.kind;
    result.timing_out = job.timing_out;
    result.dequeued_us = dequeued_us;
    result.start_us = wall_us();
    const std::int64_t start_ns = mono_ns();
    SpawnedChild child;
    const SpawnReport report = spawner_.spawn(job, child);
    if (report.status != SpawnStatus::ok && is_shortage(report.error)) {
      // Out of fds, processes or memory (pipe2, clone or execve said so): no result, which would be a
      // false CRITICAL and a notification. This thread spawns nothing until the pause is over.
      spawns_resume_ns_ = start_ns + retry_pause_ns_;
      retry_pause_ns_ = std::min(retry_pause_ns_ * 2, k_longest_retry_pause_ns);
      warnings_.note_shortage(report.error);
      return hold(job, spawns_resume_ns_);
    }
    spawns_resume_ns_ = 0;
    retry_pause_ns_ = k_first_retry_pause_ns;
    if (report.status != SpawnStatus::ok) {
      result.spawn_errno = report.error;
      result.end_us = wall_us();
      if (report.status == SpawnStatus::exec_failed) {
        // What Naemon's child writes to stderr before _exit(errno) when execvp fails.
        result.outcome = Outcome::exec_failed;
        result.exit_code = report.error;
        const std::string_view file =
            job.use_shell || job.argv.empty() ? std::string_view("/bin/sh") : std::string_view(job.argv[0]);
        result.error_output = fmt::format("execvp({}, ...) failed. errno is {}: {}\n", file, report.error,
                                          std::strerror(report.error));
      } else {
        result.outcome = Outcome::spawn_failed;
      }
      done_.push_back(std::move(result));
      return;
    }

    std::uint32_t slot;
    if (free_.empty()) {
      slot = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back();
    } else {
      slot = free_.back();
      free_.pop_back();
    }
    Running& r = slots_[slot];
    r.state = State::running;
    r.serial = ++serial_;
    r.child = child;
    r.result = std::move(result);
    r.cap = job.output_cap_bytes;
    r.reaped = false;
    r.pipes_watched = false;
    r.timing_out = job.timing_out && timing_out_limit_ != 0;
    if (r.timing_out) ++timing_out_running_;
    // Most plugins exit within milliseconds, their output waiting in the pipes: then the pidfd alone
    // reports the end and both pipes are read once, which saves two epoll_ctl calls and a wakeup or two
    // per check. The pipes are watched only for a plugin still running after pipe_watch_delay (a pipe
    // holds 64 KiB: a plugin writing more waits for us at most that long).
    if (r.child.pidfd >= 0) {
      watch(r.child.pidfd, make_token(r.serial, slot, k_pidfd));
      deadlines_.push({start_ns + std::chrono::nanoseconds(options_.pipe_watch_delay).count(), slot, r.serial,
                       DeadlineKind::watch_pipes});
    } else {
      watch_pipes(slot);
      polled_.push_back(slot);
    }
    // Naemon's worker gives a job without a timeout 60 seconds.
    const std::int64_t timeout_ms = job.timeout_ms == 0 ? 60'000 : job.timeout_ms;
    deadlines_.push({start_ns + timeout_ms * 1'000'000, slot, r.serial, DeadlineKind::timeout});
  }

  void watch_pipes(std::uint32_t slot) {
    Running& r = slots_[slot];
    if (r.pipes_watched) return;
    r.pipes_watched = true;
    if (r.child.stdout_fd >= 0) watch(r.child.stdout_fd, make_token(r.serial, slot, k_stdout));
    if (r.child.stderr_fd >= 0) watch(r.child.stderr_fd, make_token(r.serial, slot, k_stderr));
  }

  void watch(int fd, std::uint64_t token) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = token;
    VEDETTE_CHECK_ERRNO(::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) == 0, "exec: epoll_ctl add");
  }

  // Reads up to `max_reads` chunks; closes `fd` (and so drops it from the epoll set) at EOF or error.
  void read_stream(Running& r, int& fd, std::string& text, bool& truncated, int max_reads) {
    for (int i = 0; fd >= 0 && i < max_reads; ++i) {
      const ssize_t n = ::read(fd, scratch_, sizeof scratch_);
      if (n > 0) {
        const std::size_t room = r.cap > text.size() ? r.cap - text.size() : 0;
        const std::size_t keep = std::min(room, static_cast<std::size_t>(n));
        text.append(scratch_, keep);
        if (keep < static_cast<std::size_t>(n)) truncated = true;
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      ::close(fd);  // EOF, or an error no retry would fix
      fd = -1;
    }
  }

  // wait4 rather than waitid(P_PIDFD) because it also returns the plugin's rusage. Safe by pid: an
  // unreaped child keeps its pid, and only this thread reaps it.
  void try_reap(std::uint32_t slot) {
    Running& r = slots_[slot];
    if (r.reaped) return;
    int status = 0;
    rusage usage{};
    const pid_t got = ::wait4(r.child.pid, &status, WNOHANG, &usage);
    if (got == 0) return;
    if (got < 0 && errno == EINTR) return;
    r.reaped = true;
    if (r.child.pidfd >= 0) {
      ::close(r.child.pidfd);
      r.child.pidfd = -1;
    } else {
      polled_.erase(std::find(polled_.begin(), polled_.end(), slot));
    }
    if (r.state == State::reaping) return release(slot);  // a timed-out job whose result already went out

    CheckResult& result = r.result;
    result.end_us = wall_us();
    if (got < 0) {
      // ECHILD: someone else in the process reaped it. Nothing is known about how it ended.
      result.outcome = Outcome::spawn_failed;
      result.spawn_errno = errno;
    } else if (WIFSIGNALED(status)) {
      result.outcome = Outcome::killed_by_signal;
      result.signal = WTERMSIG(status);
      result.core_dumped = WCOREDUMP(status);
    } else {
      result.outcome = Outcome::exited;
      result.exit_code = WEXITSTATUS(status);
    }
    result.plugin_user_us = timeval_us(usage.ru_utime);
    result.plugin_system_us = timeval_us(usage.ru_stime);
    r.state = State::exited;
    // Whatever the plugin wrote is in the pipes by now (its fds closed before it became a zombie); read
    // what is there. If a grandchild still holds a pipe, give it the exit grace, no more.
    read_stream(r, r.child.stdout_fd, result.output, result.output_truncated, k_reads_per_event);
    read_stream(r, r.child.stderr_fd, result.error_output, result.error_output_truncated, k_reads_per_event);
    if (r.child.stdout_fd >= 0 || r.child.stderr_fd >= 0) {
      watch_pipes(slot);
      deadlines_.push({mono_ns() + std::chrono::nanoseconds(options_.exit_grace).count(), slot, r.serial,
                       DeadlineKind::exit_grace});
    }
  }

  // After any event on a job: finish it if nothing more can come.
  void settle(std::uint32_t slot) {
    Running& r = slots_[slot];
    if (r.state == State::running && r.child.stdout_fd < 0 && r.child.stderr_fd < 0 && !r.reaped) {
      try_reap(slot);  // both pipes at EOF usually means the plugin just exited; skip waiting for the pidfd
    }
    if (r.state == State::exited && r.child.stdout_fd < 0 && r.child.stderr_fd < 0) finish(slot);
  }

  void finish(std::uint32_t slot) {
    Running& r = slots_[slot];
    done_.push_back(std::move(r.result));
    release(slot);
  }

  void release(std::uint32_t slot) {
    Running& r = slots_[slot];
    close_child_fds(r.child);
    r.result = CheckResult{};
    r.state = State::free;
    if (std::exchange(r.timing_out, false)) --timing_out_running_;  // start_parked() takes it up
    ++r.serial;  // invalidates tokens and deadlines still pointing here
    free_.push_back(slot);
  }

  void expire_deadlines(std::int64_t now) {
    while (!deadlines_.empty()) {
      const Deadline d = deadlines_.top();
      if (!deadline_is_live(d)) {
        deadlines_.pop();
        continue;
      }
      if (d.at_ns > now) return;
      deadlines_.pop();
      switch (d.kind) {
        case DeadlineKind::timeout:
          time_out(d.slot);
          break;
        case DeadlineKind::watch_pipes:
          watch_pipes(d.slot);
          break;
        case DeadlineKind::exit_grace: {
          // A grandchild still holds a pipe: keep what arrived, leave it running.
          Running& r = slots_[d.slot];
          read_stream(r, r.child.stdout_fd, r.result.output, r.result.output_truncated, k_reads_per_event);
          read_stream(r, r.child.stderr_fd, r.result.error_output, r.result.error_output_truncated,
                      k_reads_per_event);
          finish(d.slot);
          break;
        }
      }
    }
  }

  // Naemon's worker sends SIGKILL to the process group at once (no SIGTERM first) and reports the
  // timeout without waiting for the reap; so do we. The slot lives on until the child is reaped.
  void time_out(std::uint32_t slot) {
    Running& r = slots_[slot];
    ::kill(-r.child.pid, SIGKILL);
    CheckResult& result = r.result;
    result.outcome = Outcome::timed_out;
    result.end_us = wall_us();
    read_stream(r, r.child.stdout_fd, result.output, result.output_truncated, k_reads_per_event);
    read_stream(r, r.child.stderr_fd, result.error_output, result.error_output_truncated, k_reads_per_event);
    for (int* fd : {&r.child.stdout_fd, &r.child.stderr_fd}) {
      if (*fd >= 0) ::close(*fd);
      *fd = -1;
    }
    done_.push_back(std::move(result));
    r.result = CheckResult{};
    r.state = State::reaping;
    try_reap(slot);
  }

  void poll_children() {
    // try_reap may erase from polled_, so walk a copy.
    polled_copy_ = polled_;
    for (const std::uint32_t slot : polled_copy_) {
      const std::uint32_t serial = slots_[slot].serial;
      try_reap(slot);
      if (slots_[slot].serial == serial && slots_[slot].state != State::free) settle(slot);
    }
  }

  // The metrics' gauges, once per iteration before sleeping (not per job): this thread's change since the
  // last time, so the executor threads together add up to their sum.
  void publish_depth(std::int64_t waiting, std::int64_t running) {
    metrics::CoreMetrics& m = metrics::core_metrics();
    if (waiting != published_waiting_)
      m.executor_waiting.add(waiting - std::exchange(published_waiting_, waiting));
    if (running != published_running_)
      m.executor_running.add(running - std::exchange(published_running_, running));
  }

  // A native check (native/native_runner.hpp) in this thread's epoll; false if its arguments are not run
  // natively, so the process runs instead. Its result waits in native_results_[ticket].
  bool start_native(const CheckJob& job, std::int64_t dequeued_us) {
    std::uint64_t ticket;
    if (native_free_.empty()) {
      ticket = native_results_.size();
      native_results_.emplace_back();
    } else {
      ticket = native_free_.back();
      native_free_.pop_back();
    }
    CheckResult& result = native_results_[ticket];
    result = CheckResult{};
    result.id = job.id;
    result.generation = job.generation;
    result.kind = job.kind;
    result.timing_out = job.timing_out;  // the core counts them back; a native one needs no slot
    result.dequeued_us = dequeued_us;
    const std::int64_t timeout_ms = job.timeout_ms == 0 ? 60'000 : job.timeout_ms;
    if (native_->start(job.native, job.argv, mono_ns() + timeout_ms * 1'000'000, ticket)) return true;
    native_free_.push_back(ticket);
    return false;
  }

  void take_native() {
    for (native::NativeDone& d : native_->finished()) {
      CheckResult& result = native_results_[d.ticket];
      result.start_us = d.start_us;
      result.end_us = d.end_us;
      result.native = true;
      if (d.killed) {
        result.outcome = Outcome::timed_out;
      } else {
        result.outcome = Outcome::exited;
        result.exit_code = d.run.exit_code;
        result.output = std::move(d.run.output);
      }
      done_.push_back(std::move(result));
      native_free_.push_back(d.ticket);
    }
    native_->finished().clear();
  }

  void shut_down() {
    publish_depth(0, 0);
    native_->abort_all();
    for (std::uint32_t slot = 0; slot < slots_.size(); ++slot) {
      Running& r = slots_[slot];
      if (r.state == State::free) continue;
      if (!r.reaped) {
        // A plugin that already exited (State::exited) may have left a daemon behind on purpose; only
        // groups whose leader still runs are killed, as at a timeout.
        if (r.state == State::running || r.state == State::reaping) ::kill(-r.child.pid, SIGKILL);
        int status;
        while (::waitpid(r.child.pid, &status, 0) < 0 && errno == EINTR) {
        }
      }
      close_child_fds(r.child);
      r.state = State::free;
    }
    done_.clear();
    waiting_.clear();
    parked_.clear();
    std::lock_guard lock(inbox_mutex_);
    inbox_.clear();
    cpu_at_exit_ns_.store(cpu_time().count(), std::memory_order_release);
    exited_.store(true, std::memory_order_release);
  }

  const Spawner& spawner_;
  ResultQueue& results_;
  Warnings& warnings_;
  const ExecutorOptions options_;
  const unsigned timing_out_limit_;  // 0: no bound
  int epoll_fd_;
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
  bool has_pwait2_ = true;
  char scratch_[k_read_chunk];

  std::thread thread_;  // last: started once everything above is constructed
};

Executor::Executor(ResultQueue& results, ExecutorOptions options)
    : spawner_(std::make_unique<Spawner>(SpawnerOptions{options.use_pidfd, options.spawn_method})),
      warnings_(std::make_unique<Warnings>()),
      resolver_(std::make_unique<native::Resolver>()) {
  const unsigned n = std::max(1u, options.threads);
  workers_.reserve(n);
  // Jobs are dealt to the threads in turn, so each holds its share of the slots; a thread without one
  // would keep its timing-out jobs queued for ever.
  const unsigned slots = options.timing_out_slots;
  timing_out_slots_ = slots == 0 ? 0 : std::max(slots, n);
  for (unsigned i = 0; i < n; ++i) {
    const unsigned share = slots == 0 ? 0 : std::max(1u, slots / n + (i < slots % n ? 1u : 0u));
    workers_.push_back(
        std::make_unique<Worker>(i, *spawner_, results, *warnings_, options, share, *resolver_));
  }
}

Executor::~Executor() {
  shutdown();
}

bool Executor::submit(CheckJob&& job) {
  if (!accepting_.load(std::memory_order_acquire)) return false;
  const unsigned i = next_worker_.fetch_add(1, std::memory_order_relaxed) % workers_.size();
  workers_[i]->enqueue(std::make_move_iterator(&job), std::make_move_iterator(&job + 1));
  return true;
}

std::size_t Executor::submit_batch(std::vector<CheckJob>& jobs) {
  if (!accepting_.load(std::memory_order_acquire)) {
    jobs.clear();
    return 0;
  }
  const std::size_t total = jobs.size();
  const std::size_t n = workers_.size();
  // Dealt out in turn: the batch is in due order, so a contiguous slice per thread would leave one thread
  // spawning (blocked in each vfork) while the others wait for their part of the window.
  std::vector<std::vector<CheckJob>> dealt(n);
  const unsigned first = next_worker_.fetch_add(1, std::memory_order_relaxed);
  for (std::size_t i = 0; i < total; ++i) dealt[(first + i) % n].push_back(std::move(jobs[i]));
  for (std::size_t w = 0; w < n; ++w) {
    if (!dealt[w].empty())
      workers_[w]->enqueue(std::make_move_iterator(dealt[w].begin()),
                           std::make_move_iterator(dealt[w].end()));
  }
  jobs.clear();
  return total;
}

void Executor::cancel_held() {
  for (auto& worker : workers_) worker->cancel_held();
}

void Executor::shutdown() {
  accepting_.store(false, std::memory_order_release);
  for (auto& worker : workers_) worker->stop();
  // Before the workers go: its thread may still be answering into their inboxes.
  resolver_.reset();
}

bool Executor::has_warnings() const {
  return warnings_->pending();
}

std::vector<std::string> Executor::take_warnings() {
  return warnings_->take();
}

std::chrono::nanoseconds Executor::cpu_time() const {
  std::chrono::nanoseconds total{0};
  for (const auto& worker : workers_) total += worker->cpu_time();
  return total;
}

}  // namespace vedette::exec
