#include "gearman/client.hpp"

#include "loop/thread_name.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <libgearman-1.0/gearman.h>

namespace vedette::gearman {
namespace {

// Jobs the submit thread takes per lock: enough to amortise the lock, few enough that a failure puts
// little back.
constexpr std::size_t k_send_batch = 256;
constexpr auto k_bad_result_report_interval = std::chrono::seconds(60);

std::int64_t wall_now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string describe(const std::vector<Server>& servers) {
  std::string out;
  for (const Server& s : servers) {
    if (!out.empty()) out += ',';
    out += fmt::format("{}:{}", s.host, s.port);
  }
  return out;
}

int timeout_ms(std::chrono::milliseconds t) {
  return static_cast<int>(std::clamp<std::int64_t>(t.count(), 1, 3'600'000));
}

struct ClientFree {
  void operator()(gearman_client_st* c) const { gearman_client_free(c); }
};
using Client = std::unique_ptr<gearman_client_st, ClientFree>;

Client make_client(const LinkOptions& options) {
  Client client(gearman_client_create(nullptr));
  if (!client) return nullptr;
  for (const Server& s : options.servers)
    if (gearman_failed(gearman_client_add_server(client.get(), s.host.c_str(), s.port))) return nullptr;
  gearman_client_set_timeout(client.get(), timeout_ms(options.io_timeout));
  return client;
}

// Whether gearmand answers at all: tells an outage from a job it refused.
bool is_reachable(const LinkOptions& options) {
  Client client = make_client(options);
  return client && gearman_success(gearman_client_echo(client.get(), "ping", 4));
}

gearman_return_t send_background(gearman_client_st* client, const Submission& s, const std::string& wire) {
  gearman_job_handle_t handle;
  const char* unique = s.unique.empty() ? nullptr : s.unique.c_str();
  switch (s.priority) {
    case Priority::low:
      return gearman_client_do_low_background(client, s.queue.c_str(), unique, wire.data(), wire.size(),
                                              handle);
    case Priority::high:
      return gearman_client_do_high_background(client, s.queue.c_str(), unique, wire.data(), wire.size(),
                                               handle);
    case Priority::normal:
      break;
  }
  return gearman_client_do_background(client, s.queue.c_str(), unique, wire.data(), wire.size(), handle);
}

}  // namespace

// The result worker's function: a C callback that reaches the link's private accept_result().
struct LinkAccess {
  static void* on_result(gearman_job_st* job, void* context, size_t* result_size, gearman_return_t* ret) {
    *result_size = 0;
    *ret = GEARMAN_SUCCESS;  // a bad payload is dropped, not failed: failing makes libgearman report errors
    const auto* data = static_cast<const char*>(gearman_job_workload(job));
    const std::string_view workload(data ? data : "", data ? gearman_job_workload_size(job) : 0);
    // check_gearman's probe of the result worker (result_thread.c answers it the same way).
    if (workload == "check") {
      constexpr std::string_view k_reply = "0:OK - result worker running (Vedette)";
      auto* reply = static_cast<char*>(std::malloc(k_reply.size()));  // libgearman frees it
      if (reply == nullptr) return nullptr;
      std::memcpy(reply, k_reply.data(), k_reply.size());
      *result_size = k_reply.size();
      return reply;
    }
    static_cast<GearmanLink*>(context)->accept_result(workload);
    return nullptr;
  }
};

GearmanLink::GearmanLink(LinkOptions options) : options_(std::move(options)) {
  submit_thread_ = std::thread([this] { submit_loop(); });
  if (!options_.result_queue.empty()) result_thread_ = std::thread([this] { result_loop(); });
}

GearmanLink::~GearmanLink() {
  stop();
}

bool GearmanLink::submit(Submission& submission) {
  if (submission.queue.empty() || submission.queue.size() > k_max_queue_name ||
      submission.unique.size() > k_max_unique)
    return false;
  bool was_empty = false;
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || jobs_.size() + in_flight_ >= options_.max_queued_jobs) return false;
    was_empty = jobs_.empty();
    jobs_.push_back({std::move(submission), std::chrono::steady_clock::now()});
  }
  if (was_empty) jobs_cv_.notify_one();
  return true;
}

void GearmanLink::drain(std::vector<IncomingResult>& results, std::vector<Submission>& unsent) {
  results.clear();
  unsent.clear();
  // Disarm before taking, as exec::ResultQueue: a push after the swap signals again.
  wakeup_.drain();
  bool had_full_queue = false;
  {
    std::lock_guard lock(mutex_);
    had_full_queue = results_.size() >= options_.max_queued_results;
    results_.swap(results);
    unsent_.swap(unsent);
  }
  if (had_full_queue) room_cv_.notify_one();
}

