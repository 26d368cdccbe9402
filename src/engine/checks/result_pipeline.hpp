// What happens to a host's or service's result once it is a CheckOutcome (an active check's verdict, a
// passive result, a host without check_command): the state machine (engine/checks/state_machine.hpp) updates
// the hot state, and its effects follow in Naemon's order — the log lines, the end of an acknowledgement,
// flexible downtimes, flap detection, the notification, the event handler, the OCSP/OCHP command, the
// performance data. What the result asks of the schedule (the retry, the next regular check, the host or
// neighbours or dependency masters to check now) comes back as ScheduleFollowups for the core's scheduler,
// which runs it after all the rest, as Naemon does. Core thread only.
//
//   ResultPipeline results(world, annotations, flap_alerts, notifier, side_commands, perfdata);
//   const ScheduleFollowups next = results.apply_service(service, outcome, now);
//   scheduler.follow(world.check_of(service), next, ended);
#pragma once

#include "engine/annotations/annotations.hpp"
#include "engine/checks/flap_alerts.hpp"
#include "engine/checks/state_machine.hpp"
#include "engine/perfdata/perfdata_sink.hpp"
#include "engine/state/check_id.hpp"
#include "engine/world/world.hpp"
#include "model/ids.hpp"

#include <cstdint>
#include <vector>

namespace vedette::engine {

class Notifier;
class SideCommandSink;

// What a result asks of the schedule of its own check and of others, in the order to carry it out.
struct ScheduleFollowups {
  enum class Next : std::uint8_t {
    keep,              // the schedule as it is
    retry,             // `interval_s` from when the result was applied (a soft problem)
    regular_if_unset,  // `interval_s` from then, unless the check is already scheduled
  };
  Next next = Next::keep;
  double interval_s = 0;
  // Checked now unless running or due sooner (Naemon's schedule_*_check(now)): the service's host, a
  // host's parents and children, a host's dependency masters.
  std::vector<CheckId> check_now{};
  // Checked now whatever their schedule: a service's dependency masters (Naemon's predictive checks).
  std::vector<model::ServiceId> force_now{};
};

class ResultPipeline {
 public:
  // Event handlers and OCSP/OCHP commands go to `side_commands`.
  ResultPipeline(World& world, Annotations& annotations, FlapAlerts& flap_alerts, Notifier& notifier,
                 SideCommandSink& side_commands, PerfdataSink& perfdata)
      : w_(world),
        annotations_(annotations),
        flap_alerts_(flap_alerts),
        notifier_(notifier),
        side_commands_(side_commands),
        perfdata_(perfdata) {}

  [[nodiscard]] ScheduleFollowups apply_service(model::ServiceId service, const CheckOutcome& r, Time now);
  [[nodiscard]] ScheduleFollowups apply_host(model::HostId host, const CheckOutcome& r, Time now);

 private:
  // Naemon's obsessive_compulsive_*_check_processor: with obsess_over_services (hosts) and the object's
  // obsess flag, ocsp_command (ochp_command) runs after each result, as a distributed set-up's forwarder.
  void obsess_over(CheckId check, Time now);
  void run_event_handlers_of(CheckId check, Time now);
  // Livestatus' counters: a result, and whether it changed the state or its type.
  void count_check(ObjectKind kind, const CheckState& st, int state_before, StateType type_before);
  // Naemon's log_service_event / log_host_event: a state change, a retry, or stalking.
  void log_service_alert(const model::Service& cfg, const ServiceState& st);
  void log_host_alert(const model::Host& cfg, const HostState& st);
  // The retry or the next regular check, from the intervals in effect.
  void next_check(ScheduleFollowups& out, bool use_retry, const model::Checkable& cfg,
                  const CheckState& st) const;

  World& w_;
  Annotations& annotations_;
  FlapAlerts& flap_alerts_;
  Notifier& notifier_;
  SideCommandSink& side_commands_;
  PerfdataSink& perfdata_;
};

}  // namespace vedette::engine
