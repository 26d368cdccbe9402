// TimerHeap: the check scheduler's priority queue. A d-ary min-heap of {key, id} entries keyed by a 64-bit
// monotonic key (ns), with a back-index per id so any entry is removed or re-keyed in place. Core thread
// only; ids are dense uint32 (the engine uses check ids) and the heap allocates only when it grows past
// reserve().
//
// Why a 4-heap: bench/loop/timer_heap_bench.cpp, Release, 2-core VM under load 4-12 (noisy), ns per fired
// and rescheduled timer, range over three runs of the median of 3 (Mixed adds random re-keys and removals):
//                        Reschedule 10k / 100k    Mixed 10k / 100k
//   4-heap (this)          90-105 / 130-220       116-156 / 163-277   (re-key in place: 93-128 / 164-189)
//   binary heap            87-97  / 121-173       110-133 / 167-285
//   wheel 65536 x 1 ms    105-111 / 104-139       101-128 / 127-153
//   wheel  4096 x 1 ms    420-446 / 579-657       379-403 / 628-663
//   std::multimap         113-150 / 329-542       163-195 / 572-845
// At 10k all but the small wheel are within noise; at 100k a wheel tuned to the intervals is ~1.3x faster
// (~50 ns per check, under 1% of the core thread's per-check budget) but 3-4x slower when its slots do not
// match the spread of intervals. The heap has no tuning knob, exact order, a cheap idle next_key() and
// O(log n) worst cases, so the engine uses it; TimerWheel (bench/loop/timer_wheel.hpp, not in the library)
// keeps the same interface should a run on a quiet machine say otherwise. 4-heap vs binary heap: no
// difference measurable here (libev saw ~5% at 50000+).
//
// Layout (libev's HEAP0 = D - 1): the root sits at index D - 1, so each group of D siblings starts at a
// multiple of D; with 16-byte entries and a 64-byte aligned array the 4 siblings of a 4-heap share one cache
// line, and sifting compares keys in heap memory only. Equal keys are allowed; their relative order is
// unspecified.
#pragma once

#include "loop/clock.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vedette::loop {

using TimerId = std::uint32_t;

struct TimerEntry {
  TimerKey key;
  TimerId id;
};

template <unsigned Arity>
class BasicTimerHeap {
  static_assert(Arity >= 2);

 public:
  BasicTimerHeap() = default;
  explicit BasicTimerHeap(std::uint32_t id_capacity) { reserve(id_capacity); }
  ~BasicTimerHeap();
  BasicTimerHeap(const BasicTimerHeap&) = delete;
  BasicTimerHeap& operator=(const BasicTimerHeap&) = delete;

  // Sizes the arrays for ids < id_capacity, so later operations on such ids never allocate.
  void reserve(std::uint32_t id_capacity);

  // Precondition for insert: !contains(id). Precondition for update/key_of: contains(id).
  void insert(TimerId id, TimerKey key);
  void update(TimerId id, TimerKey key);  // re-key in place: one sift, up or down
  void schedule(TimerId id, TimerKey key) { contains(id) ? update(id, key) : insert(id, key); }
  bool remove(TimerId id);  // false when absent
  void clear();

  bool contains(TimerId id) const { return id < slot_of_.size() && slot_of_[id] != k_absent; }
  TimerKey key_of(TimerId id) const { return heap_[slot_of_[id]].key; }
  bool empty() const { return size_ == 0; }
  std::uint32_t size() const { return size_; }

  // The minimum. Precondition: !empty().
  const TimerEntry& top() const { return heap_[k_root]; }
  TimerKey next_key() const { return heap_[k_root].key; }
  void pop() { remove(heap_[k_root].id); }

  // Removes every entry with key <= now, smallest first, calling on_due(id, key) after each removal; the
  // callback may insert, update or remove anything (an entry it makes due again is expired in the same call).
  template <class OnDue>
  void expire(TimerKey now, OnDue&& on_due) {
    while (size_ != 0 && heap_[k_root].key <= now) {
      const TimerEntry due = heap_[k_root];
      remove(due.id);
      on_due(due.id, due.key);
    }
  }

  // libev's verify_heap: every back-index matches, every parent <= its children, the size adds up.
  bool check_invariants() const;

 private:
  static constexpr std::uint32_t k_root = Arity - 1;  // libev's HEAP0
  static constexpr std::uint32_t k_absent = UINT32_MAX;

  void sift_up(std::uint32_t k);
  void sift_down(std::uint32_t k);
  void grow(std::uint32_t min_entries);

  TimerEntry* heap_ = nullptr;  // [k_root, k_root + size_) in use; 64-byte aligned
  std::uint32_t capacity_ = 0;  // entries allocated, including the k_root unused leading slots
  std::uint32_t size_ = 0;
  std::vector<std::uint32_t> slot_of_;  // id -> index in heap_, or k_absent
};

extern template class BasicTimerHeap<2>;
extern template class BasicTimerHeap<4>;

using TimerHeap = BasicTimerHeap<4>;

}  // namespace vedette::loop
