#include "config/mapped_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace vedette::config {

std::string_view file_type_name(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a directory";
    case S_IFIFO: return "a FIFO";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFSOCK: return "a socket";
    case S_IFLNK: return "a symbolic link";
    default: return "not a file";
  }
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      id_(other.id_),
      failure_(std::move(other.failure_)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    this->~MappedFile();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    id_ = other.id_;
    failure_ = std::move(other.failure_);
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<char*>(data_), size_);
}

bool MappedFile::fail(int error, std::string why) {
  failure_ = std::move(why);
  errno = error;
  return false;
}

bool MappedFile::open(const std::string& path, std::uint64_t max_size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return fail(errno, std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int saved = errno;
    ::close(fd);
    return fail(saved, std::strerror(saved));
  }
  // Judged on what was opened, not on a stat() of the path, which someone could swap in between.
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail(S_ISDIR(st.st_mode) ? EISDIR : EINVAL,
                fmt::format("is {}, not a regular file", file_type_name(st.st_mode)));
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > max_size) {
    ::close(fd);
    return fail(EFBIG, fmt::format("is {} bytes, more than the limit of {}", size, max_size));
  }
  id_ = {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
  size_ = static_cast<std::size_t>(size);
  if (size_ == 0) {
    ::close(fd);
    return true;
  }
  void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  const int saved = errno;
  ::close(fd);
  if (p == MAP_FAILED) {
    size_ = 0;
    return fail(saved, std::strerror(saved));
  }
  data_ = static_cast<const char*>(p);
  return true;
}

}  // namespace vedette::config
