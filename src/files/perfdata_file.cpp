#include "files/perfdata_file.hpp"

#include "base/check.hpp"
#include "exec/spawner.hpp"
#include "files/write_queue.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <thread>
#include <unistd.h>

namespace vedette::files {
namespace {

using Clock = std::chrono::steady_clock;

// lines_dropped is reported when the writer has caught up, else at most this often.
constexpr auto k_drop_report_interval = std::chrono::seconds(60);

std::string_view object_word(PerfdataObject object) {
  return object == PerfdataObject::host ? "Host" : "Service";
}

// Naemon's xpddefault_open_perfdata_file, mode 0644 for a new file.
int open_flags(PerfdataFileMode mode) {
  // As Naemon: a pipe is opened read-write, so open() neither fails nor waits when no reader is there; the
  // kernel buffers what is written until one comes. A missing path becomes a regular file (O_CREAT).
  if (mode == PerfdataFileMode::pipe) return O_RDWR | O_NONBLOCK | O_CREAT | O_CLOEXEC;
  // O_NONBLOCK only matters for a FIFO named in mode 'a' or 'w': Naemon's open() waits there for a reader,
  // ours fails with ENXIO and is retried. Regular files ignore it.
  return O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC | (mode == PerfdataFileMode::write ? O_TRUNC : O_APPEND);
}

int timeout_ms(std::chrono::milliseconds interval) {
  return static_cast<int>(std::clamp<std::chrono::milliseconds::rep>(interval.count(), 1, 3'600'000));
}

// The processing command as the spawner takes it: run_to_end() gives it stdin, stdout and stderr on
// /dev/null (Naemon's worker reads the output and throws it away), its own process group killed at the
// timeout, an empty signal mask, and PATH and no-shebang handling as every check has them.
exec::CheckJob processing_job(const PerfdataProcessing& command, int timeout_seconds) {
  exec::CheckJob job;
  job.kind = exec::CheckKind::other;
  job.argv = command.argv;
  job.use_shell = command.shell;
  job.env = command.env;
  // 0 is the spawner's 60 s, as Naemon's worker gives a job without a timeout. The cap keeps the
  // milliseconds in 32 bits (41 days).
  job.timeout_ms =
      timeout_seconds > 0 ? static_cast<std::uint32_t>(std::min(timeout_seconds, 3'600'000)) * 1000 : 0;
  return job;
}

// A processing command, run by the writer when it has written the text before `offset`.
struct Op {
  std::size_t offset = 0;
  PerfdataProcessing command;
};

}  // namespace

class PerfdataFile::Writer {
 public:
  explicit Writer(const PerfdataFileOptions& options) : options_(options) {
    wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    thread_ = base::start_thread([this] { run(); });
  }

  ~Writer() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake();
    thread_.join();
    if (wake_fd_ >= 0) ::close(wake_fd_);
  }

  // Core thread.
  [[nodiscard]] bool accepts(std::size_t pending, std::size_t line) const {
    return outstanding_.load(std::memory_order_relaxed) + pending + line <= options_.max_queued_bytes;
  }
  void count_drop(std::size_t bytes) {
    lines_dropped_.fetch_add(1, std::memory_order_relaxed);
    bytes_dropped_.fetch_add(bytes, std::memory_order_relaxed);
  }

  // Core thread. Queues `pending` and then `op`. Wakes the writer only if it sleeps with nothing to do: one
  // that waits for a full pipe or for a retry picks the new lines up when it goes on.
  void post(std::string& pending, Op* op) {
    bool wake_writer = false;
    {
      std::lock_guard lock(mutex_);
      outstanding_.fetch_add(pending.size(), std::memory_order_relaxed);
      queue_.post(pending, op);
      idle_ = false;
      wake_writer = wake_on_post_;
      wake_on_post_ = false;
    }
    if (wake_writer) wake();
  }

  bool wait_idle(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return idle_cv_.wait_for(lock, timeout, [this] { return idle_; });
  }

