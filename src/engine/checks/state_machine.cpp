#include "engine/checks/state_machine.hpp"

#include "engine/notify/notification_rules.hpp"

#include <algorithm>

namespace vedette::engine {

namespace {

// Naemon, on a state change: a normal acknowledgement ends with it (not when the problem only turns hard),
// a sticky one only with the recovery. Whether one ended.
bool end_acknowledgement(CheckState& st, bool state_change, bool hard_state_change, int ok_state) {
  constexpr std::uint8_t k_normal = 1, k_sticky = 2;
  if (!state_change && !hard_state_change) return false;
  const bool ends = (st.acknowledgement_type == k_normal && state_change) ||
                    (st.acknowledgement_type == k_sticky && st.current_state == ok_state);
  if (ends) st.clear_acknowledgement();
  return ends;
}

void set_output(CheckState& s, const CheckOutcome& r, const char* when_empty) {
  s.plugin_output = r.output.empty() ? std::string(when_empty) : r.output;
  s.long_plugin_output = r.long_output;
  s.perf_data = r.perf_data;
}

// Naemon, on every state change: the next event id; a new problem id when a problem starts, and the
// problem's end when it is over (recovered_state: OK or UP).
void number_state_change(CheckState& st, int recovered_state, Time now, EventNumbering& numbering) {
  state::EventIds& e = st.events;
  e.last_event_id = e.current_event_id;
  e.current_event_id = numbering.next_event_id++;
  if (st.last_state == recovered_state) {
    e.current_problem_id = numbering.uuids.next();
    e.problem_start = now;
    e.problem_end = 0;
  }
  if (st.current_state == recovered_state) {
    e.last_problem_id = e.current_problem_id;
    e.current_problem_id = {};
    if (e.problem_start > 0) e.problem_end = now;
  }
}

bool recently_checked(const HostState& h, const StateSettings& settings, Time now) {
  return h.has_been_checked && h.last_check + settings.cached_host_check_horizon > now && h.last_check <= now;
}

// Naemon's should_stalk(): stalking_options has the state's bit.
bool stalks(model::OptionSet stalking_options, int state) {
  return state >= 0 && state < 32 && (stalking_options & (model::OptionSet{1} << state)) != 0;
}

// The outputs before a result, for stalking. Kept only for an object that stalks its state before the
// result (stalking needs the state unchanged), so no result of an object without stalking copies a string.
struct OutputBefore {
  bool kept = false;
  std::string output;
  std::string long_output;

