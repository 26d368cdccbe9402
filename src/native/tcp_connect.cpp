#include "native/tcp_connect.hpp"

#include "loop/epoll.hpp"

#include <cerrno>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace vedette::native {

ConnectStep connect_next(const std::vector<Address>& addresses, std::size_t& next, int& fd, int& last_error) {
  while (next < addresses.size()) {
    const Address& a = addresses[next++];
    fd = ::socket(a.storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
    if (fd < 0) return ConnectStep::no_socket;
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&a.storage), a.length) == 0)
      return ConnectStep::connected;
    if (errno == EINPROGRESS) return ConnectStep::in_progress;
    last_error = errno;
    ::close(fd);
    fd = -1;
  }
  return ConnectStep::failed;
}

int connect_result(int fd, std::uint32_t events) {
  int error = 0;
  socklen_t len = sizeof error;
  if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0) error = errno;
  if (error == 0 && !(events & (loop::Epoll::error | loop::Epoll::hang_up))) return 0;
  return error == 0 ? -1 : error;
}

}  // namespace vedette::native
