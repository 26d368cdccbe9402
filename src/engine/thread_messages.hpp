// Lines a writer thread hands to the core thread to log: added under a lock on the writer's side, seen with
// one relaxed load per loop iteration on the core's (nothing to take, no lock).
//
//   ThreadMessages errors;                         // outlives the writer that adds to it
//   writer_options.on_error = [&](std::string_view m) { errors.add(std::string(m)); };
//   if (errors.pending()) errors.drain([&](const std::string& m) { log(m); });
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace vedette::engine {

class ThreadMessages {
 public:
  // Any thread.
  void add(std::string message) {
    std::lock_guard lock(mutex_);
    messages_.push_back(std::move(message));
    pending_.store(true, std::memory_order_relaxed);
  }
  // The core thread: whether drain() has anything to give (may lag an add() by an iteration).
  [[nodiscard]] bool pending() const { return pending_.load(std::memory_order_relaxed); }
  // The core thread: each message, in the order added, then none.
  template <typename Fn>
  void drain(Fn&& each) {
    std::lock_guard lock(mutex_);
    for (const std::string& m : messages_) each(m);
    messages_.clear();
    pending_.store(false, std::memory_order_relaxed);
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> messages_;  // guarded by mutex_
  std::atomic<bool> pending_{false};
};

}  // namespace vedette::engine