LinkStats GearmanLink::stats() const {
  LinkStats s;
  s.sent = sent_.load(std::memory_order_relaxed);
  s.send_failures = send_failures_.load(std::memory_order_relaxed);
  s.unsent = unsent_count_.load(std::memory_order_relaxed);
  s.results = result_count_.load(std::memory_order_relaxed);
  s.bad_results = bad_results_.load(std::memory_order_relaxed);
  s.submit_connected = submit_connected_.load(std::memory_order_relaxed);
  s.results_connected = results_connected_.load(std::memory_order_relaxed);
  std::lock_guard lock(mutex_);
  s.queued_jobs = jobs_.size() + in_flight_;
  return s;
}

void GearmanLink::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    // Wakes gearman_worker_work() at once: it polls this pipe beside its connections.
    if (worker_wake_write_fd_ >= 0)
      gearman_kill(gearman_id_t{worker_wake_read_fd_, worker_wake_write_fd_}, GEARMAN_INTERRUPT);
  }
  jobs_cv_.notify_all();
  room_cv_.notify_all();
  stop_cv_.notify_all();
  if (submit_thread_.joinable()) submit_thread_.join();
  if (result_thread_.joinable()) result_thread_.join();
}

bool GearmanLink::is_stopping() const {
  std::lock_guard lock(mutex_);
  return stopping_;
}

bool GearmanLink::wait_before_retry() {
  std::unique_lock lock(mutex_);
  return !stop_cv_.wait_for(lock, options_.retry_interval, [this] { return stopping_; });
}

void GearmanLink::report(LinkEventKind kind, std::string message) const {
  if (options_.on_event) options_.on_event(LinkEvent{kind, std::move(message)});
}

void GearmanLink::give_up_old_jobs() {
  if (options_.give_up_after.count() <= 0) return;
  const auto limit = std::chrono::steady_clock::now() - options_.give_up_after;
  std::size_t moved = 0;
  {
    std::lock_guard lock(mutex_);
    // jobs_ is in submission order (a failed batch goes back to the front in order), so the old ones lead.
    while (!jobs_.empty() && jobs_.front().queued_at <= limit) {
      unsent_.push_back(std::move(jobs_.front().submission));
      jobs_.pop_front();
      ++moved;
    }
    unsent_count_.fetch_add(moved, std::memory_order_relaxed);
  }
  if (moved > 0) wakeup_.signal();
}

