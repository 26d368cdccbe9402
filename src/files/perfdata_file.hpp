// A host or service performance data file (`host_perfdata_file`, `service_perfdata_file`) as Naemon's
// xpddefault keeps it (perfdata.c): lines appended to a file opened at start ('a' append, 'w' truncate) or
// to a named pipe ('p'), and every *_perfdata_file_processing_interval a processing command that runs
// while the file is closed, after which the file is opened again.
//
// The core thread never touches the disk: write(), flush() and process() only queue; a thread named
// "perfdata" owns the file descriptor, writes the lines in batches, runs the processing command (waiting
// for it up to perfdata_timeout) and reports failures through on_event. Usage (core thread):
//
//   PerfdataFile file(engine::perfdata_file_options(cfg, files::PerfdataObject::service, on_event));
//   file.write(line);                    // per result, a complete line ending in '\n'
//   file.flush();                        // once per loop iteration
//   file.process(std::move(command));    // every service_perfdata_file_processing_interval seconds
//   /* at shutdown or reload: destroy it; what is queued is written first */
//
// What differs from Naemon is said where it applies: a file that cannot be opened is retried (Naemon gives up
// on it until the next restart), and the lines waiting for it are bounded (Naemon keeps them all in memory).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vedette::files {

// The letters of *_perfdata_file_mode (config::PerfdataFileMode has the same values).
enum class PerfdataFileMode : char { append = 'a', write = 'w', pipe = 'p' };

// Whose file it is: only the words of Naemon's messages depend on it ("Host performance data file …").
enum class PerfdataObject : std::uint8_t { host, service };

enum class PerfdataEventKind : std::uint8_t {
  open_failed,           // the file could not be opened (at start, after processing, or on a retry); error
  write_failed,          // write(2) failed with something else than EAGAIN; error
  processing_timed_out,  // the processing command ran past perfdata_timeout; its process group got SIGKILL
  processing_not_run,    // the processing command could not be started (exec::Spawner said why); error
  lines_dropped,         // lines refused because the writer was more than max_queued_bytes behind
  lost_at_shutdown,      // bytes still unwritten when the file was closed for good
};

// One thing worth a log line. Each failure is reported once per episode: open_failed, write_failed and
// processing_not_run again only after a success; lines_dropped at the first drop, then when the writer has
// caught up or a minute has passed, each time with the count since the previous report.
struct PerfdataEvent {
  PerfdataEventKind kind{};
  int error = 0;            // errno: open_failed, write_failed, processing_not_run
  std::uint64_t lines = 0;  // lines_dropped: lines refused since the previous report
  std::uint64_t bytes = 0;  // lines_dropped, lost_at_shutdown
  // The line to log, without a trailing newline: Naemon's words where Naemon logs the event, e.g.
  // "Warning: Service performance data file processing command '/bin/mv …' timed out after 5 seconds".
  std::string message{};
};

struct PerfdataFileOptions {
  std::string path{};  // *_perfdata_file; must be set
  PerfdataFileMode mode = PerfdataFileMode::append;
  PerfdataObject object = PerfdataObject::service;
  // perfdata_timeout, in seconds: the processing command's process group is killed this long after it
  // started. 0 or less means 60, as Naemon's worker treats a job without a timeout.
  int timeout_seconds = 5;
  // Bounded memory: write() refuses lines while the bytes queued and not yet written exceed this.
  std::size_t max_queued_bytes = std::size_t{64} << 20;
  // How often a file that cannot be opened or written is tried again while lines wait for it.
  std::chrono::milliseconds retry_interval{1000};
  // Called on the "perfdata" thread, never on the caller's: hand the event over to the core thread (a
  // locked list it drains once per iteration), do not log from here. Default: one line on stderr.
  std::function<void(const PerfdataEvent&)> on_event{};
};

// The processing command, already expanded (engine::expand_perfdata_command).
struct PerfdataProcessing {
  // shell == false: argv[0] is executed with argv, searched in PATH as execvp does. shell == true: argv holds
  // one element, the whole line, run as `/bin/sh -c <line>`.
  std::vector<std::string> argv{};
  bool shell = false;
  std::vector<std::pair<std::string, std::string>> env{};  // added to the daemon's environment
  std::string command_line{};  // the expanded line as Naemon logs it in the timeout warning
};

// Totals since construction; any thread.
struct PerfdataFileStats {
  std::uint64_t bytes_written = 0;
  std::uint64_t lines_dropped = 0;
  std::uint64_t bytes_dropped = 0;
  std::uint64_t processing_runs = 0;      // processing commands started
  std::uint64_t processing_skipped = 0;   // process() calls that ran nothing: the file was not writable
  std::uint64_t processing_timeouts = 0;  // of those started, killed at the timeout
};

class PerfdataFile {
 public:
  // Starts the writer thread, which opens the file at once (as Naemon does at start: mode 'w' truncates it
  // now, even if no line ever comes).
  explicit PerfdataFile(PerfdataFileOptions options);
  // The one call that waits (shutdown and reload only): flush(); the writer writes what it still can (a full
  // pipe gets up to retry_interval to drain; Naemon's cleanup makes one attempt), waits for a processing
  // command still running (at most its timeout), reports what is lost (lost_at_shutdown), closes the file
  // and is joined. At a reload, destroy the old one before constructing the new one, which reopens the file
  // (truncating a 'w' file) as Naemon's re-initialization does.
  ~PerfdataFile();
  PerfdataFile(const PerfdataFile&) = delete;
  PerfdataFile& operator=(const PerfdataFile&) = delete;

  // Core thread. Queues one complete line (the expanded template, ending in '\n'): no syscall, no lock.
  // Refused and counted (PerfdataEventKind::lines_dropped) while the writer is more than max_queued_bytes
  // behind.
  void write(std::string_view line);

  // Core thread. Hands the queued lines to the writer: one short lock, and one wakeup only if the writer
  // sleeps. Call once per loop iteration; never waits for the disk.
  void flush();

  // Core thread. Naemon's xpddefault_process_*_perfdata_file: in order after the lines already written,
  // the writer closes the file, runs `command` and waits for it (killing its process group after the
  // timeout, reported as processing_timed_out), then opens the file again with the same mode ('w'
  // truncates, 'a' appends to whatever the command left there). Lines written meanwhile wait and go to the
  // reopened file. As in Naemon, nothing runs if the file is not open or the lines before could not be
  // written (counted in processing_skipped), and nothing at all in pipe mode (Naemon schedules no
  // processing for a pipe).
  void process(PerfdataProcessing command);

  // Tests and shutdown ordering only, never from the loop: flush(), then block until everything handed
  // over has been written and every queued processing command has finished. False on timeout (or while the
  // file cannot be written).
  bool wait_idle(std::chrono::milliseconds timeout);

  [[nodiscard]] PerfdataFileStats stats() const;

  [[nodiscard]] const PerfdataFileOptions& options() const { return options_; }

 private:
  class Writer;

  PerfdataFileOptions options_;
  std::string pending_;             // core thread only
  std::unique_ptr<Writer> writer_;  // last: its thread reads options_
};

}  // namespace vedette::files
