#include "app/daemonize.hpp"

#include "files/write_all.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace vedette::app {
namespace {

flock whole_file_write_lock() {
  flock lock{};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  lock.l_start = 0;
  lock.l_len = 0;
  return lock;
}

// The child's stdio goes to /dev/null: the daemon has no terminal, and a plugin must not inherit one.
void detach_stdio() {
  const int null = ::open("/dev/null", O_RDWR);
  if (null < 0) return;
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) ::dup2(null, fd);
  if (null > STDERR_FILENO) ::close(null);
}

}  // namespace

base::Expected<Daemonizer> Daemonizer::start(const std::string& lock_file, const InChild& in_child) {
  if (::chdir("/") != 0) {
    return base::Error{
        fmt::format("Error: Aborting. Failed to set daemon working directory (/): {}", std::strerror(errno))};
  }
  ::umask(S_IWGRP | S_IWOTH);
  // Opened before any privilege drop, often as root in a directory the daemon's user may write: a link
  // planted there must not make root truncate another file.
  const int lock_fd = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (lock_fd < 0) {
    return base::Error{fmt::format("Failed to obtain lock on file {}: {}", lock_file, std::strerror(errno))};
  }
  struct stat lock_stat {};
  if (::fstat(lock_fd, &lock_stat) != 0 || !S_ISREG(lock_stat.st_mode) || lock_stat.st_nlink != 1) {
    base::Error error{
        fmt::format("Failed to obtain lock on file {}: not a regular file with a single link", lock_file)};
    ::close(lock_fd);
    return error;
  }
  flock probe = whole_file_write_lock();
  if (::fcntl(lock_fd, F_GETLK, &probe) != 0) {
    base::Error error{
        fmt::format("Failed to access lockfile '{}'. {}. Bailing out...", lock_file, std::strerror(errno))};
    ::close(lock_fd);
    return error;
  }
  if (probe.l_type != F_UNLCK) {
    base::Error error{fmt::format(
        "Lockfile '{}' looks like its already held by another instance of Vedette (PID {}).  Bailing out, "
        "pre-fork...",
        lock_file, static_cast<int>(probe.l_pid))};
    ::close(lock_fd);
    return error;
  }

  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) {
    base::Error error{fmt::format("Failed to set up unnamed pipe: {}", std::strerror(errno))};
    ::close(lock_fd);
    return error;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    base::Error error{fmt::format("Unable to fork out the daemon process: {}", std::strerror(errno))};
    ::close(lock_fd);
    ::close(ready[0]);
    ::close(ready[1]);
    return error;
  }
  if (pid > 0) {
    // The parent: exit 0 once the child says it is up, 1 if it dies first (EOF).
    ::close(ready[1]);
    char ok = 0;
    ssize_t n;
    while ((n = ::read(ready[0], &ok, 1)) < 0 && errno == EINTR) {
    }
    std::_Exit(n == 1 && ok == 1 ? EXIT_SUCCESS : EXIT_FAILURE);
  }

  ::close(ready[0]);
  ::setsid();
  flock lock = whole_file_write_lock();
  if (::fcntl(lock_fd, F_SETLK, &lock) != 0) {
    base::Error error;
    if (errno == EACCES || errno == EAGAIN) {
      ::fcntl(lock_fd, F_GETLK, &lock);
      error.message = fmt::format(
          "Lockfile '{}' looks like its already held by another instance of Vedette (PID {}).  Bailing out, "
          "post-fork...",
          lock_file, static_cast<int>(lock.l_pid));
    } else {
      error.message =
          fmt::format("Cannot lock lockfile '{}': {}. Bailing out...", lock_file, std::strerror(errno));
    }
    ::close(lock_fd);
    ::close(ready[1]);
    return error;
  }
  if (::ftruncate(lock_fd, 0) != 0 || ::lseek(lock_fd, 0, SEEK_SET) != 0 ||
      !files::write_all(lock_fd, fmt::format("{}\n", ::getpid()))) {
    base::Error error{fmt::format("Cannot write PID to lockfile '{}': {}. Bailing out...", lock_file,
                                  std::strerror(errno))};
    ::close(lock_fd);
    ::close(ready[1]);
    return error;
  }
  if (in_child) {
    if (base::Status s = in_child(); !s) {
      ::unlink(lock_file.c_str());  // ours: written with our PID just now
      ::close(lock_fd);
      ::close(ready[1]);
      return base::Error{s.error()};
    }
  }
  detach_stdio();
  return Daemonizer(lock_file, lock_fd, ready[1]);
}

Daemonizer::Daemonizer(Daemonizer&& other) noexcept
    : lock_file_(std::move(other.lock_file_)),
      lock_fd_(std::exchange(other.lock_fd_, -1)),
      parent_fd_(std::exchange(other.parent_fd_, -1)) {}

Daemonizer& Daemonizer::operator=(Daemonizer&& other) noexcept {
  if (this != &other) {
    std::swap(lock_file_, other.lock_file_);
    std::swap(lock_fd_, other.lock_fd_);
    std::swap(parent_fd_, other.parent_fd_);
  }
  return *this;
}

Daemonizer::~Daemonizer() {
  if (parent_fd_ >= 0) ::close(parent_fd_);  // the parent reads EOF: start-up failed
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

void Daemonizer::report_started() {
  if (parent_fd_ < 0) return;
  const char ok = 1;
  while (::write(parent_fd_, &ok, 1) < 0 && errno == EINTR) {
  }
  ::close(parent_fd_);
  parent_fd_ = -1;
}

void Daemonizer::release() {
  if (lock_fd_ < 0) return;
  ::unlink(lock_file_.c_str());
  ::close(lock_fd_);
  lock_fd_ = -1;
}

}  // namespace vedette::app
