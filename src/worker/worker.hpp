// vedette-worker's engine: takes Mod-Gearman jobs off gearmand, runs them with the core's executor
// (exec::Executor: no shell unless needed, process groups, timeouts, output caps) and sends results of host
// and service checks to each job's result queue. As the C worker's processes, each of max_jobs "gearman-job"
// threads holds its own gearmand connection and one job at a time, and completes the job only once its
// result was sent: a worker that dies (SIGKILL, OOM, a lost machine) leaves its running jobs to gearmand,
// which gives them to another worker. The "gearman-done" thread hands finished plugins to their threads.
// All reconnect after a gearmand outage, logging it once. Construct and stop from one thread; stats() from
// any.
//
//   Worker worker({.servers = options.servers, .codec = codec, .queues = gearman::worker_queues(options)});
//   ... wait for SIGTERM ...;  worker.stop(worker.stop_grace());
#pragma once

#include "exec/executor.hpp"
#include "exec/result_queue.hpp"
#include "gearman/connection.hpp"
#include "gearman/payload.hpp"
#include "gearman/routing.hpp"
#include "gearman/transport.hpp"
#include "loop/wakeup.hpp"
#include "worker/job_result.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace vedette::worker {

struct WorkerOptions {
  std::vector<gearman::Server> servers;
  gearman::Codec codec = gearman::Codec::clear();
  std::vector<std::string> queues;  // gearman::worker_queues()
  JobSettings settings;
  unsigned max_jobs = 20;         // plugins running at once (Mod-Gearman's max-worker): one thread each
  unsigned executor_threads = 2;  // threads that spawn and watch them
  std::chrono::milliseconds io_timeout{5000};
  std::chrono::milliseconds retry_interval{1000};
  // A log line ("gearman: ..."); called on the worker's threads, must be thread-safe.
  std::function<void(std::string_view)> log;
};

struct WorkerStats {
  std::uint64_t jobs = 0;          // jobs taken
  std::uint64_t bad_jobs = 0;      // dropped: not decodable (wrong key?) or no command
  std::uint64_t too_old = 0;       // answered "(Could Not Start Check In Time)" without running
  std::uint64_t results_sent = 0;  // results gearmand accepted
  std::uint64_t handed_back = 0;   // jobs given back to gearmand unfinished (stop() ran out of grace)
  std::uint64_t running = 0;       // jobs being worked on now
};

class Worker {
 public:
  explicit Worker(WorkerOptions options);  // starts the executor and the threads
  ~Worker();                               // stop() without grace
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Takes no more jobs. Jobs being worked on get `grace` to finish and send their results; then the plugins
  // still running are killed and their jobs handed back to gearmand unfinished, so another worker runs
  // them. Idempotent.
  void stop(std::chrono::milliseconds grace = std::chrono::milliseconds::zero());
  // Enough for every running check to end at its timeout and its result to be sent: the job timeout plus
  // two round trips to gearmand.
  [[nodiscard]] std::chrono::milliseconds stop_grace() const;

  [[nodiscard]] WorkerStats stats() const;

 private:
  // One job at a time on its own connection, as one C worker process.
  struct Slot {
    std::unique_ptr<gearman::WorkerSession> session;
    gearman::Client client;                  // sends this slot's results; its thread only
    std::uint32_t generation = 0;            // of the plugin running; guarded by mutex_
    std::optional<exec::CheckResult> done;   // the plugin's result; guarded by mutex_
    std::thread thread;
  };

  void slot_loop(std::uint32_t index);
  gearman::JobReply work(std::uint32_t index, std::string_view queue, std::string_view workload);
  // Blocks until gearmand took the result, retrying through an outage; false when stop() gave up first.
  bool send(Slot& slot, const gearman::Job& job, const gearman::Result& result);
  void done_loop();
  void log(std::string line) const;
  bool wait_before_retry();  // false once stop() gave up on running jobs

  const WorkerOptions options_;
  exec::ResultQueue finished_;
  exec::Executor executor_;
  loop::Wakeup done_wakeup_;  // the done thread: stop

  mutable std::mutex mutex_;
  std::condition_variable done_cv_;  // a plugin finished, or stop() gave up
  std::condition_variable idle_cv_;  // a slot finished its job
  std::condition_variable stop_cv_;  // stop() gave up: retries end
  std::vector<std::unique_ptr<Slot>> slots_;
  std::size_t busy_ = 0;   // slots working on a job; guarded by mutex_
  bool stopping_ = false;  // no more jobs; guarded by mutex_
  bool giving_up_ = false;  // the grace is over: hand jobs back; guarded by mutex_
  bool stopped_ = false;    // stop() finished; guarded by mutex_

  std::atomic<std::uint64_t> jobs_{0};
  std::atomic<std::uint64_t> bad_jobs_{0};
  std::atomic<std::uint64_t> too_old_{0};
  std::atomic<std::uint64_t> results_sent_{0};
  std::atomic<std::uint64_t> handed_back_{0};
  std::atomic<bool> send_down_{false};  // an outage of sending results was logged

  std::thread done_thread_;
};

}  // namespace vedette::worker
