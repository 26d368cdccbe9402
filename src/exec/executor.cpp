// The Executor: starts its threads (Executor::Worker, executor_thread_internal.hpp), deals the submitted
// jobs out to them in turn with their share of the timing-out slots, cancels and stops them, and gathers
// their warnings and CPU time. What a thread does with its jobs (the loop, spawning, reaping, timeouts) is
// executor_thread.cpp.
#include "exec/executor.hpp"

#include "base/check.hpp"
#include "exec/executor_thread_internal.hpp"
#include "exec/result_queue.hpp"
#include "native/resolver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <pthread.h>
#include <unistd.h>
#include <utility>

namespace vedette::exec {

void Executor::Warnings::note_shortage(int error) {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mutex_);
  ++retried_;
  if (now < next_) return;
  messages_.push_back(fmt::format(
      "Warning: Could not start a check or command: {} ({} retried since the last warning); nothing is "
      "reported for them, they are tried again within {} s",
      std::strerror(error), retried_, k_longest_retry_pause_ns / 1'000'000'000));
  retried_ = 0;
  next_ = now + std::chrono::minutes(1);
  pending_.store(true, std::memory_order_release);
}

std::vector<std::string> Executor::Warnings::take() {
  std::lock_guard lock(mutex_);
  pending_.store(false, std::memory_order_relaxed);
  return std::exchange(messages_, {});
}

Executor::Worker::Worker(unsigned index, const Spawner& spawner, ResultQueue& results, Warnings& warnings,
                         const ExecutorOptions& options, unsigned timing_out_limit,
                         native::Resolver& resolver)
    : spawner_(spawner),
      results_(results),
      warnings_(warnings),
      options_(options),
      timing_out_limit_(timing_out_limit) {
  VEDETTE_CHECK_ERRNO(epoll_.fd() >= 0, "exec: epoll_create1");
  VEDETTE_CHECK_ERRNO(epoll_.add(inbox_wakeup_.fd(), loop::Epoll::readable, k_inbox_token) == 0,
                      "exec: epoll_ctl");
  native_ = std::make_unique<native::NativeRunner>(epoll_, k_native, resolver);
  thread_ = base::start_thread([this] { run(); });
  // Named from here, not from inside the thread, so the name is in place when the constructor returns.
  ::pthread_setname_np(thread_.native_handle(), fmt::format("exec-{}", index).c_str());
  ::pthread_getcpuclockid(thread_.native_handle(), &cpu_clock_);
}

Executor::Worker::~Worker() {
  stop();
  native_.reset();
}

void Executor::Worker::cancel_held() {
  cancel_held_.store(true, std::memory_order_release);
  inbox_wakeup_.signal();
}

void Executor::Worker::stop() {
  if (!thread_.joinable()) return;
  stopping_.store(true, std::memory_order_release);
  inbox_wakeup_.signal();
  thread_.join();
}

// The thread's CPU clock dies with the thread, so its last reading is kept for after stop().
std::chrono::nanoseconds Executor::Worker::cpu_time() const {
  if (!exited_.load(std::memory_order_acquire)) {
    timespec ts{};
    if (::clock_gettime(cpu_clock_, &ts) == 0) {
      return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
    }
  }
  return std::chrono::nanoseconds(cpu_at_exit_ns_.load(std::memory_order_acquire));
}

Executor::Executor(ResultQueue& results, ExecutorOptions options)
    : spawner_(std::make_unique<Spawner>(SpawnerOptions{options.use_pidfd, options.spawn_method})),
      warnings_(std::make_unique<Warnings>()),
      resolver_(std::make_unique<native::Resolver>()) {
  const unsigned n = std::max(1u, options.threads);
  workers_.reserve(n);
  // Jobs are dealt to the threads in turn, so each holds its share of the slots; a thread without one
  // would keep its timing-out jobs queued for ever.
  const unsigned slots = options.timing_out_slots;
  timing_out_slots_ = slots == 0 ? 0 : std::max(slots, n);
  for (unsigned i = 0; i < n; ++i) {
    const unsigned share = slots == 0 ? 0 : std::max(1u, slots / n + (i < slots % n ? 1u : 0u));
    workers_.push_back(
        std::make_unique<Worker>(i, *spawner_, results, *warnings_, options, share, *resolver_));
  }
}

Executor::~Executor() {
  shutdown();
}

bool Executor::submit(CheckJob&& job) {
  if (!accepting_.load(std::memory_order_acquire)) return false;
  const unsigned i = next_worker_.fetch_add(1, std::memory_order_relaxed) % workers_.size();
  workers_[i]->enqueue(std::make_move_iterator(&job), std::make_move_iterator(&job + 1));
  return true;
}

std::size_t Executor::submit_batch(std::vector<CheckJob>& jobs) {
  if (!accepting_.load(std::memory_order_acquire)) {
    jobs.clear();
    return 0;
  }
  const std::size_t total = jobs.size();
  const std::size_t n = workers_.size();
  // Dealt out in turn: the batch is in due order, so a contiguous slice per thread would leave one thread
  // spawning (blocked in each vfork) while the others wait for their part of the window.
  std::vector<std::vector<CheckJob>> dealt(n);
  const unsigned first = next_worker_.fetch_add(1, std::memory_order_relaxed);
  for (std::size_t i = 0; i < total; ++i) dealt[(first + i) % n].push_back(std::move(jobs[i]));
  for (std::size_t w = 0; w < n; ++w) {
    if (!dealt[w].empty())
      workers_[w]->enqueue(std::make_move_iterator(dealt[w].begin()),
                           std::make_move_iterator(dealt[w].end()));
  }
  jobs.clear();
  return total;
}

void Executor::cancel_held() {
  for (auto& worker : workers_) worker->cancel_held();
}

void Executor::shutdown() {
  accepting_.store(false, std::memory_order_release);
  for (auto& worker : workers_) worker->stop();
  // Before the workers go: its thread may still be answering into their inboxes.
  resolver_.reset();
}

bool Executor::has_warnings() const {
  return warnings_->pending();
}

std::vector<std::string> Executor::take_warnings() {
  return warnings_->take();
}

std::chrono::nanoseconds Executor::cpu_time() const {
  std::chrono::nanoseconds total{0};
  for (const auto& worker : workers_) total += worker->cpu_time();
  return total;
}

}  // namespace vedette::exec
