// Performance data files against real files, FIFOs and processing commands in a temp directory: the modes
// of Naemon's xpddefault_open_perfdata_file, the close/run/reopen of its processing event, the timeout
// warning of its job handler, and Vedette's own bounds (non-blocking pipes, the queue cap, retries).
#include "files/perfdata_file.hpp"

#include "files_test_support.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace vedette::files {
namespace {

using test::read_file;
using test::TempDir;

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Events arrive on the "perfdata" thread.
class Events {
 public:
  std::function<void(const PerfdataEvent&)> callback() {
    return [this](const PerfdataEvent& e) {
      std::lock_guard lock(mutex_);
      events_.push_back(e);
    };
  }
  std::vector<PerfdataEvent> all() const {
    std::lock_guard lock(mutex_);
    return events_;
  }
  std::vector<PerfdataEvent> of(PerfdataEventKind kind) const {
    std::vector<PerfdataEvent> out;
    for (const PerfdataEvent& e : all())
      if (e.kind == kind) out.push_back(e);
    return out;
  }
  // Waits until an event of `kind` arrived.
  bool wait_for(PerfdataEventKind kind, std::chrono::milliseconds timeout = 5s) const {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      if (!of(kind).empty()) return true;
      std::this_thread::sleep_for(5ms);
    }
    return false;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<PerfdataEvent> events_;
};

PerfdataFileOptions options(const std::string& path, PerfdataFileMode mode, Events& events) {
  PerfdataFileOptions o;
  o.path = path;
  o.mode = mode;
  o.retry_interval = 50ms;
  o.on_event = events.callback();
  return o;
}

std::string line(int i) {
  return fmt::format("[SERVICEPERFDATA]\t{}\tweb01\tHTTP\t0.013\t0.500\tOK\ttime={}s\n", 1'700'000'000 + i,
                     i);
}

std::string lines(int from, int to) {
  std::string out;
  for (int i = from; i < to; ++i) out += line(i);
  return out;
}

std::vector<std::string> thread_names() {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator("/proc/self/task")) {
    std::string name = read_file((entry.path() / "comm").string());
    if (!name.empty() && name.back() == '\n') name.pop_back();
    out.push_back(name);
  }
  return out;
}

