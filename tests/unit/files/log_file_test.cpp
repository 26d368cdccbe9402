#include "files/log_file.hpp"

#include "files_test_support.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <ctime>
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

class ScopedTz {
 public:
  explicit ScopedTz(const char* zone) {
    if (const char* old = std::getenv("TZ")) old_ = old;
    ::setenv("TZ", zone, 1);
    ::tzset();
  }
  ~ScopedTz() {
    if (old_) {
      ::setenv("TZ", old_->c_str(), 1);
    } else {
      ::unsetenv("TZ");
    }
    ::tzset();
  }

 private:
  std::optional<std::string> old_;
};

bool have_zone(const std::string& zone) {
  return fs::exists("/usr/share/zoneinfo/" + zone);
}

std::int64_t utc(int year, int month, int day, int hour, int minute = 0, int second = 0) {
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return static_cast<std::int64_t>(timegm(&tm));
}

std::tm local(std::int64_t t) {
  const std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  localtime_r(&tt, &tm);
  return tm;
}

TEST(LogFile, WritesExactLinesInOrderAcrossManyFlushes) {
  TempDir dir;
  std::string expected;
  {
    LogFile log({.path = dir.file("naemon.log")});
    for (int i = 0; i < 2000; ++i) {
      log.write(1700000000 + i, fmt::format("SERVICE ALERT: host{};svc;OK;HARD;1;line {}", i, i));
      expected += fmt::format("[{}] SERVICE ALERT: host{};svc;OK;HARD;1;line {}\n", 1700000000 + i, i, i);
      if (i % 3 == 0) log.flush();
    }
    log.write(5, "trailing newlines are stripped\n\n");
    expected += "[5] trailing newlines are stripped\n";
    // One message is one line: a line break inside cannot forge the next one (issue 20).
    log.write(6, "LOG;x\n[6] HOST ALERT: web;DOWN;HARD;1;forged\r\nend");
    expected += "[6] LOG;x\\n[6] HOST ALERT: web;DOWN;HARD;1;forged\\r\\nend\n";
    ASSERT_TRUE(log.wait_idle(5s));
    EXPECT_EQ(read_file(dir.file("naemon.log")), expected);
  }
  EXPECT_EQ(read_file(dir.file("naemon.log")), expected);
}

TEST(LogFile, BurstOfHundredThousandLines) {
  TempDir dir;
  std::string expected;
  expected.reserve(100000 * 40);
  {
    LogFile log({.path = dir.file("naemon.log")});
    for (int i = 0; i < 100000; ++i) {
      log.write(1700000000, fmt::format("HOST ALERT: h{};UP;HARD;1;ok", i));
      expected += fmt::format("[1700000000] HOST ALERT: h{};UP;HARD;1;ok\n", i);
      if (i % 25000 == 0) log.flush();
    }
  }  // the destructor flushes and writes everything
  EXPECT_EQ(read_file(dir.file("naemon.log")), expected);
}

TEST(LogFile, NothingReachesTheFileBeforeFlush) {
  TempDir dir;
  LogFile log({.path = dir.file("naemon.log")});
  log.write(1, "one");
  log.write(2, "two");
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(fs::exists(dir.file("naemon.log")));  // the writer opens it with the first batch
  log.flush();
  ASSERT_TRUE(log.wait_idle(5s));
  EXPECT_EQ(read_file(dir.file("naemon.log")), "[1] one\n[2] two\n");
}

TEST(LogFile, WriterRunsOnAThreadNamedWriter) {
  TempDir dir;
  LogFile log({.path = dir.file("naemon.log")});
  bool found = false;
  for (int attempt = 0; attempt < 100 && !found; ++attempt) {
    for (const auto& entry : fs::directory_iterator("/proc/self/task")) {
      if (read_file((entry.path() / "comm").string()) == "writer\n") found = true;
    }
    if (!found) std::this_thread::sleep_for(5ms);
  }
  EXPECT_TRUE(found);
}

