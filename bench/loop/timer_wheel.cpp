#include "timer_wheel.hpp"

#include <cassert>

namespace vedette::loop {

TimerWheel::TimerWheel(unsigned tick_shift, std::uint32_t slot_count) : tick_shift_(tick_shift) {
  std::uint32_t slots = 1;
  while (slots < slot_count) slots *= 2;
  mask_ = slots - 1;
  heads_.assign(slots, k_nil);
}

void TimerWheel::reserve(std::uint32_t id_capacity) {
  if (id_capacity > state_.size()) ensure_id(id_capacity - 1);
  due_.reserve(64);
}

void TimerWheel::ensure_id(TimerId id) {
  if (id < state_.size()) return;
  const std::size_t n = std::size_t{id} + 1 + state_.size() / 2;
  key_.resize(n, 0);
  next_.resize(n, k_nil);
  prev_.resize(n, k_nil);
  slot_.resize(n, k_nil);
  state_.resize(n, State::absent);
}

void TimerWheel::link(TimerId id, TimerKey key) {
  // An overdue key goes to the cursor's slot, which the next expire() scans first.
  const std::uint32_t slot = static_cast<std::uint32_t>(std::max(tick_of(key), cursor_) & mask_);
  key_[id] = key;
  slot_[id] = slot;
  prev_[id] = k_nil;
  next_[id] = heads_[slot];
  if (heads_[slot] != k_nil) prev_[heads_[slot]] = id;
  heads_[slot] = id;
  state_[id] = State::linked;
  if (min_cache_valid_ && key < min_cache_) min_cache_ = key;
}

void TimerWheel::unlink(TimerId id) {
  if (prev_[id] != k_nil) {
    next_[prev_[id]] = next_[id];
  } else {
    heads_[slot_[id]] = next_[id];
  }
  if (next_[id] != k_nil) prev_[next_[id]] = prev_[id];
  if (min_cache_valid_ && key_[id] == min_cache_) min_cache_valid_ = false;
}

void TimerWheel::insert(TimerId id, TimerKey key) {
  ensure_id(id);
  assert(!contains(id) && "timer id inserted twice");
  if (size_ == 0) {
    min_cache_ = key;
    min_cache_valid_ = true;
  }
  link(id, key);
  ++size_;
}

void TimerWheel::update(TimerId id, TimerKey key) {
  assert(contains(id) && "update of an absent timer id");
  // A firing entry (in a due batch) re-keyed by a callback becomes linked again and its call is cancelled.
  if (state_[id] == State::linked) unlink(id);
  link(id, key);
}

bool TimerWheel::remove(TimerId id) {
  if (!contains(id)) return false;
  if (state_[id] == State::linked) unlink(id);
  state_[id] = State::absent;
  --size_;
  return true;
}

void TimerWheel::clear() {
  for (std::uint32_t& head : heads_) head = k_nil;
  std::fill(state_.begin(), state_.end(), State::absent);
  due_.clear();
  size_ = 0;
  min_cache_valid_ = false;
}

TimerKey TimerWheel::next_key() const {
  assert(size_ != 0);
  if (min_cache_valid_) return min_cache_;
  TimerKey best = UINT64_MAX;
  bool found = false;
  // The first slot holding a key of its own tick (or an overdue one) within one round holds the minimum.
  for (std::uint64_t t = cursor_; t <= cursor_ + mask_ && !found; ++t) {
    for (std::uint32_t id = heads_[t & mask_]; id != k_nil; id = next_[id]) {
      if (tick_of(key_[id]) > t) continue;
      best = std::min(best, key_[id]);
      found = true;
    }
  }
  if (!found) {
    for (std::uint32_t id = 0; id < state_.size(); ++id) {
      if (state_[id] == State::linked) best = std::min(best, key_[id]);
    }
  }
  min_cache_ = best;
  min_cache_valid_ = true;
  return best;
}

void TimerWheel::collect_due(TimerKey now) {
  const std::uint64_t now_tick = tick_of(now);
  if (size_ == 0) {
    cursor_ = std::max(cursor_, now_tick);
    return;
  }
  const std::uint64_t last = std::max(now_tick, cursor_);
  // Past one round every slot has been seen once: scanning more would only find the same entries again.
  const std::uint64_t stop = last - cursor_ > mask_ ? cursor_ + mask_ : last;
  for (std::uint64_t t = cursor_; t <= stop; ++t) {
    std::uint32_t id = heads_[t & mask_];
    while (id != k_nil) {
      const std::uint32_t next = next_[id];
      if (key_[id] <= now) {
        unlink(id);
        state_[id] = State::firing;
        due_.push_back(TimerEntry{key_[id], id});
      }
      id = next;
    }
  }
  cursor_ = last;
  if (due_.empty()) return;
  min_cache_valid_ = false;
  if (due_.size() > 1) {
    std::sort(due_.begin(), due_.end(),
              [](const TimerEntry& a, const TimerEntry& b) { return a.key < b.key; });
  }
}

bool TimerWheel::check_invariants() const {
  std::uint32_t linked = 0;
  std::uint32_t firing = 0;
  for (std::uint32_t id = 0; id < state_.size(); ++id) {
    if (state_[id] == State::firing) ++firing;
    if (state_[id] != State::linked) continue;
    ++linked;
    if (slot_[id] != (std::max(tick_of(key_[id]), cursor_) & mask_)) return false;
  }
  std::uint32_t walked = 0;
  for (std::uint32_t slot = 0; slot <= mask_; ++slot) {
    std::uint32_t prev = k_nil;
    for (std::uint32_t id = heads_[slot]; id != k_nil; id = next_[id]) {
      if (state_[id] != State::linked || slot_[id] != slot || prev_[id] != prev) return false;
      if (++walked > linked) return false;
      prev = id;
    }
  }
  if (walked != linked || linked + firing != size_) return false;
  if (min_cache_valid_ && linked != 0) {
    TimerKey min = UINT64_MAX;
    for (std::uint32_t id = 0; id < state_.size(); ++id) {
      if (state_[id] == State::linked) min = std::min(min, key_[id]);
    }
    if (min != min_cache_) return false;
  }
  return true;
}

}  // namespace vedette::loop
