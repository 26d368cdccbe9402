// Runs native checks on an executor thread, in that thread's epoll: a check_dummy answers at once, a
// check_tcp is a non-blocking connect (then send/expect) with its timers, many in flight per thread. The
// executor feeds it the epoll events whose token ends in its stream tag and takes finished runs after each
// iteration. Executor thread only (the one whose epoll it was given).
//
//   if (runner.start(plugin, argv, kill_at_ns, ticket)) ... else spawn the process;
//   on an event with (token & 3) == tag: runner.on_event(token, events);
//   each iteration: runner.expire(now_ns); for (auto& done : runner.finished()) ...;
//   runner.finished().clear();
#pragma once

#include "model/native_plugin.hpp"
#include "native/plugin_run.hpp"

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace vedette::native {

class Resolver;
struct ResolverInbox;

struct NativeDone {
  std::uint64_t ticket = 0;
  PluginRun run;
  bool killed = false;  // the job's own timeout came first: no output, as for a process killed at its timeout
  std::int64_t start_us = 0, end_us = 0;  // wall clock, as CheckResult's
};

class NativeRunner {
 public:
  static constexpr std::int64_t k_never = std::numeric_limits<std::int64_t>::max();

  // `epoll_fd` and `resolver` outlive the runner. Tokens it adds are (id << 2) | stream_tag, stream_tag < 4.
  NativeRunner(int epoll_fd, std::uint64_t stream_tag, Resolver& resolver);
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
  struct Deadline {
    std::int64_t at_ns;
    std::uint32_t slot, serial;
    bool operator>(const Deadline& other) const { return at_ns > other.at_ns; }
  };

  void take_answers();
  void begin_connect(std::uint32_t slot);
  void on_connected(std::uint32_t slot);
  void on_readable(std::uint32_t slot);
  void end_reading(std::uint32_t slot);
  void finish(std::uint32_t slot, PluginRun&& run, bool killed = false);
  void add_deadline(std::uint32_t slot, std::int64_t at_ns);
  void watch(std::uint32_t slot, std::uint32_t events, bool add);
  std::uint64_t token_of(std::uint32_t slot) const;

  int epoll_fd_;
  std::uint64_t stream_tag_;
  Resolver& resolver_;
  std::unique_ptr<ResolverInbox> inbox_;
  bool inbox_watched_ = false;
  std::vector<std::unique_ptr<Probe>> slots_;
  std::vector<std::uint32_t> free_;
  std::vector<Deadline> deadlines_;  // min-heap, lazily pruned
  std::vector<NativeDone> finished_;
  std::size_t in_flight_ = 0;
};

}  // namespace vedette::native