// The writer blocks on a mirror pipe nobody reads yet; the core thread keeps writing and flushing and never
// waits.
TEST(LogFile, FlushReturnsQuicklyWhileTheWriterIsBlocked) {
  TempDir dir;
  int pipe_fds[2];
  ASSERT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
  (void)::fcntl(pipe_fds[1], F_SETPIPE_SZ, 4096);
  std::string expected;
  std::string mirrored;
  std::thread reader;
  {
    LogFile log({.path = dir.file("naemon.log"), .mirror_fd = pipe_fds[1]});
    auto max_flush = std::chrono::steady_clock::duration::zero();
    for (int i = 0; i < 20000; ++i) {
      log.write(1700000000, fmt::format("line {} with some padding to fill the pipe quickly", i));
      expected += fmt::format("[1700000000] line {} with some padding to fill the pipe quickly\n", i);
      if (i % 100 == 99) {
        const auto start = std::chrono::steady_clock::now();
        log.flush();
        max_flush = std::max(max_flush, std::chrono::steady_clock::now() - start);
      }
    }
    EXPECT_FALSE(log.wait_idle(100ms));  // the writer is still stuck on the mirror
    EXPECT_LT(max_flush, 50ms);
    reader = std::thread([&] {
      char buffer[65536];
      ssize_t n;
      while ((n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0) mirrored.append(buffer, n);
    });
    ASSERT_TRUE(log.wait_idle(5s));
  }
  ::close(pipe_fds[1]);
  reader.join();
  ::close(pipe_fds[0]);
  EXPECT_EQ(read_file(dir.file("naemon.log")), expected);
  EXPECT_EQ(mirrored, expected);
}

TEST(LogFile, MirrorsEveryLineIncludingRotationHeaders) {
  ScopedTz tz("UTC");
  TempDir dir;
  const std::string mirror_path = dir.file("stdout.txt");
  const int mirror = ::open(mirror_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ASSERT_GE(mirror, 0);
  {
    LogFile log({.path = dir.file("naemon.log"), .archive_path = dir.path().string(), .mirror_fd = mirror});
    log.write(10, "before");
    log.rotate(3600, 'h');
    log.write(3601, "after");
  }
  ::close(mirror);
  EXPECT_EQ(read_file(mirror_path),
            "[10] before\n[3600] LOG ROTATION: HOURLY\n[3600] LOG VERSION: 2.0\n[3601] after\n");
  EXPECT_EQ(read_file(dir.file("naemon.log")),
            "[3600] LOG ROTATION: HOURLY\n[3600] LOG VERSION: 2.0\n[3601] after\n");
}

TEST(LogFile, ArchiveNameFollowsNagios4) {
  ScopedTz tz("Europe/Berlin");
  if (!have_zone("Europe/Berlin")) GTEST_SKIP() << "zone Europe/Berlin missing";
  const std::int64_t t = utc(2024, 3, 4, 23, 0, 0);  // 2024-03-05 00:00 CET
  EXPECT_EQ(LogFile::archive_name("/var/log/naemon/naemon.log", "/var/log/naemon/archives/", t),
            "/var/log/naemon/archives/naemon-03-05-2024-00.log");
  EXPECT_EQ(LogFile::archive_name("/var/log/naemon/naemon.log", "/var/log/naemon/archives", t),
            "/var/log/naemon/archives/naemon-03-05-2024-00.log");
  EXPECT_EQ(LogFile::archive_name("/x/nagios.log", "/a", utc(2024, 7, 1, 13, 59)),
            "/a/nagios-07-01-2024-15.log");
  EXPECT_EQ(LogFile::archive_name("/x/events", "", t), "/x/events-03-05-2024-00.log");
}

struct MethodCase {
  char method;
  const char* name;
  std::int64_t scheduled;  // UTC; the test runs in Europe/Berlin
  const char* archive;
};

TEST(LogFile, RotationRenamesReopensAndWritesHeaderThenHookLines) {
  if (!have_zone("Europe/Berlin")) GTEST_SKIP() << "zone Europe/Berlin missing";
  ScopedTz tz("Europe/Berlin");
  const MethodCase cases[] = {
      {'h', "HOURLY", utc(2024, 3, 31, 1), "naemon-03-31-2024-03.log"},   // 03:00 CEST, just after the switch
      {'d', "DAILY", utc(2024, 10, 27, 23), "naemon-10-28-2024-00.log"},  // midnight CET
      {'w', "WEEKLY", utc(2024, 4, 6, 22), "naemon-04-07-2024-00.log"},   // Sunday midnight CEST
      {'m', "MONTHLY", utc(2024, 12, 31, 23), "naemon-01-01-2025-00.log"}  // new year
  };
  for (const MethodCase& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    const std::string archives = dir.file("archives");
    fs::create_directory(archives);
    LogFile* self = nullptr;
    LogFile log({.path = dir.file("naemon.log"), .archive_path = archives, .on_rotated = [&](std::int64_t t) {
                   self->write(t, "CURRENT HOST STATE: h;UP;HARD;1;ok");
                 }});
    self = &log;
    log.write(c.scheduled - 1, "old line");
    log.rotate(c.scheduled, c.method);
    log.write(c.scheduled + 1, "new line");
    ASSERT_TRUE(log.wait_idle(5s));
    EXPECT_EQ(read_file(archives + "/" + c.archive), fmt::format("[{}] old line\n", c.scheduled - 1));
    EXPECT_EQ(
        read_file(dir.file("naemon.log")),
        fmt::format(
            "[{0}] LOG ROTATION: {1}\n[{0}] LOG VERSION: 2.0\n[{0}] CURRENT HOST STATE: h;UP;HARD;1;ok\n"
            "[{2}] new line\n",
            c.scheduled, c.name, c.scheduled + 1));
  }
}

TEST(LogFile, RotationMethodNoneDoesNothing) {
  TempDir dir;
  LogFile log({.path = dir.file("naemon.log"), .archive_path = dir.path().string()});
  log.write(1, "a");
  log.rotate(3600, 'n');
  log.write(2, "b");
  ASSERT_TRUE(log.wait_idle(5s));
  EXPECT_EQ(read_file(dir.file("naemon.log")), "[1] a\n[2] b\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

TEST(LogFile, RotationKeepsModeAndAppendsToAnExistingArchive) {
  ScopedTz tz("UTC");
  TempDir dir;
  const std::string log_path = dir.file("naemon.log");
  const std::string archive = dir.file("naemon-01-01-1970-01.log");
  { std::ofstream(archive) << "[1] from an earlier run\n"; }
  LogFile log({.path = log_path, .archive_path = dir.path().string()});
  log.write(2, "first");
  ASSERT_TRUE(log.wait_idle(5s));
  ASSERT_EQ(::chmod(log_path.c_str(), 0640), 0);
  log.rotate(3600, 'h');
  log.write(3601, "second");
  ASSERT_TRUE(log.wait_idle(5s));
  EXPECT_EQ(read_file(archive), "[1] from an earlier run\n[2] first\n");
  EXPECT_EQ(read_file(log_path), "[3600] LOG ROTATION: HOURLY\n[3600] LOG VERSION: 2.0\n[3601] second\n");
  struct stat st {};
  ASSERT_EQ(::stat(log_path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
}

// Naemon creates its log with fopen(): 0666 less the umask, so that readers running as another user (the
// CGIs as www-data, log shippers) can read it.
TEST(LogFile, ANewLogIsReadableByOthersAsNaemonsIs) {
  TempDir dir;
  const mode_t old_mask = ::umask(S_IWGRP | S_IWOTH);  // a daemon's, as Naemon's and Vedette's -d set it
  LogFile log({.path = dir.file("naemon.log")});
  log.write(1, "line");
  ASSERT_TRUE(log.wait_idle(5s));
  ::umask(old_mask);
  struct stat st {};
  ASSERT_EQ(::stat(dir.file("naemon.log").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
}

TEST(LogFile, ReopenAfterExternalRotation) {
  TempDir dir;
  const std::string log_path = dir.file("naemon.log");
  LogFile log({.path = log_path});
  log.write(1, "before");
  ASSERT_TRUE(log.wait_idle(5s));
  fs::rename(log_path, dir.file("naemon.log.1"));
  log.write(2, "still the old file");  // logrotate's "create" comes before the daemon is told
  log.reopen(3);
  log.write(4, "after");
  ASSERT_TRUE(log.wait_idle(5s));
  EXPECT_EQ(read_file(dir.file("naemon.log.1")), "[1] before\n[2] still the old file\n");
  EXPECT_EQ(read_file(log_path), "[3] LOG ROTATION: EXTERNAL\n[3] LOG VERSION: 2.0\n[4] after\n");
}

TEST(LogFile, UnwritablePathIsReportedOnceAndNeverCrashes) {
  TempDir dir;
  std::mutex mutex;
  std::vector<std::string> errors;
  {
    LogFile log({.path = dir.file("missing/naemon.log"), .on_error = [&](std::string_view message) {
                   std::lock_guard lock(mutex);
                   errors.emplace_back(message);
                 }});
    for (int i = 0; i < 50; ++i) {
      log.write(i, "lost");
      log.flush();
    }
    EXPECT_FALSE(log.wait_idle(50ms));  // lines are kept for a retry
  }
  ASSERT_GE(errors.size(), 1u);
  EXPECT_NE(errors[0].find("cannot open for writing"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("missing/naemon.log"), std::string::npos);
  EXPECT_EQ(errors.size(), 2u);  // the open failure, then the lines lost at shutdown
}

TEST(LogFile, KeptLinesAreWrittenOnceThePathWorks) {
  TempDir dir;
  std::atomic<int> errors = 0;
  LogFile log({.path = dir.file("later/naemon.log"),
               .on_error = [&](std::string_view) { ++errors; },
               .retry_interval = 10ms});
  log.write(1, "kept");
  log.flush();
  // The writer has tried the line once and failed (the directory is missing) before it can write it.
  for (int i = 0; i < 500 && errors.load() == 0; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(errors.load(), 1);
  fs::create_directory(dir.file("later"));
  log.write(2, "new");
  ASSERT_TRUE(log.wait_idle(5s));
  EXPECT_EQ(read_file(dir.file("later/naemon.log")), "[1] kept\n[2] new\n");
  EXPECT_EQ(errors.load(), 1);
}

TEST(LogFile, BacklogIsBounded) {
  TempDir dir;
  std::vector<std::string> errors;
  std::mutex mutex;
  LogFile log({.path = dir.file("later/naemon.log"),
               .on_error =
                   [&](std::string_view m) {
                     std::lock_guard lock(mutex);
                     errors.emplace_back(m);
                   },
               .retry_interval = 10ms,
               .max_backlog_bytes = 100});
  for (int i = 0; i < 10; ++i) log.write(1000000 + i, "0123456789");  // 21 bytes a line
  log.flush();
  // The writer has tried the lines once and failed (the directory is missing) before it can write them.
  const auto reported = [&] {
    std::lock_guard lock(mutex);
    return !errors.empty();
  };
  for (int i = 0; i < 500 && !reported(); ++i) std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(reported());
  fs::create_directory(dir.file("later"));
  ASSERT_TRUE(log.wait_idle(5s));
  std::string expected;
  for (int i = 6; i < 10; ++i) expected += fmt::format("[{}] 0123456789\n", 1000000 + i);
  EXPECT_EQ(read_file(dir.file("later/naemon.log")), expected);
  std::lock_guard lock(mutex);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[1].find("dropped 126 bytes"), std::string::npos) << errors[1];
}

TEST(LogFile, RefusesASymlink) {
  TempDir dir;
  fs::create_symlink(dir.file("target.log"), dir.file("naemon.log"));
  std::atomic<int> errors = 0;
  {
    LogFile log({.path = dir.file("naemon.log"), .on_error = [&](std::string_view) { ++errors; }});
    log.write(1, "x");
    log.flush();
    EXPECT_FALSE(log.wait_idle(50ms));
  }
  EXPECT_FALSE(fs::exists(dir.file("target.log")));
  EXPECT_GE(errors.load(), 1);
}

TEST(LogFileNextRotation, NoneAndUnknown) {
  EXPECT_EQ(LogFile::next_rotation(1700000000, 'n'), 0);
  EXPECT_EQ(LogFile::next_rotation(1700000000, 'x'), 0);
}

TEST(LogFileNextRotation, BerlinAcrossDaylightSavingChanges) {
  if (!have_zone("Europe/Berlin")) GTEST_SKIP() << "zone Europe/Berlin missing";
  ScopedTz tz("Europe/Berlin");
  // Spring: 02:00 CET becomes 03:00 CEST on 2024-03-31 (01:00 UTC).
  EXPECT_EQ(LogFile::next_rotation(utc(2024, 3, 31, 0, 30), 'h'), utc(2024, 3, 31, 1));  // 01:30 CET → 03:00
  EXPECT_EQ(LogFile::next_rotation(utc(2024, 3, 31, 1), 'h'), utc(2024, 3, 31, 2));    // 03:00 → 04:00 CEST
  EXPECT_EQ(LogFile::next_rotation(utc(2024, 3, 30, 11), 'd'), utc(2024, 3, 30, 23));  // midnight CET
  EXPECT_EQ(LogFile::next_rotation(utc(2024, 3, 31, 10), 'd'), utc(2024, 3, 31, 22));  // midnight CEST
  // Autumn: 03:00 CEST becomes 02:00 CET on 2024-10-27 (01:00 UTC); the repeated hour gets its own rotation.
  EXPECT_EQ(LogFile::next_rotation(utc(2024, 10, 27, 0, 30), 'h'),
            utc(2024, 10, 27, 1));  // 02:30 CEST → 02:00 CET
  EXPECT_EQ(LogFile::next_rotation(utc(2024, 10, 27, 1, 30), 'h'),
            utc(2024, 10, 27, 2));  // 02:30 CET → 03:00 CET
  EXPECT_EQ(LogFile::next_rotation(utc(2024, 10, 26, 12), 'd'), utc(2024, 10, 26, 22));  // midnight CEST
  EXPECT_EQ(LogFile::next_rotation(utc(2024, 10, 27, 9), 'd'), utc(2024, 10, 27, 23));   // midnight CET
  // Weekly: the next Sunday 00:00, a full week on when it is Sunday already.
  EXPECT_EQ(LogFile::next_rotation(utc(2024, 3, 27, 12), 'w'),
            utc(2024, 3, 30, 23));  // Wed → Sun 31 00:00 CET
  EXPECT_EQ(LogFile::next_rotation(utc(2024, 3, 30, 23), 'w'),
            utc(2024, 4, 6, 22));  // Sun 00:00 → Sun 04-07 CEST
  EXPECT_EQ(LogFile::next_rotation(utc(2024, 10, 26, 21, 59, 59), 'w'), utc(2024, 10, 26, 22));
  // Monthly, across the switches and month ends.
  EXPECT_EQ(LogFile::next_rotation(utc(2024, 3, 15, 12), 'm'), utc(2024, 3, 31, 22));    // 04-01 00:00 CEST
  EXPECT_EQ(LogFile::next_rotation(utc(2024, 10, 15, 12), 'm'), utc(2024, 10, 31, 23));  // 11-01 00:00 CET
}

TEST(LogFileNextRotation, MonthEndsAndLeapYears) {
  ScopedTz tz("UTC");
  EXPECT_EQ(LogFile::next_rotation(utc(2024, 1, 31, 23, 59, 59), 'm'), utc(2024, 2, 1, 0));
  EXPECT_EQ(LogFile::next_rotation(utc(2024, 2, 29, 12), 'm'), utc(2024, 3, 1, 0));
  EXPECT_EQ(LogFile::next_rotation(utc(2024, 2, 28, 12), 'd'), utc(2024, 2, 29, 0));
  EXPECT_EQ(LogFile::next_rotation(utc(2023, 2, 28, 12), 'd'), utc(2023, 3, 1, 0));
  EXPECT_EQ(LogFile::next_rotation(utc(2024, 12, 31, 23, 59, 59), 'd'), utc(2025, 1, 1, 0));
  EXPECT_EQ(LogFile::next_rotation(utc(2024, 12, 31, 23, 59, 59), 'm'), utc(2025, 1, 1, 0));
  EXPECT_EQ(LogFile::next_rotation(utc(2024, 12, 31, 23, 59, 59), 'h'), utc(2025, 1, 1, 0));
  EXPECT_EQ(LogFile::next_rotation(utc(2024, 12, 31, 23), 'h'), utc(2025, 1, 1, 0));
  EXPECT_EQ(LogFile::next_rotation(utc(2024, 12, 29, 0), 'w'), utc(2025, 1, 5, 0));  // Sunday → next Sunday
}

TEST(LogFileNextRotation, DayStartingAtASwitchAtMidnight) {
  if (!have_zone("America/Sao_Paulo")) GTEST_SKIP() << "zone America/Sao_Paulo missing";
  ScopedTz tz("America/Sao_Paulo");
  // 2018-11-04 00:00 -03 did not exist: clocks went to 01:00 -02 at 03:00 UTC.
  EXPECT_EQ(LogFile::next_rotation(utc(2018, 11, 3, 15), 'd'), utc(2018, 11, 4, 3));
  EXPECT_EQ(LogFile::next_rotation(utc(2018, 10, 28, 15), 'w'), utc(2018, 11, 4, 3));
  // 2019-02-17 00:00 -02 became 23:00 -03 on the 16th: the 17th starts at 00:00 -03 (03:00 UTC).
  EXPECT_EQ(LogFile::next_rotation(utc(2019, 2, 16, 12), 'd'), utc(2019, 2, 17, 3));
}

TEST(LogFileNextRotation, HalfHourSwitchLandsOnAFullHour) {
  if (!have_zone("Australia/Lord_Howe")) GTEST_SKIP() << "zone Australia/Lord_Howe missing";
  ScopedTz tz("Australia/Lord_Howe");
  // 2024-10-06 02:00 +10:30 became 02:30 +11 (15:30 UTC on the 5th); the next full hour is 03:00 +11.
  const std::int64_t next = LogFile::next_rotation(utc(2024, 10, 5, 14, 45), 'h');
  EXPECT_EQ(next, utc(2024, 10, 5, 16));
  EXPECT_EQ(local(next).tm_min, 0);
}

// For every method, in zones with and without DST: the answer is after `now`, starts a new period in local
// time, and no period boundary was skipped between them.
TEST(LogFileNextRotation, PropertiesOverAYear) {
  for (const char* zone : {"UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Adelaide",
                           "America/Sao_Paulo"}) {
    if (!have_zone(zone) && std::string_view(zone) != "UTC") continue;
    ScopedTz tz(zone);
    SCOPED_TRACE(zone);
    const std::int64_t begin = utc(2018, 1, 1, 0);
    for (std::int64_t now = begin; now < begin + 366 * 86400; now += 86400 / 4 + 1234) {
      for (char method : {'h', 'd', 'w', 'm'}) {
        const std::int64_t next = LogFile::next_rotation(now, method);
        ASSERT_GT(next, now) << method << " " << now;
        const std::tm at = local(next);
        const std::tm before = local(next - 1);
        const std::tm start = local(now);
        if (method == 'h') {
          ASSERT_EQ(at.tm_min * 60 + at.tm_sec, 0) << now;
          ASSERT_LE(next - now, 3600) << now;
          continue;
        }
        ASSERT_NE(at.tm_yday, before.tm_yday) << method << " " << now;  // a local day starts at `next`
        ASSERT_TRUE(start.tm_yday == before.tm_yday || method != 'd') << now;
        if (method == 'w') {
          ASSERT_EQ(at.tm_wday, 0) << now;
          ASSERT_LE(next - now, 7 * 86400 + 3600) << now;
        }
        if (method == 'm') {
          ASSERT_EQ(at.tm_mday, 1) << now;
          ASSERT_EQ((start.tm_mon + 1) % 12, at.tm_mon) << now;
        }
      }
    }
  }
}

}  // namespace
}  // namespace vedette::files
