// What one executor thread runs (Executor::Worker, executor_thread_internal.hpp): its loop, one epoll
// wait per round; the jobs it holds until their start time (or a timing-out slot, or the end of a
// resources shortage); the children it spawns, whose pipes it reads, whose exit it reaps and whose group it
// kills at their timeout; and native checks in the same epoll. All of it is the per-check path and this
// thread's alone. Every member function here but run() is defined `inline`, as it was in the class body,
// and only run() and these call them: the compiler inlines them into the loop as it did when the whole
// Executor was one file. How the threads are started, fed and stopped is executor.cpp.
#include "base/check.hpp"
#include "exec/executor_thread_internal.hpp"
#include "exec/result_queue.hpp"
#include "loop/raw_time.hpp"
#include "metrics/core_metrics.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <signal.h>
#include <string_view>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>

namespace vedette::exec {
namespace {

constexpr auto& mono_ns = loop::raw_mono_ns;  // loop/raw_time.hpp, by their short local names
constexpr auto& wall_us = loop::raw_wall_us;

std::int64_t timeval_us(const timeval& tv) {
  return static_cast<std::int64_t>(tv.tv_sec) * 1'000'000 + tv.tv_usec;
}

std::uint64_t make_token(std::uint32_t serial, std::uint32_t slot, Stream stream) {
  return (static_cast<std::uint64_t>(serial) << 32) | (static_cast<std::uint64_t>(slot) << 2) | stream;
}

// Spawns per pass of the thread's loop. Behind schedule (more checks due than the machine can start), a
// thread that started every due job in one go would not reap any child meanwhile: zombies, pipes and
// runnable processes pile up, each spawn costs more, and throughput collapsed to half the machine's
// rate (bench/perfbench/max_rate.sh). Between rounds it reaps what finished.
constexpr int k_spawns_per_round = 8;

bool is_shortage(int error) {
  return error == EMFILE || error == ENFILE || error == EAGAIN || error == ENOMEM;
}

}  // namespace

// --- The loop, and the jobs not started yet

void Executor::Worker::run() {
  std::vector<CheckJob> jobs;
  loop::Epoll::Event events[64];
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
    const int n = wait(events, wake_at);
    spawns_this_round_ = 0;
    VEDETTE_CHECK_ERRNO(n >= 0 || errno == EINTR, "exec: epoll_wait");
    for (int i = 0; i < n; ++i) {
      const std::uint64_t token = events[i].token;
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

// cancel_held(): everything queued or held comes back as cancelled.
inline void Executor::Worker::cancel_waiting() {
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
inline void Executor::Worker::start_or_hold(std::vector<CheckJob>& jobs) {
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

inline void Executor::Worker::hold(CheckJob& job, std::int64_t until_ns) {
  waiting_.push_back({until_ns, next_order_++, std::move(job)});
  std::push_heap(waiting_.begin(), waiting_.end(), std::greater<>{});
}

// Starts the held jobs whose time has come (within the start slack), earliest first, up to this round's
// spawns; the rest wait for the next round, which comes without sleeping (next_wake_ns()).
inline void Executor::Worker::start_waiting(std::int64_t now) {
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
inline void Executor::Worker::start_parked() {
  while (!parked_.empty() && has_timing_out_slot() && spawns_this_round_ < k_spawns_per_round) {
    ++spawns_this_round_;
    Parked p = std::move(parked_.front());
    parked_.pop_front();
    start(p.job, p.dequeued_us);
  }
}

// Waits for events until `wake_at` (CLOCK_MONOTONIC ns; k_never: no timeout), to the ns where the kernel
// allows (loop/epoll.hpp): a job due in 0.3 ms is not started up to 1 ms late.
inline int Executor::Worker::wait(std::span<loop::Epoll::Event> events, std::int64_t wake_at) {
  const std::int64_t wait_ns = wake_at == k_never ? -1 : std::max<std::int64_t>(0, wake_at - mono_ns());
  return epoll_.wait(events, wait_ns);
}

// When the thread must wake without an event: the next timeout, held job or poll; k_never if none.
inline std::int64_t Executor::Worker::next_wake_ns() {
  while (!deadlines_.empty() && !deadline_is_live(deadlines_.top())) deadlines_.pop();
  std::int64_t at = k_never;
  if (!deadlines_.empty()) at = deadlines_.top().at_ns;
  if (!waiting_.empty()) at = std::min(at, waiting_.front().not_before_ns);
  if (!polled_.empty())
    at = std::min(at, mono_ns() + std::chrono::nanoseconds(options_.poll_interval).count());
  if (!parked_.empty() && has_timing_out_slot()) at = 0;  // a round's spawns ran out, slots did not
  return std::min(at, native_->next_deadline_ns());
}

inline bool Executor::Worker::deadline_is_live(const Deadline& d) const {
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

// --- The children, from their spawn to their reap

inline void Executor::Worker::start(CheckJob& job, std::int64_t dequeued_us) {
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

inline void Executor::Worker::watch_pipes(std::uint32_t slot) {
  Running& r = slots_[slot];
  if (r.pipes_watched) return;
  r.pipes_watched = true;
  if (r.child.stdout_fd >= 0) watch(r.child.stdout_fd, make_token(r.serial, slot, k_stdout));
  if (r.child.stderr_fd >= 0) watch(r.child.stderr_fd, make_token(r.serial, slot, k_stderr));
}

inline void Executor::Worker::watch(int fd, std::uint64_t token) {
  VEDETTE_CHECK_ERRNO(epoll_.add(fd, loop::Epoll::readable, token) == 0, "exec: epoll_ctl add");
}

// Reads up to `max_reads` chunks; closes `fd` (and so drops it from the epoll set) at EOF or error.
inline void Executor::Worker::read_stream(Running& r, int& fd, std::string& text, bool& truncated,
                                          int max_reads) {
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
inline void Executor::Worker::try_reap(std::uint32_t slot) {
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
inline void Executor::Worker::settle(std::uint32_t slot) {
  Running& r = slots_[slot];
  if (r.state == State::running && r.child.stdout_fd < 0 && r.child.stderr_fd < 0 && !r.reaped) {
    try_reap(slot);  // both pipes at EOF usually means the plugin just exited; skip waiting for the pidfd
  }
  if (r.state == State::exited && r.child.stdout_fd < 0 && r.child.stderr_fd < 0) finish(slot);
}

inline void Executor::Worker::finish(std::uint32_t slot) {
  Running& r = slots_[slot];
  done_.push_back(std::move(r.result));
  release(slot);
}

inline void Executor::Worker::release(std::uint32_t slot) {
  Running& r = slots_[slot];
  close_child_fds(r.child);
  r.result = CheckResult{};
  r.state = State::free;
  if (std::exchange(r.timing_out, false)) --timing_out_running_;  // start_parked() takes it up
  ++r.serial;  // invalidates tokens and deadlines still pointing here
  free_.push_back(slot);
}

inline void Executor::Worker::expire_deadlines(std::int64_t now) {
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
inline void Executor::Worker::time_out(std::uint32_t slot) {
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

inline void Executor::Worker::poll_children() {
  // try_reap may erase from polled_, so walk a copy.
  polled_copy_ = polled_;
  for (const std::uint32_t slot : polled_copy_) {
    const std::uint32_t serial = slots_[slot].serial;
    try_reap(slot);
    if (slots_[slot].serial == serial && slots_[slot].state != State::free) settle(slot);
  }
}

// --- Native checks

// A native check (native/native_runner.hpp) in this thread's epoll; false if its arguments are not run
// natively, so the process runs instead. Its result waits in native_results_[ticket].
inline bool Executor::Worker::start_native(const CheckJob& job, std::int64_t dequeued_us) {
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

inline void Executor::Worker::take_native() {
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

// --- The gauges, and the thread's end

// The metrics' gauges, once per iteration before sleeping (not per job): this thread's change since the
// last time, so the executor threads together add up to their sum.
inline void Executor::Worker::publish_depth(std::int64_t waiting, std::int64_t running) {
  metrics::CoreMetrics& m = metrics::core_metrics();
  if (waiting != published_waiting_)
    m.executor_waiting.add(waiting - std::exchange(published_waiting_, waiting));
  if (running != published_running_)
    m.executor_running.add(running - std::exchange(published_running_, running));
}

inline void Executor::Worker::shut_down() {
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

}  // namespace vedette::exec
