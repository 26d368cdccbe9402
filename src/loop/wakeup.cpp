#include "loop/wakeup.hpp"

#include "base/check.hpp"

#include <cerrno>
#include <sys/eventfd.h>
#include <unistd.h>

namespace vedette::loop {

Wakeup::Wakeup() : fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  VEDETTE_CHECK_ERRNO(fd_ >= 0, "eventfd");
}

Wakeup::~Wakeup() {
  close(fd_);
}

void Wakeup::signal() {
  // seq_cst pairs with drain(): either this exchange sees the consumer's disarm and writes, or it comes
  // before the disarm and the consumer, taking the work after disarming, sees what was published before it.
  if (armed_.exchange(true, std::memory_order_seq_cst)) return;
  writes_.fetch_add(1, std::memory_order_relaxed);
  const std::uint64_t one = 1;
  // EAGAIN only when the counter is at its maximum, which still leaves the fd readable.
  [[maybe_unused]] const ssize_t n = write(fd_, &one, sizeof one);
}

std::uint64_t Wakeup::drain() {
  // Read, then disarm. Disarming first would let a producer write between the two, have its write consumed
  // here, and leave the wakeup armed with an empty eventfd: the next producer would not write and its work
  // would wait for an unrelated wakeup.
  std::uint64_t value = 0;
  if (read(fd_, &value, sizeof value) != static_cast<ssize_t>(sizeof value)) value = 0;  // EAGAIN: nothing
  armed_.store(false, std::memory_order_seq_cst);
  return value;
}

}  // namespace vedette::loop