  [[nodiscard]] PerfdataFileStats stats() const {
    PerfdataFileStats s;
    s.bytes_written = bytes_written_.load(std::memory_order_relaxed);
    s.lines_dropped = lines_dropped_.load(std::memory_order_relaxed);
    s.bytes_dropped = bytes_dropped_.load(std::memory_order_relaxed);
    s.processing_runs = processing_runs_.load(std::memory_order_relaxed);
    s.processing_skipped = processing_skipped_.load(std::memory_order_relaxed);
    s.processing_timeouts = processing_timeouts_.load(std::memory_order_relaxed);
    return s;
  }

 private:
  // Why text is left in the batch.
  enum class Block : std::uint8_t {
    none,
    pipe_full,  // EAGAIN: wait until the fd is writable
    failed,     // cannot open or write: retry after retry_interval
  };

  void wake() const {
    const std::uint64_t one = 1;
    (void)!::write(wake_fd_, &one, sizeof one);
  }

  void run() {
    sigset_t all;
    sigfillset(&all);
    // Signals belong to the core thread's signalfd; a FIFO whose reader went away must give EPIPE here,
    // not kill the daemon. The processing command gets an empty mask back (the spawner's child).
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    pthread_setname_np(pthread_self(), "perfdata");

    (void)open_file(/*force=*/true);  // at start, as Naemon's initialize_performance_data
    std::unique_lock lock(mutex_);
    for (;;) {
      if (queue_.empty()) {
        if (stop_) break;
        const bool backlog = batch_.has_backlog();
        if (!backlog) {
          idle_ = true;
          idle_cv_.notify_all();
        }
        wake_on_post_ = !backlog;
        lock.unlock();
        sleep(backlog);
        lock.lock();
        wake_on_post_ = false;
      }
      batch_.take(queue_);
      lock.unlock();
      write_batch();
      report_drops();
      lock.lock();
    }
    lock.unlock();
    finish();
    lock.lock();
    idle_ = true;
    idle_cv_.notify_all();
  }

  // Until posted to (wake_fd_), or with a backlog until the retry interval has passed or a full pipe has
  // room again.
  void sleep(bool backlog) {
    pollfd fds[2] = {{wake_fd_, POLLIN, 0}, {fd_, POLLOUT, 0}};
    const nfds_t n = backlog && block_ == Block::pipe_full && fd_ >= 0 ? 2 : 1;
    const int timeout = backlog ? timeout_ms(options_.retry_interval) : -1;
    if (::poll(fds, n, timeout) > 0 && (fds[0].revents & POLLIN) != 0) {
      std::uint64_t count = 0;
      (void)!::read(wake_fd_, &count, sizeof count);
    }
  }

  // Writes the batch and runs its processing commands in order; stops where the file cannot take more.
  void write_batch() {
    for (;;) {
      const bool at_op = batch_.next_op < batch_.ops.size();
      const std::size_t end = batch_.next_end();
      if (batch_.done < end && !write_range(end)) {
        // Naemon runs the processing command only once its buffered lines are flushed; else it waits for
        // the next interval.
        if (at_op) {
          batch_.ops.erase(batch_.ops.begin() + static_cast<std::ptrdiff_t>(batch_.next_op));
          processing_skipped_.fetch_add(1, std::memory_order_relaxed);
        }
        return;
      }
      if (!at_op) return;
      perform(batch_.ops[batch_.next_op]);
      ++batch_.next_op;
    }
  }

  bool write_range(std::size_t end) {
    if (fd_ < 0 && !open_file(/*force=*/false)) {
      block_ = Block::failed;
      return false;
    }
    while (batch_.done < end) {
      const ssize_t n = ::write(fd_, batch_.text.data() + batch_.done, end - batch_.done);
      if (n > 0) {
        const auto written = static_cast<std::size_t>(n);
        batch_.done += written;
        outstanding_.fetch_sub(written, std::memory_order_relaxed);
        bytes_written_.fetch_add(written, std::memory_order_relaxed);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        block_ = Block::pipe_full;  // as Naemon: kept, and written when the pipe has room
        return false;
      }
      const int error = n < 0 ? errno : EIO;
      if (!write_error_reported_) {
        write_error_reported_ = true;
        // Naemon's flush_perfdata warning, logged there for every line.
        report({.kind = PerfdataEventKind::write_failed,
                .error = error,
                .message = fmt::format("Warning: Failed to flush performance data to performance file {}",
                                       options_.path)});
      }
      // A FIFO opened for writing only whose reader left: it must be opened again. Other errors (ENOSPC,
      // EIO) keep the file: reopening would truncate a 'w' file.
      if (error == EPIPE) close_file();
      block_ = Block::failed;
      return false;
    }
    write_error_reported_ = false;
    block_ = Block::none;
    return true;
  }

