#include "state/check_state.hpp"

namespace vedette::state {

const char* service_state_name(int state) {
  switch (state) {
    case k_state_ok:
      return "OK";
    case k_state_warning:
      return "WARNING";
    case k_state_critical:
      return "CRITICAL";
    case k_state_unknown:
      return "UNKNOWN";
    default:
      return "UNKNOWN";
  }
}

const char* host_state_name(int state) {
  switch (state) {
    case k_host_up:
      return "UP";
    case k_host_down:
      return "DOWN";
    case k_host_unreachable:
      return "UNREACHABLE";
    default:
      return "UNKNOWN";
  }
}

const char* state_type_name(StateType type) {
  return type == StateType::hard ? "HARD" : "SOFT";
}

}  // namespace vedette::state
