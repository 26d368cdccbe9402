// Native check_http on an executor thread: resolve, a non-blocking connect, the TLS handshake for -S
// (OpenSSL, one client context per thread, no certificate check — the plugin makes none), the request, and
// the response read to the close, in the thread's epoll with the plugin's alarm as a timer; then
// report_http() says what the plugin would. Owned by NativeRunner, which routes it the epoll events of its
// slots; executor thread only.
#pragma once

#include "native/http_options.hpp"
#include "native/http_report.hpp"
#include "native/native_done.hpp"
#include "native/probe_slots.hpp"
#include "native/resolver.hpp"
#include "native/tcp_connect.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

struct ssl_ctx_st;

namespace vedette::native {

class HttpRunner {
 public:
  // Its slots in NativeRunner's token space: probes from k_slot_base up, and its resolver inbox; below the
  // EchoRunner's.
  static constexpr std::uint32_t k_slot_base = 0x20000000;
  static constexpr std::uint32_t k_inbox_slot = 0x3ffffffb;
  [[nodiscard]] static bool owns(std::uint32_t slot) { return slot >= k_slot_base && slot <= k_inbox_slot; }

  // The most of a response kept for the checks on it; bytes past it are counted, not kept.
  static constexpr std::size_t k_kept_bytes = 16u << 20;

  HttpRunner(loop::Epoll& epoll, std::uint64_t stream_tag, Resolver& resolver,
             std::vector<NativeDone>& finished);
  ~HttpRunner();
  HttpRunner(const HttpRunner&) = delete;
  HttpRunner& operator=(const HttpRunner&) = delete;

  // False: run the process (options not native).
  [[nodiscard]] bool start(std::span<const std::string> argv, std::int64_t kill_at_ns, std::uint64_t ticket);
  void on_event(std::uint64_t token, std::uint32_t events);
  [[nodiscard]] std::int64_t next_deadline_ns();
  void expire(std::int64_t now_ns);
  [[nodiscard]] std::size_t in_flight() const { return slots_.active(); }
  void abort_all();

 private:
  struct Probe;

  ssl_ctx_st* tls_context();
  void take_answers();
  void connect(std::uint32_t slot);
  void on_connect_step(std::uint32_t slot, ConnectStep step);
  void on_connected(std::uint32_t slot);
  void handshake(std::uint32_t slot);
  void send_request(std::uint32_t slot);
  void receive(std::uint32_t slot);
  void end_receiving(std::uint32_t slot);
  void finish(std::uint32_t slot, PluginRun&& run, bool killed = false);
  void watch(std::uint32_t slot, std::uint32_t events);
  [[nodiscard]] std::uint64_t token_of(std::uint32_t slot) const;

  loop::Epoll& epoll_;
  std::uint64_t stream_tag_;
  ResolverClient resolver_;
  std::vector<NativeDone>& finished_;
  ProbeSlots<Probe> slots_;
  ssl_ctx_st* tls_ = nullptr;  // made on the first -S check
  bool tls_failed_ = false;
};

}  // namespace vedette::native
