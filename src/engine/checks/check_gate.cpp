#include "engine/checks/check_gate.hpp"

#include "engine/notify/notifier.hpp"
#include "engine/state/dependencies.hpp"

#include <random>
#include <span>

namespace vedette::engine {

CheckGate::Decision CheckGate::decide(CheckId check, Instant at, bool forced, bool at_concurrency_limit) {
  const CheckState& st = w_.state_of(check);
  Decision d;
  if (st.is_executing) return d;  // neither runs nor moves
  const double interval = w_.interval_seconds(state::check_interval_of(w_.checkable_of(check), st));
  if (interval > 0) d.next_in = seconds(interval);
  if (w_.is_service(check)) {
    service(w_.service_of(check), at, forced, at_concurrency_limit, interval, d);
  } else {
    host(w_.host_of(check), at, forced, at_concurrency_limit, interval, d);
  }
  return d;
}

void CheckGate::service(model::ServiceId sid, Instant at, bool forced, bool at_concurrency_limit,
                        double interval, Decision& d) {
  const model::Service& cfg = w_.model->services[model::index(sid)];
  ServiceState& st = w_.services[model::index(sid)];
  const Time now = to_epoch(at.wall);
  if (forced) {
    d.action = Action::run;
    return;
  }
  if (at_concurrency_limit) {
    const double retry = state::retry_interval_of(cfg, st);
    if (retry != 0) d.next_in = seconds(w_.interval_seconds(retry));
    return;
  }
  if (!w_.main.execute_service_checks || !st.enabled(state::Flag::active_checks)) return;
  if (st.last_check + static_cast<Time>(w_.main.cached_service_check_horizon) > now && st.last_check <= now)
    return;
  if (outside_period(w_.check_period_of(cfg, st), now, interval, d)) return;
  const int skip_status = w_.main.service_skip_check_dependency_status;
  if (service_dependencies_failed(sid, now) &&
      !skip_check_for_failed_dependency(skip_status, ObjectKind::service, st,
                                        "(service dependency check failed)"))
    return;
  // Naemon's service_parents_disable_service_checks: a service not OK whose parents are none OK.
  if (w_.main.service_parents_disable_service_checks != 0 && st.current_state != k_state_ok &&
      all_service_parents_failing(cfg, w_.services) &&
      !skip_check_for_failed_dependency(skip_status, ObjectKind::service, st, "(service parents failed)"))
    return;
  d.action = Action::run;
}

void CheckGate::host(model::HostId hid, Instant at, bool forced, bool at_concurrency_limit, double interval,
                     Decision& d) {
  const model::Host& cfg = w_.model->hosts[model::index(hid)];
  HostState& st = w_.hosts[model::index(hid)];
  const Time now = to_epoch(at.wall);
  if (!forced) {
    if (!w_.main.execute_host_checks || !st.enabled(state::Flag::active_checks)) return;
    if (at_concurrency_limit) return;
    if (outside_period(w_.check_period_of(cfg, st), now, interval, d)) return;
    if (host_dependencies_failed(hid, now) &&
        !skip_check_for_failed_dependency(w_.main.host_skip_check_dependency_status, ObjectKind::host, st,
                                          "(host dependency check failed)"))
      return;
  }
  const bool has_command =
      cfg.check_command.is_set() || (st.overrides != nullptr && st.overrides->check_command);
  d.action = has_command ? Action::run : Action::assume_up;
}

bool CheckGate::service_dependencies_failed(model::ServiceId sid, Time now) const {
  if (w_.model->service_dependencies.empty()) return false;  // most configurations: no lookup per check
  auto of = [&](model::ServiceId s) { return notifier_.index().service_execution_dependencies(s); };
  return dependencies_failed(
      {.timeperiods = w_.evaluator, .soft_state_dependencies = w_.main.soft_state_dependencies, .now = now},
      of(sid), std::span<const ServiceState>(w_.services), of);
}

bool CheckGate::host_dependencies_failed(model::HostId hid, Time now) const {
  if (w_.model->host_dependencies.empty()) return false;
  auto of = [&](model::HostId h) { return notifier_.index().host_execution_dependencies(h); };
  return dependencies_failed(
      {.timeperiods = w_.evaluator, .soft_state_dependencies = w_.main.soft_state_dependencies, .now = now},
      of(hid), std::span<const HostState>(w_.hosts), of);
}

// Outside its check period a check does not run and moves to the period's next start, plus a random share
// of the check window, as Naemon's, so a period that opens does not release every check at once; that start
// may be postponed again (Naemon's CHECK_OPTION_ALLOW_POSTPONE). No valid time within the horizon: the
// check stays on its normal schedule.
bool CheckGate::outside_period(model::TimeperiodId period, Time now, double window, Decision& d) {
  if (w_.in_period(period, now)) return false;
  const std::time_t next =
      w_.evaluator.next_valid_time(timeperiod::PeriodIndex{model::index(period)},
                                   static_cast<std::time_t>(now), static_cast<std::time_t>(now));
  if (next <= now) return true;
  const double spread = window > 1 ? std::uniform_real_distribution<double>(0, window - 1)(w_.rng) : 0;
  d.next_in = seconds(static_cast<double>(next - now) + spread);
  d.check_options = state::k_check_option_allow_postpone;
  return true;
}

}  // namespace vedette::engine