void GearmanLink::submit_loop() {
  loop::set_current_thread_name("gearman-submit");
  const std::string servers = describe(options_.servers);
  Client client;
  std::vector<Pending> batch;
  batch.reserve(k_send_batch);
  std::uint64_t unsent_at_outage = 0;
  while (true) {
    {
      std::unique_lock lock(mutex_);
      jobs_cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      const std::size_t n = std::min(jobs_.size(), k_send_batch);
      for (std::size_t i = 0; i < n; ++i) {
        batch.push_back(std::move(jobs_.front()));
        jobs_.pop_front();
      }
      in_flight_ = n;
    }

    std::size_t done = 0;
    std::string failure;
    std::vector<Submission> refused;
    for (; done < batch.size(); ++done) {
      Submission& s = batch[done].submission;
      auto wire = options_.codec.seal(format_job(s.job));
      if (!wire) {
        report(LinkEventKind::job_refused,
               fmt::format("gearman: cannot encode a job for queue '{}': {}", s.queue, wire.error()));
        refused.push_back(std::move(s));
        continue;
      }
      if (!client) client = make_client(options_);
      const gearman_return_t rc =
          client ? send_background(client.get(), s, *wire) : GEARMAN_MEMORY_ALLOCATION_FAILURE;
      if (gearman_success(rc)) {
        sent_.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      send_failures_.fetch_add(1, std::memory_order_relaxed);
      failure = client ? gearman_client_error(client.get()) : "cannot create a gearman client";
      // libgearman's client is not reliable after an error (Mod-Gearman recreates it too).
      client.reset();
      if (!is_reachable(options_)) break;
      report(LinkEventKind::job_refused,
             fmt::format("gearman: gearmand refused a job for queue '{}': {}", s.queue, failure));
      refused.push_back(std::move(s));
      failure.clear();
    }

    const bool outage = done < batch.size();
    {
      std::lock_guard lock(mutex_);
      for (std::size_t i = batch.size(); i > done; --i) jobs_.push_front(std::move(batch[i - 1]));
      in_flight_ = 0;
      for (Submission& s : refused) unsent_.push_back(std::move(s));
      unsent_count_.fetch_add(refused.size(), std::memory_order_relaxed);
    }
    batch.clear();
    if (!refused.empty()) wakeup_.signal();

    if (!outage) {
      if (!submit_connected_.exchange(true, std::memory_order_relaxed)) {
        const std::uint64_t lost = unsent_count_.load(std::memory_order_relaxed) - unsent_at_outage;
        report(LinkEventKind::submit_up,
               fmt::format("gearman: submitting jobs to gearmand {} again ({} jobs handed back meanwhile)",
                           servers, lost));
      }
      continue;
    }
    if (submit_connected_.exchange(false, std::memory_order_relaxed)) {
      unsent_at_outage = unsent_count_.load(std::memory_order_relaxed);
      report(LinkEventKind::submit_down,
             fmt::format("gearman: cannot submit jobs to gearmand {}: {}; retrying", servers, failure));
    }
    if (!wait_before_retry()) return;
    give_up_old_jobs();
  }
}

void GearmanLink::result_loop() {
  loop::set_current_thread_name("gearman-results");
  const std::string servers = describe(options_.servers);
  gearman_worker_st* worker = nullptr;
  bool down = false;  // an outage was reported and has not ended

  const auto destroy = [&] {
    if (worker == nullptr) return;
    {
      std::lock_guard lock(mutex_);
      worker_wake_read_fd_ = -1;
      worker_wake_write_fd_ = -1;
    }
    gearman_worker_free(worker);
    worker = nullptr;
    results_connected_.store(false, std::memory_order_relaxed);
  };
  const auto fail = [&](std::string error) {
    destroy();
    if (!down) {
      down = true;
      report(LinkEventKind::results_down,
             fmt::format("gearman: cannot read results from queue '{}' on gearmand {}: {}; retrying",
                         options_.result_queue, servers, error));
    }
    return wait_before_retry();
  };

  while (true) {
    if (worker == nullptr) {
      worker = gearman_worker_create(nullptr);
      if (worker == nullptr) {
        if (!fail("cannot create a gearman worker")) break;
        continue;
      }
      bool ok = true;
      for (const Server& s : options_.servers)
        ok = ok && gearman_success(gearman_worker_add_server(worker, s.host.c_str(), s.port));
      gearman_worker_set_timeout(worker, timeout_ms(options_.io_timeout));
      ok = ok && gearman_success(gearman_worker_add_function(worker, options_.result_queue.c_str(), 0,
                                                             &LinkAccess::on_result, this));
      {
        std::lock_guard lock(mutex_);
        if (stopping_) break;
        const gearman_id_t id = gearman_worker_id(worker);
        worker_wake_read_fd_ = id.read_fd;
        worker_wake_write_fd_ = id.write_fd;
      }
      // An echo proves the connection before we call it up; registering happens on the first work().
      if (!ok || gearman_failed(gearman_worker_echo(worker, "ping", 4))) {
        if (!fail(gearman_worker_error(worker) ? gearman_worker_error(worker) : "no connection")) break;
        continue;
      }
      results_connected_.store(true, std::memory_order_relaxed);
      if (down) {
        down = false;
        report(LinkEventKind::results_up,
               fmt::format("gearman: reading results from queue '{}' on gearmand {} again",
                           options_.result_queue, servers));
      }
    }
    {
      std::unique_lock lock(mutex_);
      room_cv_.wait(lock, [this] { return stopping_ || results_.size() < options_.max_queued_results; });
      if (stopping_) break;
    }
    const gearman_return_t rc = gearman_worker_work(worker);
    switch (rc) {
      case GEARMAN_SUCCESS:
      case GEARMAN_TIMEOUT:  // idle for io_timeout: just ask again
      case GEARMAN_IO_WAIT:
      case GEARMAN_NO_JOBS:
        continue;
      case GEARMAN_SHUTDOWN:
      case GEARMAN_SHUTDOWN_GRACEFUL:
        if (is_stopping()) break;
        destroy();  // nobody else writes the pipe; start afresh rather than spin on it
        continue;
      default:
        if (!fail(gearman_worker_error(worker) ? gearman_worker_error(worker) : gearman_strerror(rc))) break;
        continue;
    }
    break;
  }
  destroy();
}

void GearmanLink::accept_result(std::string_view workload) {
  const std::int64_t received_us = wall_now_us();
  auto text = options_.codec.open(workload);
  if (!text) return note_bad_result(text.error());
  auto result = parse_result(*text);
  if (!result) return note_bad_result(result.error());
  {
    std::lock_guard lock(mutex_);
    results_.push_back({std::move(*result), received_us});
    // Counted before drain() can see it, so stats() never lags what the core has.
    result_count_.fetch_add(1, std::memory_order_relaxed);
  }
  wakeup_.signal();  // writes only when not already armed: once per batch
}

void GearmanLink::note_bad_result(std::string reason) {
  bad_results_.fetch_add(1, std::memory_order_relaxed);
  ++bad_since_report_;
  const auto now = std::chrono::steady_clock::now();
  if (last_bad_report_ != std::chrono::steady_clock::time_point{} &&
      now - last_bad_report_ < k_bad_result_report_interval)
    return;
  std::string message =
      fmt::format("gearman: dropped a result from queue '{}': {}", options_.result_queue, reason);
  if (bad_since_report_ > 1) message += fmt::format(" ({} dropped since the last report)", bad_since_report_);
  report(LinkEventKind::bad_result, std::move(message));
  last_bad_report_ = now;
  bad_since_report_ = 0;
}

}  // namespace vedette::gearman
