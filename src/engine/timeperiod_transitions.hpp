// naemon-livestatus' TIMEPERIOD TRANSITION log lines (its TimeperiodsCache), which Thruk's availability
// reports and the log and statehist tables read: while Livestatus runs, every timeperiod's state when it
// starts (`TIMEPERIOD TRANSITION: <name>;-1;<0|1>`) and, looked at once a minute as the module does, each
// change (`<name>;<old>;<new>`); from -1 again after a reload, as the module is loaded anew. Core thread.
//
//   TimeperiodTransitions transitions(world);
//   transitions.start();   // at start and after each reload swap, once Livestatus is on
#pragma once

#include "engine/world/world.hpp"
#include "loop/loop.hpp"

#include <cstdint>
#include <vector>

namespace vedette::engine {

class TimeperiodTransitions final : public loop::TimerHandler {
 public:
  explicit TimeperiodTransitions(World& world);
  ~TimeperiodTransitions();
  TimeperiodTransitions(const TimeperiodTransitions&) = delete;
  TimeperiodTransitions& operator=(const TimeperiodTransitions&) = delete;

  // Logs every timeperiod of the current model as entered from -1 and looks again at each minute
  // boundary (the module's granularity: timeperiods are defined to the minute).
  void start();

  void on_timer(loop::TimerId id) override;

 private:
  void arm_next_minute();

  World& w_;
  loop::TimerId timer_;
  std::vector<std::uint8_t> inside_;  // per timeperiod of the model: 1 in, 0 out
};

}  // namespace vedette::engine