  OutputBefore(const CheckState& st, model::OptionSet stalking_options) {
    if (!stalks(stalking_options, st.current_state)) return;
    kept = true;
    output = st.plugin_output;
    long_output = st.long_plugin_output;
  }
  [[nodiscard]] bool changed_in(const CheckState& st) const {
    return kept && (output != st.plugin_output || long_output != st.long_plugin_output);
  }
};

}  // namespace

ServiceEffects apply_service_result(ServiceState& svc, const ServiceRules& rules, ServiceHostView host,
                                    const CheckOutcome& r, const StateSettings& settings, Time now,
                                    EventNumbering& numbering) {
  ServiceEffects fx;
  svc.execution_time = std::max(0.0, r.execution_time);
  svc.last_check = r.start;
  svc.check_type = r.type;
  svc.latency = r.latency;
  if (r.type == CheckType::active) svc.is_executing = false;
  svc.last_state = svc.current_state;

  const OutputBefore before(svc, rules.stalking_options);
  set_output(svc, r, "(No output returned from plugin)");
  svc.current_state = r.state;

  switch (svc.last_state) {
    case k_state_ok:
      svc.last_time_ok = svc.last_check;
      break;
    case k_state_warning:
      svc.last_time_warning = svc.last_check;
      break;
    case k_state_unknown:
      svc.last_time_unknown = svc.last_check;
      break;
    case k_state_critical:
      svc.last_time_critical = svc.last_check;
      break;
    default:
      break;
  }
  fx.log_passive = r.type == CheckType::passive && settings.log_passive_checks;

  HostState& h = host.state;
  bool first_host_check_initiated = false;
  if (svc.current_state == k_state_ok && !h.has_been_checked &&
      (host.initial_state != k_host_up || h.next_check == 0 || h.next_check - now > 300)) {
    first_host_check_initiated = true;
    fx.check_host_now = true;
  }

  if (svc.state_type == StateType::soft && svc.current_attempt < rules.max_check_attempts)
    ++svc.current_attempt;
  bool state_change = svc.current_state != svc.last_state;
  bool hard_state_change =
      (svc.host_problem_at_last_check && svc.current_state == k_state_ok) ||
      (svc.current_attempt >= rules.max_check_attempts && svc.current_state != svc.last_hard_state);

  if (state_change || hard_state_change) reset_notifications_on_state_change(svc.notification);
  fx.acknowledgement_ended = end_acknowledgement(svc, state_change, hard_state_change, k_state_ok);

  if (svc.last_state_change == 0) svc.last_state_change = svc.last_check;
  if (svc.last_hard_state_change == 0) svc.last_hard_state_change = svc.last_check;
  if (h.last_state_change == 0) h.last_state_change = svc.last_check;
  if (h.last_hard_state_change == 0) h.last_hard_state_change = svc.last_check;
  if (state_change) svc.last_state_change = svc.last_check;
  if (hard_state_change) svc.last_hard_state_change = svc.last_check;
  if (state_change) number_state_change(svc, k_state_ok, now, numbering);

  // Naemon's log_service_event(): soft states are logged only with log_service_retries. Whether logged or
  // not, the alert counts as recorded (stalking then logs nothing more).
  bool alert_recorded = false;
  auto log_alert = [&] {
    fx.log_alert = svc.state_type == StateType::hard || settings.log_service_retries;
    alert_recorded = true;
  };

  if (svc.current_state == k_state_ok) {
    if (h.current_state != k_host_up && !first_host_check_initiated) {
      if (recently_checked(h, settings, now))
        fx.used_cached_host_state = true;
      else
        fx.check_host_now = true;
    }
    svc.clear_acknowledgement();  // Naemon's "just in case": whatever the type, OK ends it
    if (hard_state_change) {
      svc.state_type = StateType::hard;
      log_alert();
      fx.check_flapping = true;
      fx.notify = true;
      fx.run_event_handler = true;
    } else if (state_change) {
      svc.state_type = StateType::soft;
      log_alert();
      fx.run_event_handler = true;
    }
    fx.settle_ok = true;
  } else {
    // The host's state decides whether a problem can be soft: results are applied as they come, so the
    // host's current state stands in for the result of the route check (as in Naemon).
    const int route = h.current_state;
    if (h.current_state == k_host_up) {
      if (!settings.execute_host_checks || recently_checked(h, settings, now))
        fx.used_cached_host_state = true;
      else if (state_change || svc.state_type == StateType::soft)
        fx.check_host_now = true;
    } else if (settings.execute_host_checks && (state_change || svc.state_type == StateType::soft)) {
      fx.check_host_now = true;
    } else {
      if (!h.has_been_checked) {
        h.has_been_checked = true;
        h.last_check = svc.last_check;
      }
      fx.notify_host = true;
    }

    if (route != k_host_up) {
      if (svc.last_hard_state != svc.current_state) {
        hard_state_change = true;
        fx.log_hard_due_to_host = true;
      }
      if (state_change || hard_state_change) svc.last_state_change = svc.last_check;
      if (hard_state_change) svc.state_type = StateType::hard;
      svc.host_problem_at_last_check = true;
    } else if (svc.host_problem_at_last_check) {
      svc.host_problem_at_last_check = false;
      if (svc.state_type == StateType::soft) svc.current_attempt = 1;
    }

    if (svc.current_attempt < rules.max_check_attempts) {
      if (route != k_host_up) {
        if (hard_state_change) {
          log_alert();
          fx.run_event_handler = true;
          svc.last_hard_state_change = svc.last_check;
          svc.last_hard_state = svc.current_state;
        }
      } else {
        svc.state_type = StateType::soft;
        log_alert();
        fx.run_event_handler = true;
        fx.use_retry_interval = rules.has_retry_interval;
      }
      fx.check_dependency_masters = svc.current_attempt == rules.max_check_attempts - 1;
    } else {
      svc.state_type = StateType::hard;
      if (hard_state_change || rules.is_volatile) log_alert();
      fx.flexible_downtime_may_start = hard_state_change || state_change;
      fx.check_flapping = true;
      fx.notify = true;
      fx.run_event_handler = hard_state_change || rules.is_volatile;
      svc.last_hard_state = svc.current_state;
    }
  }
  // Naemon looks at the state type after settle_service_ok(): an OK service is hard by then.
  const bool hard_after = svc.state_type == StateType::hard || fx.settle_ok;
  fx.log_stalking = hard_after && !state_change && !alert_recorded && before.changed_in(svc);
  svc.has_been_checked = true;
  fx.state_change = state_change;
  fx.hard_state_change = hard_state_change;
  return fx;
}

HostEffects apply_host_result(HostState& host, const HostRules& rules, const CheckOutcome& r,
                              const StateSettings& settings, Time now, EventNumbering& numbering) {
  HostEffects fx;
  const bool active = r.type == CheckType::active;
  const int previous_state = host.current_state;

  // update_host_state_post_check()
  host.latency = r.latency;
  host.check_type = r.type;
  host.has_been_checked = true;
  host.execution_time = std::max(0.0, r.execution_time);
  host.last_check = r.start;
  host.last_state = host.current_state;
  if (host.state_type == StateType::hard) host.last_hard_state = host.current_state;
  const OutputBefore before(host, rules.stalking_options);
  set_output(host, r, "(No output returned from host check)");
  int result = r.state;
  if (active) {
    host.is_executing = false;
    if (!rules.has_check_command) {
      host.plugin_output = "(Host assumed to be UP)";
      result = k_state_ok;
    }
    if (!settings.use_aggressive_host_checking && result == k_state_warning) result = k_state_ok;
    result = result == k_state_ok ? k_host_up : k_host_down;
  }
  // adjust_host_check_attempt(): before the new state is stored.
  auto adjust_attempt = [&](bool is_active) {
    if (host.state_type == StateType::hard)
      host.current_attempt = 1;
    else if (is_active && host.state_type == StateType::soft && host.current_state == k_host_up)
      host.current_attempt = 1;
    else if (host.current_attempt < rules.max_check_attempts)
      ++host.current_attempt;
  };
  if (!active) {
    if (settings.passive_host_checks_are_soft)
      adjust_attempt(/*is_active=*/false);
    else
      host.state_type = StateType::hard;
  } else {
    adjust_attempt(/*is_active=*/true);
  }
  if (host.current_attempt >= rules.max_check_attempts) host.state_type = StateType::hard;
  host.current_state = result;
  switch (host.last_state) {
    case k_host_up:
      host.last_time_up = r.finish;
      break;
    case k_host_down:
      host.last_time_down = r.finish;
      break;
    case k_host_unreachable:
      host.last_time_unreachable = r.finish;
      break;
    default:
      break;
  }

  // process_host_check_result()
  fx.log_passive = !active && settings.log_passive_checks;
  const bool passive_hard = !active && !settings.passive_host_checks_are_soft;
  const bool translate = active || settings.translate_passive_host_checks;
  auto reachability = [&] {
    if (host.current_state == k_host_up) return k_host_up;
    if (!rules.has_parents || rules.any_parent_up) return k_host_down;
    return k_host_unreachable;
  };
  if (previous_state != k_host_up) {
    if (host.current_state == k_host_up) {
      host.state_type =
          host.state_type == StateType::hard || passive_hard ? StateType::hard : StateType::soft;
      fx.check_neighbours_after_recovery = true;
    } else {
      if (passive_hard) {
        host.state_type = StateType::hard;
        host.current_attempt = 1;
      } else if (host.current_attempt == rules.max_check_attempts || host.current_attempt == 1) {
        host.state_type = StateType::hard;
      } else {
        host.state_type = StateType::soft;
      }
      if (translate) host.current_state = reachability();
    }
  } else if (host.current_state == k_host_up) {
    host.state_type = StateType::hard;
  } else {
    if (active || settings.passive_host_checks_are_soft) {
      host.state_type = host.current_attempt == rules.max_check_attempts ? StateType::hard : StateType::soft;
    } else {
      host.state_type = StateType::hard;
      host.current_attempt = 1;
    }
    if (translate) host.current_state = reachability();
    fx.check_neighbours_after_failure = true;
    fx.check_dependency_masters = host.current_attempt == rules.max_check_attempts - 1;
  }

  // handle_host_state()
  const bool state_change = host.last_state != host.current_state ||
                            (host.current_state == k_host_up && host.state_type == StateType::soft);
  const bool hard_change_at_last_attempt =
      host.current_attempt >= rules.max_check_attempts && host.last_hard_state != host.current_state;
  if (state_change || hard_change_at_last_attempt) reset_notifications_on_state_change(host.notification);
  fx.acknowledgement_ended = end_acknowledgement(host, state_change, hard_change_at_last_attempt, k_host_up);
  const bool hard_state_change = host.last_hard_state != host.current_state;
  const bool log_this = host.state_type == StateType::hard || settings.log_host_retries;
  if (state_change || hard_state_change) {
    host.last_state_change = now;
    if (host.state_type == StateType::hard) host.last_hard_state_change = now;
    number_state_change(host, k_host_up, now, numbering);
    fx.log_alert = log_this;
    fx.flexible_downtime_may_start = true;
    fx.notify = host.state_type == StateType::hard;
    fx.run_event_handler = true;
    fx.settle_up = host.current_state == k_host_up;
  } else {
    fx.notify = host.current_state != k_host_up && host.state_type == StateType::hard;
    fx.log_alert = host.state_type == StateType::soft && settings.log_host_retries;
  }
  if (host.last_state_change == 0) host.last_state_change = host.last_check;
  if (host.last_hard_state_change == 0) host.last_hard_state_change = host.last_check;

  // Naemon's post-processing, after handle_host_state().
  fx.log_stalking = host.last_state == host.current_state && before.changed_in(host);
  fx.use_retry_interval =
      host.current_state != k_host_up && host.state_type == StateType::soft && rules.has_retry_interval;
  fx.state_change = state_change;
  fx.hard_state_change = hard_state_change;
  return fx;
}

void settle_service_ok(ServiceState& svc) {
  svc.host_problem_at_last_check = false;
  svc.current_attempt = 1;
  svc.state_type = StateType::hard;
  svc.last_hard_state = k_state_ok;
  svc.clear_acknowledgement();
  reset_service_notifications_when_ok(svc.notification);
}

void settle_host_up(HostState& host) {
  host.current_attempt = 1;
  reset_host_notifications_on_recovery(host.notification);
}

}  // namespace vedette::engine
