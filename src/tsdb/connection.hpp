// A TCP connection to a perfdata backend with every wait bounded: non-blocking connect, send and receive
// each poll() for at most their timeout, or until the cancel fd (an eventfd the owner signals to stop)
// becomes readable. Owned and used by one writer thread; never the core's.
#pragma once

#include "base/expected.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace vedette::tsdb {

class Connection {
 public:
  Connection() = default;
  ~Connection() { close(); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Resolves `host` (getaddrinfo, which may block this thread) and connects to the first address that
  // accepts within `timeout`, or says why not ("connection refused", "timed out").
  [[nodiscard]] base::Status connect(const std::string& host, std::uint16_t port,
                                     std::chrono::milliseconds timeout);
  // Everything in `data`, or an error when the peer is gone or does not take a byte for `timeout`. `sent`
  // is how much went out, so a stream can go on after reconnecting.
  [[nodiscard]] base::Status send_all(std::string_view data, std::chrono::milliseconds timeout,
                                      std::size_t& sent);
  // Appends what arrives to `in`, waiting up to `timeout` for the first byte. An error on timeout, error or
  // the peer closing ("connection closed by peer").
  [[nodiscard]] base::Status receive(std::string& in, std::chrono::milliseconds timeout);
  // Whether the peer closed or reset the connection (a readable socket nobody expects data from): checked
  // before reusing an idle connection, without waiting.
  [[nodiscard]] bool peer_closed() const;

  [[nodiscard]] bool is_open() const { return fd_ >= 0; }
  void close();

  // Every later wait also ends, with the error "cancelled", once `fd` is readable. Not owned.
  void set_cancel_fd(int fd) { cancel_fd_ = fd; }

 private:
  [[nodiscard]] int wait_for(int fd, short events, std::chrono::milliseconds timeout, short& revents) const;

  int fd_ = -1;
  int cancel_fd_ = -1;
};

}  // namespace vedette::tsdb
