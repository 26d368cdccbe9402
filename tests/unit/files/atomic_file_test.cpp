#include "files/atomic_file.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace vedette::files {
namespace {

namespace fs = std::filesystem;

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "vedette-atomic-XXXXXX").string();
    dir_ = ::mkdtemp(pattern.data());
  }
  void TearDown() override { fs::remove_all(dir_); }

  [[nodiscard]] std::string file(std::string_view name) const { return (dir_ / name).string(); }
  [[nodiscard]] std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename().string());
    return out;
  }
  static std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  fs::path dir_;
};

TEST_F(AtomicFileTest, ReplacesTheFileWithItsExactModeAndLeavesNothingElse) {
  const std::string path = file("status.dat");
  std::ofstream(path) << "old\n";
  const mode_t old_umask = ::umask(077);
  AtomicFile f;
  ASSERT_TRUE(f.open(path, ".XXXXXX", 0664));
  ASSERT_TRUE(f.write("new "));
  ASSERT_TRUE(f.write("text\n"));
  EXPECT_EQ(read(path), "old\n") << "the target is untouched until commit";
  ASSERT_TRUE(f.commit(true)) << f.failure().step;
  ::umask(old_umask);
  EXPECT_EQ(read(path), "new text\n");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0664u);
  EXPECT_EQ(names(), std::vector<std::string>{"status.dat"});
}

TEST_F(AtomicFileTest, AFileNeverCommittedLeavesNoTraceAndTheTargetAsItWas) {
  const std::string path = file("retention.dat");
  std::ofstream(path) << "kept\n";
  {
    AtomicFile f;
    ASSERT_TRUE(f.open(path, "XXXXXX", 0600));
    ASSERT_TRUE(f.write("half a fi"));
    // A crash here leaves nothing either: the temp file has no name before commit (where O_TMPFILE works).
  }
  EXPECT_EQ(read(path), "kept\n");
  EXPECT_EQ(names(), std::vector<std::string>{"retention.dat"});
}

TEST_F(AtomicFileTest, ReportsTheStepThatFailed) {
  AtomicFile f;
  EXPECT_FALSE(f.open(file("missing/dir/status.dat"), ".XXXXXX", 0644));
  EXPECT_EQ(f.failure().step, "create");
  EXPECT_EQ(f.failure().error, ENOENT);
  EXPECT_NE(f.failure().temp_path.find("missing/dir/status.dat"), std::string::npos);

  // The target is a directory: everything works up to the rename.
  fs::create_directory(file("objects.cache"));
  fs::create_directory(file("objects.cache/inside"));
  AtomicFile g;
  ASSERT_TRUE(g.open(file("objects.cache"), "XXXXXX", 0644));
  ASSERT_TRUE(g.write("x"));
  EXPECT_FALSE(g.commit(false));
  EXPECT_EQ(g.failure().step, "rename");
  EXPECT_EQ(names().size(), 1u) << "the named temp file is removed again";
}

}  // namespace
}  // namespace vedette::files
