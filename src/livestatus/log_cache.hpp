// Naemon's log as the log and statehist tables read it: which files may hold the lines of a time range
// (decided without opening the files the range excludes), and their lines, parsed once and kept in a
// process-wide cache bounded by a number of lines, as the module's max_cached_messages. Any thread: one
// mutex guards the cache's index and each file is read under a lock of its own, so queries of other files
// go on while one is parsed. A LogChunk is immutable and shared: a query keeps the chunks it reads alive
// (View::log_chunks) after the cache dropped them.
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
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace vedette::livestatus {

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
  // costs only what was appended (complete lines; the current log may be in the middle of one). Empty when
  // the file cannot be read.
  [[nodiscard]] std::vector<std::shared_ptr<const LogChunk>> lines(const LogFilePlan& file,
                                                                   const Limits& limits);

  [[nodiscard]] Stats stats() const;
  void clear();  // forgets every file and zeroes the counters (tests)

 private:
  struct File;
  struct Listed;

  [[nodiscard]] std::shared_ptr<File> file_of(const std::string& path);
  void evict(std::size_t max_lines, const File* loading);

  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<File>> files_;  // guarded by mutex_
  std::size_t cached_lines_ = 0;                                  // guarded by mutex_
  std::uint64_t tick_ = 0;                                        // guarded by mutex_: LRU clock
  Stats counters_;                                                // guarded by mutex_ (not cached_*)
};

}  // namespace vedette::livestatus
