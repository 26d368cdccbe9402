// Native check_ping on an executor thread: echo requests once a second through the thread's shared ICMP
// sockets, until the packets are answered, an ICMP error comes back or ping's -w deadline passes — ping's
// own rules, so the counts and the verdict are the ones the plugin would print. Owned by NativeRunner, which
// routes it the epoll events of its sockets; executor thread only.
#pragma once

#include "native/icmp_socket.hpp"
#include "native/native_done.hpp"
#include "native/ping_options.hpp"
#include "native/ping_report.hpp"
#include "native/probe_slots.hpp"
#include "native/resolver.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace vedette::native {

class PingRunner {
 public:
  // The epoll slots of its fds, in NativeRunner's token space (above any probe's).
  static constexpr std::uint32_t k_icmp4_slot = 0x3ffffffe;
  static constexpr std::uint32_t k_icmp6_slot = 0x3ffffffd;
  static constexpr std::uint32_t k_inbox_slot = 0x3ffffffc;
  [[nodiscard]] static bool owns(std::uint32_t slot) { return slot >= k_inbox_slot && slot <= k_icmp4_slot; }

  PingRunner(int epoll_fd, std::uint64_t stream_tag, Resolver& resolver, std::vector<NativeDone>& finished);
  ~PingRunner();
  PingRunner(const PingRunner&) = delete;
  PingRunner& operator=(const PingRunner&) = delete;

  // False: run the process (options not native, or no ICMP socket can be had here).
  [[nodiscard]] bool start(std::span<const std::string> argv, std::int64_t kill_at_ns, std::uint64_t ticket);
  void on_event(std::uint32_t slot);
  [[nodiscard]] std::int64_t next_deadline_ns();
  void expire(std::int64_t now_ns);
  [[nodiscard]] std::size_t in_flight() const { return slots_.active(); }
  void abort_all();

 private:
  struct Ping;
  struct Sent {
    std::uint32_t slot, serial;
    std::int64_t sent_ns;
    bool answered = false;
  };

  IcmpSocket* socket_for(int family);
  void take_answers();
  void begin(std::uint32_t slot, const std::vector<Address>& addresses);
  void send_next(std::uint32_t slot, std::int64_t now_ns);
  void read(IcmpSocket& socket);
  void finish(std::uint32_t slot, PluginRun&& run, bool killed = false);

  int epoll_fd_;
  std::uint64_t stream_tag_;
  ResolverClient resolver_;
  std::vector<NativeDone>& finished_;
  // Opened on first use; a family that cannot have one is not tried again.
  std::unique_ptr<IcmpSocket> icmp4_, icmp6_;
  bool icmp4_failed_ = false, icmp6_failed_ = false;
  ProbeSlots<Ping> slots_;
  std::unordered_map<std::uint16_t, Sent> sent_;  // by sequence number: the requests of running pings
  std::uint16_t next_seq_ = 0;
};

}  // namespace vedette::native
