#include "app/lock_file.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace vedette::app {
namespace {

using ::testing::HasSubstr;

class LockFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("vedette_lock_file_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const char* name) const { return (dir_ / name).string(); }
  static std::string read(const std::string& p) {
    std::ifstream in(p);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  std::filesystem::path dir_;
};

TEST_F(LockFileTest, AcquireWritesThePidAndReleaseRemovesTheFile) {
  base::Expected<LockFile> lock = LockFile::open(path("lock"));
  ASSERT_TRUE(lock) << lock.error();
  ASSERT_TRUE(lock->acquire(""));
  EXPECT_EQ(read(path("lock")), std::to_string(::getpid()) + "\n");
  lock->release();
  EXPECT_FALSE(std::filesystem::exists(path("lock")));
}

TEST_F(LockFileTest, ASymbolicLinkIsNotFollowed) {
  std::ofstream(path("target")) << "precious\n";
  std::filesystem::create_symlink(path("target"), path("lock"));
  base::Expected<LockFile> lock = LockFile::open(path("lock"));
  ASSERT_FALSE(lock);
  EXPECT_THAT(lock.error(), HasSubstr("Failed to obtain lock on file " + path("lock")));
  EXPECT_EQ(read(path("target")), "precious\n");
}

// fcntl locks belong to a process: the holder has to be another one.
TEST_F(LockFileTest, AnotherProcessHoldingItIsNamed) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    base::Expected<LockFile> lock = LockFile::open(path("lock"));
    const bool taken = lock && lock->acquire("");
    const char ok = taken ? 1 : 0;
    (void)!::write(ready[1], &ok, 1);
    ::pause();
    ::_exit(0);
  }
  char ok = 0;
  ASSERT_EQ(::read(ready[0], &ok, 1), 1);
  ASSERT_EQ(ok, 1);

  base::Expected<LockFile> lock = LockFile::open(path("lock"));
  ASSERT_TRUE(lock);
  const std::string expected = "Lockfile '" + path("lock") +
                               "' looks like its already held by another instance of Vedette (PID " +
                               std::to_string(child) + ").  Bailing out";
  const base::Status free = lock->check_free("pre-fork");
  ASSERT_FALSE(free);
  EXPECT_THAT(free.error(), HasSubstr(expected + ", pre-fork..."));
  const base::Status taken = lock->acquire("");
  ASSERT_FALSE(taken);
  EXPECT_THAT(taken.error(), HasSubstr(expected + "..."));
  const base::Status unheld = LockFile::check_unheld(path("lock"));
  ASSERT_FALSE(unheld);
  EXPECT_THAT(unheld.error(), HasSubstr(expected));
  EXPECT_EQ(read(path("lock")), std::to_string(child) + "\n") << "the holder's PID stays";

  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_TRUE(lock->acquire("")) << "free once its holder is gone";
  EXPECT_TRUE(LockFile::check_unheld(path("missing")));
}

}  // namespace
}  // namespace vedette::app
