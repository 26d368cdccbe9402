#include "engine/timeperiod_transitions.hpp"

#include "engine/state/core_time.hpp"
#include "model/model.hpp"

#include <fmt/format.h>

namespace vedette::engine {

TimeperiodTransitions::TimeperiodTransitions(World& world) : w_(world), timer_(w_.loop.add_timer(*this)) {}

TimeperiodTransitions::~TimeperiodTransitions() {
  w_.loop.remove_timer(timer_);
}

void TimeperiodTransitions::start() {
  const Time now = w_.now_epoch();
  const std::vector<model::Timeperiod>& periods = w_.model->timeperiods;
  inside_.assign(periods.size(), 0);
  for (std::size_t i = 0; i < periods.size(); ++i) {
    inside_[i] = w_.evaluator.is_time_valid(static_cast<timeperiod::PeriodIndex>(i), now) ? 1 : 0;
    w_.log(fmt::format("TIMEPERIOD TRANSITION: {};-1;{}", periods[i].name, inside_[i]));
  }
  arm_next_minute();
}

void TimeperiodTransitions::on_timer(loop::TimerId) {
  const Time now = w_.now_epoch();
  const std::vector<model::Timeperiod>& periods = w_.model->timeperiods;
  for (std::size_t i = 0; i < periods.size() && i < inside_.size(); ++i) {
    const std::uint8_t in = w_.evaluator.is_time_valid(static_cast<timeperiod::PeriodIndex>(i), now) ? 1 : 0;
    if (in == inside_[i]) continue;
    w_.log(fmt::format("TIMEPERIOD TRANSITION: {};{};{}", periods[i].name, inside_[i], in));
    inside_[i] = in;
  }
  arm_next_minute();
}

void TimeperiodTransitions::arm_next_minute() {
  const loop::WallTime wall = w_.clock.wall_now();
  const Time next_minute = (to_epoch(wall) / 60 + 1) * 60;
  w_.loop.arm_timer(timer_, w_.loop.now() + until_epoch(next_minute, wall));
}

}  // namespace vedette::engine
