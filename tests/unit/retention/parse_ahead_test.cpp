// retention.dat parsed on a thread of its own (parse_ahead) gives the caller what parse() gives, in the same
// order, and the kernel is asked to read the file into the page cache ahead of start-up (Prefetch).
#include "retention/parse_ahead.hpp"

#include "retention/prefetch.hpp"
#include "retention_test_support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <fcntl.h>
#include <stdexcept>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace vedette::retention {
namespace {

using test::TempDir;

// Many blocks (several hand-over batches and a partial last one), custom variables of different counts,
// and lines the reader warns about.
std::string many_blocks(int services) {
  std::string text = "info {\ncreated=1700000000\n}\nstray text\n";
  for (int i = 0; i < services; ++i) {
    text += "service {\nhost_name=h" + std::to_string(i / 10) + "\nservice_description=s" +
            std::to_string(i) + "\ncurrent_state=" + std::to_string(i % 4) + "\n";
    for (int c = 0; c < i % 3; ++c) text += "_V" + std::to_string(c) + "=1;" + std::to_string(i) + "\n";
    if (i % 997 == 0) text += "no_such_key=1\n";
    text += "}\n";
  }
  return text + "hostcomment {\nhost_name=h0\ncomment_id=7\n";  // never closed
}

struct Seen {
  BlockKind kind;
  std::uint32_t line;
  std::string host, description, state;
  std::vector<std::string> custom;
  bool operator==(const Seen&) const = default;
};

Seen seen(const Block& b) {
  Seen s{b.kind,
         b.line,
         std::string(b.get(CheckableKey::host_name)),
         std::string(b.get(CheckableKey::service_description)),
         std::string(b.get(CheckableKey::current_state)),
         {}};
  for (const CustomValue& v : b.custom_variables)
    s.custom.push_back(std::string(v.name) + "=" + std::string(v.value));
  return s;
}

TEST(RetentionParseAhead, GivesEveryBlockAndWarningInFileOrderAsParseDoes) {
  const std::string text = many_blocks(5000);
  std::vector<Seen> expected, got;
  std::vector<Warning> expected_warnings, got_warnings;
  parse(
      text, [&](const Block& b) { expected.push_back(seen(b)); }, expected_warnings);
  const std::thread::id caller = std::this_thread::get_id();
  bool on_caller = true;
  parse_ahead(
      text,
      [&](const Block& b) {
        on_caller = on_caller && std::this_thread::get_id() == caller;
        got.push_back(seen(b));
      },
      got_warnings);
  ASSERT_EQ(expected.size(), 5001u);
  EXPECT_TRUE(got == expected);
  EXPECT_TRUE(on_caller);
  ASSERT_EQ(got_warnings.size(), expected_warnings.size());
  ASSERT_GE(got_warnings.size(), 3u);  // stray text, unknown keys, the block left open
  for (std::size_t i = 0; i < got_warnings.size(); ++i) {
    EXPECT_EQ(got_warnings[i].line, expected_warnings[i].line);
    EXPECT_EQ(got_warnings[i].message, expected_warnings[i].message);
  }
}

TEST(RetentionParseAhead, AnEmptyTextGivesNothing) {
  std::vector<Warning> warnings;
  int blocks = 0;
  parse_ahead(
      "", [&](const Block&) { ++blocks; }, warnings);
  EXPECT_EQ(blocks, 0);
  EXPECT_TRUE(warnings.empty());
}

TEST(RetentionParseAhead, WhatTheCallerThrowsStopsTheParserAndReachesTheCaller) {
  const std::string text = many_blocks(20000);
  std::vector<Warning> warnings;
  int blocks = 0;
  EXPECT_THROW(parse_ahead(
                   text,
                   [&](const Block&) {
                     if (++blocks == 300) throw std::runtime_error("stop");
                   },
                   warnings),
               std::runtime_error);
  EXPECT_EQ(blocks, 300);
}

// Pages of `path` in the page cache, out of its pages.
std::pair<std::size_t, std::size_t> resident_pages(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  ::fstat(fd, &st);
  void* map = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> in_core((static_cast<std::size_t>(st.st_size) + page - 1) / page);
  ::mincore(map, static_cast<std::size_t>(st.st_size), in_core.data());
  ::munmap(map, static_cast<std::size_t>(st.st_size));
  std::size_t resident = 0;
  for (unsigned char c : in_core) resident += c & 1;
  return {resident, in_core.size()};
}

TEST(RetentionPrefetch, ReadsTheFileIntoThePageCache) {
  TempDir dir;
  const std::string path = dir.write("retention.dat", std::string(16 << 20, 'x'));
  // Out of the page cache first: written back, then dropped.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
  if (resident_pages(path).first != 0) GTEST_SKIP() << "this file system keeps the file in memory";
  { Prefetch prefetch(path); }
  // The reads were queued; they complete on the disk's time.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  auto [resident, pages] = resident_pages(path);
  while (resident < pages && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::tie(resident, pages) = resident_pages(path);
  }
  EXPECT_EQ(resident, pages);
}

TEST(RetentionPrefetch, AMissingFileOrADirectoryIsLeftToTheReader) {
  TempDir dir;
  { Prefetch missing(dir.file("no-such-file")); }
  { Prefetch directory(dir.path().string()); }
  { Prefetch none(""); }
  SUCCEED();
}

}  // namespace
}  // namespace vedette::retention
