// The memory budget Livestatus' connections and query threads share (max_pending_bytes): shares grow
// within it or are refused, grow past it when they must, move with what they hold and give it back when
// they go, also from several threads at once.
#include "livestatus/memory_budget.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <utility>
#include <vector>

namespace vedette::livestatus {
namespace {

TEST(MemoryBudget, SharesGrowWithinTheLimitAndGiveBackWhatTheyHeld) {
  MemoryBudget budget(1000);
  {
    MemoryBudget::Share a(budget);
    MemoryBudget::Share b(budget);
    EXPECT_TRUE(a.try_resize(600));
    EXPECT_FALSE(b.try_resize(500));  // 1100 would pass the limit: b stays as it was
    EXPECT_EQ(b.bytes(), 0u);
    EXPECT_TRUE(b.try_resize(400));
    EXPECT_EQ(budget.used(), 1000u);
    EXPECT_TRUE(a.try_resize(100));  // shrinking always works
    EXPECT_EQ(budget.used(), 500u);
    // What must be held anyway (a request being read, an answer's first piece) passes the limit.
    a.resize(900);
    EXPECT_EQ(budget.used(), 1300u);
    EXPECT_FALSE(b.try_resize(401));
  }
  EXPECT_EQ(budget.used(), 0u);
}

TEST(MemoryBudget, AShareMovesWithWhatItHolds) {
  MemoryBudget budget(1000);
  MemoryBudget::Share held;  // of no budget, as a connection's before it is accepted
  {
    MemoryBudget::Share a(budget);
    a.resize(300);
    held = std::move(a);
    EXPECT_EQ(a.bytes(), 0u);  // NOLINT(bugprone-use-after-move): a share moved from holds nothing
  }
  EXPECT_EQ(held.bytes(), 300u);
  EXPECT_EQ(budget.used(), 300u);
  MemoryBudget::Share other(budget);
  other.resize(100);
  held = std::move(other);  // what held had is given back, other's taken over
  EXPECT_EQ(budget.used(), 100u);
  MemoryBudget::Share moved(std::move(held));
  EXPECT_EQ(moved.bytes(), 100u);
  EXPECT_EQ(budget.used(), 100u);
}

TEST(MemoryBudget, ThreadsNeverTakeMoreThanTheLimitTogether) {
  MemoryBudget budget(64 * 1000);
  std::vector<std::thread> threads;
  std::vector<std::size_t> granted(8, 0);
  for (std::size_t t = 0; t < granted.size(); ++t) {
    threads.emplace_back([&budget, &granted, t] {
      std::vector<MemoryBudget::Share> shares;
      for (int i = 0; i < 1000; ++i) {
        MemoryBudget::Share share(budget);
        if (!share.try_resize(1000)) continue;
        EXPECT_LE(budget.used(), budget.limit());
        shares.push_back(std::move(share));
      }
      granted[t] = shares.size();
      while (shares.size() > 10) shares.pop_back();  // give most back while the others still take
    });
  }
  for (std::thread& t : threads) t.join();
  std::size_t total = 0;
  for (std::size_t g : granted) total += g;
  EXPECT_GE(total, 64u);
  EXPECT_EQ(budget.used(), 0u);
}

}  // namespace
}  // namespace vedette::livestatus
