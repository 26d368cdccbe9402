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

#include "files/state_file_writer.hpp"
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

using StatusWriterOptions = StateFileWriterOptions;
using StatusWriterStats = StateFileWriterStats;

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
