#include "files/atomic_file.hpp"

#include "files/write_all.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <random>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace vedette::files {

namespace {

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Whether open(O_TMPFILE) failing means "not here, create it named": the file system or kernel lacks it.
bool tmpfile_unsupported(int error) {
  return error == EOPNOTSUPP || error == EISDIR || error == EINVAL || error == ENOENT;
}

// `pattern` with its trailing "XXXXXX" replaced by random letters and digits, as mkstemp() names files.
std::string random_name(std::string pattern) {
  static constexpr std::string_view k_chars =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937_64 rng{std::random_device{}()};
  const std::size_t n = std::min<std::size_t>(6, pattern.size());
  for (std::size_t i = pattern.size() - n; i < pattern.size(); ++i)
    pattern[i] = k_chars[rng() % k_chars.size()];
  return pattern;
}

}  // namespace

AtomicFile::~AtomicFile() {
  discard();
}

void AtomicFile::discard() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
}

bool AtomicFile::fail(std::string_view step, int error) {
  failure_ = {step, error, temp_.empty() ? path_ + suffix_ : temp_};
  discard();
  return false;
}

bool AtomicFile::open(std::string path, std::string_view suffix, mode_t mode) {
  discard();
  path_ = std::move(path);
  suffix_ = suffix;
  failure_ = {};
  fd_ = ::open(directory_of(path_).c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
  if (fd_ < 0) {
    if (!tmpfile_unsupported(errno)) return fail("create", errno);
    temp_ = path_ + suffix_;
    fd_ = ::mkostemp(temp_.data(), O_CLOEXEC);
    if (fd_ < 0) {
      const int error = errno;
      temp_.clear();
      return fail("create", error);
    }
  }
  if (::fchmod(fd_, mode) != 0) return fail("chmod", errno);
  return true;
}

bool AtomicFile::write(std::string_view data) {
  if (fd_ < 0) return false;
  if (!write_all(fd_, data)) return fail("write", errno);
  return true;
}

bool AtomicFile::commit(bool fsync) {
  if (fd_ < 0) return false;
  if (fsync && ::fsync(fd_) != 0) return fail("fsync", errno);
  if (temp_.empty()) {
    // Name the complete file. linkat() through /proc needs no privilege (AT_EMPTY_PATH would).
    const std::string self = fmt::format("/proc/self/fd/{}", fd_);
    for (int attempt = 0;; ++attempt) {
      std::string name = random_name(path_ + suffix_);
      if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) {
        temp_ = std::move(name);
        break;
      }
      if (errno != EEXIST || attempt == 8) return fail("rename", errno);
    }
  }
  const int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0) return fail("close", errno);
  if (::rename(temp_.c_str(), path_.c_str()) != 0) return fail("rename", errno);
  temp_.clear();
  if (fsync) {
    const int dir = ::open(directory_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const int error = dir < 0 ? errno : ::fsync(dir) == 0 ? 0 : errno;
    if (dir >= 0) ::close(dir);
    if (error != 0) {
      failure_ = {"sync directory", error, path_};
      return false;
    }
  }
  return true;
}

}  // namespace vedette::files
