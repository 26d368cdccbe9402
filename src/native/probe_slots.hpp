// The probes a native runner has in flight, by slot: a free list that reuses slots, a serial per slot so
// that a late epoll event, resolver answer or deadline of an ended probe is recognised and dropped, and the
// probes' deadlines as a lazily pruned min-heap; and the start, the resolver answers and the connect of a
// probe that connects to a host (check_tcp, check_http), the same in both runners. Executor thread only.
//
//   const std::uint32_t slot = slots.acquire();   // a fresh Probe, active
//   slots.add_deadline(slot, at_ns);
//   slots.expire(now_ns, [&](std::uint32_t slot) { ... });   // each due deadline of a live probe
//   slots.release(slot);
#pragma once

#include "loop/epoll.hpp"
#include "loop/raw_time.hpp"
#include "native/resolver.hpp"
#include "native/tcp_connect.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <unistd.h>
#include <utility>
#include <vector>

namespace vedette::native {

inline constexpr std::int64_t k_never_ns = std::numeric_limits<std::int64_t>::max();

// A connecting probe's clock: when it started (monotonic, and wall for the result), the plugin's own alarm
// and the job's timeout.
struct ProbeClock {
  std::int64_t started_ns = 0, start_us = 0;
  std::int64_t alarm_ns = 0;  // the plugin's own alarm (-t)
  std::int64_t kill_ns = 0;   // the job's timeout

  void start(int timeout_s, std::int64_t kill_at_ns) {
    started_ns = loop::raw_mono_ns();
    start_us = loop::raw_wall_us();
    alarm_ns = started_ns + static_cast<std::int64_t>(timeout_s) * 1'000'000'000;
    kill_ns = kill_at_ns;
  }
  [[nodiscard]] std::int64_t first_deadline() const { return std::min(alarm_ns, kill_ns); }
  // At a tie the job's timeout wins: the executor's timer for a process starts before the plugin's alarm.
  [[nodiscard]] bool killed_at(std::int64_t now_ns) const { return kill_ns <= now_ns && kill_ns <= alarm_ns; }
  [[nodiscard]] bool alarm_at(std::int64_t now_ns) const { return alarm_ns <= now_ns; }
};

// Probe: default-constructible, with `std::uint32_t serial` and `bool active`.
template <class Probe>
class ProbeSlots {
 public:
  [[nodiscard]] std::uint32_t acquire() {
    std::uint32_t slot;
    if (free_.empty()) {
      slot = static_cast<std::uint32_t>(slots_.size());
      slots_.push_back(std::make_unique<Probe>());
    } else {
      slot = free_.back();
      free_.pop_back();
    }
    Probe& p = *slots_[slot];
    const std::uint32_t serial = p.serial;
    p = Probe{};
    p.serial = serial;
    p.active = true;
    ++active_;
    return slot;
  }

  void release(std::uint32_t slot) {
    Probe& p = *slots_[slot];
    p.active = false;
    ++p.serial;
    free_.push_back(slot);
    --active_;
  }

  // Ends every probe without a result (executor shutdown), `close(probe)` first.
  template <class Close>
  void release_all(Close&& close) {
    for (std::uint32_t slot = 0; slot < slots_.size(); ++slot) {
      if (!slots_[slot]->active) continue;
      close(*slots_[slot]);
      release(slot);
    }
  }

  [[nodiscard]] bool current(std::uint32_t slot, std::uint32_t serial) const {
    return slot < slots_.size() && slots_[slot]->active && slots_[slot]->serial == serial;
  }
  [[nodiscard]] Probe& operator[](std::uint32_t slot) { return *slots_[slot]; }
  [[nodiscard]] const Probe& operator[](std::uint32_t slot) const { return *slots_[slot]; }
  [[nodiscard]] std::size_t active() const { return active_; }

  // A ticket for the resolver that names the slot and its serial.
  [[nodiscard]] std::uint64_t ticket(std::uint32_t slot) const {
    return (static_cast<std::uint64_t>(slots_[slot]->serial) << 32) | slot;
  }
  // The slot of a ticket whose probe is still the one it was made for, or false.
  [[nodiscard]] bool from_ticket(std::uint64_t ticket, std::uint32_t& slot) const {
    slot = static_cast<std::uint32_t>(ticket & 0xffffffffu);
    return current(slot, static_cast<std::uint32_t>(ticket >> 32));
  }

  void add_deadline(std::uint32_t slot, std::int64_t at_ns) {
    deadlines_.push_back({at_ns, slot, slots_[slot]->serial});
    std::push_heap(deadlines_.begin(), deadlines_.end(), std::greater<>{});
  }

  [[nodiscard]] std::int64_t next_deadline_ns() {
    while (!deadlines_.empty()) {
      const Deadline& d = deadlines_.front();
      if (current(d.slot, d.serial)) return d.at_ns;
      pop();
    }
    return k_never_ns;
  }

