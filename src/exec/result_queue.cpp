#include "exec/result_queue.hpp"

#include <iterator>
#include <utility>

namespace vedette::exec {

void ResultQueue::push(CheckResult&& result) {
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
}

}  // namespace vedette::exec
