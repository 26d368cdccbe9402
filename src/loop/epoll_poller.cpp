#include "base/check.hpp"
#include "loop/poller.hpp"

#include <cerrno>
#include <ctime>
#include <sys/epoll.h>
#include <unistd.h>

namespace vedette::loop {
namespace {

constexpr int k_batch = 256;

std::uint32_t to_epoll(Interest interest) {
  std::uint32_t events = 0;
  if (has(interest, Interest::read)) events |= EPOLLIN | EPOLLRDHUP;
  if (has(interest, Interest::write)) events |= EPOLLOUT;
  return events;
}

epoll_event* events_of(void* p) {
  return static_cast<epoll_event*>(p);
}

}  // namespace

Poller::Poller() : epoll_fd_(epoll_create1(EPOLL_CLOEXEC)), events_(new epoll_event[k_batch]) {
  VEDETTE_CHECK_ERRNO(epoll_fd_ >= 0, "epoll_create1");
  ready_.reserve(k_batch);
}

Poller::~Poller() {
  close(epoll_fd_);
  delete[] events_of(events_);
}

Poller::FdState& Poller::state(int fd) {
  if (static_cast<std::size_t>(fd) >= fds_.size())
    fds_.resize(static_cast<std::size_t>(fd) + 1 + fds_.size() / 2);
  return fds_[static_cast<std::size_t>(fd)];
}

Interest Poller::interest_of(int fd) const {
  if (fd < 0 || static_cast<std::size_t>(fd) >= fds_.size()) return Interest::none;
  return fds_[static_cast<std::size_t>(fd)].wanted;
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
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);  // ENOENT/EBADF: already gone, which is the goal
    s.registered = Interest::none;
  }
  // Stale reports of this fd in the current batch no longer match; a queued entry applies as a no-op.
  ++s.generation;
}

void Poller::apply(int fd, FdState& s) {
  s.queued = false;
  if (s.wanted == s.registered) return;
  epoll_event ev{};
  ev.events = to_epoll(s.wanted);
  if (s.wanted == Interest::none) {
    ++ctl_calls_;
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, &ev);  // ENOENT/EBADF: the fd was closed, so it is gone already
    s.registered = Interest::none;
    return;
  }
  int op = EPOLL_CTL_MOD;
  if (s.registered == Interest::none) {
    op = EPOLL_CTL_ADD;
    ++s.generation;
  }
  ev.data.u64 = (std::uint64_t{s.generation} << 32) | static_cast<std::uint32_t>(fd);
  ++ctl_calls_;
  int rc = epoll_ctl(epoll_fd_, op, fd, &ev);
  if (rc != 0 && op == EPOLL_CTL_MOD && errno == ENOENT) {
    // Closed without forget() and reopened: the kernel dropped the old registration.
    ++s.generation;
    ev.data.u64 = (std::uint64_t{s.generation} << 32) | static_cast<std::uint32_t>(fd);
    ++ctl_calls_;
    rc = epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
  } else if (rc != 0 && op == EPOLL_CTL_ADD && errno == EEXIST) {
    // Registered through a descriptor we were told was closed (a dup kept the description alive).
    ++ctl_calls_;
    rc = epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev);
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

std::span<const Ready> Poller::wait(Duration timeout) {
  flush_changes();
  ready_.clear();
  ++wait_calls_;
  int n = -1;
  if (has_pwait2_) {
    // epoll_pwait2 takes a timespec: wake at the deadline, not up to 1 ms after it.
    timespec ts{};
    const timespec* tsp = nullptr;
    if (timeout != k_forever) {
      const auto ns = timeout.count() < 0 ? 0 : timeout.count();
      ts.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
      ts.tv_nsec = static_cast<long>(ns % 1'000'000'000);
      tsp = &ts;
    }
    n = epoll_pwait2(epoll_fd_, events_of(events_), k_batch, tsp, nullptr);
    if (n < 0 && errno == ENOSYS) has_pwait2_ = false;
  }
  if (!has_pwait2_) {
    int ms = -1;
    if (timeout != k_forever) {
      const auto count = timeout.count() < 0 ? 0 : timeout.count();
      const auto ceil_ms = (count + 999'999) / 1'000'000;
      ms = ceil_ms > INT32_MAX ? INT32_MAX : static_cast<int>(ceil_ms);
    }
    n = epoll_wait(epoll_fd_, events_of(events_), k_batch, ms);
  }
  if (n <= 0) return {};  // EINTR: the caller's next iteration recomputes the timeout
  for (int i = 0; i < n; ++i) {
    const epoll_event& ev = events_of(events_)[i];
    const int fd = static_cast<int>(ev.data.u64 & 0xffffffffu);
    const auto generation = static_cast<std::uint32_t>(ev.data.u64 >> 32);
    if (static_cast<std::size_t>(fd) >= fds_.size()) continue;
    const FdState& s = fds_[static_cast<std::size_t>(fd)];
    if (s.generation != generation || s.registered == Interest::none) continue;
    Interest events = Interest::none;
    if (ev.events & (EPOLLIN | EPOLLRDHUP)) events = events | Interest::read;
    if (ev.events & EPOLLOUT) events = events | Interest::write;
    if (ev.events & (EPOLLERR | EPOLLHUP)) events = Interest::read_write;
    events = events & s.registered;
    if (events == Interest::none) continue;
    ready_.push_back(Ready{fd, s.token, events});
  }
  return ready_;
}

}  // namespace vedette::loop
