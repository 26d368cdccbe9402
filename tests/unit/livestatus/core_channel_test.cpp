#include "livestatus/core_channel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <poll.h>
#include <thread>
#include <vector>

namespace vedette::livestatus {
namespace {

bool readable(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, timeout_ms) == 1;
}

std::shared_ptr<const files::StatusSnapshot> snapshot_at(std::int64_t created) {
  auto s = std::make_shared<files::StatusSnapshot>();
  s->program.created = created;
  return s;
}

TEST(LivestatusCoreChannel, ThreadsWaitingTogetherShareOneSnapshot) {
  CoreChannel channel;
  std::vector<std::int64_t> got(3, -1);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < got.size(); ++i)
    threads.emplace_back([&, i] { got[i] = channel.fresh_snapshot()->program.created; });
  ASSERT_TRUE(readable(channel.fd(), 5000));
  // Let every thread register before the core starts its snapshot.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  channel.clear_wakeup();
  ASSERT_TRUE(channel.snapshot_wanted());
  channel.publish(snapshot_at(1));
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(got, (std::vector<std::int64_t>{1, 1, 1}));
  EXPECT_FALSE(channel.snapshot_wanted()) << "nobody waits any more";
}

TEST(LivestatusCoreChannel, AQueryNeverGetsASnapshotStartedBeforeItAsked) {
  CoreChannel channel;
  std::atomic<std::int64_t> got{-1};
  std::thread first([&] { (void)channel.fresh_snapshot(); });
  ASSERT_TRUE(readable(channel.fd(), 5000));
  channel.clear_wakeup();
  ASSERT_TRUE(channel.snapshot_wanted());  // the core starts snapshot 1 ...
  std::thread second([&] { got = channel.fresh_snapshot()->program.created; });  // ... a query asks now
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  channel.publish(snapshot_at(1));
  first.join();
  EXPECT_EQ(got.load(), -1) << "snapshot 1 began before the second query asked";
  ASSERT_TRUE(readable(channel.fd(), 5000));
  channel.clear_wakeup();
  ASSERT_TRUE(channel.snapshot_wanted());
  channel.publish(snapshot_at(2));
  second.join();
  EXPECT_EQ(got.load(), 2);
}

TEST(LivestatusCoreChannel, CommandsRunInOrderAndReportTheirErrors) {
  CoreChannel channel;
  std::optional<std::string> good = "unset", bad;
  std::thread a([&] { good = channel.run_command("GOOD"); });
  std::thread b([&] { bad = channel.run_command("BAD"); });
  std::vector<std::string> ran;
  while (ran.size() < 2) {
    ASSERT_TRUE(readable(channel.fd(), 5000));
    channel.clear_wakeup();
    channel.run_commands([&](std::string_view line) -> std::optional<std::string> {
      ran.emplace_back(line);
      if (line == "BAD") return "no such command";
      return std::nullopt;
    });
  }
  a.join();
  b.join();
  EXPECT_EQ(good, std::nullopt);
  EXPECT_EQ(bad, "no such command");
}

TEST(LivestatusCoreChannel, CloseReleasesWaitingThreads) {
  CoreChannel channel;
  std::shared_ptr<const files::StatusSnapshot> got = snapshot_at(5);
  std::thread t([&] { got = channel.fresh_snapshot(); });
  ASSERT_TRUE(readable(channel.fd(), 5000));
  channel.close();
  t.join();
  EXPECT_EQ(got, nullptr);
  EXPECT_EQ(channel.fresh_snapshot(), nullptr) << "no request after close";
}

}  // namespace
}  // namespace vedette::livestatus
