// Naemon's freshness checking as the core runs it: the service and host *_freshness_check_interval timers,
// the stale objects each finds (engine/checks/freshness_rules.hpp's rules) with the warning it logs, and the
// flag Naemon keeps while a forced check is on its way, whose result is dropped if a passive result made the
// object fresh meanwhile. Owns its two timers and the flags; the forced check itself is the scheduler's, so
// it goes out through `force_check`. Core thread only.
//
//   FreshnessChecker freshness(world, [&](CheckId c, Time now) { schedule_check(c, now, forced); });
//   freshness.resize(world.check_count());
//   freshness.schedule();                                   // start-up, reload
//   if (freshness.drop_result(check, now)) return;          // as each active result arrives
#pragma once

#include "engine/checks/freshness_rules.hpp"
#include "engine/state/check_id.hpp"
#include "engine/world/world.hpp"
#include "loop/loop.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>

namespace vedette::engine {

class FreshnessChecker final : public loop::TimerHandler {
 public:
  using ForceCheck = std::function<void(CheckId, Time now)>;
  FreshnessChecker(World& world, ForceCheck force_check);
  FreshnessChecker(const FreshnessChecker&) = delete;
  FreshnessChecker& operator=(const FreshnessChecker&) = delete;

  // One flag per check, none set: start-up and a reload (the checks are renumbered).
  void resize(std::size_t checks) { freshening_.assign(checks, 0); }
  // (Re)arms both timers from now, as the main config says; each looks at its program switch when it fires.
  void schedule();
  // An active result of `check` arrived: true when it answers a freshness check and the object is fresh
  // again (Naemon drops it). Clears the flag either way.
  [[nodiscard]] bool drop_result(CheckId check, Time now);
  // How long the last result of `check` stays fresh.
  [[nodiscard]] Staleness staleness_of(CheckId check) const;

  void on_timer(loop::TimerId id) override;

 private:
  void arm(ObjectKind kind);
  // Naemon's check_*_result_freshness over one kind of object.
  void check(ObjectKind kind);

  World& w_;
  ForceCheck force_check_;
  loop::TimerId service_timer_;
  loop::TimerId host_timer_;
  loop::MonoTime service_due_{};
  loop::MonoTime host_due_{};
  ByCheck<std::uint8_t> freshening_;  // a freshness check is on its way (Naemon's flag)
};

}  // namespace vedette::engine
