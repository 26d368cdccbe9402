// The hand-over between the core thread and a file writer thread (the log, a perfdata file): text the core
// appends, with operations (a rotation, a processing command) that the writer performs once it has written
// the text before each one's offset. The owner's mutex guards the WriteQueue, and decides when to wake its
// writer; the WriteBatch belongs to the writer thread alone. Buffers are swapped, not copied, so neither
// side reallocates in steady state.
//
//   queue_.post(pending_, &op);          // core thread, under the lock
//   batch_.take(queue_);                 // writer thread, under the lock
//   ... write batch_.text from batch_.done up to batch_.next_end(), perform batch_.ops[batch_.next_op] ...
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace vedette::files {

// Op: movable, with a std::size_t `offset` into the text.
template <typename Op>
struct WriteQueue {
  std::string text;
  std::vector<Op> ops;

  [[nodiscard]] bool empty() const { return text.empty() && ops.empty(); }

  // Moves `pending` in (left empty) and appends `op`, if any, after it.
  void post(std::string& pending, Op* op) {
    if (text.empty()) {
      text.swap(pending);
    } else {
      text.append(pending);
    }
    pending.clear();
    if (op != nullptr) {
      op->offset = text.size();
      ops.push_back(std::move(*op));
    }
  }
};

template <typename Op>
struct WriteBatch {
  std::string text;
  std::vector<Op> ops;
  std::size_t done = 0;     // bytes of text written (or given up)
  std::size_t next_op = 0;  // ops performed (or given up)

  [[nodiscard]] bool has_backlog() const { return done < text.size() || next_op < ops.size(); }

  // Where the text to write before the next op ends: the whole text when no op is left.
  [[nodiscard]] std::size_t next_end() const {
    return next_op < ops.size() ? ops[next_op].offset : text.size();
  }

  // Under the queue's lock. Moves the queue behind what is left of the batch (the queue is left empty);
  // returns where the new text starts within the batch.
  std::size_t take(WriteQueue<Op>& queue) {
    if (!has_backlog()) {
      text.clear();
      ops.clear();
      done = next_op = 0;
      text.swap(queue.text);
      ops.swap(queue.ops);
      return 0;
    }
    // A backlog kept from a failure or a full pipe: rare, so compacting by copy is fine.
    text.erase(0, done);
    ops.erase(ops.begin(), ops.begin() + static_cast<std::ptrdiff_t>(next_op));
    for (Op& op : ops) op.offset -= done;
    done = next_op = 0;
    const std::size_t base = text.size();
    text.append(queue.text);
    for (Op& op : queue.ops) {
      op.offset += base;
      ops.push_back(std::move(op));
    }
    queue.text.clear();
    queue.ops.clear();
    return base;
  }
};

}  // namespace vedette::files
