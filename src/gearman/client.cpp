#include "gearman/client.hpp"

#include "base/check.hpp"
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

gearman_task_st* add_background_task(gearman_client_st* client, const Submission& s, std::string_view wire,
                                     gearman_return_t& rc) {
  const char* unique = s.unique.empty() ? nullptr : s.unique.c_str();
  switch (s.priority) {
    case Priority::low:
      return gearman_client_add_task_low_background(client, nullptr, nullptr, s.queue.c_str(), unique,
                                                    wire.data(), wire.size(), &rc);
    case Priority::high:
      return gearman_client_add_task_high_background(client, nullptr, nullptr, s.queue.c_str(), unique,
                                                     wire.data(), wire.size(), &rc);
    case Priority::normal:
      break;
  }
  return gearman_client_add_task_background(client, nullptr, nullptr, s.queue.c_str(), unique, wire.data(),
                                            wire.size(), &rc);
}

// Whether gearmand answers at all: tells an outage from a job it refused.
bool is_reachable(const LinkOptions& options) {
  Client client = make_client(options.servers, options.io_timeout);
  return client && gearman_success(gearman_client_echo(client.get(), "ping", 4));
}

}  // namespace

GearmanLink::GearmanLink(LinkOptions options)
    : options_(std::move(options)),
      results_session_(options_.servers, {options_.result_queue}, "", options_.io_timeout,
                       options_.retry_interval) {
  submit_thread_ = base::start_thread([this] { submit_loop(); });
  if (!options_.result_queue.empty()) result_thread_ = base::start_thread([this] { result_loop(); });
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
  results_pending_.store(false, std::memory_order_relaxed);
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
  s.malformed = malformed_.load(std::memory_order_relaxed);
  s.submit_connected = submit_connected_.load(std::memory_order_relaxed);
  s.results_connected = results_session_.connected();
  std::lock_guard lock(mutex_);
  s.queued_jobs = jobs_.size() + in_flight_;
  return s;
}

void GearmanLink::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  results_session_.stop();
  jobs_cv_.notify_all();
  room_cv_.notify_all();
  stop_cv_.notify_all();
  if (submit_thread_.joinable()) submit_thread_.join();
  if (result_thread_.joinable()) result_thread_.join();
}

bool GearmanLink::wait_before_retry() {
  std::unique_lock lock(mutex_);
  return !stop_cv_.wait_for(lock, options_.retry_interval, [this] { return stopping_; });
}

void GearmanLink::report(LinkEventKind kind, std::string message) {
  if (options_.on_event) options_.on_event(LinkEvent{kind, std::move(message)});
  wakeup_.signal();  // the owner learns of it without waiting for other activity
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
      // A job handed over ahead of its time waits for it. Jobs come in the order they fall due, so the
      // first one's time is the next to wait for.
      while (!stopping_ && !jobs_.empty() &&
             jobs_.front().submission.not_before > std::chrono::steady_clock::now()) {
        const auto due = jobs_.front().submission.not_before;  // a copy: wait_until reads it after waking
        jobs_cv_.wait_until(lock, due);
      }
      if (stopping_) return;
      const auto now = std::chrono::steady_clock::now();
      while (batch.size() < k_send_batch && !jobs_.empty() && jobs_.front().submission.not_before <= now) {
        batch.push_back(std::move(jobs_.front()));
        jobs_.pop_front();
      }
      in_flight_ = batch.size();
    }

    for (Pending& p : batch) {
      Submission& s = p.submission;
      const bool check = s.text.empty() && (s.job.type == JobType::host || s.job.type == JobType::service);
      if (options_.unique_check_jobs && check && s.unique.empty())
        s.unique = unique_key(s.job.host_name, s.job.service_description);
    }
    if (!client) client = make_client(options_.servers, options_.io_timeout);
    send_pipelined(client, batch);

    // What the pipeline did not deliver goes one job at a time, which tells a refused job from an outage.
    std::size_t done = 0;
    std::string failure;
    std::vector<Submission> refused;
    for (; done < batch.size(); ++done) {
      if (delivered_[done]) continue;
      Submission& s = batch[done].submission;
      auto wire = options_.codec.seal(s.text.empty() ? format_job(s.job) : s.text);
      if (!wire) {
        report(LinkEventKind::job_refused,
               fmt::format("gearman: cannot encode a job for queue '{}': {}", s.queue, wire.error()));
        refused.push_back(std::move(s));
        continue;
      }
      if (!client) client = make_client(options_.servers, options_.io_timeout);
      const gearman_return_t rc = client ? send_background(client.get(), s.queue, s.unique, s.priority, *wire)
                                         : GEARMAN_MEMORY_ALLOCATION_FAILURE;
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
      for (std::size_t i = batch.size(); i > done; --i)
        if (!delivered_[i - 1]) jobs_.push_front(std::move(batch[i - 1]));
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

void GearmanLink::send_pipelined(Client& client, std::vector<Pending>& batch) {
  delivered_.assign(batch.size(), 0);
  if (!client) return;
  // Every job of the batch goes out before the first answer is read: one wakeup and a few writes for the
  // batch instead of a round trip per job. libgearman keeps pointers to the workloads until run_tasks.
  wires_.resize(batch.size());
  tasks_.assign(batch.size(), nullptr);
  // libgearman puts each new task at the head of its list and run_tasks sends from the head: added last
  // first, the jobs go out in the order they came (checks in due order, a queue's jobs in sequence).
  for (std::size_t i = batch.size(); i-- > 0;) {
    const Submission& s = batch[i].submission;
    auto wire = options_.codec.seal(s.text.empty() ? format_job(s.job) : s.text);
    if (!wire) continue;  // reported by the one-at-a-time path
    wires_[i] = std::move(*wire);
    gearman_return_t rc = GEARMAN_SUCCESS;
    tasks_[i] = add_background_task(client.get(), s, wires_[i], rc);
    if (!gearman_success(rc)) tasks_[i] = nullptr;
  }
  const gearman_return_t run = gearman_client_run_tasks(client.get());
  std::uint64_t sent = 0;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (tasks_[i] == nullptr) continue;
    if (gearman_success(run) || gearman_task_return(tasks_[i]) == GEARMAN_SUCCESS) {
      delivered_[i] = 1;
      ++sent;
    }
    gearman_task_free(tasks_[i]);
  }
  sent_.fetch_add(sent, std::memory_order_relaxed);
  // libgearman's client is not reliable after an error (Mod-Gearman recreates it too).
  if (!gearman_success(run)) client.reset();
}

