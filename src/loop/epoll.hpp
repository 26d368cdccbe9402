// Epoll: one epoll instance, and the only code that includes <sys/epoll.h> (epoll_poller.cpp). Every thread
// that waits on fds owns one and uses it alone: the core loop's Poller (loop/poller.hpp), each executor
// thread (whose native checks add their sockets to it) and the Livestatus I/O thread. A thin wrapper: event
// bits and tokens go to the kernel and come back unchanged, so what each thread does with them stays its own.
//
//   Epoll epoll;  epoll.add(fd, Epoll::readable, token);
//   Epoll::Event events[64];  const int n = epoll.wait(events, timeout_ns);   // events[i].token
#pragma once

#include <cstdint>
#include <span>

// <sys/epoll.h> packs struct epoll_event on x86-64 only (its __EPOLL_PACKED).
#if defined(__x86_64__)
#define VEDETTE_EPOLL_PACKED [[gnu::packed]]
#else
#define VEDETTE_EPOLL_PACKED
#endif

namespace vedette::loop {

class Epoll {
 public:
  // epoll's event bits with the kernel's values (epoll_poller.cpp checks them).
  static constexpr std::uint32_t readable = 0x001;           // EPOLLIN
  static constexpr std::uint32_t writable = 0x004;           // EPOLLOUT
  static constexpr std::uint32_t error = 0x008;              // EPOLLERR, always reported
  static constexpr std::uint32_t hang_up = 0x010;            // EPOLLHUP, always reported
  static constexpr std::uint32_t read_hang_up = 0x2000;      // EPOLLRDHUP: the peer shut its sending side
  static constexpr std::uint32_t edge_triggered = 1u << 31;  // EPOLLET

  // Laid out as the kernel's struct epoll_event (epoll_poller.cpp checks), so wait() hands the caller's array
  // to the kernel as it is.
  struct VEDETTE_EPOLL_PACKED Event {
    std::uint32_t events;
    std::uint64_t token;
  };

  Epoll();  // fd() < 0 when epoll_create1 failed, errno saying why
  ~Epoll();
  Epoll(const Epoll&) = delete;
  Epoll& operator=(const Epoll&) = delete;

  int fd() const { return fd_; }

  // As epoll_ctl: 0, or -1 with errno. close(fd) also removes it, once no duplicate of it is left open.
  int add(int fd, std::uint32_t events, std::uint64_t token);
  int modify(int fd, std::uint32_t events, std::uint64_t token);
  int remove(int fd);

  // Waits up to timeout_ns (0: just collect; < 0: until an event) and fills `out`: the number of events, or
  // -1 with errno (EINTR: a signal). epoll_pwait2 wakes at the deadline; where the kernel lacks it (before
  // 5.11), epoll_wait's milliseconds are rounded up so the caller never wakes before its deadline.
  int wait(std::span<Event> out, std::int64_t timeout_ns);

 private:
  int fd_;
  bool has_pwait2_ = true;
};

}  // namespace vedette::loop

#undef VEDETTE_EPOLL_PACKED
