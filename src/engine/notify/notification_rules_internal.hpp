// What the files of notification_rules.hpp share: Naemon's state bits and timeperiod tests. Core thread.
#pragma once

#include "engine/state/check_state.hpp"
#include "model/ids.hpp"
#include "model/options.hpp"
#include "timeperiod/evaluator.hpp"

namespace vedette::engine::internal {

// 1 << state, as Naemon's option bits; nothing for a state no option names.
inline model::OptionSet state_bit(int state) {
  return state >= 0 && state < 32 ? model::OptionSet{1} << state : model::OptionSet{0};
}

inline timeperiod::PeriodIndex period_of(model::TimeperiodId id) {
  return model::is_set(id) ? timeperiod::PeriodIndex{model::index(id)} : timeperiod::k_no_period;
}

inline bool is_valid_at(const timeperiod::Evaluator& timeperiods, model::TimeperiodId period, Time t) {
  return timeperiods.is_time_valid(period_of(period), static_cast<std::time_t>(t));
}

}  // namespace vedette::engine::internal
