// retention.dat (`state_retention_file`) in Naemon's format (xrddefault_save_state_information): blocks, keys
// and their order as Naemon writes them, so Naemon can read a file Vedette wrote and the other way round.
// The writer thread ("retention") formats a files::StatusSnapshot (the one snapshot type of both state
// files, files/state_snapshot.hpp) into `<file>XXXXXX` in the same directory, fsyncs it,
// renames it over the file and fsyncs the directory: after a crash the old file or the new one is there,
// never a torn one.
//
//   Writer retention({.path = main.state_retention_file});
//   retention.publish(status_snapshots.build(...));  // core thread: every retention_update_interval,
//                                                    // and at shutdown
//   retention.wait_idle(std::chrono::seconds(30));  // at shutdown, before exiting (or let the destructor do
//   it)
//
// publish() never waits for the disk; stats() and wait_idle() may be called on any thread.
//
// last_update as the engine stamped it (CheckState::last_update); without a stamp, the last check, or the
// snapshot's time.
#pragma once

#include "base/expected.hpp"
#include "files/state_file_writer.hpp"
#include "files/state_snapshot.hpp"
#include "retention/state_names.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace vedette::retention {

// Appends the whole retention.dat text for `snapshot` to `out`. Exposed for tests and the benchmark.
void format_retention(const files::StatusSnapshot& snapshot, std::string& out);
// The same text in pieces of about 1 MiB, each ending at a block boundary (see TextApplier).
void format_retention(const files::StatusSnapshot& snapshot,
                      const std::function<void(std::string_view)>& on_chunk);

struct WriteOptions {
  std::string path;   // state_retention_file; empty: nothing is written
  bool fsync = true;  // the file before the rename and the directory after it
};

// Formats and writes `snapshot` to options.path the safe way, on the calling thread. An error in Naemon's
// wording when the file was not replaced.
[[nodiscard]] base::Status write_file(const files::StatusSnapshot& snapshot, const WriteOptions& options);

using WriterOptions = files::StateFileWriterOptions;
using WriterStats = files::StateFileWriterStats;

class Writer {
 public:
  explicit Writer(WriterOptions options);  // starts the thread named "retention"
  // Writes what is still waiting, then joins: the snapshot published at shutdown reaches the disk.
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Core thread. One short lock; a snapshot still waiting is replaced (newest wins, never a backlog).
  void publish(std::shared_ptr<const files::StatusSnapshot> snapshot);

  // Blocks until nothing is waiting or being written; false on timeout. Shutdown and tests only.
  bool wait_idle(std::chrono::milliseconds timeout);

  [[nodiscard]] WriterStats stats() const;
  // Why the last write failed ("" before any failure).
  [[nodiscard]] std::string last_error() const;

 private:
  class Worker;
  std::unique_ptr<Worker> worker_;
};

}  // namespace vedette::retention
