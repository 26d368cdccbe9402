// Whether a check that fell due runs now: Naemon's handle_service_check_event / handle_host_check_event
// tests, in their order — already running, max_concurrent_checks, execute_*_checks and the object's active
// checks, the cached-result horizon (services), the check_period, execution dependencies and (services)
// failing parents with *_skip_check_dependency_status. A forced check skips them all. The gate also says
// when the check is due next: its regular interval from `at`, or the retry interval when the concurrency
// limit holds it back, or the next valid time of its check_period. What it changes itself is what Naemon
// does there: a skipped dependency check may set the object's state (dependencies.hpp). Core thread only.
//
//   const CheckGate::Decision d = gate.decide(check, at, forced, runner.at_concurrency_limit());
//   if (d.next_in) state.next_check = to_epoch(schedule.arm(check, at, *d.next_in));
//   if (d.action == CheckGate::Action::run) runner.start(check, scheduled, at, forced);
#pragma once

#include "engine/state/check_id.hpp"
#include "engine/state/core_time.hpp"
#include "engine/world/world.hpp"
#include "model/ids.hpp"

#include <cstdint>
#include <optional>

namespace vedette::engine {

class Notifier;

class CheckGate {
 public:
  enum class Action : std::uint8_t {
    skip,       // not now; the next run is as next_in says
    run,        // start the check's command
    assume_up,  // a host without check_command: Naemon runs nothing and takes it as UP
  };
  struct Decision {
    Action action = Action::skip;
    std::optional<loop::Duration> next_in;  // re-arm the check this long after `at`; nothing: leave it
    std::uint8_t check_options = 0;         // of the check so re-armed (state::k_check_option_*)
  };

  // `notifier` for its index of execution dependencies.
  CheckGate(World& world, const Notifier& notifier) : w_(world), notifier_(notifier) {}

  // `at`: the instant the check runs as of (its due time, or now if that passed).
  [[nodiscard]] Decision decide(CheckId check, Instant at, bool forced, bool at_concurrency_limit);

 private:
  // The tests for a check not running; `d` already holds its next regular run (`interval` s).
  void service(model::ServiceId service, Instant at, bool forced, bool at_concurrency_limit, double interval,
               Decision& d);
  void host(model::HostId host, Instant at, bool forced, bool at_concurrency_limit, double interval,
            Decision& d);
  [[nodiscard]] bool service_dependencies_failed(model::ServiceId service, Time now) const;
  [[nodiscard]] bool host_dependencies_failed(model::HostId host, Time now) const;
  // Outside its check_period: true, with `d` moved to when the period is valid again plus a random share of
  // the check window.
  bool outside_period(model::TimeperiodId period, Time now, double window, Decision& d);

  World& w_;
  const Notifier& notifier_;
};

}  // namespace vedette::engine
