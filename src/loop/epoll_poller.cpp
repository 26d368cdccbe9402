// The one file that includes <sys/epoll.h>: the Epoll wrapper every thread's loop uses (loop/epoll.hpp) and
// the core loop's Poller on it (loop/poller.hpp), in one translation unit so that Poller::wait inlines the
// wrapper's wait: the core loop pays no call layer for the wrapper (bench/loop/poller_bench.cpp, same
// session: 253 ns a poll with nothing ready, as before the wrapper; 260 ns with the wait called apart).
#include "base/check.hpp"
#include "loop/epoll.hpp"
#include "loop/poller.hpp"

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

std::uint32_t to_epoll(Interest interest) {
  std::uint32_t events = 0;
  if (has(interest, Interest::read)) events |= Epoll::readable | Epoll::read_hang_up;
  if (has(interest, Interest::write)) events |= Epoll::writable;
  return events;
}

std::uint64_t token_of(int fd, std::uint32_t generation) {
  return (std::uint64_t{generation} << 32) | static_cast<std::uint32_t>(fd);
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

Poller::Poller() {
  VEDETTE_CHECK_ERRNO(epoll_.fd() >= 0, "epoll_create1");
  ready_.reserve(k_batch);
}

Poller::FdState& Poller::state(int fd) {
  if (static_cast<std::size_t>(fd) >= fds_.size())
    fds_.resize(static_cast<std::size_t>(fd) + 1 + fds_.size() / 2);
  return fds_[static_cast<std::size_t>(fd)];
}

void Poller::set_interest(int fd, Interest interest, Token token) {
  FdState& s = state(fd);
  s.wanted = interest;
  s.token = token;
  if (s.queued) return;
  s.queued = true;
  changes_.push_back(fd);
}

void Poller::forget(int fd) {
  if (fd < 0 || static_cast<std::size_t>(fd) >= fds_.size()) return;
  FdState& s = fds_[static_cast<std::size_t>(fd)];
  s.wanted = Interest::none;
  if (s.registered != Interest::none) {
    ++ctl_calls_;
    epoll_.remove(fd);  // ENOENT/EBADF: already gone, which is the goal
    s.registered = Interest::none;
  }
  // Stale reports of this fd in the current batch no longer match; a queued entry applies as a no-op.
  ++s.generation;
}

void Poller::apply(int fd, FdState& s) {
  s.queued = false;
  if (s.wanted == s.registered) return;
  if (s.wanted == Interest::none) {
    ++ctl_calls_;
    epoll_.remove(fd);  // ENOENT/EBADF: the fd was closed, so it is gone already
    s.registered = Interest::none;
    return;
  }
  const std::uint32_t events = to_epoll(s.wanted);
  int rc;
  ++ctl_calls_;
  if (s.registered == Interest::none) {
    ++s.generation;
    rc = epoll_.add(fd, events, token_of(fd, s.generation));
    if (rc != 0 && errno == EEXIST) {
      // Registered through a descriptor we were told was closed (a dup kept the description alive).
      ++ctl_calls_;
      rc = epoll_.modify(fd, events, token_of(fd, s.generation));
    }
  } else {
    rc = epoll_.modify(fd, events, token_of(fd, s.generation));
    if (rc != 0 && errno == ENOENT) {
      // Closed without forget() and reopened: the kernel dropped the old registration.
      ++s.generation;
      ++ctl_calls_;
      rc = epoll_.add(fd, events, token_of(fd, s.generation));
    }
  }
  // EBADF/EPERM: a closed fd or a regular file; nothing will ever be reported for it.
  s.registered = rc == 0 ? s.wanted : Interest::none;
}

void Poller::flush_changes() {
  // By index: apply() never queues, but keep the loop valid if the vector were appended to.
  for (std::size_t i = 0; i < changes_.size(); ++i) {
    const int fd = changes_[i];
    apply(fd, fds_[static_cast<std::size_t>(fd)]);
  }
  changes_.clear();
}

// flatten: GCC does not inline Epoll::wait here on its own.
[[gnu::flatten]] std::span<const Ready> Poller::wait(Duration timeout) {
  flush_changes();
  ready_.clear();
  ++wait_calls_;
  const std::int64_t timeout_ns = timeout == k_forever ? -1 : std::max<std::int64_t>(0, timeout.count());
  const int n = epoll_.wait(events_, timeout_ns);
  if (n <= 0) return {};  // EINTR: the caller's next iteration recomputes the timeout
  for (int i = 0; i < n; ++i) {
    const Epoll::Event ev = events_[static_cast<std::size_t>(i)];
    const int fd = static_cast<int>(ev.token & 0xffffffffu);
    const auto generation = static_cast<std::uint32_t>(ev.token >> 32);
    if (static_cast<std::size_t>(fd) >= fds_.size()) continue;
    const FdState& s = fds_[static_cast<std::size_t>(fd)];
    if (s.generation != generation || s.registered == Interest::none) continue;
    Interest events = Interest::none;
    if (ev.events & (Epoll::readable | Epoll::read_hang_up)) events = events | Interest::read;
    if (ev.events & Epoll::writable) events = events | Interest::write;
    if (ev.events & (Epoll::error | Epoll::hang_up)) events = Interest::read_write;
    events = events & s.registered;
    if (events == Interest::none) continue;
    ready_.push_back(Ready{fd, s.token, events});
  }
  return ready_;
}

}  // namespace vedette::loop
