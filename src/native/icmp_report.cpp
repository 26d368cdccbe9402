#include "native/icmp_report.hpp"

namespace vedette::native {

const char* icmp_error_message(int type, int code) {
  if (type == 3) {
    static constexpr const char* k_unreachable[] = {"Net unreachable",
                                                    "Host unreachable",
                                                    "Protocol unreachable (firewall?)",
                                                    "Port unreachable (firewall?)",
                                                    "Fragmentation needed",
                                                    "Source route failed",
                                                    "Unknown network",
                                                    "Unknown host",
                                                    "Source host isolated",
                                                    "Network denied (firewall?)",
                                                    "Host denied (firewall?)",
                                                    "Bad TOS for network (firewall?)",
                                                    "Bad TOS for host (firewall?)",
                                                    "Prohibited by filter (firewall)",
                                                    "Host precedence violation",
                                                    "Precedence cutoff"};
    return code >= 0 && code < 16 ? k_unreachable[code] : "Invalid code";
  }
  if (type == 11) {
    if (code == 0) return "Time to live exceeded in transit";
    if (code == 1) return "Fragment reassembly time exceeded";
    return "Invalid code";
  }
  if (type == 4) return "Transmitting too fast";
  if (type == 5) return "Redirect (change route)";
  if (type == 12) return "Bad IP header (required option absent)";
  return "";
}

PluginRun report_icmp(const IcmpOptions& o, const IcmpTally& t) {
  // One target: it is "alive" unless an error made it a lost cause.
  int status = k_state_ok;
  std::uint32_t pl = 100;
  double rta = 0;
  if (t.received == 0) {
    status = k_state_critical;
  } else {
    pl = static_cast<unsigned char>((t.sent - t.received) * 100 / t.sent);
    rta = static_cast<double>(t.waited_us) / t.received;
  }
  if (pl >= o.critical_pl || rta >= o.critical_rta_us)
    status = k_state_critical;
  else if (status == k_state_ok && (pl >= o.warning_pl || rta >= o.warning_rta_us))
    status = k_state_warning;
  if (t.lost_cause) status = k_state_critical;  // targets_alive is 0

  PluginRun run;
  run.exit_code = status;
  append_printf(run.output, "%s - ", state_text(status));
  if (t.received == 0 && t.lost_cause)
    append_printf(run.output, "%s: %s @ %s. rta nan, lost %d%%", o.target.c_str(),
                  icmp_error_message(t.error_type, t.error_code), t.error_from.c_str(), 100);
  else if (t.received == 0)
    append_printf(run.output, "%s: rta nan, lost 100%%", o.target.c_str());
  else
    append_printf(run.output, "%s: rta %0.3fms, lost %u%%", o.target.c_str(), rta / 1000, pl);
  append_printf(run.output,
                "|rta=%0.3fms;%0.3f;%0.3f;0; pl=%u%%;%u;%u;; rtmax=%0.3fms;;;; rtmin=%0.3fms;;;; \n",
                rta / 1000, static_cast<double>(static_cast<float>(o.warning_rta_us) / 1000),
                static_cast<double>(static_cast<float>(o.critical_rta_us) / 1000), pl, o.warning_pl,
                o.critical_pl, static_cast<double>(static_cast<float>(t.rtmax_us) / 1000),
                static_cast<double>(t.received > 0 ? static_cast<float>(t.rtmin_us) / 1000 : 0.0f));
  return run;
}

PluginRun report_icmp_unresolved(const IcmpOptions& o, const std::string& why) {
  PluginRun run;
  run.exit_code = k_state_unknown;
  append_printf(run.output, "check_icmp: Failed to resolve %s: %s\n", o.target.c_str(), why.c_str());
  return run;
}

PluginRun report_icmp_no_hosts() {
  PluginRun run;
  run.exit_code = k_state_unknown;
  run.output = "check_icmp: No hosts to check\n";
  return run;
}

}  // namespace vedette::native