bool gone(pid_t pid) {
  // A killed grandchild may stay a zombie until init reaps it.
  for (int i = 0; i < 200; ++i) {
    if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
    const std::string stat = read_file(fmt::format("/proc/{}/stat", pid));
    const std::size_t paren = stat.rfind(')');
    if (paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z') return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

TEST(PerfdataFile, AppendModeKeepsWhatIsThereAndWritesInOrder) {
  TempDir dir;
  Events events;
  const std::string path = dir.file("service-perfdata");
  write_file(path, "old\n");
  {
    PerfdataFile file(options(path, PerfdataFileMode::append, events));
    for (int i = 0; i < 3; ++i) file.write(line(i));
    file.flush();
    for (int i = 3; i < 1000; ++i) file.write(line(i));
    ASSERT_TRUE(file.wait_idle(5s));
    EXPECT_EQ(read_file(path), "old\n" + lines(0, 1000));
    const std::vector<std::string> names = thread_names();
    EXPECT_NE(std::find(names.begin(), names.end(), "perfdata"), names.end());
    EXPECT_EQ(file.stats().bytes_written, lines(0, 1000).size());
  }
  EXPECT_TRUE(events.all().empty());
}

TEST(PerfdataFile, NewFileIsCreatedWithMode0644) {
  TempDir dir;
  Events events;
  const std::string path = dir.file("host-perfdata");
  const mode_t old_mask = ::umask(0);
  {
    PerfdataFile file(options(path, PerfdataFileMode::append, events));
    ASSERT_TRUE(file.wait_idle(5s));
  }
  ::umask(old_mask);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST(PerfdataFile, WriteModeTruncatesAtOpenEvenWithoutLines) {
  TempDir dir;
  Events events;
  const std::string path = dir.file("perfdata");
  write_file(path, lines(0, 10));
  {
    PerfdataFile file(options(path, PerfdataFileMode::write, events));
    ASSERT_TRUE(file.wait_idle(5s));
    EXPECT_EQ(read_file(path), "");
    file.write(line(42));
  }
  EXPECT_EQ(read_file(path), line(42));  // the destructor flushes
}

TEST(PerfdataFile, DestructorWritesEverythingQueued) {
  TempDir dir;
  Events events;
  const std::string path = dir.file("perfdata");
  {
    PerfdataFile file(options(path, PerfdataFileMode::append, events));
    for (int i = 0; i < 5000; ++i) file.write(line(i));
    file.flush();
    for (int i = 5000; i < 6000; ++i) file.write(line(i));
  }
  EXPECT_EQ(read_file(path), lines(0, 6000));
  EXPECT_TRUE(events.all().empty());
}

TEST(PerfdataFile, PipeModeFeedsAReader) {
  TempDir dir;
  Events events;
  const std::string path = dir.file("perfdata.fifo");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  const std::string expected = lines(0, 3000);  // several times a pipe's buffer
  std::string got;
  std::thread reader([&] {
    const int fd = ::open(path.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    char buffer[4096];
    while (got.size() < expected.size()) {
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n <= 0) break;
      got.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
  });
  {
    PerfdataFile file(options(path, PerfdataFileMode::pipe, events));
    for (int i = 0; i < 3000; ++i) {
      file.write(line(i));
      if (i % 100 == 99) file.flush();
    }
    EXPECT_TRUE(file.wait_idle(10s));
  }
  reader.join();
  EXPECT_EQ(got, expected);
  EXPECT_TRUE(events.all().empty());
}

TEST(PerfdataFile, PipeModeWithoutReaderNeverBlocksAndDeliversLater) {
  TempDir dir;
  Events events;
  const std::string path = dir.file("perfdata.fifo");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  const std::string expected = lines(0, 4000);  // ~300 KiB: more than the kernel buffers
  PerfdataFile file(options(path, PerfdataFileMode::pipe, events));
  const auto start = Clock::now();
  for (int i = 0; i < 4000; ++i) {
    file.write(line(i));
    if (i % 50 == 49) file.flush();
  }
  file.flush();
  EXPECT_LT(Clock::now() - start, 1s);  // the caller never waited for the pipe
  EXPECT_FALSE(file.wait_idle(200ms));  // the writer waits for room, keeping the rest
  EXPECT_TRUE(events.all().empty());    // a full pipe is no error

  // As Naemon: the pipe was opened read-write, so what was written before a reader came is still there.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(fd, 0);
  std::string got;
  char buffer[8192];
  const auto deadline = Clock::now() + 10s;
  while (got.size() < expected.size() && Clock::now() < deadline) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      got.append(buffer, static_cast<std::size_t>(n));
    } else {
      std::this_thread::sleep_for(1ms);
    }
  }
  ::close(fd);
  EXPECT_EQ(got, expected);
  EXPECT_TRUE(file.wait_idle(5s));
}

TEST(PerfdataFile, PipeWithoutReaderShutsDownPromptlyAndReportsTheLoss) {
  TempDir dir;
  Events events;
  const std::string path = dir.file("perfdata.fifo");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  const std::size_t total = lines(0, 4000).size();
  std::optional<PerfdataFile> file;
  file.emplace(options(path, PerfdataFileMode::pipe, events));
  for (int i = 0; i < 4000; ++i) file->write(line(i));
  file->flush();
  EXPECT_FALSE(file->wait_idle(200ms));
  const auto start = Clock::now();
  file.reset();
  EXPECT_LT(Clock::now() - start, 2s);
  const std::vector<PerfdataEvent> lost = events.of(PerfdataEventKind::lost_at_shutdown);
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_GT(lost[0].bytes, 0u);
  EXPECT_LT(lost[0].bytes, total);  // the kernel's buffer took the first part
  EXPECT_EQ(lost[0].message,
            fmt::format("Warning: Service performance data file '{}': {} bytes of performance "
                        "data could not be written before it was closed",
                        path, lost[0].bytes));
}

TEST(PerfdataFile, PipeModeOnAMissingPathCreatesARegularFile) {
  TempDir dir;
  Events events;
  const std::string path = dir.file("not-a-fifo");
  {
    PerfdataFile file(options(path, PerfdataFileMode::pipe, events));
    file.write(line(1));
    ASSERT_TRUE(file.wait_idle(5s));
  }
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(read_file(path), line(1));
}

TEST(PerfdataFile, AppendModeOnAFifoWithoutReaderDoesNotBlockTheWriter) {
  TempDir dir;
  Events events;
  const std::string path = dir.file("perfdata.fifo");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  PerfdataFile file(options(path, PerfdataFileMode::append, events));
  ASSERT_TRUE(events.wait_for(PerfdataEventKind::open_failed));
  EXPECT_EQ(events.of(PerfdataEventKind::open_failed)[0].error, ENXIO);
  file.write(line(7));
  file.flush();
  std::string got;
  std::thread reader([&] {
    const int fd = ::open(path.c_str(), O_RDONLY);  // the writer's retry opens the other end
    char buffer[4096];
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) got.assign(buffer, static_cast<std::size_t>(n));
    ::close(fd);
  });
  reader.join();
  EXPECT_EQ(got, line(7));
  EXPECT_EQ(events.of(PerfdataEventKind::open_failed).size(), 1u);
}

TEST(PerfdataFile, ProcessingMovesTheFileAwayAndReopensIt) {
  TempDir dir;
  Events events;
  const std::string path = dir.file("service-perfdata");
  PerfdataFile file(options(path, PerfdataFileMode::append, events));
  file.write(lines(0, 10));
  file.process({.argv = {"mv", path, path + ".1"}, .command_line = "mv " + path + " " + path + ".1"});
  file.write(lines(10, 15));
  file.process({.argv = {"/bin/mv", path, path + ".2"}});
  file.write(lines(15, 17));
  ASSERT_TRUE(file.wait_idle(10s));
  EXPECT_EQ(read_file(path + ".1"), lines(0, 10));
  EXPECT_EQ(read_file(path + ".2"), lines(10, 15));
  EXPECT_EQ(read_file(path), lines(15, 17));
  EXPECT_EQ(file.stats().processing_runs, 2u);
  EXPECT_TRUE(events.all().empty());
}

TEST(PerfdataFile, ProcessingWithAShellSeesTheClosedFileAndModeWTruncatesOnReopen) {
  TempDir dir;
  Events events;
  const std::string path = dir.file("perfdata");
  const std::string counts = dir.file("counts");
  PerfdataFile file(options(path, PerfdataFileMode::write, events));
  const std::string script = fmt::format("wc -l < {} >> {}", path, counts);
  file.write(lines(0, 7));
  file.process({.argv = {script}, .shell = true, .command_line = script});
  file.write(lines(7, 10));
  file.process({.argv = {script}, .shell = true, .command_line = script});
  file.write(lines(10, 11));
  ASSERT_TRUE(file.wait_idle(10s));
  EXPECT_EQ(read_file(counts), "7\n3\n");
  EXPECT_EQ(read_file(path), line(10));  // truncated at each reopen, as Naemon's O_TRUNC
}

TEST(PerfdataFile, ProcessingInAppendModeKeepsWhatTheCommandLeft) {
  TempDir dir;
  Events events;
  const std::string path = dir.file("perfdata");
  PerfdataFile file(options(path, PerfdataFileMode::append, events));
  file.write(lines(0, 3));
  file.process({.argv = {"cp", path, path + ".copy"}});
  file.write(lines(3, 5));
  ASSERT_TRUE(file.wait_idle(10s));
  EXPECT_EQ(read_file(path + ".copy"), lines(0, 3));
  EXPECT_EQ(read_file(path), lines(0, 5));  // Naemon reopens with O_APPEND
}

TEST(PerfdataFile, ProcessingCommandGetsItsEnvironmentAndNoSignalMask) {
  TempDir dir;
  Events events;
  const std::string path = dir.file("perfdata");
  const std::string out = dir.file("out");
  PerfdataFile file(options(path, PerfdataFileMode::append, events));
  const std::string script =
      fmt::format("echo \"$PERF_A $PERF_B\" > {}; grep SigBlk /proc/self/status >> {}", out, out);
  file.process({.argv = {script}, .shell = true, .env = {{"PERF_A", "one"}, {"PERF_B", "two words"}}});
  ASSERT_TRUE(file.wait_idle(10s));
  EXPECT_EQ(read_file(out), "one two words\nSigBlk:\t0000000000000000\n");
}

TEST(PerfdataFile, ProcessingTimeoutKillsTheProcessGroupAndReportsNaemonsWarning) {
  TempDir dir;
  Events events;
  const std::string path = dir.file("perfdata");
  const std::string pidfile = dir.file("pid");
  PerfdataFileOptions o = options(path, PerfdataFileMode::write, events);
  o.object = PerfdataObject::host;
  o.timeout_seconds = 1;
  PerfdataFile file(o);
  const std::string script = fmt::format("sleep 30 & echo $! > {}; wait", pidfile);
  file.write(lines(0, 2));
  const auto start = Clock::now();
  file.process({.argv = {script}, .shell = true, .command_line = "/usr/bin/process-perfdata " + path});
  file.write(lines(2, 4));  // waits for the reopened file
  ASSERT_TRUE(file.wait_idle(10s));
  const auto took = Clock::now() - start;
  EXPECT_GE(took, 900ms);
  EXPECT_LT(took, 5s);
  const std::vector<PerfdataEvent> timeouts = events.of(PerfdataEventKind::processing_timed_out);
  ASSERT_EQ(timeouts.size(), 1u);
  EXPECT_EQ(timeouts[0].message,
            "Warning: Host performance data file processing command '/usr/bin/process-perfdata " + path +
                "' timed out after 1 seconds");
  EXPECT_EQ(file.stats().processing_timeouts, 1u);
  const std::string pid_text = read_file(pidfile);
  ASSERT_FALSE(pid_text.empty());
  EXPECT_TRUE(gone(static_cast<pid_t>(std::stoi(pid_text))));  // the background sleep died with the group
  EXPECT_EQ(read_file(path), lines(2, 4));
}

// The spawner's rule for every command: a file without a #! line runs through /bin/sh, as execvp does.
TEST(PerfdataFile, ProcessingCommandWithoutShebangRunsThroughTheShell) {
  TempDir dir;
  Events events;
  const std::string path = dir.file("perfdata");
  const std::string script = dir.file("process-perfdata");
  write_file(script, "mv \"$1\" \"$1.done\"\n");
  ASSERT_EQ(::chmod(script.c_str(), 0755), 0);
  PerfdataFile file(options(path, PerfdataFileMode::append, events));
  file.write(lines(0, 3));
  file.process({.argv = {script, path}, .command_line = script + " " + path});
  file.write(lines(3, 4));
  ASSERT_TRUE(file.wait_idle(10s));
  EXPECT_EQ(read_file(path + ".done"), lines(0, 3));
  EXPECT_EQ(read_file(path), lines(3, 4));
  EXPECT_TRUE(events.all().empty());
}

// A bare name is looked up in the PATH the daemon had when the file was set up.
TEST(PerfdataFile, ProcessingCommandIsFoundInPath) {
  TempDir dir;
  Events events;
  const std::string path = dir.file("perfdata");
  const std::string bin = dir.file("bin");
  fs::create_directory(bin);
  write_file(bin + "/vedette-process-perfdata-probe", "cp \"$1\" \"$1.seen\"\n");
  ASSERT_EQ(::chmod((bin + "/vedette-process-perfdata-probe").c_str(), 0755), 0);
  const char* saved_path = std::getenv("PATH");
  const std::string saved = saved_path != nullptr ? saved_path : "";
  ::setenv("PATH", (bin + ":" + saved).c_str(), 1);
  std::optional<PerfdataFile> file;
  file.emplace(options(path, PerfdataFileMode::append, events));  // snapshots PATH here
  ::setenv("PATH", saved.c_str(), 1);
  file->write(lines(0, 2));
  file->process({.argv = {"vedette-process-perfdata-probe", path}});
  ASSERT_TRUE(file->wait_idle(10s));
  EXPECT_EQ(read_file(path + ".seen"), lines(0, 2));
  EXPECT_TRUE(events.all().empty());
}

TEST(PerfdataFile, ProcessingCommandThatCannotRunIsReportedOnceAndTheFileReopens) {
  TempDir dir;
  Events events;
  const std::string path = dir.file("perfdata");
  PerfdataFile file(options(path, PerfdataFileMode::append, events));
  file.write(line(0));
  file.process({.argv = {"/nonexistent/process-perfdata"}, .command_line = "/nonexistent/process-perfdata"});
  file.write(line(1));
  file.process({.argv = {"no-such-command-in-path-xyz"}, .command_line = "no-such-command-in-path-xyz"});
  file.write(line(2));
  ASSERT_TRUE(file.wait_idle(10s));
  EXPECT_EQ(read_file(path), lines(0, 3));
  const std::vector<PerfdataEvent> failed = events.of(PerfdataEventKind::processing_not_run);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error, ENOENT);
  EXPECT_EQ(failed[0].message,
            "Warning: Service performance data file processing command '/nonexistent/process-perfdata' could "
            "not be run: No such file or directory");
}

TEST(PerfdataFile, CannotOpenIsReportedOnceThenRetriedAndProcessingIsSkipped) {
  TempDir dir;
  Events events;
  const std::string sub = dir.file("sub");
  const std::string path = sub + "/perfdata";
  const std::string marker = dir.file("ran");
  PerfdataFile file(options(path, PerfdataFileMode::append, events));
  for (int i = 0; i < 5; ++i) {
    file.write(line(i));
    file.flush();
    std::this_thread::sleep_for(60ms);  // past the retry interval: each batch tries again
  }
  file.process({.argv = {"touch", marker}});
  file.write(line(5));
  EXPECT_FALSE(file.wait_idle(300ms));
  const std::vector<PerfdataEvent> failed = events.of(PerfdataEventKind::open_failed);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error, ENOENT);
  EXPECT_EQ(failed[0].message,
            "Warning: File '" + path +
                "' could not be opened (No such file or directory) - performance data will "
                "not be written to file!");
  EXPECT_FALSE(fs::exists(marker));  // as Naemon: no processing without an open, flushed file
  EXPECT_EQ(file.stats().processing_skipped, 1u);

  fs::create_directory(sub);  // the retry finds it; the lines were kept
  ASSERT_TRUE(file.wait_idle(5s));
  EXPECT_EQ(read_file(path), lines(0, 6));
  EXPECT_EQ(events.of(PerfdataEventKind::open_failed).size(), 1u);
}

