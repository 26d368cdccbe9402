#include "worker/worker.hpp"

#include "loop/thread_name.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <libgearman-1.0/gearman.h>
#include <memory>
#include <poll.h>

namespace vedette::worker {
namespace {

exec::ExecutorOptions executor_options(const WorkerOptions& o) {
  exec::ExecutorOptions e;
  e.threads = std::max(1u, o.executor_threads);
  return e;
}

}  // namespace

Worker::Worker(WorkerOptions options)
    : options_(std::move(options)),
      executor_(finished_, executor_options(options_)),
      session_(options_.servers, options_.queues, options_.settings.identifier, options_.io_timeout,
               options_.retry_interval) {
  jobs_thread_ = std::thread([this] { jobs_loop(); });
  send_thread_ = std::thread([this] { send_loop(); });
}

Worker::~Worker() {
  stop();
}

void Worker::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  session_.stop();
  room_cv_.notify_all();
  stop_cv_.notify_all();
  // Order: no new jobs first, then the plugins, then the thread that would send their results.
  if (jobs_thread_.joinable()) jobs_thread_.join();
  executor_.shutdown();
  send_wakeup_.signal();
  if (send_thread_.joinable()) send_thread_.join();
}

WorkerStats Worker::stats() const {
  WorkerStats s;
  s.jobs = jobs_.load(std::memory_order_relaxed);
  s.bad_jobs = bad_jobs_.load(std::memory_order_relaxed);
  s.too_old = too_old_.load(std::memory_order_relaxed);
  s.results_sent = results_sent_.load(std::memory_order_relaxed);
  std::lock_guard lock(mutex_);
  s.running = running_.size();
  return s;
}

void Worker::log(std::string line) const {
  if (options_.log) options_.log(line);
}

bool Worker::wait_before_retry() {
  std::unique_lock lock(mutex_);
  return !stop_cv_.wait_for(lock, options_.retry_interval, [this] { return stopping_; });
}

void Worker::jobs_loop() {
  loop::set_current_thread_name("gearman-jobs");
  const std::string servers = gearman::describe(options_.servers);
  gearman::SessionHooks hooks;
  hooks.on_job = [this](std::string_view queue, std::string_view workload) {
    take_job(queue, workload);
    return std::string();
  };
  hooks.on_down = [&](const std::string& error) {
    log(fmt::format("gearman: cannot take jobs from gearmand {}: {}; retrying", servers, error));
  };
  hooks.on_up = [&] { log(fmt::format("gearman: taking jobs from gearmand {} again", servers)); };
  hooks.wait_for_room = [this] {
    std::unique_lock lock(mutex_);
    room_cv_.wait(lock, [this] { return stopping_ || running_.size() < std::max(1u, options_.max_jobs); });
    return !stopping_;
  };
  session_.run(hooks);
}

void Worker::take_job(std::string_view queue, std::string_view workload) {
  jobs_.fetch_add(1, std::memory_order_relaxed);
  auto text = options_.codec.open(workload);
  auto job = text ? gearman::parse_job(*text) : gearman::Expected<gearman::Job>(gearman::Error{text.error()});
  if (!job) {
    bad_jobs_.fetch_add(1, std::memory_order_relaxed);
    log(fmt::format("gearman: dropped a job from queue '{}': {}", queue, job.error()));
    return;
  }
  if (auto late = too_old_result(*job, gearman::wall_now_us(), options_.settings)) {
    too_old_.fetch_add(1, std::memory_order_relaxed);
    {
      std::lock_guard lock(mutex_);
      ready_.emplace_back(std::move(*job), std::move(*late));
    }
    send_wakeup_.signal();
    return;
  }
  std::uint32_t id = 0;
  {
    std::lock_guard lock(mutex_);
    id = next_id_++;
    if (next_id_ == 0) next_id_ = 1;
  }
  auto check = make_check_job(*job, id, options_.settings);
  if (!check) {
    bad_jobs_.fetch_add(1, std::memory_order_relaxed);
    log(fmt::format("gearman: dropped a job from queue '{}': no command in its command line", queue));
    return;
  }
  {
    std::lock_guard lock(mutex_);
    running_.emplace(id, std::move(*job));
  }
  if (!executor_.submit(std::move(*check))) {
    std::lock_guard lock(mutex_);
    running_.erase(id);
  }
}

void Worker::send_loop() {
  loop::set_current_thread_name("gearman-send");
  const std::string servers = gearman::describe(options_.servers);
  gearman::Client client;
  bool down = false;
  // Blocks until gearmand took the result, retrying through an outage; false once stop() came.
  const auto send = [&](const gearman::Job& job, const gearman::Result& result) {
    const std::string queue =
        job.result_queue.empty() ? std::string(gearman::k_default_result_queue) : job.result_queue;
    auto wire = options_.codec.seal(gearman::format_result(result));
    if (!wire) {
      log(fmt::format("gearman: cannot encode a result for queue '{}': {}", queue, wire.error()));
      return true;
    }
    while (true) {
      if (!client) client = gearman::make_client(options_.servers, options_.io_timeout);
      const gearman_return_t rc =
          client ? gearman::send_background(client.get(), queue, {}, gearman::Priority::normal, *wire)
                 : GEARMAN_MEMORY_ALLOCATION_FAILURE;
      if (gearman_success(rc)) {
        results_sent_.fetch_add(1, std::memory_order_relaxed);
        if (down) {
          down = false;
          log(fmt::format("gearman: sending results to gearmand {} again", servers));
        }
        return true;
      }
      const std::string error =
          client ? gearman_client_error(client.get()) : "cannot create a gearman client";
      client.reset();  // libgearman's client is not reliable after an error
      if (!down) {
        down = true;
        log(fmt::format("gearman: cannot send results to gearmand {}: {}; retrying", servers, error));
      }
      if (!wait_before_retry()) return false;
    }
  };
  std::vector<exec::CheckResult> finished;
  std::vector<std::pair<gearman::Job, gearman::Result>> ready;
  while (true) {
    pollfd fds[2] = {{finished_.fd(), POLLIN, 0}, {send_wakeup_.fd(), POLLIN, 0}};
    (void)::poll(fds, 2, 1000);
    send_wakeup_.drain();
    if (executor_.has_warnings())  // plugins it could not start for want of fds, processes or memory
      for (const std::string& warning : executor_.take_warnings()) log(warning);
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      ready.swap(ready_);
    }
    finished.clear();
    finished_.drain(finished);
    for (const exec::CheckResult& done : finished) {
      gearman::Job job;
      {
        std::lock_guard lock(mutex_);
        auto it = running_.find(done.id);
        if (it == running_.end()) continue;
        job = std::move(it->second);
        running_.erase(it);
      }
      room_cv_.notify_one();
      if (job.type == gearman::JobType::host || job.type == gearman::JobType::service) {
        if (!send(job, make_result(job, done, options_.settings))) return;
        continue;
      }
      // Event handlers and notifications send nothing back; Mod-Gearman logs their failures.
      const gearman::Result r = make_result(job, done, options_.settings);
      if (r.return_code != 0)
        log(fmt::format("gearman: {} exited with return code {}: {}: {}", gearman::job_type_name(job.type),
                        r.return_code, job.command_line, r.output));
    }
    for (const auto& [job, result] : ready)
      if (!send(job, result)) return;
    ready.clear();
  }
}

}  // namespace vedette::worker
