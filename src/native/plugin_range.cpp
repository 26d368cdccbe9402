#include "native/plugin_range.hpp"

#include "native/plugin_run.hpp"

#include <cstdlib>
#include <cstring>

namespace vedette::native {

std::optional<PluginRange> parse_plugin_range(const std::string& text) {
  PluginRange r;
  const char* str = text.c_str();
  if (str[0] == '@') {
    r.alert_inside = true;
    ++str;
  }
  const char* end_str = std::strchr(str, ':');
  if (end_str != nullptr) {
    if (str[0] == '~') {
      r.start_infinity = true;
    } else {
      r.start = std::strtod(str, nullptr);  // stops at the ':'
      r.start_infinity = false;
    }
    ++end_str;
  } else {
    end_str = str;
  }
  const double end = std::strtod(end_str, nullptr);
  if (*end_str != '\0') {
    r.end = end;
    r.end_infinity = false;
  }
  if (r.start_infinity || r.end_infinity || r.start <= r.end) return r;
  return std::nullopt;
}

bool range_alerts(double value, const PluginRange& r) {
  const bool no = r.alert_inside, yes = !r.alert_inside;
  if (!r.end_infinity && !r.start_infinity) return (r.start <= value && value <= r.end) ? no : yes;
  if (!r.start_infinity && r.end_infinity) return r.start <= value ? no : yes;
  if (r.start_infinity && !r.end_infinity) return value <= r.end ? no : yes;
  return no;
}

int threshold_state(double value, const PluginThresholds& t) {
  if (t.critical && range_alerts(value, *t.critical)) return k_state_critical;
  if (t.warning && range_alerts(value, *t.warning)) return k_state_warning;
  return k_state_ok;
}

}  // namespace vedette::native
