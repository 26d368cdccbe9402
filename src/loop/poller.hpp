// Poller: readiness of file descriptors for the core loop (loop/loop.hpp), over the shared epoll wrapper
// (loop/epoll.hpp). Core thread only. Interest changes are queued and applied once per iteration, in
// flush_changes() (called by wait()), with at most one epoll_ctl per fd however often its interest changed
// (libev's fd_change/fd_reify).
//
//   poller.set_interest(fd, Interest::read, token);   // queued, no syscall
//   for (const Ready& r : poller.wait(timeout)) ...    // span valid until the next wait()
#pragma once

#include "loop/clock.hpp"
#include "loop/epoll.hpp"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace vedette::loop {

enum class Interest : std::uint8_t { none = 0, read = 1, write = 2, read_write = 3 };
constexpr Interest operator&(Interest a, Interest b) {
  return static_cast<Interest>(static_cast<std::uint8_t>(a) & static_cast<std::uint8_t>(b));
}
constexpr Interest operator|(Interest a, Interest b) {
  return static_cast<Interest>(static_cast<std::uint8_t>(a) | static_cast<std::uint8_t>(b));
}
constexpr bool has(Interest set, Interest bit) {
  return (set & bit) != Interest::none;
}

// Opaque to the poller: given with the interest, handed back with each readiness report.
using Token = std::uint32_t;

struct Ready {
  int fd;
  Token token;
  // What happened, limited to the interest registered; an error or hang-up reports every registered interest
  // so the owner's read or write sees it.
  Interest events;
};

// An infinite poll timeout.
inline constexpr Duration k_forever = Duration::max();

class Poller {
 public:
  Poller();  // fatal (base/check.hpp) when epoll_create1 fails (startup only)
  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;

  // Queues the change; the token may change without any syscall. Interest::none stops watching the fd.
  void set_interest(int fd, Interest interest, Token token);
  // Call before close(fd): removes the fd from epoll now (one epoll_ctl if registered) and drops any queued
  // change, so a reused fd number starts clean and a duplicated descriptor cannot keep reporting.
  void forget(int fd);

  // Applies the queued changes; wait() calls it first.
  void flush_changes();
  // Waits up to timeout (0: just collect; k_forever: until an fd is ready), rounding up to the poll's
  // resolution so the caller never wakes before its deadline. Reports fds whose generation is current.
  std::span<const Ready> wait(Duration timeout);

  // Syscall counters for tests and benchmarks.
  std::uint64_t ctl_calls() const { return ctl_calls_; }
  std::uint64_t wait_calls() const { return wait_calls_; }

 private:
  struct FdState {
    Interest wanted = Interest::none;
    Interest registered = Interest::none;
    bool queued = false;
    Token token = 0;
    std::uint32_t generation = 0;  // bumped on every add to the epoll set, kept in the token's upper half
  };

  static constexpr std::size_t k_batch = 256;  // events taken per wait

  FdState& state(int fd);
  void apply(int fd, FdState& s);

  Epoll epoll_;
  std::vector<FdState> fds_;
  std::vector<int> changes_;
  std::vector<Ready> ready_;
  std::array<Epoll::Event, k_batch> events_;
  std::uint64_t ctl_calls_ = 0;
  std::uint64_t wait_calls_ = 0;
};

}  // namespace vedette::loop
