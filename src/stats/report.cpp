#include "stats/report.hpp"

#include <fmt/format.h>

#include <cstdarg>
#include <cstdio>
#include <functional>
#include <limits>
#include <unordered_map>
#include <vector>

namespace vedette::stats {
namespace {

// printf into the output: "%.3f" must round exactly as naemonstats' printf does.
[[gnu::format(printf, 2, 3)]] void appendf(std::string& out, const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  if (n > 0) {
    const std::size_t at = out.size();
    out.resize(at + static_cast<std::size_t>(n) + 1);
    std::vsnprintf(out.data() + at, static_cast<std::size_t>(n) + 1, format, again);
    out.resize(at + static_cast<std::size_t>(n));
  }
  va_end(again);
}

std::uint64_t age(std::int64_t now, std::int64_t then) {
  return static_cast<std::uint64_t>(now) - static_cast<std::uint64_t>(then);
}

// "Nd Nh Nm Ns" with naemonstats' int arithmetic, so a time in the future wraps as it does there.
std::string breakdown(std::uint64_t seconds) {
  const auto days = static_cast<std::int32_t>(seconds / 86400);
  seconds -= static_cast<std::uint64_t>(
      static_cast<std::int64_t>(static_cast<std::int32_t>(static_cast<std::uint32_t>(days) * 86400u)));
  const auto hours = static_cast<std::int32_t>(seconds / 3600);
  seconds -= static_cast<std::uint64_t>(static_cast<std::int64_t>(hours) * 3600);
  const auto minutes = static_cast<std::int32_t>(seconds / 60);
  seconds -= static_cast<std::uint64_t>(static_cast<std::int64_t>(minutes) * 60);
  return fmt::format("{}d {}h {}m {}s", days, hours, minutes, static_cast<std::int32_t>(seconds));
}

// C's (int) of a double as x86-64 does it: NaN and out-of-range values become INT_MIN.
int truncate(double value) {
  if (!(value > -2147483649.0 && value < 2147483648.0)) return std::numeric_limits<int>::min();
  return static_cast<int>(value);
}

std::string version(const StatusSummary& s) {
  return s.version ? *s.version : "(null)";
}

}  // namespace

std::string format_report(const StatusSummary& s, std::string_view status_file, std::int64_t now) {
  const CheckableTotals& sv = s.services;
  const CheckableTotals& h = s.hosts;
  std::string o;
  o += "CURRENT STATUS DATA\n";
  o += "------------------------------------------------------\n";
  appendf(o, "Status File:                            %.*s\n", static_cast<int>(status_file.size()),
          status_file.data());
  appendf(o, "Status File Age:                        %s\n", breakdown(age(now, s.created)).c_str());
  appendf(o, "Status File Version:                    %s\n", version(s).c_str());
  o += "\n";
  appendf(o, "Program Running Time:                   %s\n", breakdown(age(now, s.program_start)).c_str());
  appendf(o, "Naemon PID:                             %d\n", s.pid);
  o += "\n";
  const auto spread = [&o](const char* label, const Spread& x, const char* unit) {
    appendf(o, "%s%.3f / %.3f / %.3f %s\n", label, x.min, x.max, x.avg, unit);
  };
  const auto recent = [&o](const char* label, const RecentCounts& c) {
    appendf(o, "%s%d / %d / %d / %d\n", label, c[0], c[1], c[2], c[3]);
  };
  const auto last15 = [&o](const char* label, const std::array<int, 3>& c) {
    appendf(o, "%s%d / %d / %d\n", label, c[0], c[1], c[2]);
  };
  appendf(o, "Total Services:                         %d\n", sv.entries);
  appendf(o, "Services Checked:                       %d\n", sv.checked);
  appendf(o, "Services Scheduled:                     %d\n", sv.scheduled);
  appendf(o, "Services Actively Checked:              %d\n", sv.active);
  appendf(o, "Services Passively Checked:             %d\n", sv.passive);
  spread("Total Service State Change:             ", sv.state_change, "%");
  spread("Active Service Latency:                 ", sv.active_latency, "sec");
  spread("Active Service Execution Time:          ", sv.active_execution_time, "sec");
  spread("Active Service State Change:            ", sv.active_state_change, "%");
  recent("Active Services Last 1/5/15/60 min:     ", sv.active_checked);
  spread("Passive Service Latency:                ", sv.passive_latency, "sec");
  spread("Passive Service State Change:           ", sv.passive_state_change, "%");
  recent("Passive Services Last 1/5/15/60 min:    ", sv.passive_checked);
  appendf(o, "Services Ok/Warn/Unk/Crit:              %d / %d / %d / %d\n", sv.by_state[0], sv.by_state[1],
          sv.by_state[3], sv.by_state[2]);
  appendf(o, "Services Flapping:                      %d\n", sv.flapping);
  appendf(o, "Services In Downtime:                   %d\n", sv.in_downtime);
  o += "\n";
  appendf(o, "Total Hosts:                            %d\n", h.entries);
  appendf(o, "Hosts Checked:                          %d\n", h.checked);
  appendf(o, "Hosts Scheduled:                        %d\n", h.scheduled);
  appendf(o, "Hosts Actively Checked:                 %d\n", h.active);
  appendf(o, "Host Passively Checked:                 %d\n", h.passive);
  spread("Total Host State Change:                ", h.state_change, "%");
  spread("Active Host Latency:                    ", h.active_latency, "sec");
  spread("Active Host Execution Time:             ", h.active_execution_time, "sec");
  spread("Active Host State Change:               ", h.active_state_change, "%");
  recent("Active Hosts Last 1/5/15/60 min:        ", h.active_checked);
  spread("Passive Host Latency:                   ", h.passive_latency, "sec");
  spread("Passive Host State Change:              ", h.passive_state_change, "%");
  recent("Passive Hosts Last 1/5/15/60 min:       ", h.passive_checked);
  appendf(o, "Hosts Up/Down/Unreach:                  %d / %d / %d\n", h.by_state[0], h.by_state[1],
          h.by_state[2]);
  appendf(o, "Hosts Flapping:                         %d\n", h.flapping);
  appendf(o, "Hosts In Downtime:                      %d\n", h.in_downtime);
  o += "\n";
  last15("Active Host Checks Last 1/5/15 min:     ", s.active_host_checks);
  last15("   Scheduled:                           ", s.stat(files::CheckStat::active_scheduled_host));
  last15("   On-demand:                           ", s.stat(files::CheckStat::active_ondemand_host));
  last15("   Parallel:                            ", s.stat(files::CheckStat::parallel_host));
  last15("   Serial:                              ", s.stat(files::CheckStat::serial_host));
  last15("   Cached:                              ", s.stat(files::CheckStat::cached_host));
  last15("Passive Host Checks Last 1/5/15 min:    ", s.stat(files::CheckStat::passive_host));
  last15("Active Service Checks Last 1/5/15 min:  ", s.active_service_checks);
  last15("   Scheduled:                           ", s.stat(files::CheckStat::active_scheduled_service));
  last15("   On-demand:                           ", s.stat(files::CheckStat::active_ondemand_service));
  last15("   Cached:                              ", s.stat(files::CheckStat::cached_service));
  last15("Passive Service Checks Last 1/5/15 min: ", s.stat(files::CheckStat::passive_service));
  o += "\n";
  last15("External Commands Last 1/5/15 min:      ", s.stat(files::CheckStat::external_command));
  o += "\n\n";
  return o;
}

namespace {

using Value = std::function<std::string(const StatusSummary&, std::int64_t now)>;

template <typename N>
std::string number(N n) {
  return fmt::format("{}", n);
}

// Every variable naemonstats 1.5.2 knows, by name.
std::unordered_map<std::string, Value> make_variables() {
  std::unordered_map<std::string, Value> v;
  v["PROGRUNTIME"] = [](const StatusSummary& s, std::int64_t now) {
    return breakdown(age(now, s.program_start));
  };
  v["PROGRUNTIMETT"] = [](const StatusSummary& s, std::int64_t now) {
    return number(age(now, s.program_start));
  };
  v["STATUSFILEAGE"] = [](const StatusSummary& s, std::int64_t now) {
    return breakdown(age(now, s.created));
  };
  v["STATUSFILEAGETT"] = [](const StatusSummary& s, std::int64_t now) { return number(age(now, s.created)); };
  v["NAGIOSVERSION"] = [](const StatusSummary& s, std::int64_t) { return version(s); };
  v["NAGIOSPID"] = [](const StatusSummary& s, std::int64_t) { return number(s.pid); };
  v["NAGIOSVERPID"] = [](const StatusSummary& s, std::int64_t) {
    return fmt::format("Naemon {} (pid={})", version(s), s.pid);
  };
  const auto count = [&v](const std::string& name, std::function<int(const StatusSummary&)> get) {
    v[name] = [get](const StatusSummary& s, std::int64_t) { return number(get(s)); };
  };
  count("NUMSERVICES", [](const StatusSummary& s) { return s.services.entries; });
  count("NUMHOSTS", [](const StatusSummary& s) { return s.hosts.entries; });

  // MIN/MAX/AVG of a spread; latencies and execution times in whole milliseconds.
  struct SpreadVar {
    const char* name;
    CheckableTotals StatusSummary::*kind;
    Spread CheckableTotals::*spread;
    double scale;
  };
  using S = StatusSummary;
  using C = CheckableTotals;
  const SpreadVar spreads[] = {
      {"ACTSVCLAT", &S::services, &C::active_latency, 1000},
      {"ACTSVCEXT", &S::services, &C::active_execution_time, 1000},
      {"ACTSVCPSC", &S::services, &C::active_state_change, 1},
      {"PSVSVCLAT", &S::services, &C::passive_latency, 1000},
      {"PSVSVCPSC", &S::services, &C::passive_state_change, 1},
      {"SVCPSC", &S::services, &C::state_change, 1},
      {"ACTHSTLAT", &S::hosts, &C::active_latency, 1000},
      {"ACTHSTEXT", &S::hosts, &C::active_execution_time, 1000},
      {"ACTHSTPSC", &S::hosts, &C::active_state_change, 1},
      {"PSVHSTLAT", &S::hosts, &C::passive_latency, 1000},
      {"PSVHSTPSC", &S::hosts, &C::passive_state_change, 1},
      {"HSTPSC", &S::hosts, &C::state_change, 1},
  };
  for (const SpreadVar& sv : spreads) {
    for (double Spread::*field : {&Spread::min, &Spread::max, &Spread::avg}) {
      const char* prefix = field == &Spread::min ? "MIN" : field == &Spread::max ? "MAX" : "AVG";
      count(std::string(prefix) + sv.name, [sv, field](const StatusSummary& s) {
        return truncate((s.*sv.kind.*sv.spread).*field * sv.scale);
      });
    }
  }

  // Checked within the last 1/5/15/60 minutes, from each object's last_check.
  const struct {
    const char* name;
    CheckableTotals StatusSummary::*kind;
    RecentCounts CheckableTotals::*counts;
  } recents[] = {
      {"NUMHSTACTCHK", &S::hosts, &C::active_checked},
      {"NUMHSTPSVCHK", &S::hosts, &C::passive_checked},
      {"NUMSVCACTCHK", &S::services, &C::active_checked},
      {"NUMSVCPSVCHK", &S::services, &C::passive_checked},
  };
  const char* const minutes4[] = {"1M", "5M", "15M", "60M"};
  for (const auto& r : recents) {
    for (std::size_t i = 0; i < 4; ++i) {
      count(std::string(r.name) + minutes4[i],
            [r, i](const StatusSummary& s) { return (s.*r.kind.*r.counts)[i]; });
    }
  }

  // The programstatus counters of the last 1/5/15 minutes.
  using Triple = std::function<const std::array<int, 3>&(const StatusSummary&)>;
  const auto stat = [](files::CheckStat p) -> Triple {
    return [p](const StatusSummary& s) -> const std::array<int, 3>& { return s.stat(p); };
  };
  const std::vector<std::pair<const char*, Triple>> triples = {
      {"NUMACTHSTCHECKS",
       [](const StatusSummary& s) -> const std::array<int, 3>& { return s.active_host_checks; }},
      {"NUMOACTHSTCHECKS", stat(files::CheckStat::active_ondemand_host)},
      {"NUMSACTHSTCHECKS", stat(files::CheckStat::active_scheduled_host)},
      {"NUMPARHSTCHECKS", stat(files::CheckStat::parallel_host)},
      {"NUMSERHSTCHECKS", stat(files::CheckStat::serial_host)},
      {"NUMPSVHSTCHECKS", stat(files::CheckStat::passive_host)},
      {"NUMCACHEDHSTCHECKS", stat(files::CheckStat::cached_host)},
      {"NUMACTSVCCHECKS",
       [](const StatusSummary& s) -> const std::array<int, 3>& { return s.active_service_checks; }},
      {"NUMOACTSVCCHECKS", stat(files::CheckStat::active_ondemand_service)},
      {"NUMSACTSVCCHECKS", stat(files::CheckStat::active_scheduled_service)},
      {"NUMPSVSVCCHECKS", stat(files::CheckStat::passive_service)},
      {"NUMCACHEDSVCCHECKS", stat(files::CheckStat::cached_service)},
      {"NUMEXTCMDS", stat(files::CheckStat::external_command)},
  };
  for (const auto& [name, get] : triples) {
    for (std::size_t i = 0; i < 3; ++i) {
      count(std::string(name) + minutes4[i], [get, i](const StatusSummary& s) { return get(s)[i]; });
    }
  }

  count("NUMSVCOK", [](const StatusSummary& s) { return s.services.by_state[0]; });
  count("NUMSVCWARN", [](const StatusSummary& s) { return s.services.by_state[1]; });
  count("NUMSVCUNKN", [](const StatusSummary& s) { return s.services.by_state[3]; });
  count("NUMSVCCRIT", [](const StatusSummary& s) { return s.services.by_state[2]; });
  count("NUMSVCPROB", [](const StatusSummary& s) {
    const auto& b = s.services.by_state;
    return static_cast<int>(static_cast<unsigned>(b[1]) + static_cast<unsigned>(b[3]) +
                            static_cast<unsigned>(b[2]));
  });
  count("NUMSVCCHECKED", [](const StatusSummary& s) { return s.services.checked; });
  count("NUMSVCSCHEDULED", [](const StatusSummary& s) { return s.services.scheduled; });
  count("NUMSVCFLAPPING", [](const StatusSummary& s) { return s.services.flapping; });
  count("NUMSVCDOWNTIME", [](const StatusSummary& s) { return s.services.in_downtime; });
  count("NUMHSTUP", [](const StatusSummary& s) { return s.hosts.by_state[0]; });
  count("NUMHSTDOWN", [](const StatusSummary& s) { return s.hosts.by_state[1]; });
  count("NUMHSTUNR", [](const StatusSummary& s) { return s.hosts.by_state[2]; });
  count("NUMHSTPROB", [](const StatusSummary& s) {
    return static_cast<int>(static_cast<unsigned>(s.hosts.by_state[1]) +
                            static_cast<unsigned>(s.hosts.by_state[2]));
  });
  count("NUMHSTCHECKED", [](const StatusSummary& s) { return s.hosts.checked; });
  count("NUMHSTSCHEDULED", [](const StatusSummary& s) { return s.hosts.scheduled; });
  count("NUMHSTFLAPPING", [](const StatusSummary& s) { return s.hosts.flapping; });
  count("NUMHSTDOWNTIME", [](const StatusSummary& s) { return s.hosts.in_downtime; });
  return v;
}

}  // namespace

std::string format_mrtg(const StatusSummary& s, std::string_view variables, std::string_view delimiter,
                        std::int64_t now) {
  static const std::unordered_map<std::string, Value> known = make_variables();
  std::string out;
  std::size_t start = 0;
  while (start <= variables.size()) {
    const std::size_t comma = std::min(variables.find(',', start), variables.size());
    const std::string name(variables.substr(start, comma - start));
    start = comma + 1;
    if (name.empty()) continue;  // strtok: empty names between commas are skipped
    const auto it = known.find(name);
    out += it == known.end() ? name : it->second(s, now);
    out += delimiter;
  }
  if (delimiter != "\n") out += '\n';
  return out;
}

}  // namespace vedette::stats
