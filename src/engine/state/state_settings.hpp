// What the state logic (engine/checks/state_machine.hpp) reads beside a check's own state: the main-config
// settings it follows and where the event and problem ids of state changes come from. Kept apart from the
// rules so that the World, which holds one of each, needs only these. Core thread only.
#pragma once

#include "engine/state/check_state.hpp"
#include "state/uuid.hpp"

namespace vedette::engine {

// The main-config settings the state logic reads.
struct StateSettings {
  int service_check_timeout_state = k_state_critical;
  bool log_service_retries = false;
  bool log_host_retries = false;
  bool log_passive_checks = true;
  bool passive_host_checks_are_soft = false;
  bool translate_passive_host_checks = false;
  bool use_aggressive_host_checking = false;
  bool execute_host_checks = true;
  Time cached_host_check_horizon = 15;
};

// Where the event and problem ids of state changes come from: the program-wide next_event_id (kept in
// retention.dat) and the problem-id generator. The core owns one.
struct EventNumbering {
  unsigned long next_event_id = 1;
  state::UuidGenerator uuids;
};

}  // namespace vedette::engine
