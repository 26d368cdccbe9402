// Parses the weekday and exception lines of a timeperiod definition into timeperiod::Rules, accepting exactly
// the lines Naemon accepts. Load time only; no shared state, so any thread may call it on its own Rules.
//   std::string error;
//   if (!parse_timeperiod_line("monday 3 may 00:00-24:00", rules, error)) diags.error(error, at);
#pragma once

#include "timeperiod/timeperiod_rules.hpp"

#include <string>
#include <string_view>

namespace vedette::config {

// `line` is the whole directive after trimming, e.g. "day 1 - 15 / 3 00:00-24:00". The caller handles the
// other timeperiod attributes (name, timeperiod_name, alias, exclude, use, register) before calling this.
// On failure `rules` is unchanged and `error` holds a lower-case message without file:line.
[[nodiscard]] bool parse_timeperiod_line(std::string_view line, timeperiod::Rules& rules, std::string& error);

}  // namespace vedette::config
