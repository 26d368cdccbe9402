// The plugins' threshold ranges (lib/utils_base.c: parse_range_string, check_range, get_status): "10",
// "5:10", "~:10", "10:", "@5:10". Pure; any thread.
#pragma once

#include <optional>
#include <string>

namespace vedette::native {

struct PluginRange {
  double start = 0, end = 0;  // end stays 0 when the text gives none ("10:"); perfdata prints it so
  bool start_infinity = false, end_infinity = true;
  bool alert_inside = false;  // '@'
};

// std::nullopt where the plugin dies with "Range format incorrect" (start above end).
[[nodiscard]] std::optional<PluginRange> parse_plugin_range(const std::string& text);

// check_range: whether `value` alerts against the range.
[[nodiscard]] bool range_alerts(double value, const PluginRange& range);

struct PluginThresholds {
  std::optional<PluginRange> warning, critical;
};

// get_status: CRITICAL if the critical range alerts, else WARNING if the warning range does, else OK.
[[nodiscard]] int threshold_state(double value, const PluginThresholds& thresholds);

}  // namespace vedette::native
