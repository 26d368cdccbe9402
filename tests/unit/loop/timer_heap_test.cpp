#include "loop/timer_heap.hpp"

#include "../../../bench/loop/timer_wheel.hpp"  // bench-only: the heap's measured competitor

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <new>
#include <optional>
#include <random>
#include <vector>

namespace {

// Counts allocations made by this thread, to show that a reserved heap never allocates per operation.
thread_local std::uint64_t g_allocations = 0;

}  // namespace

void* operator new(std::size_t size) {
  ++g_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, std::align_val_t align) {
  ++g_allocations;
  const auto a = static_cast<std::size_t>(align);
  if (void* p = std::aligned_alloc(a, (size + a - 1) / a * a)) return p;
  throw std::bad_alloc();
}
// The nothrow forms too: every allocation must come from these, or a sanitizer runtime's own nothrow
// operator new would pair with this file's delete (an alloc-dealloc mismatch under ASan).
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  ++g_allocations;
  return std::malloc(size == 0 ? 1 : size);
}
void* operator new(std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
  ++g_allocations;
  const auto a = static_cast<std::size_t>(align);
  return std::aligned_alloc(a, (size + a - 1) / a * a);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}

namespace vedette::loop {
namespace {

// A wheel small enough that keys wrap its rounds constantly.
class SmallWheel : public TimerWheel {
 public:
  SmallWheel() : TimerWheel(4, 64) {}
};
// Coarse ticks: many keys per tick, so due and not-yet-due keys share slots.
class CoarseWheel : public TimerWheel {
 public:
  CoarseWheel() : TimerWheel(8, 1024) {}
};

// The naive model: a sorted multimap with an iterator per id.
class Model {
 public:
  explicit Model(std::uint32_t ids) : where_(ids) {}
  bool contains(TimerId id) const { return where_[id].has_value(); }
  void insert(TimerId id, TimerKey key) { where_[id] = map_.emplace(key, id); }
  void remove(TimerId id) {
    map_.erase(*where_[id]);
    where_[id].reset();
  }
  void update(TimerId id, TimerKey key) {
    remove(id);
    insert(id, key);
  }
  std::size_t size() const { return map_.size(); }
  TimerKey min_key() const { return map_.begin()->first; }
  TimerKey key_of(TimerId id) const { return (*where_[id])->first; }
  std::vector<TimerEntry> expire(TimerKey now) {
    std::vector<TimerEntry> due;
    while (!map_.empty() && map_.begin()->first <= now) {
      due.push_back(TimerEntry{map_.begin()->first, map_.begin()->second});
      remove(map_.begin()->second);
    }
    return due;
  }

 private:
  std::multimap<TimerKey, TimerId> map_;
  std::vector<std::optional<std::multimap<TimerKey, TimerId>::iterator>> where_;
};

// Same keys in the same order; among equal keys the ids may come in any order.
void expect_same_batch(std::vector<TimerEntry> got, std::vector<TimerEntry> want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i].key, want[i].key) << "at " << i;
  const auto by_key_id = [](const TimerEntry& a, const TimerEntry& b) {
    return a.key != b.key ? a.key < b.key : a.id < b.id;
  };
  std::sort(got.begin(), got.end(), by_key_id);
  std::sort(want.begin(), want.end(), by_key_id);
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i].id, want[i].id);
}

template <class Timers>
std::vector<TimerEntry> expire_all(Timers& timers, TimerKey now) {
  std::vector<TimerEntry> due;
  timers.expire(now, [&](TimerId id, TimerKey key) { due.push_back(TimerEntry{key, id}); });
  return due;
}

template <class Timers>
class TimerStructure : public ::testing::Test {};

using Structures = ::testing::Types<TimerHeap, BasicTimerHeap<2>, SmallWheel, CoarseWheel>;
TYPED_TEST_SUITE(TimerStructure, Structures);

