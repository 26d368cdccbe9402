#include "engine/checks/result_pipeline.hpp"

#include "engine/notify/event_handlers.hpp"
#include "engine/notify/notifier.hpp"
#include "engine/notify/side_command.hpp"
#include "state/attributes.hpp"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <utility>

namespace vedette::engine {

ScheduleFollowups ResultPipeline::apply_service(model::ServiceId sid, const CheckOutcome& r, Time now) {
  const model::Service& cfg = w_.model->services[model::index(sid)];
  ServiceState& st = w_.services[model::index(sid)];
  w_.mark_updated(st);
  HostState& host = w_.hosts[model::index(cfg.host)];
  const CheckId check = w_.check_of(sid);
  const ServiceRules rules{state::max_check_attempts_of(cfg, st), cfg.is_volatile,
                           state::retry_interval_of(cfg, st) != 0, cfg.stalking_options};
  const int state_before = st.current_state;
  const StateType type_before = st.state_type;
  const ServiceEffects fx =
      apply_service_result(st, rules, {host, w_.model->hosts[model::index(cfg.host)].initial_state}, r,
                           w_.settings, now, w_.numbering);
  count_check(ObjectKind::service, st, state_before, type_before);
  if (fx.used_cached_host_state) {
    w_.check_stats.count(files::CheckStat::active_ondemand_host, now, now);
    w_.check_stats.count(files::CheckStat::cached_host, now, now);
  }
  if (fx.log_passive)
    w_.log(fmt::format("PASSIVE SERVICE CHECK: {};{};{};{}", cfg.host_name, cfg.description, st.current_state,
                       st.plugin_output));
  if (fx.acknowledgement_ended) annotations_.acknowledgement_ended(check);
  if (fx.notify_host) notifier_.notify(w_.notifier_world(now), cfg.host, NotificationType::normal);
  if (fx.log_hard_due_to_host)
    w_.log(fmt::format("SERVICE INFO: {};{}; Service switch to hard down state due to host down.",
                       cfg.host_name, cfg.description));
  if (fx.log_alert) log_service_alert(cfg, st);
  // Naemon's order: flexible downtimes, flapping, the notification (none when a downtime started), the
  // event handler, and for an OK result the notification counters back to 0.
  const std::size_t downtimes_started =
      fx.flexible_downtime_may_start ? annotations_.flexible_downtimes_on_problem(check, now) : 0;
  // Every result goes into the service's and its host's flap history once: before the notification when
  // there is one, else at the end.
  auto flapping = [&] {
    flap_alerts_.service_result(sid, now);
    flap_alerts_.host_result(cfg.host, now, FlapRecord::always);
  };
  if (fx.check_flapping) flapping();
  if (fx.notify && downtimes_started == 0)
    notifier_.notify(w_.notifier_world(now), sid, NotificationType::normal);
  if (fx.run_event_handler) run_event_handlers_of(check, now);
  obsess_over(check, now);
  if (fx.settle_ok) settle_service_ok(st);
  if (fx.log_stalking) log_service_alert(cfg, st);  // Naemon: after the OCSP, before late flap detection
  if (!fx.check_flapping) flapping();
  if (w_.main.process_performance_data) perfdata_.after_result(check, now);

  ScheduleFollowups out;
  next_check(out, fx.use_retry_interval, cfg, st);
  if (fx.check_host_now) out.check_now.push_back(w_.check_of(cfg.host));
  if (fx.check_dependency_masters && w_.main.execute_service_checks &&
      w_.main.enable_predictive_service_dependency_checks) {
    const NotificationIndex& index = notifier_.index();
    for (const model::ServiceDependency* d : index.service_execution_dependencies(sid))
      out.force_now.push_back(d->master);
    for (const model::ServiceDependency* d : index.service_dependencies(sid))
      out.force_now.push_back(d->master);
  }
  return out;
}

ScheduleFollowups ResultPipeline::apply_host(model::HostId hid, const CheckOutcome& r, Time now) {
  const model::Host& cfg = w_.model->hosts[model::index(hid)];
  HostState& st = w_.hosts[model::index(hid)];
  w_.mark_updated(st);
  const CheckId check = w_.check_of(hid);
  bool any_parent_up = false;
  for (model::HostId p : cfg.parents)
    any_parent_up = any_parent_up || w_.hosts[model::index(p)].current_state == k_host_up;
  const bool has_command = cfg.check_command.is_set() || (st.overrides && st.overrides->check_command);
  const HostRules rules{state::max_check_attempts_of(cfg, st),
                        has_command,
                        state::retry_interval_of(cfg, st) != 0,
                        !cfg.parents.empty(),
                        any_parent_up,
                        cfg.stalking_options};
  const int state_before = st.current_state;
  const StateType type_before = st.state_type;
  const HostEffects fx = apply_host_result(st, rules, r, w_.settings, now, w_.numbering);
  count_check(ObjectKind::host, st, state_before, type_before);
  // Naemon: at the start of handle_host_state.
  obsess_over(check, now);
  if (w_.main.process_performance_data) perfdata_.after_result(check, now);
  if (fx.acknowledgement_ended) annotations_.acknowledgement_ended(check);
  // Naemon logs the state as submitted, before translate_passive_host_checks made it UNREACHABLE/DOWN.
  if (fx.log_passive)
    w_.log(fmt::format("PASSIVE HOST CHECK: {};{};{}", cfg.name, r.state, st.plugin_output));
  if (fx.log_alert) log_host_alert(cfg, st);
  const std::size_t downtimes_started = fx.flexible_downtime_may_start && st.current_state != k_host_up
                                            ? annotations_.flexible_downtimes_on_problem(check, now)
                                            : 0;
  if (fx.notify && downtimes_started == 0)
    notifier_.notify(w_.notifier_world(now), hid, NotificationType::normal);
  if (fx.run_event_handler) run_event_handlers_of(check, now);
  if (fx.settle_up) settle_host_up(st);
  if (fx.log_stalking) log_host_alert(cfg, st);
  flap_alerts_.host_result(hid, now, FlapRecord::always);

  ScheduleFollowups out;
  next_check(out, fx.use_retry_interval, cfg, st);
  // Naemon re-checks the neighbourhood: after a recovery the parents and children that are not UP, after a
  // failure the parents that are UP and the children that are not UNREACHABLE.
  auto state_of = [&](model::HostId h) { return w_.hosts[model::index(h)].current_state; };
  if (fx.check_neighbours_after_recovery) {
    for (model::HostId p : cfg.parents)
      if (state_of(p) != k_host_up) out.check_now.push_back(w_.check_of(p));
    for (model::HostId c : cfg.children)
      if (state_of(c) != k_host_up) out.check_now.push_back(w_.check_of(c));
  }
  if (fx.check_dependency_masters && w_.main.enable_predictive_host_dependency_checks) {
    const NotificationIndex& index = notifier_.index();
    for (const model::HostDependency* d : index.host_dependencies(hid))
      out.check_now.push_back(w_.check_of(d->master));
    for (const model::HostDependency* d : index.host_execution_dependencies(hid))
      out.check_now.push_back(w_.check_of(d->master));
  }
  if (fx.check_neighbours_after_failure) {
    for (model::HostId p : cfg.parents)
      if (state_of(p) == k_host_up) out.check_now.push_back(w_.check_of(p));
    for (model::HostId c : cfg.children)
      if (state_of(c) != k_host_unreachable) out.check_now.push_back(w_.check_of(c));
  }
  return out;
}

void ResultPipeline::next_check(ScheduleFollowups& out, bool use_retry, const model::Checkable& cfg,
                                const CheckState& st) const {
  if (use_retry) {
    out.next = ScheduleFollowups::Next::retry;
    out.interval_s = w_.interval_seconds(state::retry_interval_of(cfg, st));
  } else if (const double interval = state::check_interval_of(cfg, st); interval != 0) {
    out.next = ScheduleFollowups::Next::regular_if_unset;
    out.interval_s = w_.interval_seconds(interval);
  }
}

void ResultPipeline::obsess_over(CheckId check, Time now) {
  const bool service = w_.is_service(check);
  if (!(service ? w_.main.obsess_over_services : w_.main.obsess_over_hosts)) return;
  if (!w_.state_of(check).enabled(state::Flag::obsess)) return;
  const std::string& call = service ? w_.main.ocsp_command : w_.main.ochp_command;
  std::optional<ExpandedCommand> command = expand_command_text(*w_.model, call, w_.object_macros(check, now));
  if (!command) return;
  SideCommand side;
  const std::string line = command_line_text(*command);
  side.timeout_warning =
      service
          ? fmt::format("Warning: Timeout while executing OCSP command '{}' for service '{}' on host '{}'",
                        line, w_.model->services[model::index(check)].description,
                        w_.model->services[model::index(check)].host_name)
          : fmt::format("Warning: Timeout while executing OCHP command '{}' for host '{}'", line,
                        w_.model->host(w_.host_of(check)).name);
  side.timeout_s = service ? w_.main.ocsp_timeout : w_.main.ochp_timeout;
  side.command = std::move(*command);
  side_commands_.run_side_command(std::move(side));
}

void ResultPipeline::run_event_handlers_of(CheckId check, Time now) {
  const CheckState& st = w_.state_of(check);
  const model::Checkable& cfg = w_.checkable_of(check);
  const std::string_view handler = st.overrides != nullptr && st.overrides->event_handler
                                       ? std::string_view(*st.overrides->event_handler)
                                       : cfg.event_handler.raw;
  run_event_handlers(w_.object_macros(check, now), st.enabled(state::Flag::event_handler), handler,
                     side_commands_);
}

void ResultPipeline::count_check(ObjectKind kind, const CheckState& st, int state_before,
                                 StateType type_before) {
  ++(kind == ObjectKind::service ? w_.events.service_checks : w_.events.host_checks);
  if (st.current_state != state_before || st.state_type != type_before) ++w_.events.state_changes;
}

void ResultPipeline::log_service_alert(const model::Service& cfg, const ServiceState& st) {
  w_.log(fmt::format("SERVICE ALERT: {};{};{};{};{};{}", cfg.host_name, cfg.description,
                     service_state_name(st.current_state), state_type_name(st.state_type), st.current_attempt,
                     st.plugin_output));
}

void ResultPipeline::log_host_alert(const model::Host& cfg, const HostState& st) {
  w_.log(fmt::format("HOST ALERT: {};{};{};{};{}", cfg.name, host_state_name(st.current_state),
                     state_type_name(st.state_type), st.current_attempt, st.plugin_output));
}

}  // namespace vedette::engine
