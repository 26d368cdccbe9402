// exec -> core: executor threads push CheckResults, the core thread drains them in one batch per wakeup.
// push*/drain as noted per method; fd() is polled by the core's loop (readable = results may be waiting).
//
//   core loop: on fd() readable -> queue.drain(batch); for (auto& r : batch) apply(r);
#pragma once

#include "exec/check_job.hpp"
#include "loop/wakeup.hpp"

#include <atomic>
#include <mutex>
#include <vector>

namespace vedette::exec {

class ResultQueue {
 public:
  // Any thread. The eventfd is written only when the queue goes from empty to non-empty, so a burst of
  // results costs the producers one write(2) and the core one wakeup.
  void push(CheckResult&& result);
  // Any thread. Moves every element out of `results` (left empty, capacity kept) under one lock.
  void push_batch(std::vector<CheckResult>& results);

  // Core thread only. Replaces `out` with everything queued, oldest first. `out` should be empty: its
  // buffer is swapped in so the next pushes reuse it, and no result is copied.
  void drain(std::vector<CheckResult>& out);

  [[nodiscard]] int fd() const { return wakeup_.fd(); }

  // Polled mode, for a core that looks at the queue on every loop iteration anyway: producers then set a
  // flag instead of writing the eventfd, and the core drains without reading it. Waking the core for every
  // result doubled its wakeups per check (bench/perfbench). Core thread, before the first push.
  void use_polling() { polled_.store(true, std::memory_order_relaxed); }
  // Core thread, polled mode: whether a drain would find anything (one atomic load, no syscall).
  [[nodiscard]] bool has_results() const { return pending_.load(std::memory_order_acquire); }

 private:
  void signal();

  std::mutex mutex_;
  std::vector<CheckResult> items_;  // guarded by mutex_
  loop::Wakeup wakeup_;
  std::atomic<bool> polled_{false};
  std::atomic<bool> pending_{false};
};

}  // namespace vedette::exec
