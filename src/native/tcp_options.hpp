// check_tcp's command line, read as plugins/check_tcp.c (monitoring-plugins 2.3) reads it, for the options
// run natively: -H -p -w -c -t -4 -6 -s -e -q -E -r -M, and -A -j -m. Pure; any thread.
#pragma once

#include "native/plugin_args.hpp"

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vedette::native {

struct TcpOptions {
  std::string address = "127.0.0.1";  // the plugin's default when no host is given
  bool host_specified = false;        // -H given: the output names the address
  int port = 0;
  int family = 0;  // AF_UNSPEC, AF_INET (-4), AF_INET6 (-6)
  bool has_warning = false, has_critical = false;
  double warning = 0, critical = 0;  // seconds, strtod
  int timeout_s = 10;                // DEFAULT_SOCKET_TIMEOUT
  std::optional<std::string> send, quit;
  std::vector<std::string> expect;
  bool match_all = false;    // -A
  bool hide_output = false;  // -j
  std::size_t maxbytes = 0;  // -m; 0: no limit
  int refuse_state = 2;      // -r
  int mismatch_state = 1;    // -M
};

// Run time: the options of a check_tcp argv (argv[0] the program), or std::nullopt when the plugin would do
// anything but connect (usage text, an option not run natively, a unix socket, no port): then it runs as a
// process.
[[nodiscard]] std::optional<TcpOptions> parse_tcp_options(std::span<const std::string> argv);

// Load time: why these words (argv[1..]; unknown ones come from macros) keep the command a process, or "".
[[nodiscard]] std::string check_tcp_refusal(std::span<const ArgWord> words);

}  // namespace vedette::native
