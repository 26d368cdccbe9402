// Runs native checks on an executor thread, in that thread's epoll, many in flight per thread: a check_dummy
// answers at once, a check_tcp is a non-blocking connect (then send/expect) with its timers, a check_ping or
// check_icmp echo requests through the thread's ICMP sockets (EchoRunner), a check_http a connect, TLS
// handshake, request and response read (HttpRunner). The executor feeds it the epoll events whose token
// ends in its stream tag and takes finished runs after each iteration. Executor thread only (the one whose
// epoll it was given).
//
//   if (runner.start(plugin, argv, kill_at_ns, ticket)) ... else spawn the process;
//   on an event with (token & 3) == tag: runner.on_event(token, events);
//   each iteration: runner.expire(now_ns); for (auto& done : runner.finished()) ...;
//   runner.finished().clear();
#pragma once

#include "model/native_plugin.hpp"
#include "native/echo_runner.hpp"
#include "native/http_runner.hpp"
#include "native/native_done.hpp"
#include "native/plugin_run.hpp"
#include "native/probe_slots.hpp"
#include "native/resolver.hpp"
#include "native/tcp_connect.hpp"

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace vedette::native {

class NativeRunner {
 public:
  static constexpr std::int64_t k_never = k_never_ns;

  // `epoll` and `resolver` outlive the runner. Tokens it adds are (id << 2) | stream_tag, stream_tag < 4.
  NativeRunner(loop::Epoll& epoll, std::uint64_t stream_tag, Resolver& resolver);
  ~NativeRunner();  // abort_all()
  NativeRunner(const NativeRunner&) = delete;
  NativeRunner& operator=(const NativeRunner&) = delete;

  // False: these arguments are not run natively (the plugin would print its usage or do something not
  // implemented here): run the process instead. True: exactly one NativeDone with `ticket` will follow.
  // kill_at_ns (CLOCK_MONOTONIC): the job's timeout, where a process would be killed.
  [[nodiscard]] bool start(model::NativePlugin plugin, std::span<const std::string> argv,
                           std::int64_t kill_at_ns, std::uint64_t ticket);

  void on_event(std::uint64_t token, std::uint32_t events);
  [[nodiscard]] std::int64_t next_deadline_ns();
  void expire(std::int64_t now_ns);
  [[nodiscard]] std::vector<NativeDone>& finished() { return finished_; }
  [[nodiscard]] std::size_t in_flight() const;

  // Closes every socket; their checks give no result (executor shutdown).
  void abort_all();

 private:
  struct Probe;

  void take_answers();
  void connect(std::uint32_t slot);
  void on_connect_step(std::uint32_t slot, ConnectStep step);
  void on_connected(std::uint32_t slot);
  void on_readable(std::uint32_t slot);
  void end_reading(std::uint32_t slot);
  void finish(std::uint32_t slot, PluginRun&& run, bool killed = false);
  std::uint64_t token_of(std::uint32_t slot) const;

  loop::Epoll& epoll_;
  std::uint64_t stream_tag_;
  ResolverClient resolver_;
  ProbeSlots<Probe> slots_;
  std::vector<NativeDone> finished_;
  EchoRunner echo_;  // check_ping, check_icmp; after finished_, which it fills
  HttpRunner http_;  // check_http; likewise
};

}  // namespace vedette::native
