// Parses the weekday and exception lines of a timeperiod definition into timeperiod::Rules, accepting exactly
// the lines Naemon accepts. Load time only; no shared state, so any thread may call it on its own Rules.
//   if (base::Status s = parse_timeperiod_line("monday 3 may 00:00-24:00", rules); !s) diags.error(s.error(),
//   at);
#pragma once

#include "base/expected.hpp"
#include "timeperiod/timeperiod_rules.hpp"

#include <string_view>

namespace vedette::config {

// `line` is the whole directive after trimming, e.g. "day 1 - 15 / 3 00:00-24:00". The caller handles the
// other timeperiod attributes (name, timeperiod_name, alias, exclude, use, register) before calling this.
// On failure `rules` is unchanged and the error is a lower-case message without file:line.
[[nodiscard]] base::Status parse_timeperiod_line(std::string_view line, timeperiod::Rules& rules);

}  // namespace vedette::config
