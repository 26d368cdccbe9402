#include "engine/state_files.hpp"

#include "world_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
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

  // status.dat's `created=` once it says `when`, at most 10 s; -1 when it never did.
  std::int64_t status_created(std::int64_t when) {
    std::int64_t created = -1;
    for (int i = 0; i < 1000 && created != when; ++i) {
      std::ifstream in(dir / "status.dat");
      for (std::string line; std::getline(in, line);)
        if (line.starts_with("\tcreated=")) created = std::stoll(line.substr(9));
      if (created != when) std::this_thread::sleep_for(10ms);
    }
    return created;
  }
  // Reports until the auto-save in progress is logged, at most 10 s.
  void wait_autosave(StateFiles& files) {
    for (int i = 0; i < 1000 && files.autosave_pending(); ++i) {
      std::this_thread::sleep_for(10ms);
      files.report();
    }
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
  t.wait_autosave(files);
  EXPECT_FALSE(files.autosave_pending());
  EXPECT_THAT(t.f.log_lines(), Contains("Auto-save of retention data completed successfully."));
}

// At 60 s the sixth status write and the first auto-save fall due together and share one snapshot; both
// periods go on from there, neither written twice nor skipped.
TEST(StateFilesTest, AStatusWriteAndAnAutoSaveDueTogetherBothHappenAndKeepTheirPeriods) {
  Files t;
  StateFiles files(t.f.world(), false);
  files.schedule_autosave();
  files.publish_status();
  const std::int64_t start = t.f.world().now_epoch();
  ASSERT_EQ(t.status_created(start), start);
  for (int i = 0; i < 6; ++i) t.f.advance(10s);
  EXPECT_TRUE(files.autosave_pending());
  EXPECT_EQ(t.status_created(start + 60), start + 60);
  ASSERT_TRUE(t.appears("retention.dat"));
  t.wait_autosave(files);
  EXPECT_FALSE(files.autosave_pending());
  t.f.advance(10s);
  EXPECT_EQ(t.status_created(start + 70), start + 70);
  EXPECT_FALSE(files.autosave_pending());
  for (int i = 0; i < 4; ++i) t.f.advance(10s);
  t.f.advance(9s);
  EXPECT_FALSE(files.autosave_pending());
  t.f.advance(1s);
  EXPECT_TRUE(files.autosave_pending());
  EXPECT_EQ(t.status_created(start + 120), start + 120);
  t.wait_autosave(files);
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
