#include "engine/checks/passive_results.hpp"

#include "exec/plugin_output.hpp"
#include "metrics/core_metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace vedette::engine {

namespace {

// Filled in place: the FinishedCheck is the only copy of the output (no move per result).
inline void fill_outcome(CheckOutcome& r, const PassiveResult& p, loop::WallTime at) {
  const Time now = to_epoch(at);
  r.type = CheckType::passive;
  r.start = r.finish = p.check_time != 0 ? p.check_time : now;
  // As Naemon: from the result's [timestamp] to now, with the fraction of the current second.
  const double now_s = std::chrono::duration<double>(at.time_since_epoch()).count();
  r.latency = std::max(0.0, now_s - static_cast<double>(r.start));
  // As Naemon: a "\n" in a passive result stays two characters, in the output or the perfdata (the
  // command file has no escapes; the result is one line, so it has no long output).
  exec::PluginOutput out = exec::parse_plugin_output(p.output);
  r.output = std::move(out.output);
  std::replace(r.output.begin(), r.output.end(), ';', ':');  // as for active results, hosts' too
  r.long_output = std::move(out.long_output);
  r.perf_data = std::move(out.perf_data);
  r.state = p.return_code;
}

}  // namespace

bool PassiveResults::accept(const PassiveResult& p, FinishedCheck& f) {
  const Instant at = w_.now_instant();  // one clock read per result
  if (model::is_set(p.service)) return accept_service(p.service, p, at, f);
  auto host_it = w_.model->host_by_name.find(p.host_name);
  if (host_it == w_.model->host_by_name.end()) {
    w_.log(fmt::format(
        "Warning:  Passive check result was received for {} '{}'{}, but the host could not be found!",
        p.service_description.empty() ? "host" : "service",
        p.service_description.empty() ? p.host_name : p.service_description,
        p.service_description.empty() ? "" : fmt::format(" on host '{}'", p.host_name)));
    return false;
  }
  if (!p.service_description.empty()) {
    const model::ServiceId sid = w_.model->find_service(p.host_name, p.service_description);
    if (!model::is_set(sid)) {
      w_.log(
          fmt::format("Warning:  Passive check result was received for service '{}' on host '{}', but the "
                      "service could not be found!",
                      p.service_description, p.host_name));
      return false;
    }
    return accept_service(sid, p, at, f);
  }
  if (!w_.main.accept_passive_host_checks || p.return_code < 0 || p.return_code > 2 ||
      !w_.hosts[model::index(host_it->second)].enabled(state::Flag::passive_checks))
    return false;
  f.check = w_.check_of(host_it->second);
  f.now = to_epoch(at.wall);
  f.ended = at;
  fill_outcome(f.outcome, p, at.wall);
  f.source = source_of(p);
  w_.check_stats.count(files::CheckStat::passive_host, f.outcome.start, f.now);
  metrics::core_metrics().count_check(metrics::CheckKind::passive, metrics::ObjectKind::host);
  return true;
}

bool PassiveResults::accept_service(model::ServiceId sid, const PassiveResult& p, Instant at,
                                    FinishedCheck& f) {
  if (!w_.main.accept_passive_service_checks ||
      !w_.services[model::index(sid)].enabled(state::Flag::passive_checks))
    return false;
  f.check = w_.check_of(sid);
  f.now = to_epoch(at.wall);
  f.ended = at;
  fill_outcome(f.outcome, p, at.wall);
  if (f.outcome.state < 0 || f.outcome.state > 3) f.outcome.state = k_state_unknown;
  f.source = source_of(p);
  w_.check_stats.count(files::CheckStat::passive_service, f.outcome.start, f.now);
  metrics::core_metrics().count_check(metrics::CheckKind::passive, metrics::ObjectKind::service);
  return true;
}

std::uint16_t PassiveResults::source_of(const PassiveResult& p) {
  return p.source.empty() ? CheckSources::k_command_file : w_.check_sources.intern(p.source);
}

}  // namespace vedette::engine
