#include "native/ping_runner.hpp"

#include "loop/raw_time.hpp"

#include <algorithm>
#include <functional>
#include <netinet/in.h>
#include <sys/epoll.h>

namespace vedette::native {
namespace {

constexpr auto& mono_ns = loop::raw_mono_ns;
constexpr auto& wall_us = loop::raw_wall_us;

constexpr std::int64_t k_second_ns = 1'000'000'000;
constexpr std::int64_t k_seq_busy_retry_ns = 10'000'000;

}  // namespace

struct PingRunner::Ping {
  std::uint32_t serial = 0;
  bool active = false;
  std::uint64_t ticket = 0;
  PingOptions options;
  bool resolving = false;
  bool ipv6 = false;
  Address target;
  IcmpSocket* socket = nullptr;
  PingTally tally;
  std::vector<std::uint16_t> seqs;  // this ping's entries in sent_
  std::int64_t start_us = 0;
  std::int64_t next_send_ns = k_never_ns;
  std::int64_t deadline_ns = 0;  // ping's -w
  std::int64_t kill_ns = 0;      // the job's timeout
};

PingRunner::PingRunner(int epoll_fd, std::uint64_t stream_tag, Resolver& resolver,
                       std::vector<NativeDone>& finished)
    : epoll_fd_(epoll_fd),
      stream_tag_(stream_tag),
      resolver_(resolver, epoll_fd, (static_cast<std::uint64_t>(k_inbox_slot) << 2) | stream_tag),
      finished_(finished) {}

PingRunner::~PingRunner() {
  abort_all();
}

IcmpSocket* PingRunner::socket_for(int family) {
  std::unique_ptr<IcmpSocket>& socket = family == AF_INET6 ? icmp6_ : icmp4_;
  bool& failed = family == AF_INET6 ? icmp6_failed_ : icmp4_failed_;
  if (socket != nullptr) return socket.get();
  if (failed) return nullptr;
  auto opened = std::make_unique<IcmpSocket>();
  if (!opened->open(family)) {
    failed = true;
    return nullptr;
  }
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLERR;
  const std::uint32_t slot = family == AF_INET6 ? k_icmp6_slot : k_icmp4_slot;
  ev.data.u64 = (static_cast<std::uint64_t>(slot) << 2) | stream_tag_;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, opened->fd(), &ev) != 0) {
    failed = true;
    return nullptr;
  }
  socket = std::move(opened);
  return socket.get();
}

bool PingRunner::start(std::span<const std::string> argv, std::int64_t kill_at_ns, std::uint64_t ticket) {
  std::optional<PingOptions> options = parse_ping_options(argv);
  if (!options) return false;
  // A name may turn out IPv4 or IPv6 only when its answer comes, so both sockets must be there first
  // (-4 / -6: that family's); a numeric address needs its own family's.
  std::vector<Address> addresses;
  int error = 0;
  const bool numeric = numeric_addresses(options->address, options->family, 0, addresses, error);
  if (!numeric && options->address.find(':') != std::string::npos) return false;
  if (numeric) {
    if (socket_for(addresses.front().storage.ss_family) == nullptr) return false;
  } else {
    if (options->family != AF_INET6 && socket_for(AF_INET) == nullptr) return false;
    if (options->family != AF_INET && socket_for(AF_INET6) == nullptr) return false;
  }

  const std::uint32_t slot = slots_.acquire();
  Ping& p = slots_[slot];
  p.ticket = ticket;
  p.options = std::move(*options);
  p.start_us = wall_us();
  p.kill_ns = kill_at_ns;
  p.deadline_ns = mono_ns() + p.options.deadline_s * k_second_ns;
  slots_.add_deadline(slot, std::min(p.deadline_ns, p.kill_ns));
  if (numeric || resolver_.lookup_cached(p.options.address, p.options.family, 0, addresses)) {
    begin(slot, addresses);
    return true;
  }
  p.resolving = true;
  resolver_.request(p.options.address, p.options.family, 0, slots_.ticket(slot));
  return true;
}

void PingRunner::take_answers() {
  for (ResolverInbox::Answer& a : resolver_.take()) {
    std::uint32_t slot;
    if (!slots_.from_ticket(a.ticket, slot) || !slots_[slot].resolving) continue;
    slots_[slot].resolving = false;
    if (a.error != 0 || a.addresses.empty()) {
      finish(slot, report_ping_invalid_host(slots_[slot].options));
      continue;
    }
    begin(slot, a.addresses);
  }
}

