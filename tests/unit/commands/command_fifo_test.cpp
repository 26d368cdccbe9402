#include "commands/command_fifo.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <limits.h>
#include <poll.h>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace vedette::commands {
namespace {

class CommandFifoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "vedette-fifo-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = (dir_ / "naemon.cmd").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  CommandFifo open_ok() {
    FifoOpenResult opened = CommandFifo::open(path_);
    EXPECT_TRUE(opened.fifo.has_value()) << opened.error;
    if (!opened.fifo) std::abort();
    return std::move(*opened.fifo);
  }

  std::filesystem::path dir_;
  std::string path_;
};

int open_writer(const std::string& path) {
  return ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
}

void write_all(int fd, std::string_view data) {
  int stalls = 0;
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        pollfd p{fd, POLLOUT, 0};
        if (::poll(&p, 1, 1000) == 0 && ++stalls == 5) FAIL() << "reader stopped reading";
        continue;
      }
      FAIL() << "write: " << std::strerror(errno);
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

std::vector<std::string> drain_lines(CommandFifo& fifo, DrainResult* result = nullptr) {
  std::vector<std::string> lines;
  const DrainResult r = fifo.drain([&](std::string_view line) { lines.emplace_back(line); });
  if (result != nullptr) *result = r;
  return lines;
}

