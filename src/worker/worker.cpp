#include "worker/worker.hpp"

#include "base/check.hpp"
#include "loop/thread_name.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <libgearman-1.0/gearman.h>
#include <poll.h>

namespace vedette::worker {
namespace {

exec::ExecutorOptions executor_options(const WorkerOptions& o) {
  exec::ExecutorOptions e;
  e.threads = std::max(1u, o.executor_threads);
  return e;
}

bool is_check(const gearman::Job& job) {
  return job.type == gearman::JobType::host || job.type == gearman::JobType::service;
}

}  // namespace

Worker::Worker(WorkerOptions options)
    : options_(std::move(options)), executor_(finished_, executor_options(options_)) {
  const unsigned count = std::max(1u, options_.max_jobs);
  slots_.reserve(count);
  for (unsigned i = 0; i < count; ++i) {
    auto slot = std::make_unique<Slot>();
    slot->session = std::make_unique<gearman::WorkerSession>(options_.servers, options_.queues,
                                                             options_.settings.identifier,
                                                             options_.io_timeout, options_.retry_interval);
    slots_.push_back(std::move(slot));
  }
  done_thread_ = base::start_thread([this] { done_loop(); });
  for (std::uint32_t i = 0; i < count; ++i)
    slots_[i]->thread = base::start_thread([this, i] { slot_loop(i); });
}

Worker::~Worker() {
  stop();
}

std::chrono::milliseconds Worker::stop_grace() const {
  return std::chrono::seconds(std::max(1, options_.settings.job_timeout_s)) + 2 * options_.io_timeout;
}

void Worker::stop(std::chrono::milliseconds grace) {
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    stopping_ = true;
  }
  // Idle slots return at once; a busy one finishes its job first (its session then takes no other).
  for (const auto& slot : slots_) slot->session->stop();
  {
    std::unique_lock lock(mutex_);
    idle_cv_.wait_for(lock, grace, [this] { return busy_ == 0; });
    giving_up_ = true;
  }
  done_cv_.notify_all();
  stop_cv_.notify_all();
  // Kills what still runs; the slots waiting for those plugins hand their jobs back.
  executor_.shutdown();
  for (const auto& slot : slots_)
    if (slot->thread.joinable()) slot->thread.join();
  done_wakeup_.signal();
  if (done_thread_.joinable()) done_thread_.join();
  std::lock_guard lock(mutex_);
  stopped_ = true;
}

WorkerStats Worker::stats() const {
  WorkerStats s;
  s.jobs = jobs_.load(std::memory_order_relaxed);
  s.bad_jobs = bad_jobs_.load(std::memory_order_relaxed);
  s.too_old = too_old_.load(std::memory_order_relaxed);
  s.results_sent = results_sent_.load(std::memory_order_relaxed);
  s.handed_back = handed_back_.load(std::memory_order_relaxed);
  std::lock_guard lock(mutex_);
  s.running = busy_;
  return s;
}

void Worker::log(std::string line) const {
  if (options_.log) options_.log(line);
}

bool Worker::wait_before_retry() {
  std::unique_lock lock(mutex_);
  return !stop_cv_.wait_for(lock, options_.retry_interval, [this] { return giving_up_; });
}

void Worker::slot_loop(std::uint32_t index) {
  loop::set_current_thread_name("gearman-job");
  const std::string servers = gearman::describe(options_.servers);
  gearman::SessionHooks hooks;
  hooks.on_job = [this, index](std::string_view queue, std::string_view workload) {
    return work(index, queue, workload);
  };
  // Every slot would log the same outage: the first one speaks for all.
  hooks.on_down = [&, index](const std::string& error) {
    if (index == 0)
      log(fmt::format("gearman: cannot take jobs from gearmand {}: {}; retrying", servers, error));
  };
  hooks.on_up = [&, index] {
    if (index == 0) log(fmt::format("gearman: taking jobs from gearmand {} again", servers));
  };
  hooks.wait_for_room = [this] {
    std::lock_guard lock(mutex_);
    return !stopping_;
  };
  slots_[index]->session->run(hooks);
  slots_[index]->client.reset();
}

