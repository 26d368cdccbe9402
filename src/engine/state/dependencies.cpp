#include "engine/state/dependencies.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace vedette::engine {

bool skip_check_for_failed_dependency(int skip_status, ObjectKind kind, CheckState& st,
                                      std::string_view marker) {
  const bool is_service = kind == ObjectKind::service;
  constexpr int k_keep_running_when_up = -2;
  if (skip_status == k_keep_running_when_up) {
    return is_service ? st.current_state <= k_state_warning && st.has_been_checked
                      : st.current_state == k_host_up;
  }
  const int highest = is_service ? k_state_unknown : k_host_unreachable;
  if (skip_status >= 0 && skip_status <= highest) {
    st.current_state = skip_status;
    if (st.plugin_output.find(marker) == std::string::npos)
      st.plugin_output = fmt::format("{} was: {}", marker, st.plugin_output);
  }
  return false;
}

bool all_service_parents_failing(const model::Service& svc, std::span<const ServiceState> services) {
  if (svc.parents.empty()) return false;
  return std::none_of(svc.parents.begin(), svc.parents.end(), [&](model::ServiceId parent) {
    const std::uint32_t i = model::index(parent);
    return i < services.size() && services[i].current_state == k_state_ok;
  });
}

}  // namespace vedette::engine