// With addresses of both families the plugin runs ping -6 (is_inet6_addr() holds) unless -4 was given,
// and ping takes getaddrinfo's first address of its family.
void PingRunner::begin(std::uint32_t slot, const std::vector<Address>& addresses) {
  Ping& p = slots_[slot];
  const auto of = [&](int family) {
    return std::find_if(addresses.begin(), addresses.end(),
                        [&](const Address& a) { return a.storage.ss_family == family; });
  };
  auto chosen = p.options.family != AF_INET ? of(AF_INET6) : addresses.end();
  if (chosen == addresses.end() && p.options.family != AF_INET6) chosen = of(AF_INET);
  if (chosen == addresses.end()) return finish(slot, report_ping_invalid_host(p.options));
  p.target = *chosen;
  p.ipv6 = p.target.storage.ss_family == AF_INET6;
  p.socket = socket_for(p.ipv6 ? AF_INET6 : AF_INET);  // opened in start()
  send_next(slot, mono_ns());
}

void PingRunner::send_next(std::uint32_t slot, std::int64_t now_ns) {
  Ping& p = slots_[slot];
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
  if (error != 0 && error != EAGAIN && error != ENOBUFS) {
    p.tally.send_errno = error;  // ping reports it and exits
    return finish(slot, report_ping(p.options, p.tally, p.ipv6));
  }
  ++p.tally.transmitted;  // a full send buffer loses the packet, as the network would
  sent_.emplace(seq, Sent{slot, p.serial, sent_ns, false});
  p.seqs.push_back(seq);
  p.next_send_ns = now_ns + k_second_ns;
  if (p.next_send_ns < p.deadline_ns) slots_.add_deadline(slot, p.next_send_ns);
}

void PingRunner::on_event(std::uint32_t slot) {
  if (slot == k_inbox_slot) return take_answers();
  IcmpSocket* socket = slot == k_icmp6_slot ? icmp6_.get() : icmp4_.get();
  if (socket != nullptr) read(*socket);
}

void PingRunner::read(IcmpSocket& socket) {
  const bool errors = socket.kind() == IcmpSocket::Kind::datagram;
  for (IcmpSocket::Event e; socket.next(e, errors);) {
    const auto it = sent_.find(e.seq);
    if (it == sent_.end() || !slots_.current(it->second.slot, it->second.serial)) continue;
    const std::uint32_t slot = it->second.slot;
    Ping& p = slots_[slot];
    if (p.socket != &socket) continue;
    if (e.what == IcmpSocket::Event::What::error) {
      // ping prints the error and, given a deadline, stops at the first one.
      p.tally.error_line = p.ipv6 ? icmp6_error_text(e.type, e.code) : icmp4_error_text(e.type, e.code);
      finish(slot, report_ping(p.options, p.tally, p.ipv6));
      continue;
    }
    // A reply to an earlier request that had this sequence number: not this one's.
    if (e.nonce != static_cast<std::uint64_t>(it->second.sent_ns)) continue;
    // ping's triptime: whole microseconds.
    p.tally.rtt_sum_us += (mono_ns() - it->second.sent_ns) / 1000;
    if (it->second.answered) {
      ++p.tally.duplicates;
      continue;
    }
    it->second.answered = true;
    if (++p.tally.received >= p.options.packets) finish(slot, report_ping(p.options, p.tally, p.ipv6));
  }
}

std::int64_t PingRunner::next_deadline_ns() {
  return slots_.next_deadline_ns();
}

void PingRunner::expire(std::int64_t now_ns) {
  slots_.expire(now_ns, [&](std::uint32_t slot) {
    Ping& p = slots_[slot];
    if (p.kill_ns <= now_ns && p.kill_ns <= p.deadline_ns) {
      finish(slot, {}, true);
    } else if (p.deadline_ns <= now_ns) {
      finish(slot, report_ping(p.options, p.tally, p.ipv6));
    } else if (!p.resolving && p.next_send_ns <= now_ns) {
      send_next(slot, now_ns);
    }
  });
}

void PingRunner::finish(std::uint32_t slot, PluginRun&& run, bool killed) {
  Ping& p = slots_[slot];
  finished_.push_back({p.ticket, std::move(run), killed, p.start_us, wall_us()});
  for (const std::uint16_t seq : p.seqs) sent_.erase(seq);
  p.seqs.clear();
  slots_.release(slot);
}

void PingRunner::abort_all() {
  slots_.release_all([](Ping&) {});
  sent_.clear();
  resolver_.unwatch();
  icmp4_.reset();  // closing leaves the epoll set
  icmp6_.reset();
}

}  // namespace vedette::native