  template <class Due>
  void expire(std::int64_t now_ns, Due&& due) {
    while (!deadlines_.empty() && deadlines_.front().at_ns <= now_ns) {
      const Deadline d = deadlines_.front();
      pop();
      if (current(d.slot, d.serial)) due(d.slot);
    }
  }

 private:
  struct Deadline {
    std::int64_t at_ns;
    std::uint32_t slot, serial;
    bool operator>(const Deadline& other) const { return at_ns > other.at_ns; }
  };
  void pop() {
    std::pop_heap(deadlines_.begin(), deadlines_.end(), std::greater<>{});
    deadlines_.pop_back();
  }

  std::vector<std::unique_ptr<Probe>> slots_;
  std::vector<std::uint32_t> free_;
  std::vector<Deadline> deadlines_;
  std::size_t active_ = 0;
};

// Each answer of `resolver` whose probe is still the one that asked: on(slot, answer).
template <class Probe, class On>
void take_resolver_answers(ResolverClient& resolver, ProbeSlots<Probe>& slots, On&& on) {
  for (ResolverInbox::Answer& a : resolver.take()) {
    std::uint32_t slot;
    if (slots.from_ticket(a.ticket, slot)) on(slot, a);
  }
}

// What a probe that connects to a host keeps in either runner (check_tcp's, check_http's), as ProbeSlots,
// start_probe() and take_resolved() want it, and its walk over the addresses (np_net_connect's). The
// runner's Probe adds its phase and the rest.
template <class Options>
struct ConnectingProbe {
  std::uint32_t serial = 0;
  bool active = false;
  std::uint64_t ticket = 0;
  Options options;
  std::vector<Address> addresses;
  std::size_t next_address = 0;
  int fd = -1;
  int last_error = 0;
  std::uint32_t watched_events = 0;  // 0: fd not in the epoll set
  ProbeClock clock;

  // Connects to the next address: connected; in_progress (watch for writable, then on_connect_event());
  // failed (no address left, last_error says why) or no_socket, fd < 0 for both.
  [[nodiscard]] ConnectStep begin_connect() { return connect_next(addresses, next_address, fd, last_error); }

  // An event on the connecting fd: connected; in_progress while a connect goes on (a spurious event, or this
  // address failed and the next one's connect started); failed or no_socket as begin_connect().
  [[nodiscard]] ConnectStep on_connect_event(std::uint32_t events) {
    const int error = connect_result(fd, events);
    if (error == 0) return ConnectStep::connected;
    if (error < 0) return ConnectStep::in_progress;
    last_error = error;
    close_socket();
    return begin_connect();
  }

  // One epoll_ctl, none when `events` are watched already (the token is the slot's while the probe lives).
  void watch(loop::Epoll& epoll, std::uint32_t events, std::uint64_t token) {
    if (watched_events == events) return;
    const int rc = watched_events == 0 ? epoll.add(fd, events, token) : epoll.modify(fd, events, token);
    if (rc == 0) watched_events = events;
  }

  void close_socket() {
    if (fd >= 0) ::close(fd);  // also leaves the epoll set
    fd = -1;
    watched_events = 0;
  }
};

struct StartedProbe {
  std::uint32_t slot;
  bool resolved;  // the addresses are known already (a numeric or cached host): connect now
};

// Starts a probe that connects to a host: a fresh slot for `ticket` with `options`, its clock started, its
// first deadline queued and the addresses of options.*host, options.*port asked of `resolver` (those not
// known at once come through take_resolved()). Probe: a ConnectingProbe<Options>; Options needs `timeout_s`
// and `family`.
template <class Probe, class Options>
[[nodiscard]] StartedProbe start_probe(ProbeSlots<Probe>& slots, ResolverClient& resolver,
                                       std::uint64_t ticket, Options&& options, std::int64_t kill_at_ns,
                                       std::string std::remove_cvref_t<Options>::*host,
                                       int std::remove_cvref_t<Options>::*port) {
  const std::uint32_t slot = slots.acquire();
  Probe& p = slots[slot];
  p.ticket = ticket;
  p.options = std::forward<Options>(options);
  p.clock.start(p.options.timeout_s, kill_at_ns);
  slots.add_deadline(slot, p.clock.first_deadline());
  return {slot, resolver.resolve(p.options.*host, p.options.family, p.options.*port, p.addresses,
                                 slots.ticket(slot))};
}

// Each resolver answer for a connecting probe still resolving: with its addresses, connect(slot); a failed
// lookup, unresolved(slot, error). Probe: a ConnectingProbe with a `phase` that has Phase::resolving.
template <class Probe, class Connect, class Unresolved>
void take_resolved(ResolverClient& resolver, ProbeSlots<Probe>& slots, Connect&& connect,
                   Unresolved&& unresolved) {
  take_resolver_answers(resolver, slots, [&](std::uint32_t slot, ResolverInbox::Answer& a) {
    Probe& p = slots[slot];
    if (p.phase != Probe::Phase::resolving) return;
    if (a.error != 0) return unresolved(slot, a.error);
    p.addresses = std::move(a.addresses);
    connect(slot);
  });
}

}  // namespace vedette::native
