#include "retention/prefetch.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace vedette::retention {
namespace {

// The kernel reads at most its readahead window per request (read_ahead_kb, often 128 KB) and drops the
// rest of a larger one, so the file is asked for in slices no larger than that.
constexpr off_t k_slice = off_t{128} << 10;

}  // namespace

Prefetch::Prefetch(std::string path) : thread_([path = std::move(path)] { run(path); }) {}

Prefetch::~Prefetch() {
  thread_.join();
}

void Prefetch::run(const std::string& path) {
  if (path.empty()) return;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    for (off_t at = 0; at < st.st_size; at += k_slice) ::posix_fadvise(fd, at, k_slice, POSIX_FADV_WILLNEED);
  }
  ::close(fd);
}

}  // namespace vedette::retention
