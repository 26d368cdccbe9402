// Executor threads ("exec-N") that run CheckJobs and push CheckResults into a ResultQueue. submit() may be
// called from any thread (the core thread, in practice) and never waits for a spawn: it queues the job to
// one executor thread and wakes it. Each thread holds jobs handed over before their start time
// (CheckJob::not_before_ns) until then, spawns, watches its children's pipes and pidfds in its own epoll,
// enforces timeouts, and batches its finished results into one ResultQueue push per iteration.
//
//   ResultQueue results;
//   Executor executor(results, {.threads = 2});
//   (void)executor.submit(std::move(job));   // later, on results.fd() readable: results.drain(batch)
#pragma once

#include "exec/check_job.hpp"
#include "exec/spawner.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace vedette::exec {

class ResultQueue;
}  // namespace vedette::exec
namespace vedette::native {
class Resolver;
}  // namespace vedette::native
namespace vedette::exec {

struct ExecutorOptions {
  unsigned threads = 2;
  // After the plugin itself has exited, how long its pipes may stay open (held by a grandchild it left
  // behind) before the result goes out with the output read so far. Naemon does not wait at all; a short
  // grace catches output a grandchild writes just after its parent exits.
  std::chrono::milliseconds exit_grace{10};
  // Off only to test the fallback: without pidfds, children are polled with wait4(WNOHANG).
  bool use_pidfd = true;
  SpawnMethod spawn_method = SpawnMethod::clone_vfork;  // see spawner.hpp
  std::chrono::milliseconds poll_interval{2};           // fallback only
  // A plugin still running this long after its start gets its pipes watched; one that exits sooner is read
  // once, when its pidfd reports the exit (with pidfds only).
  std::chrono::milliseconds pipe_watch_delay{10};
  // Jobs whose start times lie this close together start in the same wakeup (the later ones this much
  // early at most).
  std::chrono::microseconds start_slack{500};
  // How many jobs marked CheckJob::timing_out may run at once (from their spawn until they are reaped),
  // shared out over the threads, at least one each; the others wait in their thread's queue, in the order
  // they fell due, for one of them to be reaped. 0: no bound.
  unsigned timing_out_slots = 0;
};

class Executor {
 public:
  // `results` must outlive the Executor. Starts the threads.
  explicit Executor(ResultQueue& results, ExecutorOptions options = {});
  ~Executor();  // shutdown()
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Any thread. False once shutdown() has begun (the job is dropped, no result follows). Otherwise
  // exactly one CheckResult with the job's id and generation will be pushed, unless shutdown() comes first.
  [[nodiscard]] bool submit(CheckJob&& job);
  // Any thread. Moves every job out of `jobs` (left empty), spread over the threads with one lock and at
  // most one wakeup per thread. Returns how many were accepted (all or none).
  std::size_t submit_batch(std::vector<CheckJob>& jobs);

  // Any thread. Every job not yet started (queued, or held for its start time) comes back at once as a
  // result with Outcome::cancelled; running plugins go on. New jobs are still accepted.
  void cancel_held();

  // Stops accepting jobs, SIGKILLs the process group of every plugin still running, reaps them and joins
  // the threads. Results not yet pushed are dropped; queued jobs are dropped. Idempotent; not concurrent
  // with itself.
  void shutdown();

  // A spawn that fails for want of fds, processes or memory (EMFILE, ENFILE, EAGAIN, ENOMEM from pipe2,
  // clone or execve) gives no result: the job is held and tried again, after 0.1 s doubling up to 5 s
  // while the failures go on, and one warning a minute says so. Any thread; the core logs them.
  [[nodiscard]] bool has_warnings() const;
  [[nodiscard]] std::vector<std::string> take_warnings();

  // Any thread: CPU time consumed so far by the executor threads (plugins excluded).
  [[nodiscard]] std::chrono::nanoseconds cpu_time() const;
  [[nodiscard]] unsigned thread_count() const { return static_cast<unsigned>(workers_.size()); }
  // The bound actually applied to CheckJob::timing_out jobs (timing_out_slots, raised to one per
  // thread); 0: none.
  [[nodiscard]] unsigned timing_out_slots() const { return timing_out_slots_; }

 private:
  class Worker;
  class Warnings;

  std::unique_ptr<Spawner> spawner_;
  std::unique_ptr<Warnings> warnings_;
  // Host names of native checks. Workers hold a reference; the constructor's body makes them after it.
  std::unique_ptr<native::Resolver> resolver_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::atomic<unsigned> next_worker_{0};
  std::atomic<bool> accepting_{true};
  unsigned timing_out_slots_ = 0;
};

}  // namespace vedette::exec
