#include "loop/timer_heap.hpp"

#include <cassert>
#include <new>

namespace vedette::loop {
namespace {

constexpr std::align_val_t k_line{64};

}  // namespace

template <unsigned Arity>
BasicTimerHeap<Arity>::~BasicTimerHeap() {
  if (heap_ != nullptr) ::operator delete(heap_, k_line);
}

template <unsigned Arity>
void BasicTimerHeap<Arity>::reserve(std::uint32_t id_capacity) {
  if (slot_of_.size() < id_capacity) slot_of_.resize(id_capacity, k_absent);
  grow(k_root + id_capacity);
}

template <unsigned Arity>
void BasicTimerHeap<Arity>::grow(std::uint32_t min_entries) {
  if (min_entries <= capacity_) return;
  std::uint32_t capacity = capacity_ < 64 ? 64 : capacity_;
  while (capacity < min_entries) capacity = capacity > UINT32_MAX / 2 ? UINT32_MAX : capacity * 2;
  auto* fresh = static_cast<TimerEntry*>(::operator new(sizeof(TimerEntry) * capacity, k_line));
  if (heap_ != nullptr) {
    for (std::uint32_t k = k_root; k < k_root + size_; ++k) fresh[k] = heap_[k];
    ::operator delete(heap_, k_line);
  }
  heap_ = fresh;
  capacity_ = capacity;
}

template <unsigned Arity>
void BasicTimerHeap<Arity>::insert(TimerId id, TimerKey key) {
  assert(!contains(id) && "timer id inserted twice");
  if (id >= slot_of_.size()) slot_of_.resize(std::size_t{id} + 1 + slot_of_.size() / 2, k_absent);
  grow(k_root + size_ + 1);
  const std::uint32_t k = k_root + size_++;
  heap_[k] = TimerEntry{key, id};
  slot_of_[id] = k;
  sift_up(k);
}

template <unsigned Arity>
void BasicTimerHeap<Arity>::update(TimerId id, TimerKey key) {
  assert(contains(id) && "update of an absent timer id");
  const std::uint32_t k = slot_of_[id];
  const TimerKey old = heap_[k].key;
  heap_[k].key = key;
  if (key < old) {
    sift_up(k);
  } else {
    sift_down(k);
  }
}

template <unsigned Arity>
bool BasicTimerHeap<Arity>::remove(TimerId id) {
  if (!contains(id)) return false;
  const std::uint32_t k = slot_of_[id];
  slot_of_[id] = k_absent;
  const std::uint32_t last = k_root + --size_;
  // Removing the last entry leaves nothing to move (libev's `active < timercnt + HEAP0` guard).
  if (k == last) return true;
  heap_[k] = heap_[last];
  slot_of_[heap_[k].id] = k;
  // The moved entry may belong above or below the hole.
  if (k > k_root && heap_[(k - k_root - 1) / Arity + k_root].key > heap_[k].key) {
    sift_up(k);
  } else {
    sift_down(k);
  }
  return true;
}

template <unsigned Arity>
void BasicTimerHeap<Arity>::clear() {
  for (std::uint32_t k = k_root; k < k_root + size_; ++k) slot_of_[heap_[k].id] = k_absent;
  size_ = 0;
}

template <unsigned Arity>
void BasicTimerHeap<Arity>::sift_up(std::uint32_t k) {
  const TimerEntry moving = heap_[k];
  while (k > k_root) {
    const std::uint32_t parent = (k - k_root - 1) / Arity + k_root;
    if (heap_[parent].key <= moving.key) break;
    heap_[k] = heap_[parent];
    slot_of_[heap_[k].id] = k;
    k = parent;
  }
  heap_[k] = moving;
  slot_of_[moving.id] = k;
}

template <unsigned Arity>
void BasicTimerHeap<Arity>::sift_down(std::uint32_t k) {
  const TimerEntry moving = heap_[k];
  const std::uint32_t end = k_root + size_;
  for (;;) {
    const std::uint32_t first = Arity * (k - k_root) + k_root + 1;
    std::uint32_t min = first;
    if (first + Arity <= end) {
      // Fast path: a full group of siblings, one cache line for the 4-heap.
      for (std::uint32_t c = first + 1; c < first + Arity; ++c) {
        if (heap_[c].key < heap_[min].key) min = c;
      }
    } else if (first < end) {
      for (std::uint32_t c = first + 1; c < end; ++c) {
        if (heap_[c].key < heap_[min].key) min = c;
      }
    } else {
      break;
    }
    if (moving.key <= heap_[min].key) break;
    heap_[k] = heap_[min];
    slot_of_[heap_[k].id] = k;
    k = min;
  }
  heap_[k] = moving;
  slot_of_[moving.id] = k;
}

template <unsigned Arity>
bool BasicTimerHeap<Arity>::check_invariants() const {
  if (std::size_t{k_root} + size_ > capacity_ && size_ != 0) return false;
  for (std::uint32_t k = k_root; k < k_root + size_; ++k) {
    const TimerEntry& e = heap_[k];
    if (e.id >= slot_of_.size() || slot_of_[e.id] != k) return false;
    if (k > k_root && heap_[(k - k_root - 1) / Arity + k_root].key > e.key) return false;
  }
  std::uint32_t present = 0;
  for (const std::uint32_t slot : slot_of_) {
    if (slot == k_absent) continue;
    if (slot < k_root || slot >= k_root + size_) return false;
    ++present;
  }
  if (present != size_) return false;
  return size_ == 0 || reinterpret_cast<std::uintptr_t>(heap_) % 64 == 0;
}

template class BasicTimerHeap<2>;
template class BasicTimerHeap<4>;

}  // namespace vedette::loop
