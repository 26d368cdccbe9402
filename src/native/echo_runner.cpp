#include "native/echo_runner.hpp"

#include "loop/epoll.hpp"
#include "loop/raw_time.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>

namespace vedette::native {
namespace {

constexpr auto& mono_ns = loop::raw_mono_ns;
constexpr auto& wall_us = loop::raw_wall_us;

constexpr std::int64_t k_second_ns = 1'000'000'000;
constexpr std::int64_t k_seq_busy_retry_ns = 10'000'000;

bool is_ping(model::NativePlugin plugin) {
  return plugin == model::NativePlugin::check_ping;
}

// Addresses check_icmp's add_target_ip() drops ("No hosts to check" when nothing else is left).
bool dropped_by_check_icmp(const Address& a) {
  if (a.storage.ss_family == AF_INET) {
    const auto s = reinterpret_cast<const sockaddr_in&>(a.storage).sin_addr.s_addr;
    return s == htonl(INADDR_ANY) || s == htonl(INADDR_NONE);
  }
  const in6_addr& s6 = reinterpret_cast<const sockaddr_in6&>(a.storage).sin6_addr;
  return IN6_IS_ADDR_UNSPECIFIED(&s6);
}

}  // namespace

struct EchoRunner::Probe {
  std::uint32_t serial = 0;
  bool active = false;
  std::uint64_t ticket = 0;
  model::NativePlugin plugin = model::NativePlugin::check_ping;
  PingOptions ping;  // check_ping's
  PingTally ping_tally;
  IcmpOptions icmp;  // check_icmp's
  IcmpTally icmp_tally;
  std::uint32_t lost = 0;  // check_icmp: requests an error answered
  bool resolving = false;
  bool ipv6 = false;
  Address target;
  IcmpSocket* socket = nullptr;
  std::vector<std::uint16_t> seqs;  // this probe's entries in sent_
  std::int64_t start_us = 0;
  std::int64_t next_send_ns = k_never_ns;
  std::int64_t end_ns = 0;   // check_ping: ping's -w; check_icmp: its completion time or alarm
  std::int64_t kill_ns = 0;  // the job's timeout