TEST_F(CommandFifoTest, CreatesFifoWith0660WhateverTheUmask) {
  const mode_t old = ::umask(077);
  CommandFifo fifo = open_ok();
  ::umask(old);
  struct stat st {};
  ASSERT_EQ(::stat(path_.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0660u);
  EXPECT_GE(fifo.fd(), 0);
  const int flags = ::fcntl(fifo.fd(), F_GETFL);
  EXPECT_EQ(flags & O_ACCMODE, O_RDWR);
  EXPECT_TRUE(flags & O_NONBLOCK);
  EXPECT_TRUE(::fcntl(fifo.fd(), F_GETFD) & FD_CLOEXEC);
  DrainResult r;
  EXPECT_TRUE(drain_lines(fifo, &r).empty());  // nothing written: EAGAIN, not EOF, not a block
  EXPECT_TRUE(r.drained);
  EXPECT_EQ(r.error, 0);
}

TEST_F(CommandFifoTest, ReusesAnExistingFifoAndKeepsItsMode) {
  ASSERT_EQ(::mkfifo(path_.c_str(), 0600), 0);
  CommandFifo fifo = open_ok();
  struct stat st {};
  ASSERT_EQ(::stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST_F(CommandFifoTest, RefusesARegularFileAndADirectory) {
  {
    std::FILE* f = std::fopen(path_.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
  }
  FifoOpenResult opened = CommandFifo::open(path_);
  EXPECT_FALSE(opened.fifo.has_value());
  EXPECT_EQ(opened.error, "command file '" + path_ +
                              "' exists and is a regular file, not a named pipe; refusing to use it");
  EXPECT_TRUE(std::filesystem::is_regular_file(path_));  // left alone

  const std::string dir = (dir_ / "sub").string();
  std::filesystem::create_directory(dir);
  opened = CommandFifo::open(dir);
  EXPECT_FALSE(opened.fifo.has_value());
  EXPECT_NE(opened.error.find("is a directory"), std::string::npos) << opened.error;

  opened = CommandFifo::open((dir_ / "missing" / "naemon.cmd").string());
  EXPECT_FALSE(opened.fifo.has_value());
  EXPECT_NE(opened.error.find("could not create command file"), std::string::npos) << opened.error;
}

TEST_F(CommandFifoTest, PartialLinesWaitForTheirEnd) {
  CommandFifo fifo = open_ok();
  const int w = open_writer(path_);
  ASSERT_GE(w, 0);
  write_all(w, "[1] ONE\n[2] TW");
  EXPECT_EQ(drain_lines(fifo), (std::vector<std::string>{"[1] ONE"}));
  write_all(w, "O;a");
  EXPECT_TRUE(drain_lines(fifo).empty());
  write_all(w, ";b\n\n[3] THREE\n[4]");
  EXPECT_EQ(drain_lines(fifo), (std::vector<std::string>{"[2] TWO;a;b", "", "[3] THREE"}));
  ::close(w);  // the last writer going away is not EOF for us
  DrainResult r;
  EXPECT_TRUE(drain_lines(fifo, &r).empty());
  EXPECT_TRUE(r.drained);
  const int w2 = open_writer(path_);
  write_all(w2, " FOUR\n");
  EXPECT_EQ(drain_lines(fifo), (std::vector<std::string>{"[4] FOUR"}));
  ::close(w2);
}

TEST_F(CommandFifoTest, OverlongLinesAreDroppedWhole) {
  CommandFifo fifo = open_ok();
  const std::string at_limit(CommandFifo::k_max_line_bytes, 'a');
  const std::string too_long(3 * CommandFifo::k_max_line_bytes + 5, 'b');
  std::vector<std::string> lines;
  DrainResult total;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    const int w = open_writer(path_);
    write_all(w, "[1] BEFORE\n" + too_long + "\n" + at_limit + "\n[2] AFTER\n" + too_long);
    write_all(w, "\n[3] LAST\n");
    ::close(w);
    done = true;
  });
  while (lines.size() < 4) {
    pollfd p{fifo.fd(), POLLIN, 0};
    ::poll(&p, 1, 100);
    const DrainResult r = fifo.drain([&](std::string_view line) { lines.emplace_back(line); });
    total.overlong_dropped += r.overlong_dropped;
    if (r.overlong_dropped) total.last_overlong_bytes = r.last_overlong_bytes;
    if (done && r.drained && r.bytes == 0) break;
  }
  writer.join();
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "[1] BEFORE");
  EXPECT_EQ(lines[1], at_limit);
  EXPECT_EQ(lines[2], "[2] AFTER");
  EXPECT_EQ(lines[3], "[3] LAST");
  EXPECT_EQ(total.overlong_dropped, 2u);
  EXPECT_EQ(total.last_overlong_bytes, too_long.size());
}

TEST_F(CommandFifoTest, BudgetStopsEarlyAndTheRestFollows) {
  CommandFifo fifo = open_ok();
  const int w = open_writer(path_);
  std::string data;
  for (int i = 0; i < 4000; ++i) data += "[1] LINE;" + std::to_string(i) + "\n";  // ~50 KB
  write_all(w, data);
  std::size_t count = 0;
  const DrainResult first = fifo.drain([&](std::string_view) { ++count; }, 1000);
  EXPECT_FALSE(first.drained);
  EXPECT_LT(count, 4000u);
  DrainResult rest;
  do rest = fifo.drain([&](std::string_view) { ++count; });
  while (!rest.drained);
  EXPECT_EQ(count, 4000u);
  ::close(w);
}

// 8 writers, 100,000 lines between them, each written whole in writes of at most PIPE_BUF bytes; the reader
// must see every line exactly once, untorn, and each writer's lines in its order.
TEST_F(CommandFifoTest, ManyConcurrentWritersLoseAndTearNothing) {
  CommandFifo fifo = open_ok();
  constexpr int k_writers = 8;
  constexpr int k_lines_per_writer = 12'500;
  std::vector<std::thread> writers;
  for (int id = 0; id < k_writers; ++id) {
    writers.emplace_back([this, id] {
      const int w = open_writer(path_);
      ASSERT_GE(w, 0);
      std::string batch;
      for (int n = 0; n < k_lines_per_writer; ++n) {
        const std::string line = "[1700000000] PROCESS_SERVICE_CHECK_RESULT;host" + std::to_string(id) +
                                 ";svc;" + std::to_string(n) + ";OK - " +
                                 std::string(static_cast<std::size_t>(n % 97), 'x') +
                                 "|v=" + std::to_string(n) + "\n";
        // Odd writers batch several lines per write, even ones write each line alone.
        if (id % 2 == 0 || batch.size() + line.size() > PIPE_BUF) {
          if (!batch.empty()) write_all(w, batch);
          batch.clear();
        }
        if (id % 2 == 0) {
          write_all(w, line);
        } else {
          batch += line;
        }
      }
      if (!batch.empty()) write_all(w, batch);
      ::close(w);
    });
  }
  std::vector<int> next(k_writers, 0);
  int received = 0;
  int bad = 0;
  const std::string prefix = "[1700000000] PROCESS_SERVICE_CHECK_RESULT;host";
  while (received < k_writers * k_lines_per_writer) {
    pollfd p{fifo.fd(), POLLIN, 0};
    if (::poll(&p, 1, 2000) == 0) break;
    fifo.drain([&](std::string_view line) {
      ++received;
      if (!line.starts_with(prefix)) return void(++bad);
      line.remove_prefix(prefix.size());
      const int id = line[0] - '0';
      const std::size_t n_end = line.find(';', 6);
      if (id < 0 || id >= k_writers || !line.substr(1).starts_with(";svc;") ||
          n_end == std::string_view::npos) {
        return void(++bad);
      }
      const int n = std::atoi(std::string(line.substr(6, n_end - 6)).c_str());
      const std::string rest =
          ";OK - " + std::string(static_cast<std::size_t>(n % 97), 'x') + "|v=" + std::to_string(n);
      if (n != next[static_cast<std::size_t>(id)] || line.substr(n_end) != rest) return void(++bad);
      ++next[static_cast<std::size_t>(id)];
    });
  }
  for (std::thread& t : writers) t.join();
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(received, k_writers * k_lines_per_writer);
  for (int id = 0; id < k_writers; ++id)
    EXPECT_EQ(next[static_cast<std::size_t>(id)], k_lines_per_writer) << id;
}

TEST_F(CommandFifoTest, UnlinksOnlyItsOwnFifo) {
  CommandFifo fifo = open_ok();
  EXPECT_TRUE(fifo.close_and_unlink());
  EXPECT_FALSE(std::filesystem::exists(path_));
  EXPECT_EQ(fifo.fd(), -1);

  CommandFifo replaced = open_ok();
  ASSERT_EQ(::unlink(path_.c_str()), 0);
  ASSERT_EQ(::mkfifo(path_.c_str(), 0660), 0);  // another instance's FIFO now
  EXPECT_FALSE(replaced.close_and_unlink());
  EXPECT_TRUE(std::filesystem::exists(path_));
}

TEST_F(CommandFifoTest, MovedFifoKeepsReading) {
  CommandFifo first = open_ok();
  const int w = open_writer(path_);
  write_all(w, "[1] A\n[2] PART");
  EXPECT_EQ(drain_lines(first).size(), 1u);
  CommandFifo second = std::move(first);
  EXPECT_EQ(first.fd(), -1);  // NOLINT(bugprone-use-after-move): moved-from state is specified
  write_all(w, "IAL\n");
  EXPECT_EQ(drain_lines(second), (std::vector<std::string>{"[2] PARTIAL"}));
  ::close(w);
}

}  // namespace
}  // namespace vedette::commands
