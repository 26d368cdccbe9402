// One ICMP echo socket per address family on an executor thread, shared by every native ping there: an
// unprivileged datagram ("ping") socket where net.ipv4.ping_group_range admits the daemon's group, else a
// raw socket (needs CAP_NET_RAW). Replies and errors are told apart by sequence number; the caller maps them
// to its checks. Non-blocking; executor thread only.
#pragma once

#include <cstdint>
#include <string>
#include <sys/socket.h>

namespace vedette::native {

class IcmpSocket {
 public:
  enum class Kind : std::uint8_t { none, datagram, raw };

  IcmpSocket() = default;
  ~IcmpSocket();
  IcmpSocket(const IcmpSocket&) = delete;
  IcmpSocket& operator=(const IcmpSocket&) = delete;

  // Opens it for AF_INET or AF_INET6. False when neither kind is allowed here.
  [[nodiscard]] bool open(int family);
  [[nodiscard]] int fd() const { return fd_; }
  [[nodiscard]] Kind kind() const { return kind_; }

  // One echo request with `seq`, `nonce` in its payload (the reply echoes it back); 0, or the errno of a
  // send that failed locally.
  [[nodiscard]] int send_echo(const sockaddr_storage& to, socklen_t length, std::uint16_t seq,
                              std::uint64_t nonce);

  struct Event {
    enum class What : std::uint8_t { reply, error } what = What::reply;
    std::uint16_t seq = 0;
    int type = 0, code = 0;   // the ICMP error's
    std::uint64_t nonce = 0;  // the reply's
    std::string from;         // the error's sender, numeric (check_icmp prints it)
  };
  // The next reply or error for one of our requests, without waiting; false when nothing is pending.
  // `errors` also reads the error queue (a datagram socket reports ICMP errors only there).
  [[nodiscard]] bool next(Event& event, bool errors);

 private:
  [[nodiscard]] bool next_error(Event& event);

  int fd_ = -1;
  int family_ = 0;
  Kind kind_ = Kind::none;
  std::uint16_t id_ = 0;  // raw: the identifier we send; datagram: the kernel sets it
};

}  // namespace vedette::native
