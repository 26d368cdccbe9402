// What both ends of the wire share in talking to gearmand: the server list as text, a client that sends
// background jobs, and WorkerSession, a gearman worker that serves some functions through outages and can
// be stopped from any thread. The core's result thread (client.hpp) and each of vedette-worker's job
// threads (worker/worker.hpp) are one WorkerSession.
//
//   WorkerSession session(servers, {"check_results"}, "", io_timeout, retry_interval);
//   std::thread t([&] { session.run(hooks); });  // until stop()
//   session.stop();  t.join();
#pragma once

#include "gearman/routing.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <libgearman-1.0/gearman.h>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::gearman {

// "host:port,host:port", as the log lines name the servers.
[[nodiscard]] std::string describe(const std::vector<Server>& servers);
// CLOCK_REALTIME in µs since the epoch: the times payloads carry.
[[nodiscard]] std::int64_t wall_now_us();

struct ClientFree {
  void operator()(gearman_client_st* c) const { gearman_client_free(c); }
};
using Client = std::unique_ptr<gearman_client_st, ClientFree>;
// A client for `servers`, each round trip bounded by `io_timeout`; nullptr when libgearman cannot make one.
// libgearman's client is not reliable after an error: make a new one then (Mod-Gearman does the same).
[[nodiscard]] Client make_client(const std::vector<Server>& servers, std::chrono::milliseconds io_timeout);
// One background job; an empty `unique` sends none.
gearman_return_t send_background(gearman_client_st* client, const std::string& queue,
                                 const std::string& unique, Priority priority, std::string_view payload);

// What becomes of a job once on_job returns.
struct JobReply {
  std::string data;  // the job's result (mostly empty: Mod-Gearman's jobs are background jobs)
  // Not done: the job is not completed and the connection is dropped, so gearmand gives the job to another
  // worker (libgearman's GEARMAN_LOST_CONNECTION from a worker function). For a worker stopping before
  // its check's result was sent.
  bool hand_back = false;
};

struct SessionHooks {
  // Each job: its function (queue) name and workload. The job is completed (WORK_COMPLETE) when it
  // returns, unless it hands the job back. Called on run()'s thread.
  std::function<JobReply(std::string_view function, std::string_view workload)> on_job;
  // The connection failed: once per outage, also when gearmand is not there at the first attempt.
  std::function<void(const std::string& error)> on_down;
  // Connected again after an outage on_down reported.
  std::function<void()> on_up;
  // Before each job is asked for: blocks until another may be taken. False makes run() return (stopping).
  std::function<bool()> wait_for_room;
};

class WorkerSession {
 public:
  WorkerSession(std::vector<Server> servers, std::vector<std::string> functions, std::string identifier,
                std::chrono::milliseconds io_timeout, std::chrono::milliseconds retry_interval);
  WorkerSession(const WorkerSession&) = delete;
  WorkerSession& operator=(const WorkerSession&) = delete;

  // Connects, registers the functions and serves jobs until stop(); after a failure it reconnects every
  // retry_interval. One thread.
  void run(const SessionHooks& hooks);
  // Any thread, idempotent: wakes run() through libgearman's shutdown pipe and makes it return.
  void stop();
  // Registered with gearmand (checked with an echo) and not failed since.
  [[nodiscard]] bool connected() const { return connected_.load(std::memory_order_relaxed); }

 private:
  bool stopping() const;
  bool wait_before_retry();  // false when stop() came first

  const std::vector<Server> servers_;
  const std::vector<std::string> functions_;
  const std::string identifier_;
  const std::chrono::milliseconds io_timeout_;
  const std::chrono::milliseconds retry_interval_;

  mutable std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;  // guarded by mutex_
  // The live worker's shutdown pipe (gearman_worker_id), -1 without one. Guarded by mutex_, so stop() never
  // writes to a pipe run() has closed.
  int wake_read_fd_ = -1;
  int wake_write_fd_ = -1;
  std::atomic<bool> connected_{false};
};

}  // namespace vedette::gearman