  [[nodiscard]] const std::string& address() const {
    return plugin == model::NativePlugin::check_ping ? ping.address : icmp.target;
  }
  [[nodiscard]] int family() const {
    return plugin == model::NativePlugin::check_ping ? ping.family : icmp.family;
  }
  // check_icmp: requests neither answered nor errored (unsigned, as the plugin's icmp_pkts_en_route).
  [[nodiscard]] std::uint32_t en_route() const { return icmp_tally.sent - (icmp_tally.received + lost); }
};

EchoRunner::EchoRunner(loop::Epoll& epoll, std::uint64_t stream_tag, Resolver& resolver,
                       std::vector<NativeDone>& finished)
    : epoll_(epoll),
      stream_tag_(stream_tag),
      resolver_(resolver, epoll, (static_cast<std::uint64_t>(k_inbox_slot) << 2) | stream_tag),
      finished_(finished) {}

EchoRunner::~EchoRunner() {
  abort_all();
}

IcmpSocket* EchoRunner::socket_for(int family) {
  std::unique_ptr<IcmpSocket>& socket = family == AF_INET6 ? icmp6_ : icmp4_;
  bool& failed = family == AF_INET6 ? icmp6_failed_ : icmp4_failed_;
  if (socket != nullptr) return socket.get();
  if (failed) return nullptr;
  auto opened = std::make_unique<IcmpSocket>();
  if (!opened->open(family)) {
    failed = true;
    return nullptr;
  }
  const std::uint32_t slot = family == AF_INET6 ? k_icmp6_slot : k_icmp4_slot;
  if (epoll_.add(opened->fd(), loop::Epoll::readable | loop::Epoll::error,
                 (static_cast<std::uint64_t>(slot) << 2) | stream_tag_) != 0) {
    failed = true;
    return nullptr;
  }
  socket = std::move(opened);
  return socket.get();
}

// A name may turn out IPv4 or IPv6 only when its answer comes, so both sockets must be there first (-4 /
// -6: that family's); a numeric address (parsed into `numeric`, which stays empty for a name) needs its
// own family's.
bool EchoRunner::sockets_for(const std::string& address, int family, std::vector<Address>& numeric) {
  int error = 0;
  if (numeric_addresses(address, family, 0, numeric, error))
    return socket_for(numeric.front().storage.ss_family) != nullptr;
  numeric.clear();
  if (address.find(':') != std::string::npos) return false;
  if (family != AF_INET6 && socket_for(AF_INET) == nullptr) return false;
  if (family != AF_INET && socket_for(AF_INET6) == nullptr) return false;
  return true;
}

bool EchoRunner::start(model::NativePlugin plugin, std::span<const std::string> argv, std::int64_t kill_at_ns,
                       std::uint64_t ticket) {
  std::optional<PingOptions> ping;
  std::optional<IcmpOptions> icmp;
  std::vector<Address> addresses;
  if (is_ping(plugin)) {
    ping = parse_ping_options(argv);
    if (!ping || !sockets_for(ping->address, ping->family, addresses)) return false;
  } else {
    icmp = parse_icmp_options(argv);
    if (!icmp || !sockets_for(icmp->target, icmp->family, addresses)) return false;
  }
  const std::uint32_t slot = slots_.acquire();
  Probe& p = slots_[slot];
  p.ticket = ticket;
  p.plugin = plugin;
  p.start_us = wall_us();
  p.kill_ns = kill_at_ns;
  const std::int64_t now = mono_ns();
  if (ping) {
    p.ping = std::move(*ping);
    p.end_ns = now + p.ping.deadline_s * k_second_ns;
  } else {
    p.icmp = std::move(*icmp);
    const auto completion_ns = static_cast<std::int64_t>(p.icmp.max_completion_us()) * 1000;
    p.end_ns = now + std::min(completion_ns, static_cast<std::int64_t>(p.icmp.timeout_s) * k_second_ns);
  }
  slots_.add_deadline(slot, std::min(p.end_ns, p.kill_ns));

  if (!addresses.empty() || resolver_.lookup_cached(p.address(), p.family(), 0, addresses)) {
    begin(slot, addresses);
    return true;
  }
  p.resolving = true;
  resolver_.request(p.address(), p.family(), 0, slots_.ticket(slot));
  return true;
}

void EchoRunner::take_answers() {
  take_resolver_answers(resolver_, slots_, [&](std::uint32_t slot, ResolverInbox::Answer& a) {
    Probe& p = slots_[slot];
    if (!p.resolving) return;
    p.resolving = false;
    if (a.error != 0 || a.addresses.empty()) {
      if (is_ping(p.plugin)) return finish(slot, report_ping_invalid_host(p.ping));
      return finish(slot,
                    report_icmp_unresolved(p.icmp, a.error != 0 ? ::gai_strerror(a.error) : "no address"));
    }
    begin(slot, a.addresses);
  });
}

// check_ping: with addresses of both families the plugin runs ping -6 (is_inet6_addr() holds) unless -4
// was given, and ping takes getaddrinfo's first address of its family. check_icmp takes the first address.
void EchoRunner::begin(std::uint32_t slot, const std::vector<Address>& addresses) {
  Probe& p = slots_[slot];
  const auto of = [&](int family) {
    return std::find_if(addresses.begin(), addresses.end(),
                        [&](const Address& a) { return a.storage.ss_family == family; });
  };
  auto chosen = addresses.begin();
  if (is_ping(p.plugin)) {
    chosen = p.ping.family != AF_INET ? of(AF_INET6) : addresses.end();
    if (chosen == addresses.end() && p.ping.family != AF_INET6) chosen = of(AF_INET);
    if (chosen == addresses.end()) return finish(slot, report_ping_invalid_host(p.ping));
  } else if (dropped_by_check_icmp(*chosen)) {
    return finish(slot, report_icmp_no_hosts());
  }
  p.target = *chosen;
  p.ipv6 = p.target.storage.ss_family == AF_INET6;
  p.socket = socket_for(p.ipv6 ? AF_INET6 : AF_INET);  // start() made sure it is open
  send_next(slot, mono_ns());
}

void EchoRunner::send_next(std::uint32_t slot, std::int64_t now_ns) {
  Probe& p = slots_[slot];
  const bool ping = is_ping(p.plugin);
  while (true) {
    // A free sequence number (all 65536 in use: try again shortly, as a blocked send would).
    std::uint16_t seq = next_seq_;
    std::size_t tried = 0;
    while (sent_.contains(seq) && ++tried < 65536) ++seq;
    if (tried >= 65536) {
      p.next_send_ns = now_ns + k_seq_busy_retry_ns;
      return slots_.add_deadline(slot, p.next_send_ns);
    }
    next_seq_ = static_cast<std::uint16_t>(seq + 1);
    const std::int64_t sent_ns = mono_ns();
    const int error =
        p.socket->send_echo(p.target.storage, p.target.length, seq, static_cast<std::uint64_t>(sent_ns));
    const bool failed = error != 0 && error != EAGAIN && error != ENOBUFS;
    if (ping) {
      if (failed) {
        p.ping_tally.send_errno = error;  // ping reports it and exits
        return finish(slot, report_ping(p.ping, p.ping_tally, p.ipv6));
      }
      ++p.ping_tally.transmitted;  // a full send buffer loses the packet, as the network would
      sent_.emplace(seq, Sent{slot, p.serial, sent_ns, false});
      p.seqs.push_back(seq);
      p.next_send_ns = now_ns + k_second_ns;
      if (p.next_send_ns < p.end_ns) slots_.add_deadline(slot, p.next_send_ns);
      return;
    }
    // check_icmp counts only the requests that went out; with nothing on the wire it sends the next one
    // at once, and after the last it waits for the answers until its completion time.
    p.seqs.push_back(seq);
    if (!failed) {
      ++p.icmp_tally.sent;
      sent_.emplace(seq, Sent{slot, p.serial, sent_ns, false});
    }
    const std::uint32_t attempts = static_cast<std::uint32_t>(p.seqs.size());
    if (p.en_route() != 0) {
      if (attempts < p.icmp.packets) {
        p.next_send_ns =
            now_ns +
            (static_cast<std::int64_t>(p.icmp.target_interval_us) + p.icmp.packet_interval_us) * 1000;
        slots_.add_deadline(slot, p.next_send_ns);
      } else {
        p.next_send_ns = k_never_ns;
      }
      return;
    }
    if (attempts >= p.icmp.packets) return end(slot);
  }
}

void EchoRunner::on_event(std::uint32_t slot) {
  if (slot == k_inbox_slot) return take_answers();
  IcmpSocket* socket = slot == k_icmp6_slot ? icmp6_.get() : icmp4_.get();
  if (socket != nullptr) read(*socket);
}

void EchoRunner::read(IcmpSocket& socket) {
  const bool errors = socket.kind() == IcmpSocket::Kind::datagram;
  for (IcmpSocket::Event e; socket.next(e, errors);) {
    const auto it = sent_.find(e.seq);
    if (it == sent_.end() || !slots_.current(it->second.slot, it->second.serial)) continue;
    const std::uint32_t slot = it->second.slot;
    if (slots_[slot].socket != &socket) continue;
    if (e.what == IcmpSocket::Event::What::error) {
      on_error(slot, e);
      continue;
    }
    // A reply to an earlier request that had this sequence number: not this one's.
    if (e.nonce != static_cast<std::uint64_t>(it->second.sent_ns)) continue;
    on_reply(slot, it->second, mono_ns());
  }
}

void EchoRunner::on_reply(std::uint32_t slot, Sent& sent, std::int64_t now_ns) {
  Probe& p = slots_[slot];
  // Both plugins' round trips: whole microseconds.
  const std::int64_t rtt_us = (now_ns - sent.sent_ns) / 1000;
  if (is_ping(p.plugin)) {
    p.ping_tally.rtt_sum_us += rtt_us;
    if (sent.answered) {
      ++p.ping_tally.duplicates;
      return;
    }
    sent.answered = true;
    if (++p.ping_tally.received >= p.ping.packets) end(slot);
    return;
  }
  IcmpTally& t = p.icmp_tally;
  const auto rtt = static_cast<std::uint32_t>(rtt_us);
  t.waited_us += rtt;
  if (rtt > t.rtmax_us) t.rtmax_us = rtt;
  if (t.received == 0 || rtt < t.rtmin_us) t.rtmin_us = rtt;
  ++t.received;  // a duplicate counts again, as in the plugin
  if (p.en_route() != 0) return;
  if (p.seqs.size() >= p.icmp.packets) return end(slot);
  send_next(slot, now_ns);
}

void EchoRunner::on_error(std::uint32_t slot, const IcmpSocket::Event& e) {
  Probe& p = slots_[slot];
  if (is_ping(p.plugin)) {
    // ping prints the error and, given a deadline, stops at the first one.
    p.ping_tally.error_line = p.ipv6 ? icmp6_error_text(e.type, e.code) : icmp4_error_text(e.type, e.code);
    return end(slot);
  }
  // handle_random_icmp(): IPv4 unreachable, time exceeded, source quench or parameter problem (the ICMPv6
  // types are read with the IPv4 numbers, as the plugin does).
  if (e.type != 3 && e.type != 11 && e.type != 4 && e.type != 12) return;
  ++p.lost;
  if (e.type == 4) return;  // source quench: the plugin slows down and goes on
  p.icmp_tally.lost_cause = true;
  p.icmp_tally.error_type = e.type;
  p.icmp_tally.error_code = e.code;
  p.icmp_tally.error_from = e.from;
  end(slot);  // no target is alive: the plugin finishes
}

void EchoRunner::end(std::uint32_t slot) {
  Probe& p = slots_[slot];
  finish(slot,
         is_ping(p.plugin) ? report_ping(p.ping, p.ping_tally, p.ipv6) : report_icmp(p.icmp, p.icmp_tally));
}

std::int64_t EchoRunner::next_deadline_ns() {
  return slots_.next_deadline_ns();
}

void EchoRunner::expire(std::int64_t now_ns) {
  slots_.expire(now_ns, [&](std::uint32_t slot) {
    Probe& p = slots_[slot];
    if (p.kill_ns <= now_ns && p.kill_ns <= p.end_ns) {
      finish(slot, {}, /*killed=*/true);
    } else if (p.end_ns <= now_ns) {
      end(slot);
    } else if (!p.resolving && p.next_send_ns <= now_ns) {
      send_next(slot, now_ns);
    }
  });
}

void EchoRunner::finish(std::uint32_t slot, PluginRun&& run, bool killed) {
  Probe& p = slots_[slot];
  finished_.push_back({p.ticket, std::move(run), killed, p.start_us, wall_us()});
  for (const std::uint16_t seq : p.seqs) {
    const auto it = sent_.find(seq);
    if (it != sent_.end() && it->second.slot == slot && it->second.serial == p.serial) sent_.erase(it);
  }
  p.seqs.clear();
  slots_.release(slot);
}

void EchoRunner::abort_all() {
  slots_.release_all([](Probe&) {});
  sent_.clear();
  resolver_.unwatch();
  icmp4_.reset();  // closing leaves the epoll set
  icmp6_.reset();
}

}  // namespace vedette::native
