#include "engine/state_files.hpp"

#include "world_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <unistd.h>

namespace vedette::engine {
namespace {

using namespace std::chrono_literals;
using ::testing::Contains;

constexpr const char* k_objects = "define host {\n  host_name web01\n  max_check_attempts 1\n}\n";

class Files {
 public:
  Files()
      : dir(std::filesystem::temp_directory_path() / ("vedette_state_files_" + std::to_string(::getpid()))),
        made(std::filesystem::create_directories(dir) || true),
        f(k_objects,
          "status_file=" + (dir / "status.dat").string() +
              "\nretain_state_information=1\nstate_retention_file=" + (dir / "retention.dat").string() +
              "\nretention_update_interval=1\ninterval_length=60\nstatus_update_interval=10\n") {}
  ~Files() { std::filesystem::remove_all(dir); }
  // Waits for a writer thread's file, at most 10 s.
  bool appears(const char* name) {
    for (int i = 0; i < 1000 && !std::filesystem::exists(dir / name); ++i) std::this_thread::sleep_for(10ms);
    return std::filesystem::exists(dir / name);
  }
  // The writer unlinks after the write in progress: waits for that, at most 10 s.
  bool goes(const char* name) {
    for (int i = 0; i < 1000 && std::filesystem::exists(dir / name); ++i) std::this_thread::sleep_for(10ms);
    return !std::filesystem::exists(dir / name);
  }

  std::filesystem::path dir;
  bool made;
  testing::WorldFixture f;
};

TEST(StateFilesTest, StatusDatIsWrittenAtOnceAndRemovedAtShutdown) {
  Files t;
  StateFiles files(t.f.world(), /*daemon_mode=*/false);
  files.publish_status();
  ASSERT_TRUE(t.appears("status.dat"));
  EXPECT_TRUE(files.shutdown());
  EXPECT_TRUE(t.goes("status.dat"));
  EXPECT_TRUE(std::filesystem::exists(t.dir / "retention.dat"));  // saved at shutdown
  EXPECT_THAT(t.f.log_lines(), Contains("Retention data successfully saved."));
}

TEST(StateFilesTest, TheAutoSaveRunsEveryRetentionIntervalAndIsLoggedWhenWritten) {
  Files t;
  StateFiles files(t.f.world(), false);
  files.schedule_autosave();
  t.f.advance(59s);
  EXPECT_FALSE(files.autosave_pending());
  t.f.advance(1s);  // retention_update_interval=1 × interval_length=60
  EXPECT_TRUE(files.autosave_pending());
  ASSERT_TRUE(t.appears("retention.dat"));
  for (int i = 0; i < 1000 && files.autosave_pending(); ++i) {
    std::this_thread::sleep_for(10ms);
    files.report();
  }
  EXPECT_FALSE(files.autosave_pending());
  EXPECT_THAT(t.f.log_lines(), Contains("Auto-save of retention data completed successfully."));
}

TEST(StateFilesTest, AFailedFinalSaveIsAnErrorThatSaysWhy) {
  Files t;
  // The directory of retention.dat is gone, as on a full or lost disk: the writer cannot create its file.
  testing::WorldFixture f(k_objects, "retain_state_information=1\nstate_retention_file=" +
                                         (t.dir / "gone" / "retention.dat").string() + "\n");
  StateFiles files(f.world(), /*daemon_mode=*/false);
  const base::Status saved = files.shutdown();
  ASSERT_FALSE(saved);
  EXPECT_THAT(saved.error(),
              ::testing::HasSubstr("Final save of retention data to '" +
                                   (t.dir / "gone" / "retention.dat").string() + "' failed: "));
  EXPECT_THAT(saved.error(), ::testing::HasSubstr("No such file or directory"));
  EXPECT_THAT(f.log_lines(), ::testing::Not(Contains("Retention data successfully saved.")));
}

}  // namespace
}  // namespace vedette::engine