TYPED_TEST(TimerStructure, RandomOperationsMatchMultimap) {
  constexpr std::uint32_t k_ids = 300;
  std::mt19937_64 rng(12345);
  for (int round = 0; round < 3; ++round) {
    TypeParam timers;
    Model model(k_ids);
    TimerKey now = round == 2 ? UINT64_MAX - 100'000 : 1'000;
    const auto random_key = [&]() -> TimerKey {
      switch (rng() % 8) {
        case 0:
          return 0;
        case 1:
          return UINT64_MAX;
        case 2:
          return now + rng() % 4;  // many equal keys
        case 3:
          return now > 50 ? now - rng() % 50 : now;  // already due
        default: {
          const TimerKey span = rng() % 2 ? 5'000 : 200;
          const TimerKey delta = rng() % span;
          return now > UINT64_MAX - delta ? UINT64_MAX : now + delta;
        }
      }
    };
    for (int op = 0; op < 6'000; ++op) {
      const auto id = static_cast<TimerId>(rng() % k_ids);
      const unsigned what = rng() % 10;
      if (what < 4) {
        const TimerKey key = random_key();
        if (model.contains(id)) {
          timers.update(id, key);
          model.update(id, key);
        } else {
          timers.insert(id, key);
          model.insert(id, key);
        }
      } else if (what < 6) {
        ASSERT_EQ(timers.remove(id), model.contains(id));
        if (model.contains(id)) model.remove(id);
      } else if (what < 7) {
        // Remove whatever is the minimum right now: the root for a heap.
        if (model.size() != 0) {
          const TimerKey min = timers.next_key();
          ASSERT_EQ(min, model.min_key());
          for (TimerId victim = 0; victim < k_ids; ++victim) {
            if (model.contains(victim) && model.key_of(victim) == min) {
              ASSERT_TRUE(timers.remove(victim));
              model.remove(victim);
              break;
            }
          }
        }
      } else {
        const TimerKey step = rng() % 300;
        now = now > UINT64_MAX - step ? UINT64_MAX : now + step;
        expect_same_batch(expire_all(timers, now), model.expire(now));
      }
      ASSERT_TRUE(timers.check_invariants()) << "after op " << op;
      ASSERT_EQ(timers.size(), model.size());
      ASSERT_EQ(timers.contains(id), model.contains(id));
      if (model.contains(id)) {
        ASSERT_EQ(timers.key_of(id), model.key_of(id));
      }
      if (model.size() != 0) {
        ASSERT_EQ(timers.next_key(), model.min_key()) << "after op " << op;
      }
    }
    expect_same_batch(expire_all(timers, UINT64_MAX), model.expire(UINT64_MAX));
    EXPECT_TRUE(timers.empty());
    EXPECT_TRUE(timers.check_invariants());
  }
}

TYPED_TEST(TimerStructure, RemovingEveryPositionKeepsOrder) {
  // Insertion order fixes the positions, so removing each id in turn removes each position: the root, the
  // last node, and everything between, for sizes that fill the last sibling group partly and fully.
  for (std::uint32_t n = 1; n <= 40; ++n) {
    for (TimerId victim = 0; victim < n; ++victim) {
      TypeParam timers;
      Model model(n);
      for (TimerId id = 0; id < n; ++id) {
        const TimerKey key = 100 + (id * 7919u) % 13;  // duplicates on purpose
        timers.insert(id, key);
        model.insert(id, key);
      }
      ASSERT_TRUE(timers.remove(victim));
      model.remove(victim);
      ASSERT_TRUE(timers.check_invariants()) << "n=" << n << " victim=" << victim;
      ASSERT_FALSE(timers.contains(victim));
      ASSERT_FALSE(timers.remove(victim));
      expect_same_batch(expire_all(timers, UINT64_MAX), model.expire(UINT64_MAX));
    }
  }
}

TYPED_TEST(TimerStructure, EqualKeys) {
  TypeParam timers;
  for (TimerId id = 0; id < 1000; ++id) timers.insert(id, 42);
  for (TimerId id = 0; id < 1000; id += 3) ASSERT_TRUE(timers.remove(id));
  ASSERT_TRUE(timers.check_invariants());
  EXPECT_EQ(timers.next_key(), 42u);
  EXPECT_TRUE(expire_all(timers, 41).empty());
  const auto due = expire_all(timers, 42);
  EXPECT_EQ(due.size(), 666u);
  EXPECT_TRUE(timers.empty());
}

