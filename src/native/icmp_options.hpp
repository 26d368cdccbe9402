// check_icmp's command line, read as plugins-root/check_icmp.c (monitoring-plugins 2.3.3) reads it, for
// what runs natively: one target (-H or an operand) and -w -c -n -p -t -i -I -4 -6. Several targets, -v,
// -s -b -l -m and what the plugin crashes on stay processes. Pure; any thread.
#pragma once

#include "native/plugin_args.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace vedette::native {

struct IcmpOptions {
  std::string target;  // as given: the output names it so
  int family = 0;      // AF_UNSPEC, or -4 / -6
  // Thresholds as the plugin keeps them: RTA in µs, loss in percent.
  std::uint32_t warning_rta_us = 200'000, critical_rta_us = 500'000;
  std::uint32_t warning_pl = 40, critical_pl = 80;
  std::uint32_t packets = 5;
  std::uint32_t packet_interval_us = 80'000;  // -i
  std::uint32_t target_interval_us = 0;       // -I
  std::uint32_t timeout_s = 10;               // -t: the alarm that ends the run
  // packets x (interval + critical RTA) + target interval + critical RTA: when the plugin stops waiting.
  [[nodiscard]] std::uint64_t max_completion_us() const;
};

// Run time: the options, or std::nullopt when the plugin would crash, print its usage or help, or do what
// is not native (then it runs as a process).
[[nodiscard]] std::optional<IcmpOptions> parse_icmp_options(std::span<const std::string> argv);

// Load time: why these words (argv[1..]; unknown ones come from macros) keep the command a process, or "".
[[nodiscard]] std::string check_icmp_refusal(std::span<const ArgWord> words);

// get_timevar(): "80", "80ms", "0.5s", "500us" in µs, with the plugin's unit and decimal rules.
[[nodiscard]] std::uint32_t icmp_time_us(const std::string& text);

}  // namespace vedette::native
