// GearmanLink: the core's connection to gearmand, owning two threads. submit() queues a job and returns at
// once (any thread); the "gearman-submit" thread formats, encrypts and sends it as a background job. The
// "gearman-results" thread works the result queue as a gearman worker, decodes each result and hands it
// over; the core drains results (and jobs the link gave up on) when fd() is readable, as with
// exec::ResultQueue. After a gearmand outage both threads reconnect on their own, reporting the outage
// once and the recovery once through on_event.
//
//   GearmanLink link({.servers = options.servers, .codec = Codec::encrypted(options.key)});
//   if (!link.submit(std::move(submission))) run_locally(job);  // queue full or stopping: back-pressure
//   // core loop, link.fd() readable:
//   link.drain(results, unsent);  // results: apply; unsent: run locally or report UNKNOWN
#pragma once

#include "gearman/connection.hpp"
#include "gearman/payload.hpp"
#include "gearman/routing.hpp"
#include "gearman/transport.hpp"
#include "loop/wakeup.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace vedette::gearman {

// gearmand's limits on a function (queue) name and a unique id (GEARMAN_FUNCTION_MAX_SIZE - 1,
// GEARMAN_MAX_UNIQUE_SIZE - 1: libgearman cuts longer ones).
inline constexpr std::size_t k_max_queue_name = 511;
inline constexpr std::size_t k_max_unique = 63;

// One job for gearmand. `tag` is the core's own (check id and generation, say): the link never reads it
// and hands it back with the job if the job could not be sent.
struct Submission {
  std::string queue;   // from select_queue()
  std::string unique;  // unique_key() with use_uniq_jobs; empty: none
  Priority priority = Priority::normal;
  Job job;
  // When set, sent (sealed) instead of format_job(job): a perfdata queue's payload, the object's template
  // with its macros expanded, as the NEB module sends it.
  std::string text;
  std::uint64_t tag = 0;
  // Not sent before this time (the core hands checks over a little before they are due); the epoch:
  // at once.
  std::chrono::steady_clock::time_point not_before{};
};

struct IncomingResult {
  Result result;
  std::int64_t received_us = 0;  // wall clock when the link took it off the queue (for latency)
};

enum class LinkEventKind : std::uint8_t {
  submit_down,   // a job could not be sent: gearmand unreachable (once per outage)
  submit_up,     // sending again after an outage
  results_down,  // the result worker lost gearmand (once per outage, or at start when it is not there)
  results_up,    // the result worker is registered again
  job_refused,   // gearmand is up but refused a job; it comes back through drain()
  bad_result,    // a result that does not decode was dropped (at most once a minute, with a count)
  // A result was applied with a field that did not parse left at its default (at most once a minute, with
  // a count): the C worker's garbage core_start_time, say.
  malformed_field,
};

struct LinkEvent {
  LinkEventKind kind;
  std::string message;  // a log line: "gearman: ..."
};

struct LinkOptions {
  std::vector<Server> servers;
  Codec codec = Codec::clear();
  std::string result_queue = std::string(k_default_result_queue);  // empty: no result thread
  std::size_t max_queued_jobs = 65536;  // submit() refuses beyond this many unsent jobs
  // use_uniq_jobs: a host or service job without a unique id gets unique_key() of its names, made here
  // rather than by the caller (the core thread).
  bool unique_check_jobs = false;
  std::size_t max_queued_results = 65536;  // the result thread takes no more jobs until the core drains
  // Bounds each gearmand round trip and connect (gearman_connection_timeout), and so how long stop() can
  // wait for a thread stuck on a server that does not answer.
  std::chrono::milliseconds io_timeout{5000};
  std::chrono::milliseconds retry_interval{1000};  // between reconnect attempts
  // During an outage, a job queued this long comes back through drain() instead of waiting on; 0 keeps
  // every job until gearmand returns.
  std::chrono::milliseconds give_up_after{30000};
  // Results set a flag that has_results() reads instead of making fd() readable: for an owner that looks
  // on every loop iteration anyway, as the core does with exec::ResultQueue (a wakeup per result doubled
  // the core's CPU per check). Unsent jobs and events still make fd() readable.
  bool poll_results = false;
  // Called on the link's threads; must be thread-safe and quick (queue a log line, say).
  std::function<void(const LinkEvent&)> on_event;
};