TYPED_TEST(TimerStructure, ExtremeKeys) {
  TypeParam timers;
  timers.insert(1, UINT64_MAX);
  timers.insert(2, 0);
  timers.insert(3, UINT64_MAX - 1);
  ASSERT_TRUE(timers.check_invariants());
  EXPECT_EQ(timers.next_key(), 0u);
  timers.update(2, UINT64_MAX);
  ASSERT_TRUE(timers.check_invariants());
  EXPECT_EQ(timers.next_key(), UINT64_MAX - 1);
  timers.update(1, 0);
  ASSERT_TRUE(timers.check_invariants());
  EXPECT_EQ(timers.next_key(), 0u);
  auto due = expire_all(timers, 0);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].id, 1u);
  due = expire_all(timers, UINT64_MAX);
  ASSERT_EQ(due.size(), 2u);
  EXPECT_EQ(due[0].key, UINT64_MAX - 1);
  EXPECT_EQ(due[1].key, UINT64_MAX);
  EXPECT_TRUE(timers.check_invariants());
}

TYPED_TEST(TimerStructure, CallbackMayRescheduleAndRemove) {
  TypeParam timers;
  for (TimerId id = 0; id < 10; ++id) timers.insert(id, 10 + id);
  std::vector<TimerId> fired;
  timers.expire(14, [&](TimerId id, TimerKey key) {
    fired.push_back(id);
    if (id == 0) timers.remove(3);              // cancels a due entry not yet called
    if (id == 1) timers.insert(id, key + 100);  // periodic: back in one interval later
  });
  EXPECT_EQ(fired, (std::vector<TimerId>{0, 1, 2, 4}));
  EXPECT_TRUE(timers.check_invariants());
  EXPECT_TRUE(timers.contains(1));
  EXPECT_EQ(timers.key_of(1), 111u);
  EXPECT_EQ(timers.size(), 6u);
}

TEST(TimerHeap, RemovesRootLastAndMiddleByPosition) {
  TimerHeap heap;
  for (TimerId id = 0; id < 21; ++id) heap.insert(id, id);  // ascending: insertion order is heap order
  ASSERT_TRUE(heap.remove(heap.top().id));                  // the root
  ASSERT_TRUE(heap.check_invariants());
  ASSERT_TRUE(heap.remove(20));  // inserted last with the largest key: still the last node
  ASSERT_TRUE(heap.check_invariants());
  ASSERT_TRUE(heap.remove(9));  // a middle node
  ASSERT_TRUE(heap.check_invariants());
  std::vector<TimerKey> keys;
  while (!heap.empty()) {
    keys.push_back(heap.top().key);
    heap.pop();
    ASSERT_TRUE(heap.check_invariants());
  }
  std::vector<TimerKey> want;
  for (TimerKey k = 1; k < 20; ++k) {
    if (k != 9) want.push_back(k);
  }
  EXPECT_EQ(keys, want);
}

TEST(TimerHeap, NeverAllocatesOnceReserved) {
  constexpr std::uint32_t k_ids = 10'000;
  TimerHeap heap(k_ids);
  std::mt19937_64 rng(7);
  const std::uint64_t before = g_allocations;
  for (TimerId id = 0; id < k_ids; ++id) heap.insert(id, rng() % 1'000'000);
  for (int i = 0; i < 100'000; ++i) {
    const TimerEntry top = heap.top();
    heap.update(top.id, top.key + 1 + rng() % 1'000'000);
    const auto victim = static_cast<TimerId>(rng() % k_ids);
    if (heap.remove(victim)) heap.insert(victim, rng() % 2'000'000);
  }
  const std::uint64_t after = g_allocations;
  EXPECT_EQ(after - before, 0u);
  EXPECT_TRUE(heap.check_invariants());
}

TEST(TimerHeap, InsertBeyondReserveGrows) {
  TimerHeap heap(4);
  for (TimerId id = 0; id < 5'000; id += 7) heap.insert(id, 5'000 - id);
  EXPECT_TRUE(heap.check_invariants());
  EXPECT_EQ(heap.top().id, 4998u);
  heap.clear();
  EXPECT_TRUE(heap.empty());
  EXPECT_FALSE(heap.contains(4998));
  EXPECT_TRUE(heap.check_invariants());
}

}  // namespace
}  // namespace vedette::loop
