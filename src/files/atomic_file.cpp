#include "files/atomic_file.hpp"

#include "files/write_all.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace vedette::files {

namespace {

// Direct writes go out in pieces of this size, each a synchronous trip to the device: 4 MiB took ~10 % less
// of the writer's CPU than 1 MiB for a 1.5 GB status.dat (status_bench BM_WriteFile, 1M services), and the
// buffer still fits the CPU's last-level cache while the text is copied into it.
constexpr std::size_t k_direct_chunk = std::size_t{1} << 22;

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
  align_ = 0;
  staged_.reset();
  staged_size_ = 0;
}

// Direct I/O where the file system says how to align it (statx) and takes the flag; otherwise the file
// stays buffered.
void AtomicFile::start_direct() {
  struct statx about {};
  if (::statx(fd_, "", AT_EMPTY_PATH, STATX_DIOALIGN, &about) != 0 ||
      (about.stx_mask & STATX_DIOALIGN) == 0 || about.stx_dio_offset_align == 0)
    return;
  const std::size_t align =
      std::max<std::size_t>({4096, about.stx_dio_offset_align, about.stx_dio_mem_align});
  if (k_direct_chunk % align != 0) return;
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags < 0 || ::fcntl(fd_, F_SETFL, flags | O_DIRECT) != 0) return;
  staged_.reset(static_cast<char*>(std::aligned_alloc(align, k_direct_chunk)));
  align_ = align;
}

bool AtomicFile::stop_direct() {
  align_ = 0;
  const int flags = ::fcntl(fd_, F_GETFL);
  return flags >= 0 && ::fcntl(fd_, F_SETFL, flags & ~O_DIRECT) == 0;
}

// `block` is aligned in memory, size and file offset. A write the file system refuses (EINVAL), or a short
// one that would leave the rest unaligned, sends the rest through the page cache.
bool AtomicFile::write_block(std::string_view block) {
  while (!block.empty()) {
    const ssize_t n = ::write(fd_, block.data(), block.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EINVAL) break;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    block.remove_prefix(static_cast<std::size_t>(n));
    if (static_cast<std::size_t>(n) % align_ != 0) break;
  }
  return block.empty() || (stop_direct() && write_all(fd_, block));
}

bool AtomicFile::fail(std::string_view step, int error) {
  failure_ = {step, error, temp_.empty() ? path_ + suffix_ : temp_};
  discard();
  return false;
}

bool AtomicFile::open(std::string path, std::string_view suffix, mode_t mode, Io io) {
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
  if (io == Io::direct) start_direct();
  return true;
}

bool AtomicFile::write(std::string_view data) {
  if (fd_ < 0) return false;
  while (align_ != 0 && !data.empty()) {
    const std::size_t n = std::min(data.size(), k_direct_chunk - staged_size_);
    std::memcpy(staged_.get() + staged_size_, data.data(), n);
    staged_size_ += n;
    data.remove_prefix(n);
    if (staged_size_ < k_direct_chunk) break;
    staged_size_ = 0;
    if (!write_block({staged_.get(), k_direct_chunk})) return fail("write", errno);
  }
  if (!data.empty() && !write_all(fd_, data)) return fail("write", errno);
  return true;
}

bool AtomicFile::commit(bool fsync) {
  if (fd_ < 0) return false;
  if (align_ != 0) {
    // What is staged: its whole blocks directly, the rest (not a block) through the page cache.
    const std::size_t whole = staged_size_ / align_ * align_;
    const std::string_view tail(staged_.get() + whole, staged_size_ - whole);
    staged_size_ = 0;
    if (whole > 0 && !write_block({staged_.get(), whole})) return fail("write", errno);
    if (align_ != 0 && !stop_direct()) return fail("write", errno);
    if (!tail.empty() && !write_all(fd_, tail)) return fail("write", errno);
  }
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
