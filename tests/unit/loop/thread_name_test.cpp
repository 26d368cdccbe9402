#include "loop/thread_name.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>

namespace vedette::loop {
namespace {

TEST(ThreadName, SetsAndTruncatesToFifteenBytes) {
  std::string short_name;
  std::string long_name;
  bool ok_short = false;
  bool ok_long = false;
  std::thread t([&] {
    ok_short = set_current_thread_name("exec-3");
    short_name = current_thread_name();
    ok_long = set_current_thread_name("livestatus-123456789");
    long_name = current_thread_name();
  });
  t.join();
  EXPECT_TRUE(ok_short);
  EXPECT_EQ(short_name, "exec-3");
  EXPECT_TRUE(ok_long);
  EXPECT_EQ(long_name, "livestatus-1234");
}

}  // namespace
}  // namespace vedette::loop
