#include "commands/command_fifo.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace vedette::commands {
namespace {

// One read(2) asks for this much: a burst of 64 KiB of commands costs one syscall.
constexpr std::size_t k_read_bytes = 64 * 1024;
// A partial line of up to k_max_line_bytes stays at the front; a full read always fits behind it.
constexpr std::size_t k_buffer_bytes = CommandFifo::k_max_line_bytes + k_read_bytes;
// Linux pipes hold 64 KiB by default; a larger pipe lets a burst of submitters finish their writes while
// the core thread is busy elsewhere. 1 MiB is the unprivileged maximum (/proc/sys/fs/pipe-max-size).
constexpr int k_pipe_bytes = 1024 * 1024;
constexpr mode_t k_fifo_mode = 0660;  // owner and group read/write, as Naemon creates it

std::string_view file_kind(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a named pipe";
}

std::string not_a_fifo(const std::string& path, mode_t mode) {
  return fmt::format("command file '{}' exists and is {}, not a named pipe; refusing to use it", path,
                     file_kind(mode));
}

}  // namespace

FifoOpenResult CommandFifo::open(std::string path) {
  FifoOpenResult result;
  bool created = false;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (!S_ISFIFO(st.st_mode)) {
      result.error = not_a_fifo(path, st.st_mode);
      return result;
    }
  } else if (errno != ENOENT) {
    result.error = fmt::format("command file '{}': {}", path, std::strerror(errno));
    return result;
  } else if (::mkfifo(path.c_str(), k_fifo_mode) == 0) {
    created = true;
  } else if (errno != EEXIST) {  // EEXIST: created since our stat(); the fstat() below judges it
    result.error =
        fmt::format("could not create command file '{}' as a named pipe: {}", path, std::strerror(errno));
    return result;
  }

  const int fd = ::open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    result.error =
        fmt::format("could not open command file '{}' for reading: {}", path, std::strerror(errno));
    return result;
  }
  // The path may have been replaced between stat() and open(): judge what we actually opened.
  if (::fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) {
    result.error = not_a_fifo(path, st.st_mode);
    ::close(fd);
    return result;
  }
  // mkfifo() applied the umask; Naemon clears the group-write bit from it process-wide, we set the mode on
  // the one file instead.
  if (created && ::fchmod(fd, k_fifo_mode) != 0) {
    result.error =
        fmt::format("could not set mode 0660 on command file '{}': {}", path, std::strerror(errno));
    ::close(fd);
    return result;
  }
  (void)::fcntl(fd, F_SETPIPE_SZ, k_pipe_bytes);  // best effort: the default size works, only less smoothly
  result.fifo.emplace(CommandFifo(fd, std::move(path), st.st_dev, st.st_ino));
  return result;
}

base::Status CommandFifo::check_unread(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISFIFO(st.st_mode)) return base::Status::ok();
  // Opening a FIFO for writing without blocking fails with ENXIO exactly when no process has it open for
  // reading; a writer such as NSCA holding it open does not count.
  const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return base::Status::ok();
  ::close(fd);
  return base::Error{fmt::format(
      "command file '{}' is being read by another process (another Vedette or Naemon running with this "
      "command_file?); refusing to start",
      path)};
}

CommandFifo::CommandFifo(int fd, std::string path, dev_t device, ino_t inode)
    : fd_(fd),
      path_(std::move(path)),
      device_(device),
      inode_(inode),
      buffer_(std::make_unique_for_overwrite<char[]>(k_buffer_bytes)) {}

CommandFifo::CommandFifo(CommandFifo&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      path_(std::move(other.path_)),
      device_(other.device_),
      inode_(other.inode_),
      buffer_(std::move(other.buffer_)),
      pending_(std::exchange(other.pending_, 0)),
      discarding_(std::exchange(other.discarding_, false)),
      discarded_(std::exchange(other.discarded_, 0)) {}

CommandFifo& CommandFifo::operator=(CommandFifo&& other) noexcept {
  if (this != &other) {
    close_fd();
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
    device_ = other.device_;
    inode_ = other.inode_;
    buffer_ = std::move(other.buffer_);
    pending_ = std::exchange(other.pending_, 0);
    discarding_ = std::exchange(other.discarding_, false);
    discarded_ = std::exchange(other.discarded_, 0);
  }
  return *this;
}

CommandFifo::~CommandFifo() {
  close_fd();
}

void CommandFifo::close_fd() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool CommandFifo::close_and_unlink() {
  close_fd();
  struct stat st {};
  if (::lstat(path_.c_str(), &st) != 0 || st.st_dev != device_ || st.st_ino != inode_) return false;
  return ::unlink(path_.c_str()) == 0;
}

DrainResult CommandFifo::drain_impl(LineSink sink, void* context, std::size_t budget) {
  DrainResult result;
  char* const buffer = buffer_.get();
  while (result.bytes < budget) {
    const std::size_t wanted = std::min(k_buffer_bytes - pending_, budget - result.bytes);
    const ssize_t got = ::read(fd_, buffer + pending_, wanted);
    if (got < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        result.drained = true;
      } else {
        result.error = errno;
      }
      break;
    }
    if (got == 0) {  // only if every write end closed, which our own O_RDWR prevents
      result.drained = true;
      break;
    }
    result.bytes += static_cast<std::size_t>(got);
    const std::size_t end = pending_ + static_cast<std::size_t>(got);
    std::size_t start = 0;
    // The pending bytes hold no '\n' (else they would have been a line): search only the new ones.
    const char* newline = static_cast<const char*>(std::memchr(buffer + pending_, '\n', end - pending_));
    for (; newline != nullptr;
         newline = static_cast<const char*>(std::memchr(buffer + start, '\n', end - start))) {
      const auto at = static_cast<std::size_t>(newline - buffer);
      const std::size_t length = at - start;
      if (discarding_ || length > k_max_line_bytes) {
        ++result.overlong_dropped;
        result.last_overlong_bytes = discarded_ + length;
        discarding_ = false;
        discarded_ = 0;
      } else {
        sink(context, std::string_view(buffer + start, length));
        ++result.lines;
      }
      start = at + 1;
    }
    const std::size_t rest = end - start;
    if (discarding_ || rest > k_max_line_bytes) {
      discarded_ += rest;
      discarding_ = true;
      pending_ = 0;
    } else {
      if (start != 0 && rest != 0) std::memmove(buffer, buffer + start, rest);
      pending_ = rest;
    }
    // A short read emptied the pipe: skip the read(2) that would only say EAGAIN. Bytes written since then
    // keep the fd readable for the next poll.
    if (static_cast<std::size_t>(got) < wanted) {
      result.drained = true;
      break;
    }
  }
  return result;
}

}  // namespace vedette::commands
