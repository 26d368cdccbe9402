#include "config/loader.hpp"
#include "engine/core.hpp"
#include "loop/clock.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>

namespace vedette::engine {
namespace {

namespace fs = std::filesystem;

// A Core on a one-host config whose log, status and state files go nowhere.
config::Configuration small_config(const fs::path& dir) {
  fs::create_directories(dir);
  std::ofstream(dir / "objects.cfg") << "define command {\n  command_name ok\n  command_line /bin/true\n}\n"
                                        "define host {\n  host_name web01\n  address 127.0.0.1\n"
                                        "  max_check_attempts 1\n  check_command ok\n}\n";
  std::ofstream(dir / "naemon.cfg") << "cfg_file=objects.cfg\nlog_file=/dev/null\nstatus_file=/dev/null\n"
                                       "check_external_commands=0\nretain_state_information=0\n";
  config::SourceFiles files;
  config::Diagnostics diags;
  config::Configuration cfg = config::load_configuration((dir / "naemon.cfg").string(), files, diags);
  for (const auto& d : diags.all()) ADD_FAILURE() << d.message;
  return cfg;
}

TEST(CoreThreadDeathTest, TheCoreRefusesCallsFromAnotherThread) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const fs::path dir = fs::temp_directory_path() / ("vedette_core_thread_" + std::to_string(::getpid()));
  EXPECT_DEATH(
      {
        loop::ManualClock clock;
        Core core(small_config(dir), clock);
        core.log("from the core thread: fine");
        std::thread([&core] { core.log("from another thread"); }).join();
      },
      "vedette: fatal: .*core\\.cpp:[0-9]+: engine::Core called off the core thread");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace vedette::engine
