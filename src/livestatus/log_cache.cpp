#include "livestatus/log_cache.hpp"

#include "livestatus/text_internal.hpp"

#include <algorithm>
#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace vedette::livestatus {
namespace {

struct Identity {
  dev_t dev = 0;
  ino_t ino = 0;
  friend bool operator==(const Identity&, const Identity&) = default;
};

Identity identity_of(const struct stat& st) {
  return Identity{st.st_dev, st.st_ino};
}

bool entry_before(const LogEntry& a, const LogEntry& b) {
  return a.time != b.time ? a.time < b.time : a.lineno < b.lineno;
}

// The time of a file's first line, as the module reads it: 12 bytes, "[" and "]" around ten digits.
bool read_since(const std::string& path, std::int64_t& since) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char head[12];
  std::size_t got = 0;
  while (got < sizeof head) {
    const ssize_t n = ::read(fd, head + got, sizeof head - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (got != sizeof head || head[0] != '[' || head[11] != ']') return false;
  since = parse_int(std::string_view(head + 1, 10));
  return true;
}

// Reads [from, from + size) of fd; false on a read error. A file that shrank meanwhile gives less.
bool read_range(int fd, std::uint64_t from, std::size_t size, std::string& out) {
  out.resize(size);
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::pread(fd, out.data() + got, size - got, static_cast<off_t>(from + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  out.resize(got);
  return true;
}

// Splits `text` into lines as fgets() with the module's 65536-byte buffer does and parses them, numbering
// from `lines`. Stops after max_lines lines of the file. With complete_only, a last line without its
// newline is left for a later read. Returns the bytes used; `full` when the file reached max_lines.
std::size_t parse_lines(LogChunk& chunk, std::uint32_t& lines, std::size_t max_lines, bool complete_only,
                        bool& full) {
  const std::string_view text = chunk.text;
  std::size_t at = 0;
  while (at < text.size()) {
    if (lines >= max_lines) {
      full = true;
      break;
    }
    const std::size_t room = std::min(k_max_log_line, text.size() - at);
    const std::size_t newline = text.substr(at, room).find('\n');
    const std::size_t piece = newline == std::string_view::npos ? room : newline + 1;
    if (newline == std::string_view::npos && room < k_max_log_line && complete_only) break;
    ++lines;
    std::string_view line = text.substr(at, piece);
    if (line.ends_with('\n')) line.remove_suffix(1);
    LogEntry entry;
    if (parse_log_line(line, entry)) {
      entry.offset = static_cast<std::uint32_t>(at);
      entry.lineno = lines;
      chunk.entries.push_back(entry);
    }
    at += piece;
  }
  if (!std::is_sorted(chunk.entries.begin(), chunk.entries.end(), entry_before))
    std::stable_sort(chunk.entries.begin(), chunk.entries.end(), entry_before);
  return at;
}

// What a chunk keeps of the block it read: the bytes of its lines, without the rest of the block when
// that is more than an eighth (a file past max_lines_per_logfile, whose other lines are not kept).
void shrink(LogChunk& chunk, std::size_t used) {
  chunk.text.resize(used);
  if (chunk.text.capacity() - used > used / 8) chunk.text.shrink_to_fit();
}

std::shared_ptr<const LogChunk> merge(const LogChunk& a, const LogChunk& b) {
  auto merged = std::make_shared<LogChunk>();
  merged->text.reserve(a.text.size() + b.text.size());
  merged->text.append(a.text).append(b.text);
  std::vector<LogEntry> moved(b.entries);
  for (LogEntry& e : moved) e.offset += static_cast<std::uint32_t>(a.text.size());
  merged->entries.resize(a.entries.size() + moved.size());
  std::merge(a.entries.begin(), a.entries.end(), moved.begin(), moved.end(), merged->entries.begin(),
             entry_before);
  return merged;
}

std::string join(std::string_view dir, std::string_view name) {
  std::string path(dir);
  if (!path.ends_with('/')) path.push_back('/');
  path.append(name);
  return path;
}

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

struct LogCache::File {
  explicit File(std::string p) : path(std::move(p)) {}
  const std::string path;

  // Guarded by LogCache::mutex_.
  bool erased = false;  // no longer in files_: what it loads is not counted
  std::uint64_t last_used = 0;
  std::size_t counted_lines = 0;  // this file's share of cached_lines_
  bool has_head = false;          // the first line was read for head_id with at least head_size bytes
  bool valid = false;             // it starts with a "[time]" line
  Identity head_id;
  std::int64_t head_size = 0;
  std::int64_t since = 0;
  bool has_end = false;  // the latest time of its lines, for end_id at end_size bytes
  Identity end_id;
  std::int64_t end_size = 0;
  std::int64_t end = 0;

  // How far the file is parsed, and its lines.
  struct Parsed {
    Identity id;
    std::uint64_t bytes = 0;     // lines read up to here
    std::int64_t seen_size = 0;  // the file's size at the last read
    std::int64_t seen_mtime_ns = 0;
    std::uint32_t lines = 0;
    bool full = false;  // max_lines_per_file reached
    std::vector<std::shared_ptr<const LogChunk>> chunks;
  };
  // Guarded by `load`.
  std::mutex load;
  Parsed parsed;
  // What evict() dropped, without its chunks, and the chunks as queries may still hold them: a query that
  // still does gives them back (take_back), so that a file is never in memory twice.
  Parsed dropped;
  std::vector<std::weak_ptr<const LogChunk>> dropped_chunks;

  void forget_lines() {
    parsed = Parsed{};
    dropped = Parsed{};
    dropped_chunks.clear();
  }
  void drop_lines() {
    std::vector<std::shared_ptr<const LogChunk>> chunks = std::move(parsed.chunks);
    dropped = std::move(parsed);
    parsed = Parsed{};
    dropped_chunks.assign(chunks.begin(), chunks.end());
  }
  // Whether the dropped lines came back: only all of them, as a query holds all of a file it read.
  bool take_back() {
    if (dropped_chunks.empty()) return false;
    std::vector<std::shared_ptr<const LogChunk>> chunks;
    for (const std::weak_ptr<const LogChunk>& weak : dropped_chunks) {
      std::shared_ptr<const LogChunk> chunk = weak.lock();
      if (chunk == nullptr) {
        forget_lines();
        return false;
      }
      chunks.push_back(std::move(chunk));
    }
    parsed = std::move(dropped);
    parsed.chunks = std::move(chunks);
    dropped = Parsed{};
    dropped_chunks.clear();
    return true;
  }
};

struct LogCache::Listed {
  std::string path;
  bool current = false;
  struct stat st {};
};

LogCache::LogCache() = default;
LogCache::~LogCache() = default;

LogCache& LogCache::shared() {
  static LogCache cache;
  return cache;
}

std::shared_ptr<LogCache::File> LogCache::file_of(const std::string& path) {
  std::shared_ptr<File>& f = files_[path];
  if (f == nullptr) f = std::make_shared<File>(path);
  return f;
}

std::vector<LogFilePlan> LogCache::plan(const LogSources& sources, std::int64_t since, std::int64_t until) {
  std::vector<Listed> listed;
  Listed current{.path = sources.log_file, .current = true};
  const bool has_current = !sources.log_file.empty() && ::stat(sources.log_file.c_str(), &current.st) == 0 &&
                           S_ISREG(current.st.st_mode);
  if (has_current) listed.push_back(current);

  const std::string dir =
      !sources.archive_path.empty() ? sources.archive_path : directory_of(sources.log_file);
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* entry = ::readdir(d))
      if (entry->d_name[0] != '.') names.emplace_back(entry->d_name);
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  std::vector<std::string> archives;  // every archive listed, for forgetting those that are gone
  for (const std::string& name : names) {
    Listed archive{.path = join(dir, name), .current = false};
    if (archive.path == sources.log_file || ::stat(archive.path.c_str(), &archive.st) != 0 ||
        !S_ISREG(archive.st.st_mode))
      continue;
    if (has_current && identity_of(archive.st) == identity_of(current.st)) continue;
    archives.push_back(archive.path);
    // Its last line was written at or before its modification time.
    if (archive.st.st_mtim.tv_sec < since) continue;
    listed.push_back(std::move(archive));
  }

  // The first lines not known yet, read without the lock.
  std::vector<std::shared_ptr<File>> files;
  std::vector<bool> need_head;
  {
    std::lock_guard lock(mutex_);
    for (auto it = files_.begin(); it != files_.end();) {
      File& f = *it->second;
      const bool gone = it->first.starts_with(join(dir, "")) && it->first != sources.log_file &&
                        !std::binary_search(archives.begin(), archives.end(), it->first);
      if (gone && f.load.try_lock()) {
        f.erased = true;
        cached_lines_ -= f.counted_lines;
        f.counted_lines = 0;
        f.forget_lines();
        f.load.unlock();
        it = files_.erase(it);
      } else {
        ++it;
      }
    }
    for (const Listed& l : listed) {
      std::shared_ptr<File> f = file_of(l.path);
      need_head.push_back(!f->has_head || f->head_id != identity_of(l.st) || l.st.st_size < f->head_size);
      files.push_back(std::move(f));
    }
  }
  std::vector<std::pair<bool, std::int64_t>> heads(listed.size());
  std::uint64_t opens = 0;
  for (std::size_t i = 0; i < listed.size(); ++i) {
    if (!need_head[i]) continue;
    ++opens;
    heads[i].first = read_since(listed[i].path, heads[i].second);
  }

  std::vector<LogFilePlan> plan;
  {
    std::lock_guard lock(mutex_);
    counters_.opens += opens;
    for (std::size_t i = 0; i < listed.size(); ++i) {
      File& f = *files[i];
      const Listed& l = listed[i];
      if (need_head[i]) {
        f.has_head = true;
        f.head_id = identity_of(l.st);
        f.head_size = l.st.st_size;
        f.valid = heads[i].first;
        f.since = heads[i].second;
      }
      if (!f.valid || f.since >= until) continue;
      const bool end_known =
          f.has_end && f.end_id == identity_of(l.st) && f.end_size == static_cast<std::int64_t>(l.st.st_size);
      if (!l.current && end_known && f.end < since) continue;
      plan.push_back(LogFilePlan{.path = l.path, .current = l.current, .since = f.since});
    }
  }
  // Newest first; of two files starting at the same second only the first listed counts, as in the module
  // (the current log comes first).
  std::stable_sort(plan.begin(), plan.end(),
                   [](const LogFilePlan& a, const LogFilePlan& b) { return a.since > b.since; });
  plan.erase(std::unique(plan.begin(), plan.end(),
                         [](const LogFilePlan& a, const LogFilePlan& b) { return a.since == b.since; }),
             plan.end());
  return plan;
}

std::vector<std::shared_ptr<const LogChunk>> LogCache::lines(const LogFilePlan& plan, const Limits& limits) {
  std::shared_ptr<File> f;
  {
    std::lock_guard lock(mutex_);
    f = file_of(plan.path);
    f->last_used = ++tick_;
  }
  std::lock_guard load(f->load);
  File::Parsed& p = f->parsed;
  if (p.chunks.empty()) f->take_back();
  struct stat st {};
  if (::stat(plan.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  const std::int64_t mtime_ns = st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec;
  const bool same_file = p.id == identity_of(st) && st.st_size >= p.seen_size;
  if (same_file && st.st_size == p.seen_size && mtime_ns == p.seen_mtime_ns)
    return recount(*f, st.st_size, limits);

  const int fd = ::open(plan.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::uint64_t read_bytes = 0;
  std::uint64_t parsed = 0;
  if (::fstat(fd, &st) == 0) {
    if (p.id != identity_of(st) || static_cast<std::uint64_t>(st.st_size) < p.bytes) {
      f->forget_lines();
      p.id = identity_of(st);
    }
    const auto size = static_cast<std::uint64_t>(st.st_size);
    while (!p.full && p.bytes < size) {
      auto chunk = std::make_shared<LogChunk>();
      const std::size_t want =
          static_cast<std::size_t>(std::min<std::uint64_t>(size - p.bytes, k_max_log_chunk));
      if (!read_range(fd, p.bytes, want, chunk->text) || chunk->text.empty()) break;
      read_bytes += chunk->text.size();
      // Only the current log is being written; the last line of an archive counts without its newline. A
      // chunk cut at k_max_log_chunk leaves its last partial line for the next one.
      const bool cut = chunk->text.size() == k_max_log_chunk;
      const std::uint32_t lines_before = p.lines;
      const std::size_t used =
          parse_lines(*chunk, p.lines, limits.max_lines_per_file, plan.current || cut, p.full);
      parsed += p.lines - lines_before;
      // What is left of the current log is a line being written: read it again when it grew.
      const bool rest_is_partial = !cut && used < chunk->text.size();
      if (used == 0) break;
      shrink(*chunk, used);
      p.bytes += used;
      if (!chunk->entries.empty()) p.chunks.push_back(std::move(chunk));
      // Like a binary counter: the last two merge while the older is no larger, so a log that grows a
      // little per query stays a few chunks (O(log n)) and each line is copied O(log n) times. Chunks of
      // k_max_log_chunk stay as they are: queries that hold them share them with the cache.
      while (p.chunks.size() >= 2) {
        const LogChunk& older = *p.chunks[p.chunks.size() - 2];
        const LogChunk& newer = *p.chunks.back();
        if (older.entries.size() > newer.entries.size() ||
            older.text.size() + newer.text.size() > k_max_log_chunk)
          break;
        std::shared_ptr<const LogChunk> merged = merge(older, newer);
        p.chunks.pop_back();
        p.chunks.back() = std::move(merged);
      }
      if (rest_is_partial) break;
    }
    p.seen_size = st.st_size;
    p.seen_mtime_ns = st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec;
  }
  ::close(fd);
  {
    std::lock_guard lock(mutex_);
    counters_.opens += 1;
    counters_.bytes_read += read_bytes;
    counters_.lines_parsed += parsed;
  }
  return recount(*f, st.st_size, limits);
}

// Under f.load: counts f's lines in the cache again (after a read, or lines taken back), notes the latest
// time they reach when they are all of the file's `size` bytes, and keeps the cache's bound. Returns f's
// chunks.
std::vector<std::shared_ptr<const LogChunk>> LogCache::recount(File& f, std::int64_t size,
                                                               const Limits& limits) {
  const File::Parsed& p = f.parsed;
  std::size_t entries = 0;
  std::int64_t latest = 0;
  for (const auto& chunk : p.chunks) {
    entries += chunk->entries.size();
    if (!chunk->entries.empty()) latest = std::max(latest, chunk->entries.back().time);
  }
  std::lock_guard lock(mutex_);
  if (!f.erased) {
    cached_lines_ = cached_lines_ - f.counted_lines + entries;
    f.counted_lines = entries;
    if (p.bytes == static_cast<std::uint64_t>(size) || p.full) {
      f.has_end = true;
      f.end_id = p.id;
      f.end_size = size;
      f.end = latest;
    }
    evict(limits.max_cached_lines, &f);
  }
  return p.chunks;
}

// Under mutex_. Drops whole files, least recently used first, until the cache holds at most max_lines; the
// file being loaded stays (the module never drops the file its query reads), and so does one another
// query is loading.
void LogCache::evict(std::size_t max_lines, const File* loading) {
  while (cached_lines_ > max_lines) {
    File* victim = nullptr;
    for (const auto& [path, f] : files_)
      if (f.get() != loading && f->counted_lines > 0 &&
          (victim == nullptr || f->last_used < victim->last_used))
        victim = f.get();
    if (victim == nullptr) return;
    if (!victim->load.try_lock()) {
      // Busy: not counted any more, so the loop moves on; its loader counts it again when done.
      cached_lines_ -= victim->counted_lines;
      victim->counted_lines = 0;
      continue;
    }
    cached_lines_ -= victim->counted_lines;
    victim->counted_lines = 0;
    victim->drop_lines();
    victim->load.unlock();
  }
}

LogCache::Stats LogCache::stats() const {
  std::lock_guard lock(mutex_);
  Stats s = counters_;
  s.cached_lines = cached_lines_;
  for (const auto& [path, f] : files_)
    if (f->counted_lines > 0) ++s.cached_files;
  return s;
}

void LogCache::clear() {
  std::unordered_map<std::string, std::shared_ptr<File>> dropped;
  {
    std::lock_guard lock(mutex_);
    for (auto& [path, f] : files_) f->erased = true;
    dropped.swap(files_);
    cached_lines_ = 0;
    counters_ = Stats{};
  }
  // Without mutex_: a loader holds its file's lock while it waits for mutex_.
  for (auto& [path, f] : dropped) {
    std::lock_guard load(f->load);
    f->forget_lines();
  }
}

LogReading::LogReading(LogCache& cache, const LogSources& sources, LogCache::Limits limits,
                       std::int64_t since, std::int64_t until)
    : cache_(cache),
      limits_(limits),
      since_(since),
      until_(until),
      files_(cache.plan(sources, since, until)),
      read_(files_.size()) {}

LogReading::Range LogReading::lines(std::size_t file) {
  if (read_[file]) return *read_[file];
  Range range{.first = chunks_.size(), .last = chunks_.size()};
  for (std::shared_ptr<const LogChunk>& chunk : cache_.lines(files_[file], limits_))
    chunks_.push_back(std::move(chunk));
  range.last = chunks_.size();
  read_[file] = range;
  return range;
}

}  // namespace vedette::livestatus
