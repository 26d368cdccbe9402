#include "files/log_file.hpp"

#include "base/check.hpp"
#include "files/write_queue.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <mutex>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

namespace vedette::files {
namespace {

enum class OpKind : std::uint8_t { rotate, reopen };

// A rotation or reopen, performed by the writer when it has written the text before `offset`.
struct Op {
  std::size_t offset;
  OpKind kind;
  std::string archive;  // rotate only
};

std::string errno_text(int error) {
  return std::strerror(error);
}

// Writes all of [data, data + size) to fd; retries EINTR and partial writes, waits out EAGAIN on a
// non-blocking fd. Returns the bytes written and leaves errno set when that is less than size.
std::size_t write_all(int fd, const char* data, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd, POLLOUT, 0};
      (void)::poll(&p, 1, -1);
    } else {
      if (n == 0) errno = EIO;
      break;
    }
  }
  return done;
}

// Appends the whole of `from` to `to` (Nagios 4 does this when the archive of that hour already exists,
// rather than overwrite it).
bool append_file(const std::string& from, const std::string& to, int& error) {
  const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (in < 0) {
    error = errno;
    return false;
  }
  const int out = ::open(to.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
  if (out < 0) {
    error = errno;
    ::close(in);
    return false;
  }
  bool ok = true;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(in, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = errno;
      ok = false;
      break;
    }
    if (n == 0) break;
    if (write_all(out, buffer, static_cast<std::size_t>(n)) != static_cast<std::size_t>(n)) {
      error = errno;
      ok = false;
      break;
    }
  }
  ::close(in);
  ::close(out);
  return ok;
}

std::string_view method_name(char method) {
  switch (method) {
    case 'h':
      return "HOURLY";
    case 'd':
      return "DAILY";
    case 'w':
      return "WEEKLY";
    case 'm':
      return "MONTHLY";
    default:
      return {};
  }
}

bool same_local_date(const std::tm& a, const std::tm& b) {
  return a.tm_year == b.tm_year && a.tm_yday == b.tm_yday;
}

std::tm local(std::int64_t t) {
  const std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  localtime_r(&tt, &tm);
  return tm;
}

