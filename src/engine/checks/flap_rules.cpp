#include "engine/checks/flap_rules.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace vedette::engine {

namespace {

constexpr int k_entries = state::k_state_history_entries;

// Whether flap_detection_options cover the state (Naemon's should_flap_detect).
bool watches_state(const FlapView& view) {
  if (view.current_state < 0 || view.current_state > 31) return false;
  return (view.flap_detection_options & (model::OptionSet{1} << view.current_state)) != 0;
}

// The object's threshold when it sets one (> 0), else the global one; low and high each on their own.
double threshold_in_effect(double object_value, double global_value) {
  return object_value <= 0.0 ? global_value : object_value;
}

void record_state(FlapHistory& history, int current_state) {
  history.states[history.index] = static_cast<std::uint8_t>(current_state);
  history.index = static_cast<std::uint8_t>(history.index + 1 == k_entries ? 0 : history.index + 1);
  history.percent_state_change = percent_state_change(history);
}

// The part shared by hosts and services once a state was recorded (set_*_flap / clear_*_flap without the
// side effects, which the caller performs from the outcome).
FlapOutcome decide(FlapHistory& history, const FlapView& view, const FlapSettings& settings) {
  FlapOutcome out;
  out.recorded = true;
  out.percent_state_change = history.percent_state_change;
  out.low_threshold = threshold_in_effect(view.low_flap_threshold, settings.low_threshold);
  out.high_threshold = threshold_in_effect(view.high_flap_threshold, settings.high_threshold);
  if (!settings.enable_flap_detection || !view.flap_detection_enabled) return out;

  const double pct = out.percent_state_change;
  if (pct > out.low_threshold && pct < out.high_threshold) return out;  // between the two: no change
  const bool flapping_now = pct > out.low_threshold;  // past the line above, this means pct >= high
  if (flapping_now && !history.is_flapping) {
    out.change = FlapChange::started;
    history.is_flapping = true;
    // Decided before the FLAPPINGSTART notification goes out (which does not count as one).
    history.check_flapping_recovery_notification =
        view.current_state != 0 && view.current_notification_number > 0;
  } else if (!flapping_now && history.is_flapping) {
    out.change = FlapChange::stopped;
    out.comment_to_delete = history.flapping_comment_id;
    out.send_recovery = history.check_flapping_recovery_notification && view.current_state == 0;
    history.is_flapping = false;
    history.flapping_comment_id = 0;
    history.check_flapping_recovery_notification = false;
  }
  return out;
}

// "(24.3% change >= 20.0% threshold)": printf's %2.1f, whose width never pads a one-decimal number.
std::string change_vs_threshold(double percent, std::string_view comparison, double threshold) {
  return fmt::format("({:.1f}% change {} {:.1f}% threshold)", percent, comparison, threshold);
}

state::Comment flapping_comment(std::string_view kind, std::string_view comparison, const FlapOutcome& out,
                                Time now) {
  state::Comment c;
  c.entry_type = 3;  // FLAPPING_COMMENT
  c.source = 0;      // internal
  c.persistent = false;
  c.expires = false;
  c.entry_time = now;
  c.author = "(Naemon Process)";
  c.comment_data = fmt::format(
      "Notifications for this {0} are being suppressed because it was detected as having been flapping "
      "between different states {1}.  When the {0} state stabilizes and the flapping stops, notifications "
      "will be re-enabled.",
      kind, change_vs_threshold(out.percent_state_change, comparison, out.high_threshold));
  return c;
}

}  // namespace

double percent_state_change(const FlapHistory& history) {
  // Naemon's arithmetic, step for step, so that the value (compared with the thresholds, printed with one
  // decimal and written with two) is the same double: weight k = k * 0.5 / 19 + 0.75 for the change
  // between the k-th and (k+1)-th oldest states, k = 1 … 19, summed in that order, then * 100 / 20.
  // Nearly every object holds one state throughout: no change, 0 (what the sum below gives too), without
  // the floating point. This runs twice per service result (the service's and its host's history).
  if (std::all_of(history.states.begin() + 1, history.states.end(),
                  [first = history.states[0]](std::uint8_t s) { return s == first; }))
    return 0.0;
  constexpr double low_weight = 0.75, high_weight = 1.25;
  double weighted_changes = 0.0;
  int slot = history.index;
  int previous = history.states[static_cast<std::size_t>(slot)];
  for (int k = 0; k < k_entries - 1; ++k) {
    const int current = history.states[static_cast<std::size_t>(slot)];
    if (current != previous) {
      weighted_changes += static_cast<double>(k) * (high_weight - low_weight) / (k_entries - 2) + low_weight;
    }
    previous = current;
    if (++slot == k_entries) slot = 0;  // no division per step
  }
  return weighted_changes * 100.0 / (k_entries - 1);
}

