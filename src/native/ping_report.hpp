// check_ping's verdict and text from what a native ping saw: plugins/check_ping.c's main() and error_scan()
// over what iputils ping (Debian 12: 20221126) would have printed. Pure; any thread.
#pragma once

#include "native/ping_options.hpp"
#include "native/plugin_run.hpp"

#include <cstdint>
#include <string>

namespace vedette::native {

// What ping would have counted and printed.
struct PingTally {
  int transmitted = 0, received = 0, duplicates = 0;
  std::int64_t rtt_sum_us = 0;  // over replies and duplicates, as ping sums them
  // The text of the first error line check_ping's error_scan dies on, or an errno ping printed to stderr
  // (then also a line error_scan may die on); empty when there was none.
  std::string error_line;
  int send_errno = 0;  // a send that failed locally (ping prints it and exits 2)
};

// The ICMP error as ping prints it ("Destination Host Unreachable", "Time to live exceeded", ...).
[[nodiscard]] std::string icmp4_error_text(int type, int code);
[[nodiscard]] std::string icmp6_error_text(int type, int code);

[[nodiscard]] PluginRun report_ping(const PingOptions& options, const PingTally& tally, bool ipv6);

// is_host() failed: the usage text, UNKNOWN.
[[nodiscard]] PluginRun report_ping_invalid_host(const PingOptions& options);

}  // namespace vedette::native
