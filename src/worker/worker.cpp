#include "worker/worker.hpp"

#include "loop/thread_name.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <libgearman-1.0/gearman.h>
#include <memory>
#include <poll.h>

namespace vedette::worker {
namespace {

std::int64_t wall_now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int timeout_ms(std::chrono::milliseconds t) {
  return static_cast<int>(std::clamp<std::int64_t>(t.count(), 1, 3'600'000));
}

std::string describe(const std::vector<gearman::Server>& servers) {
  std::string out;
  for (const gearman::Server& s : servers) {
    if (!out.empty()) out += ',';
    out += fmt::format("{}:{}", s.host, s.port);
  }
  return out;
}

struct ClientFree {
  void operator()(gearman_client_st* c) const { gearman_client_free(c); }
};
using Client = std::unique_ptr<gearman_client_st, ClientFree>;

exec::ExecutorOptions executor_options(const WorkerOptions& o) {
  exec::ExecutorOptions e;
  e.threads = std::max(1u, o.executor_threads);
  return e;
}

}  // namespace

struct WorkerAccess {
  static void* on_job(gearman_job_st* job, void* context, size_t* result_size, gearman_return_t* ret) {
    *result_size = 0;
    *ret = GEARMAN_SUCCESS;  // background jobs: nobody reads a failure, and it would make libgearman complain
    const auto* data = static_cast<const char*>(gearman_job_workload(job));
    const std::string_view workload(data ? data : "", data ? gearman_job_workload_size(job) : 0);
    const char* queue = gearman_job_function_name(job);
    static_cast<Worker*>(context)->take_job(queue ? queue : "", workload);
    return nullptr;
  }
};

Worker::Worker(WorkerOptions options)
    : options_(std::move(options)), executor_(finished_, executor_options(options_)) {
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
    if (worker_wake_write_fd_ >= 0)
      gearman_kill(gearman_id_t{worker_wake_read_fd_, worker_wake_write_fd_}, GEARMAN_INTERRUPT);
  }
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
  const std::string servers = describe(options_.servers);
  gearman_worker_st* worker = nullptr;
  bool down = false;

  const auto destroy = [&] {
    if (worker == nullptr) return;
    {
      std::lock_guard lock(mutex_);
      worker_wake_read_fd_ = -1;
      worker_wake_write_fd_ = -1;
    }
    gearman_worker_free(worker);
    worker = nullptr;
  };
  const auto fail = [&](std::string error) {
    destroy();
    if (!down) {
      down = true;
      log(fmt::format("gearman: cannot take jobs from gearmand {}: {}; retrying", servers, error));
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
      for (const gearman::Server& s : options_.servers)
        ok = ok && gearman_success(gearman_worker_add_server(worker, s.host.c_str(), s.port));
      gearman_worker_set_timeout(worker, timeout_ms(options_.io_timeout));
      if (!options_.settings.identifier.empty())
        (void)gearman_worker_set_identifier(worker, options_.settings.identifier.c_str(),
                                            options_.settings.identifier.size());
      for (const std::string& q : options_.queues)
        ok = ok &&
             gearman_success(gearman_worker_add_function(worker, q.c_str(), 0, &WorkerAccess::on_job, this));
      {
        std::lock_guard lock(mutex_);
        if (stopping_) break;
        const gearman_id_t id = gearman_worker_id(worker);
        worker_wake_read_fd_ = id.read_fd;
        worker_wake_write_fd_ = id.write_fd;
      }
      if (!ok || gearman_failed(gearman_worker_echo(worker, "ping", 4))) {
        if (!fail(gearman_worker_error(worker) ? gearman_worker_error(worker) : "no connection")) break;
        continue;
      }
      if (down) {
        down = false;
        log(fmt::format("gearman: taking jobs from gearmand {} again", servers));
      }
    }
    {
      std::unique_lock lock(mutex_);
      room_cv_.wait(lock, [this] { return stopping_ || running_.size() < std::max(1u, options_.max_jobs); });
      if (stopping_) break;
    }
    const gearman_return_t rc = gearman_worker_work(worker);
    switch (rc) {
      case GEARMAN_SUCCESS:
      case GEARMAN_TIMEOUT:
      case GEARMAN_IO_WAIT:
      case GEARMAN_NO_JOBS:
        continue;
      case GEARMAN_SHUTDOWN:
      case GEARMAN_SHUTDOWN_GRACEFUL: {
        std::lock_guard lock(mutex_);
        if (stopping_) break;
      }
        destroy();
        continue;
      default:
        if (!fail(gearman_worker_error(worker) ? gearman_worker_error(worker) : gearman_strerror(rc))) break;
        continue;
    }
    break;
  }
  destroy();
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
  if (auto late = too_old_result(*job, wall_now_us(), options_.settings)) {
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
  const std::string servers = describe(options_.servers);
  Client client;
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
      if (!client) {
        client.reset(gearman_client_create(nullptr));
        if (client) {
          for (const gearman::Server& s : options_.servers)
            (void)gearman_client_add_server(client.get(), s.host.c_str(), s.port);
          gearman_client_set_timeout(client.get(), timeout_ms(options_.io_timeout));
        }
      }
      gearman_job_handle_t handle;
      const gearman_return_t rc = client ? gearman_client_do_background(client.get(), queue.c_str(), nullptr,
                                                                        wire->data(), wire->size(), handle)
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
