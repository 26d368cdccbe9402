#include "engine/checks/freshness_rules.hpp"

#include <fmt/format.h>

namespace vedette::engine {

namespace {

// Naemon's get_time_breakdown: "Dd Hh Mm Ss".
std::string breakdown(Time seconds) {
  if (seconds < 0) seconds = 0;
  return fmt::format("{}d {}h {}m {}s", seconds / 86400, seconds % 86400 / 3600, seconds % 3600 / 60,
                     seconds % 60);
}

}  // namespace

Staleness staleness(const FreshnessInput& in) {
  const state::CheckState& st = *in.state;
  Staleness s;
  if (in.freshness_threshold == 0) {
    const bool regular = st.state_type == state::StateType::hard || st.current_state == 0;
    const double interval = regular ? in.check_interval_s : in.retry_interval_s;
    s.threshold = static_cast<int>(interval + st.latency + in.additional_freshness_latency);
  } else {
    s.threshold = in.freshness_threshold;
  }
  if (!st.has_been_checked) {
    s.expires_at = in.program_start + s.threshold;
  } else if (st.enabled(state::Flag::active_checks) && in.program_start > st.last_check &&
             in.freshness_threshold == 0) {
    s.expires_at = in.program_start + s.threshold;
  } else {
    s.expires_at = st.last_check + s.threshold;
  }
  if (st.check_type == state::CheckType::passive &&
      st.last_check<in.program_start&& static_cast<double>(in.program_start - in.last_program_stop)> s
              .threshold *
          0.618) {
    s.expires_at = in.program_start + s.threshold;
  }
  return s;
}

std::string stale_warning(std::string_view host_name, std::string_view service_description,
                          const Staleness& s, Time now) {
  const std::string by = breakdown(now - s.expires_at);
  const std::string threshold = breakdown(s.threshold);
  if (service_description.empty()) {
    return fmt::format(
        "Warning: The results of host '{}' are stale by {} (threshold={}).  I'm forcing an immediate check "
        "of "
        "the host.",
        host_name, by, threshold);
  }
  return fmt::format(
      "Warning: The results of service '{}' on host '{}' are stale by {} (threshold={}).  I'm forcing an "
      "immediate check of the service.",
      service_description, host_name, by, threshold);
}

}  // namespace vedette::engine
