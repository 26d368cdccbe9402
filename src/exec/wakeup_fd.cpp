#include "exec/wakeup_fd.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/eventfd.h>
#include <unistd.h>

namespace vedette::exec {

WakeupFd::WakeupFd() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (fd_ < 0) {
    std::fprintf(stderr, "vedette: eventfd: %s\n", std::strerror(errno));
    std::abort();
  }
}

WakeupFd::~WakeupFd() {
  ::close(fd_);
}

void WakeupFd::signal() {
  const std::uint64_t one = 1;
  // EAGAIN only if the counter is at its maximum, which is still "signalled".
  while (::write(fd_, &one, sizeof one) < 0 && errno == EINTR) {
  }
}

void WakeupFd::clear() {
  std::uint64_t value;
  while (::read(fd_, &value, sizeof value) < 0 && errno == EINTR) {
  }
}

}  // namespace vedette::exec
