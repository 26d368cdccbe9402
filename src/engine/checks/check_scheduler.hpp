// Naemon's scheduling rules, on the checks' timers (CheckTimers): a check's next_check in the hot state
// follows every timer armed here. When a check first runs (spread over its interval, or where
// use_retained_scheduling_info keeps it), SCHEDULE_*_CHECK (an earlier check stands unless forced), a check
// "now" (schedule_*_check(now): an earlier one stands), a random point within the interval after a change,
// what a result asks (ScheduleFollowups), and where checks stand after a reload. Core thread only.
//
//   CheckScheduler scheduler(world, timers);
//   scheduler.initial(retained_ok);                   // start-up
//   scheduler.at(check, when, /*forced=*/true);        // SCHEDULE_FORCED_SVC_CHECK
//   scheduler.follow(check, pipeline.apply_service(...), ended);
#pragma once

#include "engine/checks/check_timers.hpp"
#include "engine/checks/result_pipeline.hpp"
#include "engine/state/check_id.hpp"
#include "engine/state/core_time.hpp"
#include "engine/world/world.hpp"

#include <cstdint>

namespace vedette::engine {

class CheckScheduler {
 public:
  CheckScheduler(World& world, CheckTimers& timers) : w_(world), timers_(timers) {}

  // Start-up: each check's first run at a random point within its own interval, so checks spread evenly
  // and nothing runs in a burst; with `retained` (use_retained_scheduling_info and a usable file) a retained
  // next_check is kept where Naemon keeps it (retention::initial_check_delay).
  void initial(bool retained);
  // SCHEDULE_*_CHECK: at `when` (epoch); an earlier check already scheduled stands unless `forced`.
  // `options`: Naemon's check_options of that check (force_execution is added when forced).
  void at(CheckId check, Time when, bool forced, std::uint8_t options = 0);
  // The check's timer `delay` after `base`; the check scheduled so has `options` (status' check_options).
  void arm(CheckId check, Instant base, loop::Duration delay, std::uint8_t options = 0);
  // Naemon's schedule_*_check(now): not while running, and an earlier check already scheduled stands.
  void now(CheckId check);
  // Naemon's schedule_next_*_check(check_window): a random point within the check interval from now.
  void within_interval(CheckId check);
  // What a result asks of the schedule, after everything else it did (Naemon's order); `base` is when the
  // result counts as applied.
  void follow(CheckId check, const ScheduleFollowups& next, Instant base);
  // After a reload's remap: kept checks stay where they were (within their new interval); new ones, and
  // kept ones that had no regular check before, are spread over their first interval.
  void after_reload(const ByCheck<std::uint8_t>& was_armed);

 private:
  World& w_;
  CheckTimers& timers_;
};

}  // namespace vedette::engine
