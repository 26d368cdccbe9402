#include "loop/wakeup.hpp"

#include "loop/poller.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace vedette::loop {
namespace {

TEST(Wakeup, OneWritePerBatch) {
  Wakeup wakeup;
  for (int i = 0; i < 1000; ++i) wakeup.signal();
  EXPECT_EQ(wakeup.writes(), 1u);
  EXPECT_TRUE(wakeup.is_armed());
  EXPECT_EQ(wakeup.drain(), 1u);  // the eventfd counter: one write for the whole batch
  EXPECT_FALSE(wakeup.is_armed());
  EXPECT_EQ(wakeup.drain(), 0u);
  wakeup.signal();
  wakeup.signal();
  EXPECT_EQ(wakeup.writes(), 2u);
  EXPECT_EQ(wakeup.drain(), 1u);
}

TEST(Wakeup, WakesThePoller) {
  Wakeup wakeup;
  Poller poller;
  poller.set_interest(wakeup.fd(), Interest::read, 5);
  EXPECT_TRUE(poller.wait(Duration::zero()).empty());
  std::thread producer([&] { wakeup.signal(); });
  const auto ready = poller.wait(std::chrono::seconds(5));
  producer.join();
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].token, 5u);
  wakeup.drain();
  EXPECT_TRUE(poller.wait(Duration::zero()).empty());
}

TEST(Wakeup, NoLostWakeupUnderConcurrentProducers) {
  // Two producers publish into a locked queue and signal; the consumer sleeps in the poller and takes work
  // only after a wakeup. A lost wakeup would leave items behind and trip the deadline.
  constexpr int k_per_producer = 20'000;
  Wakeup wakeup;
  Poller poller;
  poller.set_interest(wakeup.fd(), Interest::read, 0);
  std::mutex mutex;
  std::vector<int> queue;
  auto produce = [&] {
    for (int i = 0; i < k_per_producer; ++i) {
      {
        std::lock_guard lock(mutex);
        queue.push_back(i);
      }
      wakeup.signal();
    }
  };
  std::thread a(produce);
  std::thread b(produce);
  int received = 0;
  std::uint64_t wakeups = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (received < 2 * k_per_producer && std::chrono::steady_clock::now() < deadline) {
    if (poller.wait(std::chrono::milliseconds(500)).empty()) continue;
    ++wakeups;
    wakeup.drain();
    std::lock_guard lock(mutex);
    received += static_cast<int>(queue.size());
    queue.clear();
  }
  a.join();
  b.join();
  EXPECT_EQ(received, 2 * k_per_producer);
  EXPECT_LE(wakeup.writes(), wakeups + 1);  // a write only per batch the consumer took (or one still pending)
}

}  // namespace
}  // namespace vedette::loop