  // `force`: try now even if the last attempt failed less than retry_interval ago.
  bool open_file(bool force) {
    const Clock::time_point now = Clock::now();
    if (!force && now < next_open_attempt_) return false;
    const int fd = ::open(options_.path.c_str(), open_flags(options_.mode), 0644);
    if (fd < 0) {
      const int error = errno;
      next_open_attempt_ = now + options_.retry_interval;
      if (!open_error_reported_) {
        open_error_reported_ = true;
        // Naemon's text (its format passes strerror() and the file name the other way round).
        report({.kind = PerfdataEventKind::open_failed,
                .error = error,
                .message = fmt::format("Warning: File '{}' could not be opened ({}) - performance data will "
                                       "not be written to file!",
                                       options_.path, std::strerror(error))});
      }
      return false;
    }
    fd_ = fd;
    open_error_reported_ = false;
    next_open_attempt_ = {};
    return true;
  }

  void close_file() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  // Naemon's xpddefault_process_*_perfdata_file and its job handler: close, run, reopen.
  void perform(const Op& op) {
    if (fd_ < 0) {  // as Naemon: no processing while the file is not open; the lines keep it trying
      (void)open_file(/*force=*/false);
      processing_skipped_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    close_file();
    processing_runs_.fetch_add(1, std::memory_order_relaxed);
    const exec::RunReport run = spawner_.run_to_end(processing_job(op.command, options_.timeout_seconds));
    if (run.spawn.status != exec::SpawnStatus::ok) {
      if (!spawn_error_reported_) {
        spawn_error_reported_ = true;
        report({.kind = PerfdataEventKind::processing_not_run,
                .error = run.spawn.error,
                .message = fmt::format(
                    "Warning: {} performance data file processing command '{}' could not be run: {}",
                    object_word(options_.object), op.command.command_line, std::strerror(run.spawn.error))});
      }
    } else {
      spawn_error_reported_ = false;
      if (run.timed_out) {
        processing_timeouts_.fetch_add(1, std::memory_order_relaxed);
        // Naemon prints perfdata_timeout as configured, even 0.
        report({.kind = PerfdataEventKind::processing_timed_out,
                .message = fmt::format(
                    "Warning: {} performance data file processing command '{}' timed out after {} seconds",
                    object_word(options_.object), op.command.command_line, options_.timeout_seconds)});
      }
    }
    (void)open_file(/*force=*/true);  // 'w' truncates again, 'a' appends to what the command left
  }

  void report_drops() {
    const std::uint64_t lines = lines_dropped_.load(std::memory_order_relaxed);
    if (lines == reported_lines_) return;
    const Clock::time_point now = Clock::now();
    if (batch_.has_backlog() && now < next_drop_report_) return;
    const std::uint64_t bytes = bytes_dropped_.load(std::memory_order_relaxed);
    report({.kind = PerfdataEventKind::lines_dropped,
            .lines = lines - reported_lines_,
            .bytes = bytes - reported_bytes_,
            .message = fmt::format("Warning: {} performance data file '{}': dropped {} lines ({} bytes): the "
                                   "writer was more than {} bytes behind",
                                   object_word(options_.object), options_.path, lines - reported_lines_,
                                   bytes - reported_bytes_, options_.max_queued_bytes)});
    reported_lines_ = lines;
    reported_bytes_ = bytes;
    next_drop_report_ = now + k_drop_report_interval;
  }

  // At shutdown: what is left is tried once more (a pipe gets up to retry_interval to drain), then given up.
  void finish() {
    const Clock::time_point deadline = Clock::now() + options_.retry_interval;
    while (batch_.has_backlog()) {
      const std::size_t done = batch_.done, op = batch_.next_op, ops = batch_.ops.size();
      if (block_ == Block::failed) next_open_attempt_ = {};
      write_batch();
      if (!batch_.has_backlog()) break;
      const bool progress = batch_.done != done || batch_.next_op != op || batch_.ops.size() != ops;
      if (block_ == Block::pipe_full && fd_ >= 0) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) break;
        pollfd p{fd_, POLLOUT, 0};
        if (::poll(&p, 1, timeout_ms(left)) <= 0) break;
      } else if (!progress) {
        break;
      }
    }
    report_drops_final();
    if (batch_.done < batch_.text.size()) {
      const std::size_t lost = batch_.text.size() - batch_.done;
      outstanding_.fetch_sub(lost, std::memory_order_relaxed);
      report({.kind = PerfdataEventKind::lost_at_shutdown,
              .bytes = lost,
              .message = fmt::format("Warning: {} performance data file '{}': {} bytes of performance data "
                                     "could not be written before it was closed",
                                     object_word(options_.object), options_.path, lost)});
    }
    close_file();
  }

  void report_drops_final() {
    next_drop_report_ = {};
    report_drops();
  }

  void report(const PerfdataEvent& event) const {
    if (options_.on_event) {
      options_.on_event(event);
    } else {
      fmt::print(stderr, "vedette: {}\n", event.message);
    }
  }

  const PerfdataFileOptions& options_;
  // Built on the constructing thread: it snapshots the environment there, so the writer thread never reads
  // `environ` while another thread may change it.
  const exec::Spawner spawner_;

  std::mutex mutex_;
  std::condition_variable idle_cv_;  // wait_idle() waits here
  WriteQueue<Op> queue_;             // guarded by mutex_
  bool stop_ = false;                // guarded by mutex_
  bool wake_on_post_ = false;        // guarded by mutex_: the writer sleeps with nothing to do
  bool idle_ = false;                // guarded by mutex_

  // Bytes handed to the writer and neither written nor given up: what write() compares with the cap.
  std::atomic<std::size_t> outstanding_{0};
  std::atomic<std::uint64_t> lines_dropped_{0};  // counted by the core thread, reported by the writer
  std::atomic<std::uint64_t> bytes_dropped_{0};
  std::atomic<std::uint64_t> bytes_written_{0};
  std::atomic<std::uint64_t> processing_runs_{0};
  std::atomic<std::uint64_t> processing_skipped_{0};
  std::atomic<std::uint64_t> processing_timeouts_{0};

  // Writer thread only.
  WriteBatch<Op> batch_;
  int fd_ = -1;
  Block block_ = Block::none;
  Clock::time_point next_open_attempt_{};
  bool open_error_reported_ = false;
  bool write_error_reported_ = false;
  bool spawn_error_reported_ = false;
  std::uint64_t reported_lines_ = 0;
  std::uint64_t reported_bytes_ = 0;
  Clock::time_point next_drop_report_{};

  int wake_fd_ = -1;
  std::thread thread_;  // last: started once everything above is constructed
};

PerfdataFile::PerfdataFile(PerfdataFileOptions options)
    : options_(std::move(options)), writer_(std::make_unique<Writer>(options_)) {}

PerfdataFile::~PerfdataFile() {
  flush();
  writer_.reset();
}

void PerfdataFile::write(std::string_view line) {
  if (!writer_->accepts(pending_.size(), line.size())) {
    writer_->count_drop(line.size());
    return;
  }
  pending_.append(line);
}

void PerfdataFile::flush() {
  if (!pending_.empty()) writer_->post(pending_, nullptr);
}

void PerfdataFile::process(PerfdataProcessing command) {
  if (options_.mode == PerfdataFileMode::pipe) return;
  Op op{0, std::move(command)};
  writer_->post(pending_, &op);
}

bool PerfdataFile::wait_idle(std::chrono::milliseconds timeout) {
  flush();
  return writer_->wait_idle(timeout);
}

PerfdataFileStats PerfdataFile::stats() const {
  return writer_->stats();
}

}  // namespace vedette::files
