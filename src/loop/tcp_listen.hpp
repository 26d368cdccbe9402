// A listening TCP socket from "host:port" (host a name, an IPv4 address, [IPv6] or empty for every
// address), and whether such a listener is reachable only from this machine. Livestatus' and the metrics'
// listeners share them. Any thread.
#pragma once

#include "base/expected.hpp"

#include <string>
#include <string_view>

namespace vedette::loop {

// The host part of "host:port", without the brackets of "[::1]:port"; empty for ":port".
[[nodiscard]] std::string listen_host(std::string_view host_port);

// Whether `host` (as listen_host() gives it) is a loopback one: localhost, 127.0.0.0/8, ::1. Empty (every
// address) is not.
[[nodiscard]] bool is_loopback_host(const std::string& host);

// A non-blocking, close-on-exec listening socket, or why not (without a prefix naming the caller: "'x' is
// not host:port", "cannot listen on h:p: Address already in use").
[[nodiscard]] base::Expected<int> listen_tcp(const std::string& host_port, int backlog);

}  // namespace vedette::loop
