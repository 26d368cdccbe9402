// The main log (`log_file`): lines "[epoch] message" in Naemon's format, appended by a thread named "writer"
// so the core thread never touches the disk. write(), flush(), rotate() and reopen() are core thread only;
// the writer owns the file descriptor, the optional mirror and all error reporting. Usage:
//   LogFile log({.path = cfg.log_file, .archive_path = cfg.log_archive_path, .mirror_fd = foreground ? 1 :
//   -1}); log.write(now, "SERVICE ALERT: web;HTTP;CRITICAL;SOFT;1;timeout");  /* ... */  log.flush();  // per
//   iteration
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace vedette::files {

struct LogFileOptions {
  std::string path{};          // log_file
  std::string archive_path{};  // log_archive_path; empty: the directory of `path`
  // Every line is also written here, after the file, by the writer thread: STDOUT_FILENO for the foreground
  // run (`make run`), -1 for none. Not closed by LogFile.
  int mirror_fd = -1;
  // Writer thread. Called once per episode of failure (open, write, rotate), again only after a success.
  // Default: one line on stderr.
  std::function<void(std::string_view message)> on_error{};
  // Core thread, at the end of rotate() and reopen(), after the "LOG ROTATION" and "LOG VERSION" lines: the
  // engine writes its CURRENT HOST/SERVICE STATE lines here (log_current_states), so they land in the new
  // file.
  std::function<void(std::int64_t rotation_time)> on_rotated{};
  // Lines that could not be written are kept and retried at this interval; beyond max_backlog_bytes the
  // oldest are dropped (and reported), so a full disk cannot grow the daemon without bound.
  std::chrono::milliseconds retry_interval{1000};
  std::size_t max_backlog_bytes = std::size_t{64} << 20;
};

class LogFile {
 public:
  explicit LogFile(LogFileOptions options);  // starts the writer thread; the file is opened on first write
  ~LogFile();                                // flush(), then the writer writes everything and is joined
  LogFile(const LogFile&) = delete;
  LogFile& operator=(const LogFile&) = delete;

  // Appends "[epoch] message\n" to the pending buffer: no syscall, no lock. Trailing newlines of `message`
  // are dropped, as Naemon strips them; a line break inside it is written as \n or \r, so that one message
  // is always one line.
  void write(std::int64_t epoch_seconds, std::string_view message);

  // Hands the pending lines to the writer: one short lock, and one wakeup only if the writer sleeps. Call
  // once per loop iteration; never waits for the disk.
  void flush();

  // Rotation as Nagios 4 (Naemon left it to logrotate): in order with the lines before it, the writer renames
  // the log to archive_name(...) and reopens it; "[t] LOG ROTATION: HOURLY|DAILY|WEEKLY|MONTHLY" and
  // "[t] LOG VERSION: 2.0" follow (t = scheduled_time), then on_rotated(t). method 'n' or unknown: nothing.
  // Lines written after rotate() returns go to the new file.
  void rotate(std::int64_t scheduled_time, char method);

  // After an external logrotate: close and reopen log_file, then "LOG ROTATION: EXTERNAL", "LOG VERSION: 2.0"
  // and on_rotated(now), as Naemon's rotate_log_file().
  void reopen(std::int64_t now);

  // Tests and shutdown ordering only, never from the loop: blocks until everything flushed so far is written
  // (or has failed and waits for a retry). False on timeout.
  bool wait_idle(std::chrono::milliseconds timeout);

  // The next rotation time after `now` for log_rotation_method ('h' next full local hour, 'd' next local
  // midnight, 'w' next Sunday midnight, 'm' midnight of the 1st of next month); 0 for 'n' or unknown. Local
  // time of the process's TZ, DST-correct: a day that starts at 01:00 because of a switch at midnight rotates
  // then.
  static std::int64_t next_rotation(std::int64_t now, char method);

  // <archive_path>/<basename of log_file without ".log">-MM-DD-YYYY-HH.log, local time of rotation_time.
  static std::string archive_name(std::string_view log_file, std::string_view archive_path,
                                  std::int64_t rotation_time);

 private:
  class Writer;

  void append_one_line(std::string_view message);
  void write_rotation_header(std::int64_t time, std::string_view method_name);

  LogFileOptions options_;
  std::string pending_;  // core thread only
  std::unique_ptr<Writer> writer_;
};

}  // namespace vedette::files
