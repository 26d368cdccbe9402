// Host and service dependencies as Naemon evaluates them (check_service_dependencies,
// check_host_dependencies): a dependency outside its dependency_period is skipped; the master's state (its
// last hard state while soft, unless soft_state_dependencies) failing the failure options fails it, as does
// a master never checked with 'p'; inherits_parent follows the master's own dependencies of the same kind.
// Execution dependencies stop checks (with *_skip_check_dependency_status deciding what the skipped check
// leaves behind), notification dependencies stop notifications (notification_rules.hpp). Core thread only.
#pragma once

#include "engine/state/check_id.hpp"
#include "engine/state/check_state.hpp"
#include "model/dependency.hpp"
#include "model/service.hpp"
#include "timeperiod/evaluator.hpp"

#include <span>
#include <string_view>

namespace vedette::engine {

struct DependencyRules {
  const timeperiod::Evaluator& timeperiods;
  bool soft_state_dependencies = false;
  Time now = 0;
};

// Dependencies nest this deep at most; only a cycle gets there (Naemon's pre-flight check refuses cycles,
// and Naemon would recurse forever).
inline constexpr int k_max_dependency_depth = 32;

// Whether any of `dependencies` (of one kind) fails. `dependencies_of(master)` gives a master's own
// dependencies of the same kind, for inherits_parent; `states` is indexed by the masters' ids.
template <typename Dependency, typename State, typename DependenciesOf>
[[nodiscard]] bool dependencies_failed(const DependencyRules& rules,
                                       std::span<const Dependency* const> dependencies,
                                       std::span<const State> states, DependenciesOf&& dependencies_of,
                                       int depth = 0) {
  for (const Dependency* dependency : dependencies) {
    const std::uint32_t master = model::index(dependency->master);
    if (master >= states.size()) continue;
    if (model::is_set(dependency->period) &&
        !rules.timeperiods.is_time_valid(timeperiod::PeriodIndex{model::index(dependency->period)},
                                         static_cast<std::time_t>(rules.now)))
      continue;
    const State& m = states[master];
    const int state = m.state_type == StateType::soft && !rules.soft_state_dependencies ? m.last_hard_state
                                                                                        : m.current_state;
    if (state >= 0 && state < 32 && (dependency->failure_options & (model::OptionSet{1} << state)) != 0)
      return true;
    if (!m.has_been_checked && (dependency->failure_options & model::k_opt_pending) != 0) return true;
    if (dependency->inherits_parent && depth < k_max_dependency_depth &&
        dependencies_failed(rules, dependencies_of(dependency->master), states, dependencies_of, depth + 1))
      return true;
  }
  return false;
}

// Naemon's *_skip_check_dependency_status for a check whose execution dependencies (or, for services with
// service_parents_disable_service_checks, parents) failed: -2 runs it anyway while the object is OK or
// WARNING (UP for hosts) and has been checked (services); 0-3 sets that state and prefixes the output with
// `marker` ("(service dependency check failed)") once; -1 skips the check and changes nothing. Whether
// the check runs after all.
[[nodiscard]] bool skip_check_for_failed_dependency(int skip_status, ObjectKind kind, CheckState& st,
                                                    std::string_view marker);

// A service with parents of which none is OK: with service_parents_disable_service_checks its checks are
// skipped as for a failed execution dependency, and its problem notifications are suppressed (bad_parents).
[[nodiscard]] bool all_service_parents_failing(const model::Service& svc,
                                               std::span<const ServiceState> services);

}  // namespace vedette::engine
