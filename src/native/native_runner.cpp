#include "native/native_runner.hpp"

#include "loop/epoll.hpp"
#include "loop/raw_time.hpp"
#include "native/dummy_check.hpp"
#include "native/resolver.hpp"
#include "native/tcp_options.hpp"
#include "native/tcp_report.hpp"

#include <algorithm>
#include <cerrno>
#include <functional>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

namespace vedette::native {
namespace {

constexpr auto& mono_ns = loop::raw_mono_ns;  // loop/raw_time.hpp, by their short local names
constexpr auto& wall_us = loop::raw_wall_us;

constexpr std::uint32_t k_inbox_slot = 0x3fffffff;
// check_tcp's MAXBUF: it reads at most this much per read(), and -m and the matching look after each read.
constexpr std::size_t k_read_size = 1024;
// check_tcp's READ_TIMEOUT: after a partial answer it waits this long for more.
constexpr std::int64_t k_read_timeout_ns = 2'000'000'000;

}  // namespace

struct NativeRunner::Probe : ConnectingProbe<TcpOptions> {
  enum class Phase : std::uint8_t { resolving, connecting, reading } phase = Phase::resolving;
  std::string received;
  Match match = Match::none;
  std::int64_t read_until_ns = k_never;
};

NativeRunner::NativeRunner(loop::Epoll& epoll, std::uint64_t stream_tag, Resolver& resolver)
    : epoll_(epoll),
      stream_tag_(stream_tag),
      resolver_(resolver, epoll, (static_cast<std::uint64_t>(k_inbox_slot) << 2) | stream_tag),
      echo_(epoll, stream_tag, resolver, finished_),
      http_(epoll, stream_tag, resolver, finished_) {}

NativeRunner::~NativeRunner() {
  abort_all();
}

std::size_t NativeRunner::in_flight() const {
  return slots_.active() + echo_.in_flight() + http_.in_flight();
}

std::uint64_t NativeRunner::token_of(std::uint32_t slot) const {
  return (static_cast<std::uint64_t>(slots_[slot].serial) << 32) | (static_cast<std::uint64_t>(slot) << 2) |
         stream_tag_;
}

bool NativeRunner::start(model::NativePlugin plugin, std::span<const std::string> argv,
                         std::int64_t kill_at_ns, std::uint64_t ticket) {
  if (plugin == model::NativePlugin::check_dummy) {
    std::optional<PluginRun> run = run_check_dummy(argv);
    if (!run) return false;
    const std::int64_t now = wall_us();
    finished_.push_back({ticket, std::move(*run), /*killed=*/false, now, now});
    return true;
  }
  if (plugin == model::NativePlugin::check_ping || plugin == model::NativePlugin::check_icmp)
    return echo_.start(plugin, argv, kill_at_ns, ticket);
  if (plugin == model::NativePlugin::check_http) return http_.start(argv, kill_at_ns, ticket);
  if (plugin != model::NativePlugin::check_tcp) return false;
  std::optional<TcpOptions> options = parse_tcp_options(argv);
  if (!options) return false;

  const StartedProbe started = start_probe(slots_, resolver_, ticket, std::move(*options), kill_at_ns,
                                           &TcpOptions::address, &TcpOptions::port);
  if (started.resolved) connect(started.slot);
  return true;
}

void NativeRunner::take_answers() {
  take_resolved(
      resolver_, slots_, [&](std::uint32_t slot) { connect(slot); },
      [&](std::uint32_t slot, int) { finish(slot, report_invalid_host(slots_[slot].options)); });
}

void NativeRunner::connect(std::uint32_t slot) {
  Probe& p = slots_[slot];
  p.phase = Probe::Phase::connecting;
  on_connect_step(slot, p.begin_connect());
}

void NativeRunner::on_connect_step(std::uint32_t slot, ConnectStep step) {
  Probe& p = slots_[slot];
  switch (step) {
    case ConnectStep::connected:
      return on_connected(slot);
    case ConnectStep::in_progress:
      return p.watch(epoll_, loop::Epoll::writable, token_of(slot));
    case ConnectStep::no_socket: {
      PluginRun run;
      run.exit_code = k_state_unknown;
      run.output = "Socket creation failed\n";
      return finish(slot, std::move(run));
    }
    case ConnectStep::failed:
      break;
  }
  finish(slot, report_connect_failure(p.options, p.last_error));
}

void NativeRunner::on_connected(std::uint32_t slot) {
  Probe& p = slots_[slot];
  if (p.options.send)
    ::send(p.fd, p.options.send->data(), p.options.send->size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  if (p.options.expect.empty()) return end_reading(slot);
  p.phase = Probe::Phase::reading;
  p.watch(epoll_, loop::Epoll::readable, token_of(slot));
}

void NativeRunner::on_readable(std::uint32_t slot) {
  Probe& p = slots_[slot];
  char buffer[k_read_size];
  const ssize_t n = ::read(p.fd, buffer, sizeof buffer);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) return end_reading(slot);
  p.received.append(buffer, static_cast<std::size_t>(n));
  if (p.options.maxbytes != 0 && p.received.size() >= p.options.maxbytes) return end_reading(slot);
  p.match = expect_match(p.received, p.options);
  if (p.match != Match::retry) return end_reading(slot);
  p.read_until_ns = mono_ns() + k_read_timeout_ns;
  slots_.add_deadline(slot, p.read_until_ns);
}

void NativeRunner::end_reading(std::uint32_t slot) {
  Probe& p = slots_[slot];
  const bool expecting = !p.options.expect.empty();
  if (expecting && p.received.empty()) {
    // die() before the quit string and the close; the time is not printed.
    return finish(slot, report_tcp(p.options, {}, p.match, 0));
  }
  if (p.options.quit)
    ::send(p.fd, p.options.quit->data(), p.options.quit->size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  p.close_socket();
  // deltime(): whole microseconds.
  const std::int64_t elapsed_us = (mono_ns() - p.clock.started_ns) / 1000;
  finish(slot,
         report_tcp(p.options, std::move(p.received), p.match, static_cast<double>(elapsed_us) / 1.0e6));
}

void NativeRunner::on_event(std::uint64_t token, std::uint32_t events) {
  const auto slot = static_cast<std::uint32_t>((token & 0xffffffffu) >> 2);
  if (slot == k_inbox_slot) return take_answers();
  if (EchoRunner::owns(slot)) return echo_.on_event(slot);
  if (HttpRunner::owns(slot)) return http_.on_event(token, events);
  const auto serial = static_cast<std::uint32_t>(token >> 32);
  if (!slots_.current(slot, serial)) return;
  Probe& p = slots_[slot];
  if (p.fd < 0) return;
  if (p.phase == Probe::Phase::connecting) return on_connect_step(slot, p.on_connect_event(events));
  if (p.phase == Probe::Phase::reading) on_readable(slot);
}

std::int64_t NativeRunner::next_deadline_ns() {
  return std::min({slots_.next_deadline_ns(), echo_.next_deadline_ns(), http_.next_deadline_ns()});
}

void NativeRunner::expire(std::int64_t now_ns) {
  echo_.expire(now_ns);
  http_.expire(now_ns);
  slots_.expire(now_ns, [&](std::uint32_t slot) {
    Probe& p = slots_[slot];
    if (p.clock.killed_at(now_ns)) {
      finish(slot, {}, /*killed=*/true);
    } else if (p.clock.alarm_at(now_ns)) {
      finish(slot, report_socket_timeout(p.options));
    } else if (p.phase == Probe::Phase::reading && p.read_until_ns <= now_ns) {
      end_reading(slot);
    }
  });
}

void NativeRunner::finish(std::uint32_t slot, PluginRun&& run, bool killed) {
  Probe& p = slots_[slot];
  p.close_socket();
  finished_.push_back({p.ticket, std::move(run), killed, p.clock.start_us, wall_us()});
  p.received = {};
  p.addresses.clear();
  slots_.release(slot);
}

void NativeRunner::abort_all() {
  echo_.abort_all();
  http_.abort_all();
  slots_.release_all([](Probe& p) { p.close_socket(); });
  resolver_.unwatch();
}

}  // namespace vedette::native