// The first instant of the local day that `guess` (mktime of that day's 00:00) belongs to or precedes. Where
// a DST switch skips midnight (America/Sao_Paulo until 2019), 00:00 does not exist and mktime may answer
// 23:00 of the day before; the day then starts at the switch, found by bisection over the hour around it.
std::int64_t start_of_day(std::int64_t guess, const std::tm& wanted) {
  std::tm got = local(guess);
  if (same_local_date(got, wanted) && got.tm_hour == 0 && got.tm_min == 0 && got.tm_sec == 0) return guess;
  std::int64_t lo = guess - 3 * 3600;  // before the day
  std::int64_t hi = guess + 3 * 3600;  // inside the day
  auto before = [&](std::int64_t t) {
    const std::tm tm = local(t);
    return tm.tm_year < wanted.tm_year || (tm.tm_year == wanted.tm_year && tm.tm_yday < wanted.tm_yday);
  };
  if (!before(lo) || before(hi)) return guess;
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (before(mid) ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace

class LogFile::Writer {
 public:
  explicit Writer(const LogFileOptions& options) : options_(options) {
    thread_ = base::start_thread([this] { run(); });
  }

  ~Writer() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_one();
    thread_.join();
    if (fd_ >= 0) ::close(fd_);
  }

  // Core thread. Queues `pending` and then `op`; wakes the writer if it sleeps.
  void post(std::string& pending, Op* op) {
    bool wake = false;
    {
      std::lock_guard lock(mutex_);
      queue_.post(pending, op);
      idle_ = false;
      wake = sleeping_;
    }
    if (wake) wake_.notify_one();
  }

  bool wait_idle(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return idle_cv_.wait_for(lock, timeout, [this] { return idle_; });
  }

 private:
  void run() {
    sigset_t all;
    sigfillset(&all);
    // Signals belong to the core thread's signalfd; a closed mirror pipe must give EPIPE here, not kill us.
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    pthread_setname_np(pthread_self(), "writer");

    std::unique_lock lock(mutex_);
    for (;;) {
      const bool backlog = batch_.has_backlog();
      if (queue_.empty()) {
        if (stop_) break;
        if (!backlog) {
          idle_ = true;
          idle_cv_.notify_all();
        }
        sleeping_ = true;
        if (backlog) {
          wake_.wait_for(lock, options_.retry_interval);
        } else {
          wake_.wait(lock);
        }
        sleeping_ = false;
      }
      const std::size_t fresh_from = batch_.take(queue_);
      lock.unlock();
      mirror(fresh_from);
      if (!process()) trim_backlog();
      lock.lock();
    }
    lock.unlock();
    if (batch_.has_backlog() && !process()) {
      report(fmt::format("log file '{}': {} bytes of log lines lost at shutdown", options_.path,
                         batch_.text.size() - batch_.done));
    }
    lock.lock();
    idle_ = true;
    idle_cv_.notify_all();
  }

  void mirror(std::size_t from) {
    if (options_.mirror_fd < 0 || from >= batch_.text.size()) return;
    const std::size_t size = batch_.text.size() - from;
    if (write_all(options_.mirror_fd, batch_.text.data() + from, size) == size) {
      mirror_error_reported_ = false;
    } else if (!mirror_error_reported_) {
      mirror_error_reported_ = true;
      report(fmt::format("log mirror fd {}: write failed: {}", options_.mirror_fd, errno_text(errno)));
    }
  }

  // Writes the batch and performs its operations in order. False (with done/next_op where it stopped) if
  // the file cannot be written; the rest is kept for the next attempt.
  bool process() {
    for (;;) {
      const std::size_t end = batch_.next_end();
      if (batch_.done < end && !write_range(end)) return false;
      if (batch_.next_op == batch_.ops.size()) break;
      perform(batch_.ops[batch_.next_op]);
      ++batch_.next_op;
    }
    return true;
  }

  bool write_range(std::size_t end) {
    if (fd_ < 0 && !open_log()) return false;
    const std::size_t size = end - batch_.done;
    const std::size_t written = write_all(fd_, batch_.text.data() + batch_.done, size);
    batch_.done += written;
    if (written == size) {
      file_error_reported_ = false;
      return true;
    }
    report_file_error(fmt::format("log file '{}': write failed: {}", options_.path, errno_text(errno)));
    ::close(fd_);  // reopened on the next attempt, which also recovers from a file replaced under us
    fd_ = -1;
    return false;
  }

  // As Naemon's open_log_file(): no symlinks, and only a regular file with one link. A new file gets the
  // mode Naemon's first fopen() at start gives it, 0666 less the umask (0644 as a daemon): the CGIs and
  // log shippers that run as another user read it.
  bool open_log() {
    const int fd =
        ::open(options_.path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) {
      report_file_error(
          fmt::format("log file '{}': cannot open for writing: {}", options_.path, errno_text(errno)));
      return false;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
      ::close(fd);
      report_file_error(fmt::format("log file '{}': not a regular file with a single link", options_.path));
      return false;
    }
    fd_ = fd;
    return true;
  }

  void perform(const Op& op) {
    struct stat old {};
    const bool have_old = fd_ >= 0 ? ::fstat(fd_, &old) == 0 : ::stat(options_.path.c_str(), &old) == 0;
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (op.kind == OpKind::reopen) return;  // opened again by the next line, the "LOG ROTATION" header

    struct stat archive {};
    if (::stat(op.archive.c_str(), &archive) == 0) {
      int error = 0;
      if (append_file(options_.path, op.archive, error)) {
        ::unlink(options_.path.c_str());
      } else if (error != ENOENT) {
        report(fmt::format("log rotation: cannot append '{}' to '{}': {}", options_.path, op.archive,
                           errno_text(error)));
      }
    } else if (::rename(options_.path.c_str(), op.archive.c_str()) != 0 && errno != ENOENT) {
      report(fmt::format("log rotation: cannot rename '{}' to '{}': {}", options_.path, op.archive,
                         errno_text(errno)));
    }
    // The new log keeps the old one's mode and owner, as Nagios 4 does; chown fails unless we are root.
    if (have_old && open_log()) {
      (void)::fchmod(fd_, old.st_mode & 07777);
      if (::fchown(fd_, old.st_uid, old.st_gid) != 0) errno = 0;
    }
  }

  void report_file_error(const std::string& message) {
    if (file_error_reported_) return;
    file_error_reported_ = true;
    report(message);
  }

  // Bounds memory while the file cannot be written: drops the oldest whole lines beyond max_backlog_bytes,
  // but never past a pending rotation.
  void trim_backlog() {
    const std::size_t kept = batch_.text.size() - batch_.done;
    if (kept <= options_.max_backlog_bytes) return;
    std::size_t cut = batch_.done + (kept - options_.max_backlog_bytes);
    const std::size_t limit = batch_.next_end();
    cut = std::min(cut, limit);
    const std::size_t newline = batch_.text.find('\n', cut == 0 ? 0 : cut - 1);
    cut = newline == std::string::npos ? limit : std::min(newline + 1, limit);
    report(fmt::format("log file '{}': dropped {} bytes of log lines that could not be written",
                       options_.path, cut - batch_.done));
    batch_.done = cut;
  }

  void report(const std::string& message) {
    if (options_.on_error) {
      options_.on_error(message);
    } else {
      fmt::print(stderr, "vedette: {}\n", message);
    }
  }

  const LogFileOptions& options_;

  std::mutex mutex_;
  std::condition_variable wake_;     // the writer waits here for work
  std::condition_variable idle_cv_;  // wait_idle() waits here
  WriteQueue<Op> queue_;             // guarded by mutex_
  bool stop_ = false;                // guarded by mutex_
  bool sleeping_ = false;            // guarded by mutex_
  bool idle_ = true;                 // guarded by mutex_

  // Writer thread only.
  WriteBatch<Op> batch_;
  int fd_ = -1;
  bool file_error_reported_ = false;
  bool mirror_error_reported_ = false;

  std::thread thread_;  // last: started once everything above is constructed
};

LogFile::LogFile(LogFileOptions options)
    : options_(std::move(options)), writer_(std::make_unique<Writer>(options_)) {}

LogFile::~LogFile() {
  flush();
  writer_.reset();
}

void LogFile::write(std::int64_t epoch_seconds, std::string_view message) {
  while (!message.empty() && (message.back() == '\n' || message.back() == '\r')) message.remove_suffix(1);
  const fmt::format_int epoch(epoch_seconds);
  pending_.push_back('[');
  pending_.append(epoch.data(), epoch.size());
  pending_.append("] ");
  append_one_line(message);
  pending_.push_back('\n');
}

// A line break inside a message would end the line and let the rest pose as a line of its own: a
// Livestatus COMMAND's "\n" arrives here unescaped, and `LOG;...` or a comment carries it into the log,
// where the log table and statehist would read a forged HOST ALERT. Written as the two characters \n
// (\r as \r) instead, which the log's readers show as they are. Naemon writes them raw.
void LogFile::append_one_line(std::string_view message) {
  for (std::size_t at = message.find_first_of("\r\n"); at != std::string_view::npos;
       at = message.find_first_of("\r\n")) {
    pending_.append(message.substr(0, at));
    pending_.append(message[at] == '\n' ? "\\n" : "\\r");
    message.remove_prefix(at + 1);
  }
  pending_.append(message);
}

void LogFile::flush() {
  if (!pending_.empty()) writer_->post(pending_, nullptr);
}

void LogFile::write_rotation_header(std::int64_t time, std::string_view method) {
  write(time, fmt::format("LOG ROTATION: {}", method));
  write(time, "LOG VERSION: 2.0");
  if (options_.on_rotated) options_.on_rotated(time);
}

void LogFile::rotate(std::int64_t scheduled_time, char method) {
  const std::string_view name = method_name(method);
  if (name.empty()) return;
  Op op{0, OpKind::rotate, archive_name(options_.path, options_.archive_path, scheduled_time)};
  writer_->post(pending_, &op);
  write_rotation_header(scheduled_time, name);
}

void LogFile::reopen(std::int64_t now) {
  Op op{0, OpKind::reopen, {}};
  writer_->post(pending_, &op);
  write_rotation_header(now, "EXTERNAL");
}

bool LogFile::wait_idle(std::chrono::milliseconds timeout) {
  flush();
  return writer_->wait_idle(timeout);
}

std::string LogFile::archive_name(std::string_view log_file, std::string_view archive_path,
                                  std::int64_t rotation_time) {
  const std::size_t slash = log_file.rfind('/');
  std::string_view base = slash == std::string_view::npos ? log_file : log_file.substr(slash + 1);
  if (base.size() > 4 && base.ends_with(".log")) base.remove_suffix(4);
  std::string_view dir = archive_path;
  if (dir.empty()) dir = slash == std::string_view::npos ? std::string_view(".") : log_file.substr(0, slash);
  const std::string_view separator = dir.ends_with('/') ? "" : "/";
  const std::tm t = local(rotation_time);
  return fmt::format("{}{}{}-{:02}-{:02}-{}-{:02}.log", dir, separator, base, t.tm_mon + 1, t.tm_mday,
                     t.tm_year + 1900, t.tm_hour);
}

std::int64_t LogFile::next_rotation(std::int64_t now, char method) {
  const std::tm current = local(now);
  std::tm target = current;
  target.tm_sec = 0;
  target.tm_min = 0;
  target.tm_isdst = -1;
  switch (method) {
    case 'h': {
      // The start of this local hour plus an hour is the next full hour on both sides of a 1-hour switch,
      // where "02:00 + 1 hour" by mktime would skip the repeated hour. A 30-minute switch
      // (Australia/Lord_Howe) lands on :30 and is moved on to the full hour.
      std::int64_t next = now - (current.tm_min * 60 + current.tm_sec) + 3600;
      const std::tm at = local(next);
      if (at.tm_min != 0 || at.tm_sec != 0) next += 3600 - (at.tm_min * 60 + at.tm_sec);
      return next;
    }
    case 'd':
      target.tm_mday += 1;
      break;
    case 'w':
      target.tm_mday += 7 - current.tm_wday;
      break;
    case 'm':
      target.tm_mon += 1;
      target.tm_mday = 1;
      break;
    default:
      return 0;
  }
  target.tm_hour = 0;
  // The wanted date, normalized by calendar arithmetic alone: mktime below may move a midnight that does not
  // exist into the day before.
  std::tm wanted = target;
  wanted.tm_hour = 12;
  (void)timegm(&wanted);
  const std::int64_t guess = static_cast<std::int64_t>(std::mktime(&target));
  return start_of_day(guess, wanted);
}

}  // namespace vedette::files
