#include "base/check.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <thread>

namespace vedette::base {
namespace {

TEST(BaseCheckDeathTest, CheckPrintsFileLineAndMessageThenAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(VEDETTE_CHECK(1 + 1 == 3, "arithmetic is broken"),
               "vedette: fatal: .*check_test\\.cpp:[0-9]+: arithmetic is broken");
  EXPECT_DEATH(
      {
        errno = ENOENT;
        VEDETTE_CHECK_ERRNO(false, "open /nonexistent");
      },
      "vedette: fatal: .*check_test\\.cpp:[0-9]+: open /nonexistent: No such file or directory");
}

TEST(BaseCheck, PassingChecksDoNothingAndThreadsStart) {
  VEDETTE_CHECK(true, "never printed");
  VEDETTE_CHECK_ERRNO(true, "never printed");
  bool ran = false;
  std::thread t = start_thread([&ran] { ran = true; });
  t.join();
  EXPECT_TRUE(ran);
}

}  // namespace
}  // namespace vedette::base
