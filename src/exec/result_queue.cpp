#include "exec/result_queue.hpp"

#include "metrics/core_metrics.hpp"

#include <iterator>
#include <utility>

namespace vedette::exec {

// The pending gauge goes up before the results are visible to drain(), which takes it down, so it never
// reads below zero.
void ResultQueue::push(CheckResult&& result) {
  metrics::core_metrics().results_pending.add(1);
  bool was_empty;
  {
    std::lock_guard lock(mutex_);
    was_empty = items_.empty();
    items_.push_back(std::move(result));
  }
  if (was_empty) signal();
}

void ResultQueue::push_batch(std::vector<CheckResult>& results) {
  if (results.empty()) return;
  metrics::core_metrics().results_pending.add(static_cast<std::int64_t>(results.size()));
  bool was_empty;
  {
    std::lock_guard lock(mutex_);
    was_empty = items_.empty();
    if (was_empty) {
      items_.swap(results);
    } else {
      items_.insert(items_.end(), std::make_move_iterator(results.begin()),
                    std::make_move_iterator(results.end()));
    }
  }
  results.clear();
  if (was_empty) signal();
}

void ResultQueue::signal() {
  if (polled_.load(std::memory_order_relaxed))
    pending_.store(true, std::memory_order_release);
  else
    wakeup_.signal();
}

void ResultQueue::drain(std::vector<CheckResult>& out) {
  out.clear();
  // Clear the flag before taking the items: a push that lands after the swap finds the queue empty and
  // signals again. The other order could swallow that signal and strand a result until the next one.
  if (polled_.load(std::memory_order_relaxed))
    pending_.store(false, std::memory_order_relaxed);
  else
    wakeup_.drain();
  std::lock_guard lock(mutex_);
  items_.swap(out);
  if (!out.empty()) metrics::core_metrics().results_pending.add(-static_cast<std::int64_t>(out.size()));
}

}  // namespace vedette::exec