FlapOutcome check_for_service_flapping(FlapHistory& history, const ServiceFlapView& service,
                                       const FlapSettings& settings, FlapRecord record) {
  if (!watches_state(service)) return {};
  if (service.state_type == StateType::soft && service.current_state != k_state_ok) return {};
  if (record != FlapRecord::always) return {};
  record_state(history, service.current_state);
  return decide(history, service, settings);
}

FlapOutcome check_for_host_flapping(HostFlapHistory& history, const HostFlapView& host,
                                    const FlapSettings& settings, Time now, FlapRecord record) {
  if (!watches_state(host)) return {};
  // Naemon converts the product to an unsigned long (truncating) before comparing.
  const double wait = host.notification_interval * settings.interval_length;
  const Time wait_threshold = wait > 0 ? static_cast<Time>(static_cast<unsigned long>(wait)) : 0;
  if (record != FlapRecord::always && now - history.last_state_history_update <= wait_threshold) return {};
  history.last_state_history_update = now;
  record_state(history, host.current_state);
  return decide(history, host, settings);
}

FlapOutcome handle_flap_detection_disabled(FlapHistory& history, int current_state) {
  FlapOutcome out;
  out.percent_state_change = history.percent_state_change;
  if (!history.is_flapping) return out;
  out.change = FlapChange::disabled;
  out.comment_to_delete = history.flapping_comment_id;
  out.send_recovery = history.check_flapping_recovery_notification && current_state == 0;
  history.is_flapping = false;
  history.flapping_comment_id = 0;
  history.check_flapping_recovery_notification = false;
  return out;
}

std::string format_service_flapping_alert(std::string_view host, std::string_view service,
                                          const FlapOutcome& outcome) {
  switch (outcome.change) {
    case FlapChange::started:
      return fmt::format("SERVICE FLAPPING ALERT: {};{};STARTED; Service appears to have started flapping {}",
                         host, service,
                         change_vs_threshold(outcome.percent_state_change, ">=", outcome.high_threshold));
    case FlapChange::stopped:
      return fmt::format("SERVICE FLAPPING ALERT: {};{};STOPPED; Service appears to have stopped flapping {}",
                         host, service,
                         change_vs_threshold(outcome.percent_state_change, "<", outcome.low_threshold));
    case FlapChange::disabled:
      return fmt::format("SERVICE FLAPPING ALERT: {};{};DISABLED; Flap detection has been disabled", host,
                         service);
    case FlapChange::none:
      break;
  }
  return {};
}

std::string format_host_flapping_alert(std::string_view host, const FlapOutcome& outcome) {
  switch (outcome.change) {
    case FlapChange::started:
      return fmt::format("HOST FLAPPING ALERT: {};STARTED; Host appears to have started flapping {}", host,
                         change_vs_threshold(outcome.percent_state_change, ">", outcome.high_threshold));
    case FlapChange::stopped:
      return fmt::format("HOST FLAPPING ALERT: {};STOPPED; Host appears to have stopped flapping {}", host,
                         change_vs_threshold(outcome.percent_state_change, "<", outcome.low_threshold));
    case FlapChange::disabled:
      return fmt::format("HOST FLAPPING ALERT: {};DISABLED; Flap detection has been disabled", host);
    case FlapChange::none:
      break;
  }
  return {};
}

state::Comment service_flapping_comment(std::string_view host, std::string_view service,
                                        const FlapOutcome& outcome, Time now) {
  state::Comment c = flapping_comment("service", ">=", outcome, now);
  c.is_service = true;
  c.host_name = host;
  c.service_description = service;
  return c;
}

state::Comment host_flapping_comment(std::string_view host, const FlapOutcome& outcome, Time now) {
  state::Comment c = flapping_comment("host", ">", outcome, now);
  c.host_name = host;
  return c;
}

}  // namespace vedette::engine
