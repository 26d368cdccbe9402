// A timeperiod as the evaluator sees it: its rules plus the periods it excludes, named by index into the same
// table. The engine builds one table per model (core thread) and only reads it afterwards; any thread may
// read.
//   std::vector<Period> table(model.timeperiods.size());   // table[i] mirrors TimeperiodId{i}
//   table[i] = {&tp.rules, {PeriodIndex{excluded id}, ...}};
#pragma once

#include "timeperiod/timeperiod_rules.hpp"

#include <cstdint>
#include <vector>

namespace vedette::timeperiod {

enum class PeriodIndex : std::uint32_t {};

// "No period": always valid, as Naemon treats a NULL timeperiod (e.g. an empty check_period).
inline constexpr PeriodIndex k_no_period{0xFFFF'FFFFu};

struct Period {
  const Rules* rules = nullptr;  // not owned; must outlive every Evaluator built over the table
  // Naemon's `exclude` list, in its order; each excluded period's own exclusions apply too.
  std::vector<PeriodIndex> exclusions;
};

}  // namespace vedette::timeperiod
