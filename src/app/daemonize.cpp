#include "app/daemonize.hpp"

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
  // Opened before any privilege drop, often as root.
  base::Expected<LockFile> lock = LockFile::open(lock_file);
  if (!lock) return base::Error{lock.error()};
  if (base::Status free = lock->check_free("pre-fork"); !free) return base::Error{free.error()};

  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0)
    return base::Error{fmt::format("Failed to set up unnamed pipe: {}", std::strerror(errno))};
  const pid_t pid = ::fork();
  if (pid < 0) {
    base::Error error{fmt::format("Unable to fork out the daemon process: {}", std::strerror(errno))};
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
  if (base::Status taken = lock->acquire("post-fork"); !taken) {
    ::close(ready[1]);
    return base::Error{taken.error()};
  }
  if (in_child) {
    if (base::Status s = in_child(); !s) {
      lock->release();  // ours: written with our PID just now
      ::close(ready[1]);
      return base::Error{s.error()};
    }
  }
  detach_stdio();
  return Daemonizer(std::move(*lock), ready[1]);
}

Daemonizer::Daemonizer(Daemonizer&& other) noexcept
    : lock_(std::move(other.lock_)), parent_fd_(std::exchange(other.parent_fd_, -1)) {}

Daemonizer& Daemonizer::operator=(Daemonizer&& other) noexcept {
  if (this != &other) {
    std::swap(lock_, other.lock_);
    std::swap(parent_fd_, other.parent_fd_);
  }
  return *this;
}

Daemonizer::~Daemonizer() {
  if (parent_fd_ >= 0) ::close(parent_fd_);  // the parent reads EOF: start-up failed
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
  lock_.release();
}

}  // namespace vedette::app
