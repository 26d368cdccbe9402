// What a state-file writer (status.dat, retention.dat) is given and what it counts: the same for both.
// Options are read by the writer's thread once; the stats are updated there and read by any thread through
// the writer's stats().
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace vedette::files {

struct StateFileWriterOptions {
  std::string path;  // the file; empty (or status.dat's "/dev/null", as in Naemon): nothing is written
  // fsync the temp file before the rename, as Naemon does; it costs writer time only.
  bool fsync = true;
  // Writer thread. Called once per episode of failure (create, write, rename, remove), again only after a
  // success. Default: one line on stderr.
  std::function<void(std::string_view message)> on_error{};
};

struct StateFileWriterStats {
  std::uint64_t writes = 0;          // files renamed into place
  std::uint64_t failures = 0;        // attempts that did not replace the file
  std::uint64_t skipped = 0;         // snapshots replaced by a newer one before they were written
  std::uint64_t last_write_us = 0;   // format + write (+ fsync) + rename of the last file
  std::uint64_t last_format_us = 0;  // the formatting part of it
  std::uint64_t last_bytes = 0;      // size of the last file
};

}  // namespace vedette::files
