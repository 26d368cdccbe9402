// Naemon's log as the log and statehist tables read it: which files may hold the lines of a time range
// (decided without opening the files the range excludes), and their lines, parsed once and kept in a
// process-wide cache bounded by a number of lines, as the module's max_cached_messages. Any thread: one
// mutex guards the cache's index and each file is read under a lock of its own, so queries of other files
// go on while one is parsed. A LogChunk is immutable and shared: a query keeps the chunks it reads alive
// (its LogReading, View::log_reading) after the cache dropped them, and the cache takes them back from it
// rather than read the file a second time.
//
//   LogCache& cache = LogCache::shared();
//   for (const LogFilePlan& file : cache.plan({.log_file = f, .archive_path = dir}, since, until))
//     for (const std::shared_ptr<const LogChunk>& chunk : cache.lines(file, limits)) { /* entries */ }
#pragma once

#include "livestatus/log_entry.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace vedette::livestatus {

// A file is read in blocks of this many bytes and comes as chunks of at most this much text, in the order
// of the file: a file past max_lines_per_logfile is read no further than its lines, chunks this large are
// never merged again (queries that hold them share them with the cache while the log grows), and a
// newest-first walk compares one entry per chunk (14 for a 215 MB file).
inline constexpr std::size_t k_max_log_chunk = std::size_t{16} << 20;

// Lines read from one file, and the entries of the valid ones in the module's order: by time, then line.
struct LogChunk {
  std::string text;
  std::vector<LogEntry> entries;

  [[nodiscard]] std::string_view line(const LogEntry& e) const {
    return std::string_view(text).substr(e.offset, e.size);
  }
  [[nodiscard]] std::string_view field(const LogEntry& e, LogField f) const { return text_of(line(e), f); }
};

struct LogSources {
  std::string log_file;      // the current log; it grows
  std::string archive_path;  // every file in it not starting with '.' is an archive; "": log_file's directory
};

// A file that may hold lines of the range asked for.
struct LogFilePlan {
  std::string path;
  bool current = false;    // the log_file, which grows
  std::int64_t since = 0;  // the time of its first line
};

class LogCache {
 public:
  struct Limits {
    std::size_t max_cached_lines = 500'000;      // the module's max_cached_messages
    std::size_t max_lines_per_file = 1'000'000;  // its max_lines_per_logfile: the rest of a file is ignored
  };
  struct Stats {
    std::uint64_t opens = 0;  // files opened, for their first line or to read them
    std::uint64_t bytes_read = 0;
    std::uint64_t lines_parsed = 0;
    std::size_t cached_lines = 0;  // entries the cache holds now
    std::size_t cached_files = 0;  // files with parsed lines in the cache
  };

  LogCache();
  ~LogCache();
  LogCache(const LogCache&) = delete;
  LogCache& operator=(const LogCache&) = delete;

  // The one every query uses.
  static LogCache& shared();

  // The files whose first line is before `until` and whose lines may reach `since`, newest first (by the
  // time of their first line), as the module walks them. A file without a "[time]" first line is no log.
  // An archive last modified before `since` holds no line as late as that and is not opened (a line is
  // written after the time it carries); the first line of any other file is read once per file.
  [[nodiscard]] std::vector<LogFilePlan> plan(const LogSources& sources, std::int64_t since,
                                              std::int64_t until);

  // The parsed lines of a planned file, from the cache or read now: a file that grew since it was parsed
  // costs only what was appended (complete lines; the current log may be in the middle of one). A file the
  // cache dropped while a query still holds its lines gets those lines back. Empty when the file cannot
  // be read.
  [[nodiscard]] std::vector<std::shared_ptr<const LogChunk>> lines(const LogFilePlan& file,
                                                                   const Limits& limits);

  [[nodiscard]] Stats stats() const;
  void clear();  // forgets every file and zeroes the counters (tests)

 private:
  struct File;
  struct Listed;

  [[nodiscard]] std::shared_ptr<File> file_of(const std::string& path);
  std::vector<std::shared_ptr<const LogChunk>> recount(File& f, std::int64_t size, const Limits& limits);
  void evict(std::size_t max_lines, const File* loading);

  mutable std::mutex mutex_;  // taken under a File::load, never the other way round (evict() try_locks)
  std::unordered_map<std::string, std::shared_ptr<File>> files_;  // guarded by mutex_
  std::size_t cached_lines_ = 0;                                  // guarded by mutex_
  std::uint64_t tick_ = 0;                                        // guarded by mutex_: LRU clock
  Stats counters_;                                                // guarded by mutex_ (not cached_*)
};

// What one query reads of the log: the files planned for its range, and the lines of each as it first
// read them. Reading again through the same LogReading (a query counted first, then answered in pieces:
// server_queries.cpp) gives the same lines, even when the log grew or was rotated meanwhile. One query,
// one thread at a time; the chunks stay valid while the LogReading lives.
//
//   LogReading reading(LogCache::shared(), sources, limits, since, until);
//   for (std::size_t f = 0; f < reading.files().size(); ++f) {
//     const LogReading::Range r = reading.lines(f);
//     for (std::size_t c = r.first; c < r.last; ++c) { const LogChunk& chunk = reading.chunk(c); /* ... */ }
//   }
class LogReading {
 public:
  // Chunks [first, last) of reading.chunk().
  struct Range {
    std::size_t first = 0;
    std::size_t last = 0;
  };

  LogReading(LogCache& cache, const LogSources& sources, LogCache::Limits limits, std::int64_t since,
             std::int64_t until);

  [[nodiscard]] bool reads(std::int64_t since, std::int64_t until) const {
    return since == since_ && until == until_;
  }
  [[nodiscard]] const std::vector<LogFilePlan>& files() const { return files_; }
  // The chunks of files()[file], read from the cache on the first call.
  [[nodiscard]] Range lines(std::size_t file);
  [[nodiscard]] const LogChunk& chunk(std::size_t i) const { return *chunks_[i]; }

 private:
  LogCache& cache_;
  LogCache::Limits limits_;
  std::int64_t since_;
  std::int64_t until_;
  std::vector<LogFilePlan> files_;
  std::vector<std::optional<Range>> read_;  // per file
  std::vector<std::shared_ptr<const LogChunk>> chunks_;
};

}  // namespace vedette::livestatus
