// exec -> core: executor threads push CheckResults, the core thread drains them in one batch per wakeup.
// push*/drain as noted per method; fd() is polled by the core's loop (readable = results may be waiting).
//
//   core loop: on fd() readable -> queue.drain(batch); for (auto& r : batch) apply(r);
#pragma once

#include "exec/check_job.hpp"
#include "exec/wakeup_fd.hpp"

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

 private:
  std::mutex mutex_;
  std::vector<CheckResult> items_;  // guarded by mutex_
  WakeupFd wakeup_;
};

}  // namespace vedette::exec
