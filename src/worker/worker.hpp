// vedette-worker's engine: takes Mod-Gearman jobs off gearmand, runs them with the core's executor
// (exec::Executor: no shell unless needed, process groups, timeouts, output caps) and sends results of host
// and service checks to each job's result queue. The "gearman-jobs" thread works the queues as a gearman
// worker, at most max_jobs jobs running at once; the "gearman-send" thread turns finished plugins into
// results and sends them. Both reconnect after a gearmand outage, logging it once. Construct and stop from
// one thread; stats() from any.
//
//   Worker worker({.servers = options.servers, .codec = codec, .queues = gearman::worker_queues(options)});
//   ... wait for SIGTERM ...;  worker.stop();
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
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

namespace vedette::worker {

struct WorkerOptions {
  std::vector<gearman::Server> servers;
  gearman::Codec codec = gearman::Codec::clear();
  std::vector<std::string> queues;  // gearman::worker_queues()
  JobSettings settings;
  unsigned max_jobs = 20;         // plugins running at once (Mod-Gearman's max-worker)
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
  std::uint64_t running = 0;       // plugins running now
};

class Worker {
 public:
  explicit Worker(WorkerOptions options);  // starts the executor and both threads
  ~Worker();                               // stop()
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Stops taking jobs, lets the send thread go, kills plugins still running (their results are lost, as
  // when Mod-Gearman's worker stops) and joins. Idempotent.
  void stop();

  [[nodiscard]] WorkerStats stats() const;

 private:
  void jobs_loop();
  void send_loop();
  void take_job(std::string_view queue, std::string_view workload);
  void log(std::string line) const;
  bool wait_before_retry();

  const WorkerOptions options_;
  exec::ResultQueue finished_;
  exec::Executor executor_;
  loop::Wakeup send_wakeup_;  // stop, or a result made without running a plugin

  mutable std::mutex mutex_;
  std::condition_variable room_cv_;  // the jobs thread waits for running < max_jobs
  std::condition_variable stop_cv_;
  std::unordered_map<std::uint32_t, gearman::Job> running_;      // by CheckJob id; guarded by mutex_
  std::vector<std::pair<gearman::Job, gearman::Result>> ready_;  // sent without running; guarded
  std::uint32_t next_id_ = 1;                                    // guarded by mutex_
  bool stopping_ = false;                                        // guarded by mutex_

  std::atomic<std::uint64_t> jobs_{0};
  std::atomic<std::uint64_t> bad_jobs_{0};
  std::atomic<std::uint64_t> too_old_{0};
  std::atomic<std::uint64_t> results_sent_{0};

  gearman::WorkerSession session_;  // the jobs thread's gearman worker
  std::thread jobs_thread_;
  std::thread send_thread_;
};

}  // namespace vedette::worker
