#include "files/atomic_file.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
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

// Io::direct writes whole aligned blocks around the page cache and the rest through it: the file holds the
// same bytes whatever the size and however the text is cut, here and on tmpfs (no direct I/O before Linux
// 6.6: buffered).
TEST_F(AtomicFileTest, DirectWritesTheSameBytesAtEveryBlockBoundary) {
  std::mt19937_64 rng(36);
  const std::string shm_dir =
      fs::is_directory("/dev/shm") ? ::mkdtemp(std::string("/dev/shm/vedette-atomic-XXXXXX").data()) : "";
  constexpr std::size_t k_chunk = std::size_t{4} << 20;  // what it writes at a time
  for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{511}, std::size_t{4096},
                                 std::size_t{4097}, k_chunk - 1, k_chunk, k_chunk + 1, 2 * k_chunk + 4097}) {
    std::string text(size, ' ');
    for (char& c : text) c = static_cast<char>('a' + rng() % 26);
    for (const std::string& dir : {dir_.string(), shm_dir}) {
      if (dir.empty()) continue;
      const std::string path = dir + "/status.dat";
      AtomicFile f;
      ASSERT_TRUE(f.open(path, ".XXXXXX", 0640, AtomicFile::Io::direct));
      for (std::string_view rest = text; !rest.empty();) {
        const std::size_t n = std::min<std::size_t>(rest.size(), 1 + rng() % (300 << 10));
        ASSERT_TRUE(f.write(rest.substr(0, n))) << f.failure().step;
        rest.remove_prefix(n);
      }
      ASSERT_TRUE(f.commit(size % 2 == 0)) << f.failure().step;
      EXPECT_EQ(read(path), text) << dir << ", " << size << " bytes";
      struct stat st {};
      ASSERT_EQ(::stat(path.c_str(), &st), 0);
      EXPECT_EQ(st.st_mode & 0777, 0640u);
    }
  }
  if (!shm_dir.empty()) fs::remove_all(shm_dir);
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
