// check_ping's command line, read as plugins/check_ping.c (monitoring-plugins 2.3) reads it, for what runs
// natively: -H (one address) -w -c (both "<rta>,<pl>%") -p -t -4 -6 -n. Operands (the old positional form),
// several addresses, -L/-v/-h/-V and anything the plugin would refuse stay processes. Pure; any thread.
#pragma once

#include "native/plugin_args.hpp"

#include <optional>
#include <span>
#include <string>

namespace vedette::native {

struct PingOptions {
  std::string address;                      // as given: the messages name it so
  int family = 0;                           // AF_UNSPEC, AF_INET (-4), AF_INET6 (-6)
  float warning_rta = 0, critical_rta = 0;  // ms; the plugin keeps them as float
  int warning_pl = 0, critical_pl = 0;      // percent
  int packets = 5;                          // DEFAULT_MAX_PACKETS
  // The plugin's timeout_interval after validate_arguments(): -t (default 10), raised to fit the packets
  // at the critical RTA. It is ping's -w deadline.
  int deadline_s = 10;
};

// Run time: the options, or std::nullopt when the plugin would print its usage or do what is not native.
[[nodiscard]] std::optional<PingOptions> parse_ping_options(std::span<const std::string> argv);

// Load time: why these words (argv[1..]; unknown ones come from macros) keep the command a process, or "".
[[nodiscard]] std::string check_ping_refusal(std::span<const ArgWord> words);

// The command check_ping runs (Debian's build: "/bin/ping -4 -n -U -w %d -c %d %s"); it prints it before
// "Could not interpret output".
[[nodiscard]] std::string ping_command_line(const PingOptions& options, bool ipv6);

}  // namespace vedette::native
