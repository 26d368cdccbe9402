// What follows when a host or service starts or stops flapping: the flap history is updated by the pure
// functions of engine/checks/flap_rules.hpp, and this component carries out their outcome in Naemon's order
// (the FLAPPING ALERT line, the flapping comment, the FLAPPINGSTART/STOP/DISABLED notification, the
// recovery). It owns no state of its own (the history lives in the hot state) and no timer. Core thread only.
//
//   FlapAlerts flap_alerts(world, annotations, notifier);
//   flap_alerts.service_result(service, now);                    // after each service result
//   flap_alerts.host_result(host, now, FlapRecord::always);      // after each host result
//   flap_alerts.detection_disabled(check, now);                  // DISABLE_*_FLAP_DETECTION
#pragma once

#include "engine/annotations/annotations.hpp"
#include "engine/checks/flap_rules.hpp"
#include "engine/state/check_id.hpp"
#include "engine/world/world.hpp"

namespace vedette::engine {

class Notifier;

class FlapAlerts {
 public:
  FlapAlerts(World& world, Annotations& annotations, Notifier& notifier)
      : w_(world), annotations_(annotations), notifier_(notifier) {}

  // Naemon's check_for_service_flapping after a result: the state goes into the history.
  void service_result(model::ServiceId service, Time now);
  // Naemon's check_for_host_flapping: after a result (`always`), or when the switch or the host's flag is
  // turned on (`when_due`: recorded only once notification_interval has passed since the last record).
  void host_result(model::HostId host, Time now, FlapRecord record);
  // DISABLE_FLAP_DETECTION, DISABLE_*_FLAP_DETECTION: an object that was flapping stops, as Naemon's
  // handle_*_flap_detection_disabled.
  void detection_disabled(CheckId check, Time now);

 private:
  void follow(CheckId check, const FlapOutcome& out, Time now);
  [[nodiscard]] FlapSettings settings(ObjectKind kind) const;
  state::FlapHistory& history_of(CheckId check);

  World& w_;
  Annotations& annotations_;
  Notifier& notifier_;
};

}  // namespace vedette::engine
