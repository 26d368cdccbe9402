#include "app/lock_file.hpp"

#include "files/write_all.hpp"

#include <fmt/format.h>

#include <cerrno>
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

std::string held_by(const std::string& path, pid_t pid, std::string_view when) {
  return fmt::format(
      "Lockfile '{}' looks like its already held by another instance of Vedette (PID {}).  Bailing "
      "out{}{}...",
      path, static_cast<int>(pid), when.empty() ? "" : ", ", when);
}

// Another process' lock on `fd`'s file, as F_GETLK reports it: its PID, 0 when none, -1 with errno.
pid_t holder(int fd) {
  flock probe = whole_file_write_lock();
  if (::fcntl(fd, F_GETLK, &probe) != 0) return -1;
  return probe.l_type == F_UNLCK ? 0 : probe.l_pid;
}

}  // namespace

base::Expected<LockFile> LockFile::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0)
    return base::Error{fmt::format("Failed to obtain lock on file {}: {}", path, std::strerror(errno))};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
    ::close(fd);
    return base::Error{
        fmt::format("Failed to obtain lock on file {}: not a regular file with a single link", path)};
  }
  return LockFile(path, fd);
}

base::Status LockFile::check_unheld(const std::string& path) {
  // F_GETLK needs no write access: a read-only descriptor tells whether another process holds the lock.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return base::Status::ok();
  const pid_t pid = holder(fd);
  ::close(fd);
  if (pid > 0) return base::Error{held_by(path, pid, "")};
  return base::Status::ok();
}

LockFile::LockFile(LockFile&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)) {}

LockFile& LockFile::operator=(LockFile&& other) noexcept {
  if (this != &other) {
    std::swap(path_, other.path_);
    std::swap(fd_, other.fd_);
  }
  return *this;
}

LockFile::~LockFile() {
  if (fd_ >= 0) ::close(fd_);
}

base::Status LockFile::check_free(std::string_view when) const {
  const pid_t pid = holder(fd_);
  if (pid < 0)
    return base::Error{
        fmt::format("Failed to access lockfile '{}'. {}. Bailing out...", path_, std::strerror(errno))};
  if (pid > 0) return base::Error{held_by(path_, pid, when)};
  return base::Status::ok();
}

base::Status LockFile::acquire(std::string_view when) {
  flock lock = whole_file_write_lock();
  if (::fcntl(fd_, F_SETLK, &lock) != 0) {
    if (errno == EACCES || errno == EAGAIN) {
      const pid_t pid = holder(fd_);
      return base::Error{held_by(path_, pid, when)};
    }
    return base::Error{
        fmt::format("Cannot lock lockfile '{}': {}. Bailing out...", path_, std::strerror(errno))};
  }
  if (::ftruncate(fd_, 0) != 0 || ::lseek(fd_, 0, SEEK_SET) != 0 ||
      !files::write_all(fd_, fmt::format("{}\n", ::getpid()))) {
    return base::Error{
        fmt::format("Cannot write PID to lockfile '{}': {}. Bailing out...", path_, std::strerror(errno))};
  }
  return base::Status::ok();
}

void LockFile::release() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());
  ::close(fd_);
  fd_ = -1;
}

}  // namespace vedette::app
