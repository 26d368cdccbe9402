// check_icmp's verdict and text for one target: plugins-root/check_icmp.c's finish(). Pure; any thread.
#pragma once

#include "native/icmp_options.hpp"
#include "native/plugin_run.hpp"

#include <cstdint>
#include <string>

namespace vedette::native {

struct IcmpTally {
  std::uint32_t sent = 0, received = 0;
  std::uint64_t waited_us = 0;  // the replies' round trips summed
  std::uint32_t rtmax_us = 0, rtmin_us = 0;
  // An ICMP error for one of the requests made the target "a lost cause": its type, code and sender.
  bool lost_cause = false;
  int error_type = 0, error_code = 0;
  std::string error_from;
};

// get_icmp_error_msg(): "Net unreachable", "Host unreachable", "Time to live exceeded in transit", …
[[nodiscard]] const char* icmp_error_message(int type, int code);

[[nodiscard]] PluginRun report_icmp(const IcmpOptions& options, const IcmpTally& tally);

// add_target()'s crashes: the name did not resolve, or resolved to an address the plugin drops.
[[nodiscard]] PluginRun report_icmp_unresolved(const IcmpOptions& options, const std::string& why);
[[nodiscard]] PluginRun report_icmp_no_hosts();

}  // namespace vedette::native
