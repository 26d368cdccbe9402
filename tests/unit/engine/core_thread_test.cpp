#include "engine/core.hpp"
#include "loaded_config.hpp"
#include "loop/clock.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <utility>

namespace vedette::engine {
namespace {

// A Core on a one-host config whose log, status and state files go nowhere.
TEST(CoreThreadDeathTest, TheCoreRefusesCallsFromAnotherThread) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  test::LoadedConfig loaded("vedette_core_thread");
  loaded.load(
      "define command {\n  command_name ok\n  command_line /bin/true\n}\n"
      "define host {\n  host_name web01\n  address 127.0.0.1\n  max_check_attempts 1\n  check_command "
      "ok\n}\n",
      "log_file=/dev/null\nstatus_file=/dev/null\ncheck_external_commands=0\nretain_state_information=0\n");
  EXPECT_DEATH(
      {
        loop::ManualClock clock;
        Core core(std::move(loaded.config), clock);
        core.log("from the core thread: fine");
        std::thread([&core] { core.log("from another thread"); }).join();
      },
      "vedette: fatal: .*core\\.cpp:[0-9]+: engine::Core called off the core thread");
}

}  // namespace
}  // namespace vedette::engine
