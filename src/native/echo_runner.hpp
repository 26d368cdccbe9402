// Native check_ping and check_icmp on an executor thread: ICMP echo requests through the thread's shared
// ICMP sockets (one per address family), each probe on its plugin's schedule — check_ping's is iputils
// ping's (one a second until the packets are answered, an error comes back or -w passes), check_icmp's its
// own (the next request once the last is answered or the interval passed, then up to its completion
// time) — so the counts and the verdict are the ones the plugin would print. Owned by NativeRunner, which
// routes it the epoll events of its fds; executor thread only.
#pragma once

#include "model/native_plugin.hpp"
#include "native/icmp_options.hpp"
#include "native/icmp_report.hpp"
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

class EchoRunner {
 public:
  // The epoll slots of its fds, in NativeRunner's token space (above any probe's).
  static constexpr std::uint32_t k_icmp4_slot = 0x3ffffffe;
  static constexpr std::uint32_t k_icmp6_slot = 0x3ffffffd;
  static constexpr std::uint32_t k_inbox_slot = 0x3ffffffc;
  [[nodiscard]] static bool owns(std::uint32_t slot) { return slot >= k_inbox_slot && slot <= k_icmp4_slot; }

  EchoRunner(loop::Epoll& epoll, std::uint64_t stream_tag, Resolver& resolver,
             std::vector<NativeDone>& finished);
  ~EchoRunner();
  EchoRunner(const EchoRunner&) = delete;
  EchoRunner& operator=(const EchoRunner&) = delete;

  // check_ping or check_icmp. False: run the process (options not native, or no ICMP socket here).
  [[nodiscard]] bool start(model::NativePlugin plugin, std::span<const std::string> argv,
                           std::int64_t kill_at_ns, std::uint64_t ticket);
  void on_event(std::uint32_t slot);
  [[nodiscard]] std::int64_t next_deadline_ns();
  void expire(std::int64_t now_ns);
  [[nodiscard]] std::size_t in_flight() const { return slots_.active(); }
  void abort_all();

 private:
  struct Probe;
  struct Sent {
    std::uint32_t slot, serial;
    std::int64_t sent_ns;
    bool answered = false;
  };

  IcmpSocket* socket_for(int family);
  [[nodiscard]] bool sockets_for(const std::string& address, int family, std::vector<Address>& numeric);
  void take_answers();
  void begin(std::uint32_t slot, const std::vector<Address>& addresses);
  void send_next(std::uint32_t slot, std::int64_t now_ns);
  void read(IcmpSocket& socket);
  void on_reply(std::uint32_t slot, Sent& sent, std::int64_t now_ns);
  void on_error(std::uint32_t slot, const IcmpSocket::Event& e);
  void end(std::uint32_t slot);  // the plugin's own end: its report
  void finish(std::uint32_t slot, PluginRun&& run, bool killed = false);

  loop::Epoll& epoll_;
  std::uint64_t stream_tag_;
  ResolverClient resolver_;
  std::vector<NativeDone>& finished_;
  // Opened on first use; a family that cannot have one is not tried again.
  std::unique_ptr<IcmpSocket> icmp4_, icmp6_;
  bool icmp4_failed_ = false, icmp6_failed_ = false;
  ProbeSlots<Probe> slots_;
  std::unordered_map<std::uint16_t, Sent> sent_;  // by sequence number: the requests of running probes
  std::uint16_t next_seq_ = 0;
};

}  // namespace vedette::native
