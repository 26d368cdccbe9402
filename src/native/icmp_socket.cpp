#include "native/icmp_socket.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <linux/errqueue.h>
#include <linux/icmp.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <unistd.h>

namespace vedette::native {
namespace {

constexpr std::size_t k_payload = 56;  // ping's default: 64 bytes of ICMP
constexpr int k_receive_buffer = 1 << 20;

std::uint16_t checksum(const unsigned char* data, std::size_t size) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i + 1 < size; i += 2) sum += static_cast<std::uint32_t>(data[i] << 8 | data[i + 1]);
  if (size % 2 != 0) sum += static_cast<std::uint32_t>(data[size - 1] << 8);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

std::uint16_t read16(const unsigned char* p) {
  return static_cast<std::uint16_t>(p[0] << 8 | p[1]);
}

std::string numeric_address(const sockaddr_storage& a) {
  char text[INET6_ADDRSTRLEN] = "";
  if (a.ss_family == AF_INET)
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(a).sin_addr, text, sizeof text);
  else if (a.ss_family == AF_INET6)
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6&>(a).sin6_addr, text, sizeof text);
  return text;
}

// Distinct identifiers for the raw sockets of this process's threads.
std::uint16_t next_raw_id() {
  static std::atomic<std::uint16_t> counter{0};
  return static_cast<std::uint16_t>((::getpid() * 31 + counter.fetch_add(1)) & 0xffff);
}

}  // namespace

IcmpSocket::~IcmpSocket() {
  if (fd_ >= 0) ::close(fd_);
}

bool IcmpSocket::open(int family) {
  const int protocol = family == AF_INET6 ? static_cast<int>(IPPROTO_ICMPV6) : static_cast<int>(IPPROTO_ICMP);
  family_ = family;
  fd_ = ::socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, protocol);
  if (fd_ >= 0) {
    kind_ = Kind::datagram;
    const int one = 1;
    if (family == AF_INET6)
      ::setsockopt(fd_, IPPROTO_IPV6, IPV6_RECVERR, &one, sizeof one);
    else
      ::setsockopt(fd_, IPPROTO_IP, IP_RECVERR, &one, sizeof one);
  } else {
    fd_ = ::socket(family, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, protocol);
    if (fd_ < 0) return false;
    kind_ = Kind::raw;
    id_ = next_raw_id();
    // Only what answers an echo: every raw ICMP socket gets a copy of every ICMP packet the host receives.
    if (family == AF_INET6) {
      icmp6_filter filter;
      ICMP6_FILTER_SETBLOCKALL(&filter);
      ICMP6_FILTER_SETPASS(ICMP6_ECHO_REPLY, &filter);
      ICMP6_FILTER_SETPASS(ICMP6_DST_UNREACH, &filter);
      ICMP6_FILTER_SETPASS(ICMP6_TIME_EXCEEDED, &filter);
      ::setsockopt(fd_, IPPROTO_ICMPV6, ICMP6_FILTER, &filter, sizeof filter);
    } else {
      icmp_filter filter{~((1U << ICMP_ECHOREPLY) | (1U << ICMP_DEST_UNREACH) | (1U << ICMP_TIME_EXCEEDED))};
      ::setsockopt(fd_, SOL_RAW, ICMP_FILTER, &filter, sizeof filter);
    }
  }
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &k_receive_buffer, sizeof k_receive_buffer);
  return true;
}

int IcmpSocket::send_echo(const sockaddr_storage& to, socklen_t length, std::uint16_t seq,
                          std::uint64_t nonce) {
  unsigned char packet[8 + k_payload] = {};
  packet[0] = family_ == AF_INET6 ? ICMP6_ECHO_REQUEST : ICMP_ECHO;
  packet[4] = static_cast<unsigned char>(id_ >> 8);
  packet[5] = static_cast<unsigned char>(id_ & 0xff);
  packet[6] = static_cast<unsigned char>(seq >> 8);
  packet[7] = static_cast<unsigned char>(seq & 0xff);
  std::memcpy(packet + 8, &nonce, sizeof nonce);
  for (std::size_t i = sizeof nonce; i < k_payload; ++i) packet[8 + i] = static_cast<unsigned char>(i);
  if (family_ == AF_INET && kind_ == Kind::raw) {  // the kernel sums the others
    const std::uint16_t sum = checksum(packet, sizeof packet);
    packet[2] = static_cast<unsigned char>(sum >> 8);
    packet[3] = static_cast<unsigned char>(sum & 0xff);
  }
  while (true) {
    const ssize_t n =
        ::sendto(fd_, packet, sizeof packet, MSG_DONTWAIT, reinterpret_cast<const sockaddr*>(&to), length);
    if (n >= 0) return 0;
    if (errno == EINTR) continue;
    return errno;
  }
}

