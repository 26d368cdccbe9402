#include "metrics/thread_cpu.hpp"

#include "loop/thread_name.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>

namespace vedette::metrics {
namespace {

TEST(ThreadCpuTest, ParsesUtimeAndStimeAfterACommWithSpacesAndParentheses) {
  ThreadCpu cpu;
  ASSERT_TRUE(parse_task_stat("4242 (a (b) c) S 1 2 3 4 5 6 7 8 9 10 250 75 0 0 20 0 1 0", 100, cpu));
  EXPECT_EQ(cpu.name, "a (b) c");
  EXPECT_DOUBLE_EQ(cpu.user_seconds, 2.5);
  EXPECT_DOUBLE_EQ(cpu.system_seconds, 0.75);
}

TEST(ThreadCpuTest, RefusesWhatIsNoStatLine) {
  ThreadCpu cpu;
  EXPECT_FALSE(parse_task_stat("", 100, cpu));
  EXPECT_FALSE(parse_task_stat("1 (x) S 1 2", 100, cpu));
  EXPECT_FALSE(parse_task_stat("1 (x) S 1 2 3 4 5 6 7 8 9 10 zz 75", 100, cpu));
}

TEST(ThreadCpuTest, ReadsThisProcessesThreadsByName) {
  std::atomic<bool> named{false}, done{false};
  std::thread t([&] {
    loop::set_current_thread_name("metrics-test");
    named = true;
    while (!done) std::this_thread::yield();
  });
  while (!named) std::this_thread::yield();
  const std::vector<ThreadCpu> threads = read_thread_cpu();
  done = true;
  t.join();
  EXPECT_TRUE(std::any_of(threads.begin(), threads.end(),
                          [](const ThreadCpu& c) { return c.name == "metrics-test"; }));
  EXPECT_TRUE(std::is_sorted(threads.begin(), threads.end(),
                             [](const ThreadCpu& a, const ThreadCpu& b) { return a.name < b.name; }));
}

}  // namespace
}  // namespace vedette::metrics