TEST(PerfdataFile, ProcessingIsSkippedWhileTheFileIsNotOpen) {
  TempDir dir;
  Events events;
  const std::string path = dir.file("perfdata.fifo");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);  // mode 'a' on a FIFO without reader: ENXIO
  const std::string marker = dir.file("ran");
  PerfdataFile file(options(path, PerfdataFileMode::append, events));
  ASSERT_TRUE(events.wait_for(PerfdataEventKind::open_failed));
  file.process({.argv = {"touch", marker}});
  ASSERT_TRUE(file.wait_idle(5s));
  EXPECT_FALSE(fs::exists(marker));
  EXPECT_EQ(file.stats().processing_skipped, 1u);
  EXPECT_EQ(file.stats().processing_runs, 0u);
}

TEST(PerfdataFile, WriteErrorIsReportedOnceWithNaemonsText) {
  Events events;
  {
    PerfdataFile file(options("/dev/full", PerfdataFileMode::append, events));
    for (int i = 0; i < 5; ++i) {
      file.write(line(i));
      file.flush();
      std::this_thread::sleep_for(60ms);
    }
    EXPECT_FALSE(file.wait_idle(100ms));
  }
  const std::vector<PerfdataEvent> failed = events.of(PerfdataEventKind::write_failed);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error, ENOSPC);
  EXPECT_EQ(failed[0].message, "Warning: Failed to flush performance data to performance file /dev/full");
  const std::vector<PerfdataEvent> lost = events.of(PerfdataEventKind::lost_at_shutdown);
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0].bytes, lines(0, 5).size());
}

