#include "engine/checks/flap_alerts.hpp"

#include "engine/notify/notifier.hpp"

#include <string>
#include <string_view>

namespace vedette::engine {

namespace {

template <typename View>
View view_of(const model::Checkable& cfg, const CheckState& st) {
  View v;
  v.current_state = st.current_state;
  v.flap_detection_options = cfg.flap_detection_options;
  v.flap_detection_enabled = st.enabled(state::Flag::flap_detection);
  v.low_flap_threshold = cfg.low_flap_threshold;
  v.high_flap_threshold = cfg.high_flap_threshold;
  v.current_notification_number = st.notification.current_notification_number;
  return v;
}

}  // namespace

FlapSettings FlapAlerts::settings(ObjectKind kind) const {
  const bool services = kind == ObjectKind::service;
  return {.enable_flap_detection = w_.main.enable_flap_detection,
          .low_threshold = services ? w_.main.low_service_flap_threshold : w_.main.low_host_flap_threshold,
          .high_threshold = services ? w_.main.high_service_flap_threshold : w_.main.high_host_flap_threshold,
          .interval_length = w_.main.interval_length};
}

void FlapAlerts::service_result(model::ServiceId service, Time now) {
  const model::Service& cfg = w_.model->services[model::index(service)];
  ServiceState& st = w_.services[model::index(service)];
  ServiceFlapView view = view_of<ServiceFlapView>(cfg, st);
  view.state_type = st.state_type;
  follow(w_.check_of(service),
         check_for_service_flapping(st.flap, view, settings(ObjectKind::service), FlapRecord::always), now);
}

void FlapAlerts::host_result(model::HostId host, Time now, FlapRecord record) {
  const model::Host& cfg = w_.model->host(host);
  HostState& st = w_.hosts[model::index(host)];
  HostFlapView view = view_of<HostFlapView>(cfg, st);
  view.notification_interval = cfg.notification_interval;
  follow(w_.check_of(host), check_for_host_flapping(st.flap, view, settings(ObjectKind::host), now, record),
         now);
}

void FlapAlerts::detection_disabled(CheckId check, Time now) {
  follow(check, handle_flap_detection_disabled(history_of(check), w_.state_of(check).current_state), now);
}

// FlapOutcome's order, Naemon's.
void FlapAlerts::follow(CheckId check, const FlapOutcome& out, Time now) {
  if (out.change == FlapChange::none) return;
  const bool service = w_.is_service(check);
  const std::string_view host_name = w_.model->host(w_.owner_host(check)).name;
  const std::string_view description =
      service ? w_.model->services[model::index(check)].description : std::string_view{};
  const std::string line = service ? format_service_flapping_alert(host_name, description, out)
                                   : format_host_flapping_alert(host_name, out);
  NotificationType type = NotificationType::flapping_start;
  if (out.change == FlapChange::started) {
    w_.log(line);
    history_of(check).flapping_comment_id = annotations_.add_comment_to(
        check, service ? service_flapping_comment(host_name, description, out, now)
                       : host_flapping_comment(host_name, out, now));
  } else {
    if (out.change == FlapChange::stopped) w_.log(line);
    if (out.comment_to_delete != 0) (void)w_.comments->remove(out.comment_to_delete);
    if (out.change == FlapChange::disabled) w_.log(line);
    type = out.change == FlapChange::stopped ? NotificationType::flapping_stop
                                             : NotificationType::flapping_disabled;
  }
  w_.with_object(check, [&](auto id) {
    notifier_.notify(w_.notifier_world(now), id, type);
    if (out.send_recovery) notifier_.notify(w_.notifier_world(now), id, NotificationType::normal);
  });
}

state::FlapHistory& FlapAlerts::history_of(CheckId check) {
  if (w_.is_service(check)) return w_.services[model::index(check)].flap;
  return w_.hosts[model::index(w_.host_of(check))].flap;
}

}  // namespace vedette::engine
