// np_net_connect's walk over a name's addresses, non-blocking: each address in turn until one connects;
// the errno of the last attempt is the one the plugin prints. Shared by check_tcp and check_http. Executor
// thread; no state of its own.
#pragma once

#include "native/resolver.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vedette::native {

enum class ConnectStep {
  connected,    // fd is connected
  in_progress,  // fd is connecting: wait until writable, then connect_result()
  failed,       // no address left: last_error says why
  no_socket,    // socket() failed ("Socket creation failed")
};

// Starts the next address at `next` (advanced). fd < 0 on failed and no_socket.
[[nodiscard]] ConnectStep connect_next(const std::vector<Address>& addresses, std::size_t& next, int& fd,
                                       int& last_error);

// After a writable (or error) event on a connecting fd: 0 if connected, else the connect's errno (-1: the
// event was spurious, keep waiting).
[[nodiscard]] int connect_result(int fd, std::uint32_t events);

}  // namespace vedette::native