struct LinkStats {
  std::uint64_t sent = 0;           // jobs gearmand accepted
  std::uint64_t send_failures = 0;  // attempts that failed (a job may fail several times)
  std::uint64_t unsent = 0;         // jobs handed back through drain()
  std::uint64_t results = 0;        // results decoded and queued for the core
  std::uint64_t bad_results = 0;    // results dropped: not decodable
  std::uint64_t malformed = 0;      // results taken with a field defaulted (Result::malformed)
  std::size_t queued_jobs = 0;      // waiting to be sent, now
  bool submit_connected = true;     // false from a failed send until the next success
  bool results_connected = false;   // the result worker is registered with gearmand
};

class GearmanLink {
 public:
  // Starts the threads; they connect lazily. Fatal (base/check.hpp) when the eventfd or a thread cannot be
  // made.
  explicit GearmanLink(LinkOptions options);
  ~GearmanLink();  // stop()
  GearmanLink(const GearmanLink&) = delete;
  GearmanLink& operator=(const GearmanLink&) = delete;

  // Any thread; never waits for gearmand. False, and the submission is left untouched, when the queue is
  // full, the link is stopping, or the queue name or unique id is empty/too long for gearmand.
  [[nodiscard]] bool submit(Submission& submission);
  [[nodiscard]] bool submit(Submission&& submission) { return submit(submission); }

  // Readable when results or unsent jobs wait, or an event was reported (an eventfd, one write per batch).
  [[nodiscard]] int fd() const { return wakeup_.fd(); }
  // poll_results: whether drain() would find results (one atomic load).
  [[nodiscard]] bool has_results() const { return results_pending_.load(std::memory_order_acquire); }
  // One thread (the core's). Replaces both vectors with everything waiting, oldest first.
  void drain(std::vector<IncomingResult>& results, std::vector<Submission>& unsent);

  [[nodiscard]] LinkStats stats() const;

  // Joins both threads: the result worker is woken through libgearman's shutdown pipe, a send in progress
  // finishes or times out (io_timeout). Jobs not yet sent are dropped. Idempotent; not concurrent with
  // itself.
  void stop();

 private:
  struct Pending {
    Submission submission;
    std::chrono::steady_clock::time_point queued_at;
  };

  void submit_loop();
  // The batch as background tasks, sent together (gearman_client_run_tasks); delivered_ says which
  // gearmand took. Resets the client after an error.
  void send_pipelined(Client& client, std::vector<Pending>& batch);
  void result_loop();
  // A log line at most once a minute, counting what it left out (result thread only).
  struct Throttle {
    std::chrono::steady_clock::time_point last{};
    std::uint64_t since_report = 0;
  };
  void accept_result(std::string_view workload);
  void note_bad_result(std::string reason);
  void report_throttled(Throttle& throttle, LinkEventKind kind, std::string message,
                        std::string_view left_out);
  void give_up_old_jobs();
  // Sleeps retry_interval; false when stop() came first.
  bool wait_before_retry();
  void report(LinkEventKind kind, std::string message);

  const LinkOptions options_;
  loop::Wakeup wakeup_;

  mutable std::mutex mutex_;
  std::condition_variable jobs_cv_;  // submit thread: a job arrived, or stop
  std::condition_variable room_cv_;  // result thread: the core drained, or stop
  // The submit thread between reconnect attempts: only stop. (Sharing jobs_cv_ would let notify_one in
  // submit() wake the wrong thread and strand a job.)
  std::condition_variable stop_cv_;
  std::deque<Pending> jobs_;             // guarded by mutex_
  std::size_t in_flight_ = 0;            // taken by the submit thread, not yet sent; guarded by mutex_
  std::vector<IncomingResult> results_;  // guarded by mutex_
  std::vector<Submission> unsent_;       // guarded by mutex_
  bool stopping_ = false;                // guarded by mutex_

  std::atomic<bool> results_pending_{false};  // poll_results: results wait
  std::atomic<std::uint64_t> sent_{0};
  std::atomic<std::uint64_t> send_failures_{0};
  std::atomic<std::uint64_t> unsent_count_{0};
  std::atomic<std::uint64_t> result_count_{0};
  std::atomic<std::uint64_t> bad_results_{0};
  std::atomic<std::uint64_t> malformed_{0};
  std::atomic<bool> submit_connected_{true};

  // Submit thread only (send_pipelined).
  std::vector<char> delivered_;
  std::vector<std::string> wires_;
  std::vector<gearman_task_st*> tasks_;

  // Result thread only.
  Throttle bad_reports_;
  Throttle malformed_reports_;

  WorkerSession results_session_;  // the result thread's gearman worker
  std::thread submit_thread_;
  std::thread result_thread_;
};

}  // namespace vedette::gearman