void GearmanLink::result_loop() {
  loop::set_current_thread_name("gearman-results");
  const std::string servers = describe(options_.servers);
  SessionHooks hooks;
  hooks.on_job = [this](std::string_view, std::string_view workload) -> JobReply {
    // check_gearman's probe of the result worker (result_thread.c answers it the same way).
    if (workload == "check") return {.data = "0:OK - result worker running (Vedette)", .hand_back = false};
    accept_result(workload);
    return {};
  };
  hooks.on_down = [&](const std::string& error) {
    report(LinkEventKind::results_down,
           fmt::format("gearman: cannot read results from queue '{}' on gearmand {}: {}; retrying",
                       options_.result_queue, servers, error));
  };
  hooks.on_up = [&] {
    report(LinkEventKind::results_up,
           fmt::format("gearman: reading results from queue '{}' on gearmand {} again", options_.result_queue,
                       servers));
  };
  // When max_queued_results wait undrained, no more jobs are taken: gearmand keeps them.
  hooks.wait_for_room = [this] {
    std::unique_lock lock(mutex_);
    room_cv_.wait(lock, [this] { return stopping_ || results_.size() < options_.max_queued_results; });
    return !stopping_;
  };
  results_session_.run(hooks);
}

void GearmanLink::accept_result(std::string_view workload) {
  const std::int64_t received_us = wall_now_us();
  auto text = options_.codec.open(workload);
  if (!text) return note_bad_result(text.error());
  auto result = parse_result(*text);
  if (!result) return note_bad_result(result.error());
  if (!result->malformed.empty()) {
    malformed_.fetch_add(1, std::memory_order_relaxed);
    report_throttled(
        malformed_reports_, LinkEventKind::malformed_field,
        fmt::format("gearman: a result from queue '{}' for '{}' has a bad {}; applied without it",
                    options_.result_queue, result->host_name.substr(0, 80), result->malformed),
        "results with bad fields");
  }
  {
    std::lock_guard lock(mutex_);
    results_.push_back({std::move(*result), received_us});
    // Counted before drain() can see it, so stats() never lags what the core has.
    result_count_.fetch_add(1, std::memory_order_relaxed);
  }
  if (options_.poll_results) {
    results_pending_.store(true, std::memory_order_release);
  } else {
    wakeup_.signal();  // writes only when not already armed: once per batch
  }
}

void GearmanLink::note_bad_result(std::string reason) {
  bad_results_.fetch_add(1, std::memory_order_relaxed);
  report_throttled(
      bad_reports_, LinkEventKind::bad_result,
      fmt::format("gearman: dropped a result from queue '{}': {}", options_.result_queue, reason), "dropped");
}

void GearmanLink::report_throttled(Throttle& throttle, LinkEventKind kind, std::string message,
                                   std::string_view left_out) {
  ++throttle.since_report;
  const auto now = std::chrono::steady_clock::now();
  if (throttle.last != std::chrono::steady_clock::time_point{} &&
      now - throttle.last < k_bad_result_report_interval)
    return;
  if (throttle.since_report > 1)
    message += fmt::format(" ({} {} since the last report)", throttle.since_report, left_out);
  report(kind, std::move(message));
  throttle.last = now;
  throttle.since_report = 0;
}

}  // namespace vedette::gearman
