// A timeperiod: weekday ranges, date exceptions and excluded periods.
// Built by config/ on one thread; read-only, and read from any thread, once the model is published.
#pragma once

#include "model/ids.hpp"
#include "timeperiod/timeperiod_rules.hpp"

#include <string_view>
#include <vector>

namespace vedette::model {

struct Timeperiod {
  std::string_view name;
  std::string_view alias;
  timeperiod::Rules rules;
  std::vector<TimeperiodId> exclusions;
};

}  // namespace vedette::model