bool IcmpSocket::next(Event& event, bool errors) {
  unsigned char buffer[1500];
  while (true) {
    sockaddr_storage sender{};
    socklen_t sender_length = sizeof sender;
    const ssize_t n = ::recvfrom(fd_, buffer, sizeof buffer, MSG_DONTWAIT,
                                 reinterpret_cast<sockaddr*>(&sender), &sender_length);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errors && next_error(event);
    }
    const unsigned char* icmp = buffer;
    std::size_t size = static_cast<std::size_t>(n);
    if (family_ == AF_INET && kind_ == Kind::raw) {  // a raw IPv4 socket reads the IP header too
      if (size < 20) continue;
      const std::size_t header = static_cast<std::size_t>(buffer[0] & 0x0f) * 4;
      if (size < header + 8) continue;
      icmp += header;
      size -= header;
    }
    if (size < 8) continue;
    const int type = icmp[0];
    const bool reply = family_ == AF_INET6 ? type == ICMP6_ECHO_REPLY : type == ICMP_ECHOREPLY;
    if (reply) {
      if (kind_ == Kind::raw && read16(icmp + 4) != id_) continue;  // someone else's ping
      if (size < 8 + sizeof(std::uint64_t)) continue;
      event = {Event::What::reply, read16(icmp + 6), 0, 0, 0, {}};
      std::memcpy(&event.nonce, icmp + 8, sizeof event.nonce);
      return true;
    }
    if (kind_ != Kind::raw) continue;
    // An error quotes the packet it is about: its IP header, then our ICMP header.
    const unsigned char* quoted = icmp + 8;
    std::size_t left = size - 8;
    if (family_ == AF_INET) {
      if (left < 20 || quoted[9] != IPPROTO_ICMP) continue;
      const std::size_t header = static_cast<std::size_t>(quoted[0] & 0x0f) * 4;
      if (left < header + 8) continue;
      quoted += header;
      left -= header;
      if (quoted[0] != ICMP_ECHO) continue;
    } else {
      if (left < 48 || quoted[6] != IPPROTO_ICMPV6) continue;
      quoted += 40;
      if (quoted[0] != ICMP6_ECHO_REQUEST) continue;
    }
    if (read16(quoted + 4) != id_) continue;
    event = {Event::What::error, read16(quoted + 6), type, icmp[1], 0, numeric_address(sender)};
    return true;
  }
}

bool IcmpSocket::next_error(Event& event) {
  while (true) {
    unsigned char data[576];
    unsigned char control[512];
    iovec iov{data, sizeof data};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t n = ::recvmsg(fd_, &msg, MSG_ERRQUEUE | MSG_DONTWAIT);
    if (n < 0) return errno == EINTR ? next_error(event) : false;
    if (n < 8) continue;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
      const bool v4 = c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_RECVERR;
      const bool v6 = c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_RECVERR;
      if (!v4 && !v6) continue;
      sock_extended_err error;
      std::memcpy(&error, CMSG_DATA(c), sizeof error);
      if (error.ee_origin != SO_EE_ORIGIN_ICMP && error.ee_origin != SO_EE_ORIGIN_ICMP6) break;
      sockaddr_storage offender{};
      std::memcpy(&offender, SO_EE_OFFENDER(reinterpret_cast<sock_extended_err*>(CMSG_DATA(c))),
                  std::min(sizeof offender, static_cast<std::size_t>(c->cmsg_len - CMSG_LEN(sizeof error))));
      event = {Event::What::error,       read16(data + 6), error.ee_type, error.ee_code, 0,
               numeric_address(offender)};
      return true;
    }
  }
}

}  // namespace vedette::native
