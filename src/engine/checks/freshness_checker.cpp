#include "engine/checks/freshness_checker.hpp"

#include "state/check_state.hpp"

#include <chrono>
#include <utility>

namespace vedette::engine {

FreshnessChecker::FreshnessChecker(World& world, ForceCheck force_check)
    : w_(world),
      force_check_(std::move(force_check)),
      service_timer_(world.loop.add_timer(*this)),
      host_timer_(world.loop.add_timer(*this)) {}

void FreshnessChecker::schedule() {
  service_due_ = host_due_ = {};
  w_.loop.disarm_timer(service_timer_);
  w_.loop.disarm_timer(host_timer_);
  arm(ObjectKind::service);
  arm(ObjectKind::host);
}

void FreshnessChecker::arm(ObjectKind kind) {
  const bool services = kind == ObjectKind::service;
  const int interval =
      services ? w_.main.service_freshness_check_interval : w_.main.host_freshness_check_interval;
  if (interval <= 0) return;
  w_.arm_periodic(services ? service_timer_ : host_timer_, services ? service_due_ : host_due_,
                  std::chrono::seconds(interval));
}

void FreshnessChecker::on_timer(loop::TimerId id) {
  const ObjectKind kind = id == service_timer_ ? ObjectKind::service : ObjectKind::host;
  check(kind);
  arm(kind);
}

bool FreshnessChecker::drop_result(CheckId check, Time now) {
  return std::exchange(freshening_[check], 0) != 0 && staleness_of(check).expires_at >= now;
}

Staleness FreshnessChecker::staleness_of(CheckId check) const {
  const CheckState& st = w_.state_of(check);
  const model::Checkable& cfg = w_.checkable_of(check);
  return staleness({.freshness_threshold = static_cast<int>(cfg.freshness_threshold),
                    .check_interval_s = w_.interval_seconds(state::check_interval_of(cfg, st)),
                    .retry_interval_s = w_.interval_seconds(state::retry_interval_of(cfg, st)),
                    .additional_freshness_latency = w_.main.additional_freshness_latency,
                    .state = &st,
                    .program_start = w_.program_start,
                    .last_program_stop = w_.last_program_stop});
}

// Every object with check_freshness whose last result went stale gets a forced check now, with a warning;
// one already being freshened, running, outside its check period or taking no results at all is left alone.
void FreshnessChecker::check(ObjectKind kind) {
  const bool services = kind == ObjectKind::service;
  if (services ? !w_.main.check_service_freshness : !w_.main.check_host_freshness) return;
  const Time now = w_.now_epoch();
  const auto first = services ? 0u : static_cast<std::uint32_t>(w_.services.size());
  const auto end = static_cast<std::uint32_t>(services ? w_.services.size() : w_.check_count());
  for (std::uint32_t i = first; i < end; ++i) {
    const CheckId c{i};
    const model::Checkable& cfg = w_.checkable_of(c);
    if (!cfg.check_freshness) continue;
    const CheckState& st = w_.state_of(c);
    if (st.is_executing || freshening_[c] != 0) continue;
    if (!st.enabled(state::Flag::active_checks) && !st.enabled(state::Flag::passive_checks)) continue;
    if (!w_.in_period(w_.check_period_of(cfg, st), now)) continue;
    if (services && state::check_interval_of(cfg, st) == 0 && cfg.freshness_threshold == 0) continue;
    const Staleness s = staleness_of(c);
    if (s.expires_at >= now) continue;
    if (services) {
      const model::Service& svc = w_.model->services[model::index(c)];
      w_.log(stale_warning(svc.host_name, svc.description, s, now));
    } else {
      w_.log(stale_warning(w_.model->host(w_.host_of(c)).name, {}, s, now));
    }
    freshening_[c] = 1;
    force_check_(c, now);
  }
}

}  // namespace vedette::engine