TEST(PerfdataFile, QueueIsBoundedAndDropsAreCountedAndReported) {
  TempDir dir;
  Events events;
  const std::string path = dir.file("perfdata");
  PerfdataFileOptions o = options(path, PerfdataFileMode::append, events);
  const std::size_t size = line(0).size();
  o.max_queued_bytes = 10 * size;
  PerfdataFile file(o);
  ASSERT_TRUE(file.wait_idle(5s));
  for (int i = 0; i < 25; ++i) file.write(line(0));  // nothing handed over yet: the cap holds 10
  file.flush();
  ASSERT_TRUE(file.wait_idle(5s));
  EXPECT_EQ(read_file(path).size(), 10 * size);
  EXPECT_EQ(file.stats().lines_dropped, 15u);
  EXPECT_EQ(file.stats().bytes_dropped, 15 * size);
  // Reported when the writer has caught up.
  file.write(line(1));
  file.flush();
  ASSERT_TRUE(events.wait_for(PerfdataEventKind::lines_dropped));
  const std::vector<PerfdataEvent> dropped = events.of(PerfdataEventKind::lines_dropped);
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(dropped[0].lines, 15u);
  EXPECT_EQ(dropped[0].bytes, 15 * size);
  EXPECT_EQ(
      dropped[0].message,
      fmt::format("Warning: Service performance data file '{}': dropped 15 lines ({} bytes): the writer was "
                  "more than {} bytes behind",
                  path, 15 * size, 10 * size));
  ASSERT_TRUE(file.wait_idle(5s));
  EXPECT_EQ(read_file(path).size(), 11 * size);  // accepted again once the writer caught up
}

