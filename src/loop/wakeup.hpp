// Wakeup: an eventfd that lets any thread wake another thread's loop (the core's, an executor thread's), with
// one write per batch. signal() is called by producers after publishing work (any thread); drain() by the
// consumer before taking the work (the thread that watches fd()). Only the empty->armed transition writes,
// as Envoy's post() and libev's ev_async_send.
//
//   producer: queue.push(item); wakeup.signal();
//   consumer (fd readable): wakeup.drain(); take everything from queue;
#pragma once

#include <atomic>
#include <cstdint>

namespace vedette::loop {

class Wakeup {
 public:
  Wakeup();  // fatal (base/check.hpp) when eventfd fails (startup only)
  ~Wakeup();
  Wakeup(const Wakeup&) = delete;
  Wakeup& operator=(const Wakeup&) = delete;

  int fd() const { return fd_; }

  // Any thread. Writes the eventfd only if the wakeup was not already armed since the last drain().
  void signal();
  // Consumer thread, before taking the work. Reads the eventfd, then disarms; returns the counter it read,
  // the writes since the previous drain (1 per batch however many signal() calls made it).
  std::uint64_t drain();

  bool is_armed() const { return armed_.load(std::memory_order_relaxed); }
  // Writes made by signal(), for tests and benchmarks.
  std::uint64_t writes() const { return writes_.load(std::memory_order_relaxed); }

 private:
  int fd_;
  std::atomic<bool> armed_{false};
  std::atomic<std::uint64_t> writes_{0};
};

}  // namespace vedette::loop
