#pragma once
// TimerWheel: a hashed timing wheel (Varghese & Lauck, scheme 6) with TimerHeap's interface, kept as the
// measured competitor of the 4-heap (see loop/timer_heap.hpp for the figures). Not in the daemon: only
// timer_heap_bench and the heap's unit test (which checks both against one model) build timer_wheel.cpp.
// One thread; dense uint32 ids.
//
// An entry lives in slot (tick & mask), tick = key >> tick_shift, on an intrusive doubly linked list held in
// per-id arrays: insert/update/remove are O(1). expire() scans each slot the clock passed; next_key() scans
// forward from the cursor for the first slot holding an entry of the current round, which is what the loop
// needs to size its poll timeout and where the wheel pays for its O(1) insert.

#include "loop/clock.hpp"
#include "loop/timer_heap.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace vedette::loop {

class TimerWheel {
 public:
  // Defaults: 2^20 ns ticks (~1.05 ms) and 65536 slots, one round ~69 s.
  explicit TimerWheel(unsigned tick_shift = 20, std::uint32_t slot_count = 65536);

  void reserve(std::uint32_t id_capacity);

  void insert(TimerId id, TimerKey key);  // precondition: !contains(id)
  void update(TimerId id, TimerKey key);  // precondition: contains(id)
  void schedule(TimerId id, TimerKey key) { contains(id) ? update(id, key) : insert(id, key); }
  bool remove(TimerId id);
  void clear();

  bool contains(TimerId id) const { return id < state_.size() && state_[id] != State::absent; }
  TimerKey key_of(TimerId id) const { return key_[id]; }
  bool empty() const { return size_ == 0; }
  std::uint32_t size() const { return size_; }

  // The smallest key. Precondition: !empty().
  TimerKey next_key() const;

  // Removes every entry with key <= now and calls on_due(id, key) for each, smallest key first. The due batch
  // is collected before the first callback: a callback that removes or re-keys a not-yet-called entry of the
  // batch cancels its call; entries it inserts or makes due wait for the next expire().
  template <class OnDue>
  void expire(TimerKey now, OnDue&& on_due) {
    collect_due(now);
    for (const TimerEntry& due : due_) {
      if (state_[due.id] != State::firing) continue;
      state_[due.id] = State::absent;
      --size_;
      on_due(due.id, due.key);
    }
    due_.clear();
  }

  bool check_invariants() const;

 private:
  enum class State : std::uint8_t { absent, linked, firing };
  static constexpr std::uint32_t k_nil = UINT32_MAX;

  std::uint64_t tick_of(TimerKey key) const { return key >> tick_shift_; }
  void link(TimerId id, TimerKey key);
  void unlink(TimerId id);
  void collect_due(TimerKey now);
  void ensure_id(TimerId id);

  unsigned tick_shift_;
  std::uint32_t mask_;
  std::uint64_t cursor_ = 0;  // the tick of the slot expire() scans first; only moves forward
  std::uint32_t size_ = 0;    // linked + firing
  std::vector<std::uint32_t> heads_;
  std::vector<TimerKey> key_;
  std::vector<std::uint32_t> next_;
  std::vector<std::uint32_t> prev_;
  std::vector<std::uint32_t> slot_;
  std::vector<State> state_;
  std::vector<TimerEntry> due_;
  mutable TimerKey min_cache_ = 0;
  mutable bool min_cache_valid_ = false;
};

}  // namespace vedette::loop
