// Passive results (PROCESS_SERVICE_CHECK_RESULT and its host twin, from the command file, Livestatus or
// send_gearman) as Naemon takes them in: the object looked up by name (a warning when it is unknown),
// accept_passive_*_checks and the object's passive_checks_enabled, the return code's range, the output split
// as a plugin's, and the result counted (status.dat's check statistics, the metrics). What is accepted
// comes back as a FinishedCheck for the core to apply like an active one. Core thread only.
//
//   PassiveResults passive(world);
//   FinishedCheck f;
//   if (passive.accept(result, f)) core.apply_finished(f);
#pragma once

#include "engine/checks/finished_check.hpp"
#include "engine/state/core_requests.hpp"
#include "engine/world/world.hpp"

#include <cstdint>

namespace vedette::engine {

class PassiveResults {
 public:
  explicit PassiveResults(World& world) : w_(world) {}

  // Fills `out` (a fresh FinishedCheck) and returns true, or false when refused (and logged when the object
  // is unknown).
  [[nodiscard]] bool accept(const PassiveResult& result, FinishedCheck& out);

 private:
  [[nodiscard]] bool accept_service(model::ServiceId service, const PassiveResult& p, Instant at,
                                    FinishedCheck& out);
  [[nodiscard]] std::uint16_t source_of(const PassiveResult& p);

  World& w_;
};

}  // namespace vedette::engine