TEST(PerfdataFile, BehindAStuckPipeTheCapHoldsAndTheCallerStaysFast) {
  TempDir dir;
  Events events;
  const std::string path = dir.file("perfdata.fifo");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  PerfdataFileOptions o = options(path, PerfdataFileMode::pipe, events);
  o.max_queued_bytes = 256 * 1024;
  PerfdataFile file(o);
  const auto start = Clock::now();
  for (int i = 0; i < 40'000; ++i) {  // ~3 MiB
    file.write(line(i));
    if (i % 100 == 99) file.flush();
  }
  file.flush();
  EXPECT_LT(Clock::now() - start, 2s);
  const PerfdataFileStats s = file.stats();
  EXPECT_GT(s.lines_dropped, 30'000u);
  EXPECT_LE(s.bytes_written, 256u * 1024 + 1024 * 1024);  // what the kernel's pipe buffer took
}

TEST(PerfdataFile, ProcessIsIgnoredForAPipe) {
  TempDir dir;
  Events events;
  const std::string path = dir.file("perfdata.fifo");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  const std::string marker = dir.file("ran");
  PerfdataFile file(options(path, PerfdataFileMode::pipe, events));
  file.process({.argv = {"touch", marker}});
  ASSERT_TRUE(file.wait_idle(5s));
  EXPECT_FALSE(fs::exists(marker));
  EXPECT_EQ(file.stats().processing_runs, 0u);
}

}  // namespace
}  // namespace vedette::files