gearman::JobReply Worker::work(std::uint32_t index, std::string_view queue, std::string_view workload) {
  Slot& slot = *slots_[index];
  jobs_.fetch_add(1, std::memory_order_relaxed);
  auto text = options_.codec.open(workload);
  auto job = text ? gearman::parse_job(*text) : base::Expected<gearman::Job>(base::Error{text.error()});
  if (!job) {
    bad_jobs_.fetch_add(1, std::memory_order_relaxed);
    log(fmt::format("gearman: dropped a job from queue '{}': {}", queue, job.error()));
    return {};
  }
  {
    std::lock_guard lock(mutex_);
    ++busy_;
  }
  const auto idle_again = [this] {
    {
      std::lock_guard lock(mutex_);
      --busy_;
    }
    idle_cv_.notify_all();
  };
  if (auto late = too_old_result(*job, gearman::wall_now_us(), options_.settings)) {
    too_old_.fetch_add(1, std::memory_order_relaxed);
    const bool sent = send(slot, *job, *late);
    idle_again();
    if (!sent) handed_back_.fetch_add(1, std::memory_order_relaxed);
    return {.data = {}, .hand_back = !sent};
  }
  std::uint32_t generation = 0;
  {
    std::lock_guard lock(mutex_);
    generation = ++slot.generation;
    slot.done.reset();
  }
  auto check = make_check_job(*job, index, options_.settings);
  if (!check) {
    bad_jobs_.fetch_add(1, std::memory_order_relaxed);
    log(fmt::format("gearman: dropped a job from queue '{}': no command in its command line", queue));
    idle_again();
    return {};
  }
  check->generation = generation;
  std::optional<exec::CheckResult> done;
  if (executor_.submit(std::move(*check))) {
    std::unique_lock lock(mutex_);
    done_cv_.wait(lock, [&] { return slot.done.has_value() || giving_up_; });
    done = std::move(slot.done);
  }
  bool finished = done.has_value();
  if (finished && is_check(*job)) {
    finished = send(slot, *job, make_result(*job, *done, options_.settings));
  } else if (finished) {
    // Event handlers and notifications send nothing back; Mod-Gearman logs their failures.
    const gearman::Result r = make_result(*job, *done, options_.settings);
    if (r.return_code != 0)
      log(fmt::format("gearman: {} exited with return code {}: {}: {}", gearman::job_type_name(job->type),
                      r.return_code, job->command_line, r.output));
  }
  idle_again();
  if (!finished) handed_back_.fetch_add(1, std::memory_order_relaxed);
  return {.data = {}, .hand_back = !finished};
}

bool Worker::send(Slot& slot, const gearman::Job& job, const gearman::Result& result) {
  const std::string servers = gearman::describe(options_.servers);
  const std::string queue =
      job.result_queue.empty() ? std::string(gearman::k_default_result_queue) : job.result_queue;
  auto wire = options_.codec.seal(gearman::format_result(result));
  if (!wire) {
    log(fmt::format("gearman: cannot encode a result for queue '{}': {}", queue, wire.error()));
    return true;
  }
  while (true) {
    if (!slot.client) slot.client = gearman::make_client(options_.servers, options_.io_timeout);
    const gearman_return_t rc =
        slot.client ? gearman::send_background(slot.client.get(), queue, {}, gearman::Priority::normal, *wire)
                    : GEARMAN_MEMORY_ALLOCATION_FAILURE;
    if (gearman_success(rc)) {
      results_sent_.fetch_add(1, std::memory_order_relaxed);
      if (send_down_.exchange(false, std::memory_order_relaxed))
        log(fmt::format("gearman: sending results to gearmand {} again", servers));
      return true;
    }
    const std::string error =
        slot.client ? gearman_client_error(slot.client.get()) : "cannot create a gearman client";
    slot.client.reset();  // libgearman's client is not reliable after an error
    if (!send_down_.exchange(true, std::memory_order_relaxed))
      log(fmt::format("gearman: cannot send results to gearmand {}: {}; retrying", servers, error));
    if (!wait_before_retry()) return false;
  }
}

void Worker::done_loop() {
  loop::set_current_thread_name("gearman-done");
  std::vector<exec::CheckResult> finished;
  while (true) {
    pollfd fds[2] = {{finished_.fd(), POLLIN, 0}, {done_wakeup_.fd(), POLLIN, 0}};
    (void)::poll(fds, 2, 1000);
    done_wakeup_.drain();
    if (executor_.has_warnings())  // plugins it could not start for want of fds, processes or memory
      for (const std::string& warning : executor_.take_warnings()) log(warning);
    finished.clear();
    finished_.drain(finished);
    bool any = false;
    {
      std::lock_guard lock(mutex_);
      for (exec::CheckResult& r : finished) {
        if (r.id >= slots_.size() || slots_[r.id]->generation != r.generation) continue;
        slots_[r.id]->done = std::move(r);
        any = true;
      }
      if (stopped_ || (giving_up_ && busy_ == 0)) return;
    }
    if (any) done_cv_.notify_all();
  }
}

}  // namespace vedette::worker
