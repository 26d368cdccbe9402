#include "tsdb/connection.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace vedette::tsdb {
namespace {

std::string errno_text(int error) {
  return error == ECANCELED ? "cancelled" : std::strerror(error);
}

}  // namespace

// poll() for `events` on fd, up to `timeout`, restarting after signals. 0: timed out, -1: error (errno;
// ECANCELED when the cancel fd fired).
int Connection::wait_for(int fd, short events, std::chrono::milliseconds timeout, short& revents) const {
  pollfd p[2] = {{fd, events, 0}, {cancel_fd_, POLLIN, 0}};
  const nfds_t count = cancel_fd_ >= 0 ? 2 : 1;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    const int n = ::poll(p, count, static_cast<int>(std::max<long long>(0, left.count())));
    if (n < 0 && errno == EINTR) continue;
    if (count == 2 && p[1].revents != 0) {
      errno = ECANCELED;
      return -1;
    }
    revents = p[0].revents;
    return n;
  }
}

base::Status Connection::connect(const std::string& host, std::uint16_t port,
                                 std::chrono::milliseconds timeout) {
  close();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    return base::Error{fmt::format("cannot resolve '{}': {}", host, ::gai_strerror(rc))};
  }
  const std::unique_ptr<addrinfo, void (*)(addrinfo*)> addresses(found, ::freeaddrinfo);
  std::string error = "no address";  // the last address's failure
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      error = errno_text(errno);
      continue;
    }
    int rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc < 0 && errno == EINPROGRESS) {
      short revents = 0;
      rc = wait_for(fd, POLLOUT, timeout, revents);
      if (rc == 0) {
        error = "timed out";
        ::close(fd);
        continue;
      }
      int so_error = 0;
      socklen_t len = sizeof so_error;
      if (rc < 0 || ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len) < 0) so_error = errno;
      errno = so_error;
      rc = so_error == 0 ? 0 : -1;
    }
    if (rc < 0) {
      error = errno_text(errno);
      ::close(fd);
      continue;
    }
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fd_ = fd;
    return base::Status::ok();
  }
  return base::Error{error};
}

base::Status Connection::send_all(std::string_view data, std::chrono::milliseconds timeout,
                                  std::size_t& sent) {
  sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return base::Error{errno_text(errno)};
    short revents = 0;
    const int rc = wait_for(fd_, POLLOUT, timeout, revents);
    if (rc == 0) return base::Error{"timed out sending"};
    if (rc < 0) return base::Error{errno_text(errno)};
  }
  return base::Status::ok();
}

base::Status Connection::receive(std::string& in, std::chrono::milliseconds timeout) {
  short revents = 0;
  const int rc = wait_for(fd_, POLLIN, timeout, revents);
  if (rc == 0) return base::Error{"timed out waiting for an answer"};
  if (rc < 0) return base::Error{errno_text(errno)};
  char buffer[4096];
  while (true) {
    const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    if (n > 0) {
      in.append(buffer, static_cast<std::size_t>(n));
      return base::Status::ok();
    }
    if (n < 0 && errno == EINTR) continue;
    return base::Error{n == 0 ? "connection closed by peer" : errno_text(errno)};
  }
}

bool Connection::peer_closed() const {
  short revents = 0;
  if (wait_for(fd_, POLLIN, std::chrono::milliseconds(0), revents) <= 0) return false;
  if (revents & (POLLERR | POLLHUP)) return true;
  char byte = 0;
  const ssize_t n = ::recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

void Connection::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace vedette::tsdb
