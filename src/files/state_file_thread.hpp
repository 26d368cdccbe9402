// The thread behind each state-file writer (status.dat, retention.dat): the core hands a snapshot over in
// one short lock and never waits for the disk; a snapshot still waiting is replaced by the newer one (newest
// wins: there is never a backlog), and the thread writes one at a time. A removal request (status.dat at
// shutdown) drops what waits and runs the remove job instead. Errors are reported once per episode of
// failure, again only after a success. Stats is the writer's counters struct: it needs `skipped` and
// `failures`; the jobs update the rest through update_stats().
//
//   StateFileThread<Snapshot, Stats> thread_{on_error};   // the owner's last member
//   thread_.start("status", {.write = [this](const Snapshot& s) { write(s); }});
//   thread_.publish(snapshot);                            // core thread
#pragma once

#include "base/check.hpp"

#include <fmt/core.h>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <functional>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

namespace vedette::files {

template <typename Snapshot, typename Stats>
class StateFileThread {
 public:
  struct Jobs {
    std::function<void(const Snapshot&)> write;
    std::function<void()> remove = {};  // unused unless request_removal() is called
  };

  // Writer thread: called with each first failure after a success. Null: stderr.
  explicit StateFileThread(std::function<void(std::string_view)> on_error) : on_error_(std::move(on_error)) {}
  // Finishes the write in progress and what still waits, then joins.
  ~StateFileThread() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  StateFileThread(const StateFileThread&) = delete;
  StateFileThread& operator=(const StateFileThread&) = delete;

  // Starts the thread, named `name`, once the jobs' owner is fully built.
  void start(const char* name, Jobs jobs) {
    jobs_ = std::move(jobs);
    thread_ = base::start_thread([this, name] { run(name); });
  }

  void publish(std::shared_ptr<const Snapshot> snapshot) {
    hand_over([&] {
      std::shared_ptr<const Snapshot> replaced = std::exchange(pending_, std::move(snapshot));
      if (replaced != nullptr) ++stats_.skipped;
      remove_pending_ = false;
      return replaced;
    });
  }

  // Drops a waiting snapshot; after the write in progress (if any) the remove job runs.
  void request_removal() {
    hand_over([&] {
      remove_pending_ = true;
      return std::exchange(pending_, nullptr);
    });
  }

  // Tests and shutdown only: blocks until nothing waits or is being written. False on timeout.
  bool wait_idle(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return idle_cv_.wait_for(lock, timeout, [this] { return idle_; });
  }

  Stats stats() const {
    std::lock_guard lock(mutex_);
    return stats_;
  }

  // The message of the last failed write ("" before any), also when on_error did not hear of it because
  // the failure continued an episode already reported.
  std::string last_error() const {
    std::lock_guard lock(mutex_);
    return last_error_;
  }

  // Writer thread (the jobs): counts under the lock stats() takes.
  template <typename F>
  void update_stats(F&& update) {
    std::lock_guard lock(mutex_);
    update(stats_);
  }
  void failed(const std::string& message) {
    update_stats([](Stats& s) { ++s.failures; });
    {
      std::lock_guard lock(mutex_);
      last_error_ = message;
    }
    if (std::exchange(error_reported_, true)) return;
    if (on_error_) {
      on_error_(message);
    } else {
      fmt::print(stderr, "vedette: Error: {}\n", message);
    }
  }
  void succeeded() { error_reported_ = false; }

 private:
  // One short lock: `change` edits what waits and returns what it displaced, released after the lock.
  template <typename F>
  void hand_over(F&& change) {
    std::shared_ptr<const Snapshot> displaced;
    bool wake = false;
    {
      std::lock_guard lock(mutex_);
      displaced = change();
      idle_ = false;
      wake = sleeping_;
    }
    if (wake) wake_.notify_one();
  }

  void run(const char* name) {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);  // signals belong to the core thread's signalfd
    pthread_setname_np(pthread_self(), name);

    std::unique_lock lock(mutex_);
    for (;;) {
      if (pending_ == nullptr && !remove_pending_) {
        idle_ = true;
        idle_cv_.notify_all();
        if (stop_) break;
        sleeping_ = true;
        wake_.wait(lock);
        sleeping_ = false;
        continue;
      }
      std::shared_ptr<const Snapshot> snapshot = std::move(pending_);
      pending_.reset();
      const bool remove = std::exchange(remove_pending_, false);
      lock.unlock();
      if (snapshot != nullptr) {
        jobs_.write(*snapshot);
        snapshot.reset();
      } else if (remove && jobs_.remove) {
        jobs_.remove();
      }
      lock.lock();
    }
  }

  const std::function<void(std::string_view)> on_error_;
  Jobs jobs_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;             // the writer waits here for work
  std::condition_variable idle_cv_;          // wait_idle() waits here
  std::shared_ptr<const Snapshot> pending_;  // guarded by mutex_
  bool remove_pending_ = false;              // guarded by mutex_
  bool stop_ = false;                        // guarded by mutex_
  bool sleeping_ = false;                    // guarded by mutex_
  bool idle_ = true;                         // guarded by mutex_
  Stats stats_{};                            // guarded by mutex_
  std::string last_error_;                   // guarded by mutex_
  bool error_reported_ = false;              // writer thread only

  std::thread thread_;  // last
};

}  // namespace vedette::files
