#include "files/state_file_thread.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <vector>

namespace vedette::files {
namespace {

using std::chrono::seconds;

struct Stats {
  std::uint64_t writes = 0;
  std::uint64_t failures = 0;
  std::uint64_t skipped = 0;
};

TEST(StateFileThread, TheNewestSnapshotWinsWhileAWriteIsUnderWay) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> first_started;
  std::vector<int> written;  // writer thread; read after wait_idle()
  StateFileThread<int, Stats> thread(nullptr);
  thread.start("test", {.write = [&](const int& n) {
                 if (written.empty()) {
                   first_started.set_value();
                   released.wait();
                 }
                 written.push_back(n);
               }});
  thread.publish(std::make_shared<const int>(1));
  first_started.get_future().wait();  // 1 is being written: 2 and 3 wait, 3 replaces 2
  thread.publish(std::make_shared<const int>(2));
  thread.publish(std::make_shared<const int>(3));
  release.set_value();
  ASSERT_TRUE(thread.wait_idle(seconds(10)));
  EXPECT_EQ(written, (std::vector<int>{1, 3}));
  EXPECT_EQ(thread.stats().skipped, 1u);
}

TEST(StateFileThread, ARemovalCancelsTheWaitingSnapshot) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> first_started;
  std::vector<std::string> done;
  StateFileThread<int, Stats> thread(nullptr);
  thread.start("test", {.write =
                            [&](const int& n) {
                              if (done.empty()) {
                                first_started.set_value();
                                released.wait();
                              }
                              done.push_back(std::to_string(n));
                            },
                        .remove = [&] { done.push_back("removed"); }});
  thread.publish(std::make_shared<const int>(1));
  first_started.get_future().wait();
  thread.publish(std::make_shared<const int>(2));
  thread.request_removal();
  release.set_value();
  ASSERT_TRUE(thread.wait_idle(seconds(10)));
  EXPECT_EQ(done, (std::vector<std::string>{"1", "removed"}));
}

TEST(StateFileThread, AFailureIsReportedOncePerEpisode) {
  std::vector<std::string> reported;  // writer thread; read after wait_idle()
  StateFileThread<bool, Stats>* self = nullptr;
  StateFileThread<bool, Stats> thread([&](std::string_view m) { reported.emplace_back(m); });
  self = &thread;
  thread.start("test", {.write = [&](const bool& ok) {
                 if (ok) {
                   self->succeeded();
                 } else {
                   self->failed("disk full");
                 }
               }});
  for (bool ok : {false, false, true, false}) {
    thread.publish(std::make_shared<const bool>(ok));
    ASSERT_TRUE(thread.wait_idle(seconds(10)));
  }
  EXPECT_EQ(reported, (std::vector<std::string>{"disk full", "disk full"}));
  EXPECT_EQ(thread.stats().failures, 3u);
}

TEST(StateFileThread, DestructionWritesWhatStillWaits) {
  std::vector<int> written;
  {
    StateFileThread<int, Stats> thread(nullptr);
    thread.start("test", {.write = [&](const int& n) { written.push_back(n); }});
    thread.publish(std::make_shared<const int>(7));
  }
  EXPECT_EQ(written, (std::vector<int>{7}));
}

}  // namespace
}  // namespace vedette::files
