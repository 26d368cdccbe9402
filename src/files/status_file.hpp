// status.dat (`status_file`) in Naemon's format (xsddefault_save_status_data): the core thread builds an
// immutable StatusSnapshot (files/state_snapshot.hpp) every status_update_interval and hands it to
// StatusWriter, whose thread ("status") formats it into `<status_file>.XXXXXX` in the same directory and
// renames that over status_file, so a reader sees the old file or the new one, never a torn one.
//
//   StatusWriter status({.path = cfg.status_file});
//   status.publish(status_snapshots.build(source));  // core thread, every status_update_interval
//   status.remove_file();                            // core thread, at shutdown (Naemon unlinks it)
//
// publish() and remove_file() are core thread only and never wait for the disk; stats() and wait_idle() any
// thread. Differences from Naemon's file are listed in docs/compatibility.md ("status.dat").
#pragma once

#include "files/state_snapshot.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace vedette::files {

// Appends the whole status.dat text for `snapshot` to `out`. Exposed for tests and the benchmark.
void format_status(const StatusSnapshot& snapshot, std::string& out);

struct StatusWriterOptions {
  std::string path;  // status_file; empty or "/dev/null": nothing is written, as in Naemon
  // fsync the temp file before the rename, as Naemon's xsddefault does; it costs writer time only.
  bool fsync = true;
  // Writer thread. Called once per episode of failure (create, write, rename, remove), again only after a
  // success. Default: one line on stderr.
  std::function<void(std::string_view message)> on_error{};
};

struct StatusWriterStats {
  std::uint64_t writes = 0;          // files renamed into place
  std::uint64_t failures = 0;        // attempts that did not replace the file
  std::uint64_t skipped = 0;         // snapshots replaced by a newer one before they were written
  std::uint64_t last_write_us = 0;   // format + write (+ fsync) + rename of the last file
  std::uint64_t last_format_us = 0;  // the formatting part of it
  std::uint64_t last_bytes = 0;      // size of the last file
};

class StatusWriter {
 public:
  explicit StatusWriter(StatusWriterOptions options);  // starts the thread named "status"
  // Finishes the write in progress and what is still waiting (a snapshot or a removal), then joins.
  ~StatusWriter();
  StatusWriter(const StatusWriter&) = delete;
  StatusWriter& operator=(const StatusWriter&) = delete;

  // Hands a snapshot over: one short lock, one wakeup if the writer sleeps. A snapshot still waiting is
  // replaced (newest wins; there is never a backlog), and a removal still waiting is cancelled.
  void publish(std::shared_ptr<const StatusSnapshot> snapshot);

  // Drops a waiting snapshot; after the write in progress (if any) the writer unlinks status_file. A
  // missing file is not an error.
  void remove_file();

  // Tests and shutdown ordering only, never from the loop: blocks until nothing is waiting or being
  // written. False on timeout.
  bool wait_idle(std::chrono::milliseconds timeout);

  [[nodiscard]] StatusWriterStats stats() const;

 private:
  class Worker;
  std::unique_ptr<Worker> worker_;
};

}  // namespace vedette::files
