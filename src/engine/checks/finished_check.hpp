// A check's result as the result pipeline takes it, from wherever it came: an active check's verdict
// (engine/checks/check_runner.hpp: the executor, a Mod-Gearman worker, an orphan), a passive result
// (engine/checks/passive_results.hpp). The components that make one hand it back to the core, which applies
// each one in the order they came in; core thread only.
#pragma once

#include "engine/checks/state_machine.hpp"
#include "engine/state/check_id.hpp"
#include "engine/state/check_sources.hpp"
#include "engine/state/core_time.hpp"

#include <cstdint>

namespace vedette::engine {

// A check's result, ready for the result pipeline.
struct FinishedCheck {
  CheckId check{};
  CheckOutcome outcome;
  Time now = 0;   // when it was taken in
  Instant ended;  // when it counts as applied: its retry and next regular check are scheduled from there
  std::uint16_t source = CheckSources::k_core_worker;  // Livestatus' check_source
};

}  // namespace vedette::engine
