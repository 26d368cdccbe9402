// The engine works on the hot state (state/check_state.hpp) under its own names. Core thread, as the engine.
#pragma once

#include "state/check_state.hpp"

namespace vedette::engine {

using state::CheckState;
using state::CheckType;
using state::HostState;
using state::ServiceState;
using state::StateType;
using state::Time;

using state::k_host_down;
using state::k_host_unreachable;
using state::k_host_up;
using state::k_state_critical;
using state::k_state_ok;
using state::k_state_unknown;
using state::k_state_warning;

using state::host_state_name;
using state::service_state_name;
using state::state_type_name;

}  // namespace vedette::engine
