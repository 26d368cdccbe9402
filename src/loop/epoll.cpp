#include "loop/epoll.hpp"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <sys/epoll.h>
#include <unistd.h>

namespace vedette::loop {
namespace {

static_assert(Epoll::readable == EPOLLIN && Epoll::writable == EPOLLOUT && Epoll::error == EPOLLERR &&
              Epoll::hang_up == EPOLLHUP && Epoll::read_hang_up == EPOLLRDHUP &&
              Epoll::edge_triggered == static_cast<std::uint32_t>(EPOLLET));
static_assert(sizeof(Epoll::Event) == sizeof(epoll_event) &&
              offsetof(Epoll::Event, events) == offsetof(epoll_event, events) &&
              offsetof(Epoll::Event, token) == offsetof(epoll_event, data));

int control(int epoll_fd, int op, int fd, std::uint32_t events, std::uint64_t token) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = token;
  return ::epoll_ctl(epoll_fd, op, fd, &ev);
}

}  // namespace

Epoll::Epoll() : fd_(::epoll_create1(EPOLL_CLOEXEC)) {}

Epoll::~Epoll() {
  if (fd_ >= 0) ::close(fd_);
}

int Epoll::add(int fd, std::uint32_t events, std::uint64_t token) {
  return control(fd_, EPOLL_CTL_ADD, fd, events, token);
}

int Epoll::modify(int fd, std::uint32_t events, std::uint64_t token) {
  return control(fd_, EPOLL_CTL_MOD, fd, events, token);
}

int Epoll::remove(int fd) {
  return ::epoll_ctl(fd_, EPOLL_CTL_DEL, fd, nullptr);
}

int Epoll::wait(std::span<Event> out, std::int64_t timeout_ns) {
  // The kernel writes the array as epoll_event, which Event is laid out as (checked above).
  auto* events = reinterpret_cast<epoll_event*>(out.data());
  const int max = static_cast<int>(out.size());
  if (has_pwait2_) {
    timespec ts{};
    if (timeout_ns >= 0) {
      ts.tv_sec = static_cast<time_t>(timeout_ns / 1'000'000'000);
      ts.tv_nsec = static_cast<long>(timeout_ns % 1'000'000'000);
    }
    const int n = ::epoll_pwait2(fd_, events, max, timeout_ns < 0 ? nullptr : &ts, nullptr);
    if (n >= 0 || errno != ENOSYS) return n;
    has_pwait2_ = false;
  }
  constexpr std::int64_t k_longest_ns = std::int64_t{INT32_MAX} * 1'000'000;
  const int ms =
      timeout_ns < 0 ? -1 : static_cast<int>((std::min(timeout_ns, k_longest_ns) + 999'999) / 1'000'000);
  return ::epoll_wait(fd_, events, max, ms);
}

}  // namespace vedette::loop
