#include "native/ping_report.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace vedette::native {
namespace {

constexpr int k_unknown_packet_loss = 200;

// error_scan(): the first phrase found decides; nullptr when the line is no reason to die.
const char* fatal_message(const std::string& line) {
  auto has = [&](const char* phrase) { return line.find(phrase) != std::string::npos; };
  if (has("Network is unreachable") || has("Destination Net Unreachable") || has("No route"))
    return "CRITICAL - Network Unreachable";
  if (has("Destination Host Unreachable") || has("Address unreachable")) return "CRITICAL - Host Unreachable";
  if (has("Destination Port Unreachable") || has("Port unreachable"))
    return "CRITICAL - Bogus ICMP: Port Unreachable";
  if (has("Destination Protocol Unreachable")) return "CRITICAL - Bogus ICMP: Protocol Unreachable";
  if (has("Destination Net Prohibited")) return "CRITICAL - Network Prohibited";
  if (has("Destination Host Prohibited")) return "CRITICAL - Host Prohibited";
  if (has("Packet filtered") || has("Administratively prohibited")) return "CRITICAL - Packet Filtered";
  if (has("unknown host")) return "CRITICAL - Host not found";
  if (has("Time to live exceeded") || has("Time exceeded")) return "CRITICAL - Time to live exceeded";
  if (has("Destination unreachable: ")) return "CRITICAL - Destination Unreachable";
  return nullptr;
}

}  // namespace

std::string icmp4_error_text(int type, int code) {
  if (type == 11) return code == 0 ? "Time to live exceeded" : "Frag reassembly time exceeded";
  if (type != 3) return "Bad ICMP type";
  static constexpr const char* k_unreachable[] = {"Destination Net Unreachable",
                                                  "Destination Host Unreachable",
                                                  "Destination Protocol Unreachable",
                                                  "Destination Port Unreachable",
                                                  "Frag needed and DF set",
                                                  "Source Route Failed",
                                                  "Destination Net Unknown",
                                                  "Destination Host Unknown",
                                                  "Source Host Isolated",
                                                  "Destination Net Prohibited",
                                                  "Destination Host Prohibited",
                                                  "Destination Net Unreachable for Type of Service",
                                                  "Destination Host Unreachable for Type of Service",
                                                  "Packet filtered",
                                                  "Precedence Violation",
                                                  "Precedence Cutoff"};
  if (code >= 0 && code < 16) return k_unreachable[code];
  return "Dest Unreachable, Bad Code";
}

std::string icmp6_error_text(int type, int code) {
  if (type == 3) return code == 0 ? "Time exceeded: Hop limit" : "Time exceeded: Defragmentation failure";
  if (type != 1) return "Bad ICMP type";
  static constexpr const char* k_unreachable[] = {"No route", "Administratively prohibited", "Beyond scope",
                                                  "Address unreachable", "Port unreachable"};
  std::string text = "Destination unreachable: ";
  text += code >= 0 && code < 5 ? k_unreachable[code] : "Unknown code";
  return text;
}

PluginRun report_ping_invalid_host(const PingOptions& options) {
  PluginRun run;
  run.exit_code = k_state_unknown;
  append_printf(run.output,
                "check_ping: Invalid hostname/address - %s\nUsage:\ncheck_ping -H <host_address> -w "
                "<wrta>,<wpl>%% -c <crta>,<cpl>%%\n [-p packets] [-t timeout] [-4|-6]\n",
                options.address.c_str());
  return run;
}

PluginRun report_ping(const PingOptions& o, const PingTally& t, bool ipv6) {
  PluginRun run;
  // run_ping(): error_scan on ping's stdout lines (the error lines), then on its stderr (a failed send).
  int result = k_state_unknown;
  std::string warn_text;
  if (!t.error_line.empty()) {
    if (const char* message = fatal_message(t.error_line)) {
      run.exit_code = k_state_critical;
      append_printf(run.output, "%s (%s)\n", message, o.address.c_str());
      return run;
    }
  }
  if (t.duplicates > 0) {
    result = k_state_warning;
    warn_text = "DUPLICATES FOUND! ";
  } else {
    result = k_state_ok;
  }
  if (t.send_errno != 0) {
    const std::string line = std::string("ping: sendmsg: ") + std::strerror(t.send_errno);
    if (const char* message = fatal_message(line)) {
      run.exit_code = k_state_critical;
      append_printf(run.output, "%s (%s)\n", message, o.address.c_str());
      return run;
    }
    // A warning on stderr and no statistics (ping exited): the plugin cannot read a loss.
    run.exit_code = k_state_unknown;
    run.output = ping_command_line(o, ipv6) + "\nCRITICAL - Could not interpret output from ping command\n";
    return run;
  }

  // The loss as ping prints it ("%g%%" of a float) and as the plugin's "%d%%" reads it back.
  int pl = k_unknown_packet_loss;
  float rta = -1.0f;
  if (t.transmitted > 0) {
    const auto loss =
        static_cast<float>(static_cast<long long>(t.transmitted - t.received) * 100.0 / t.transmitted);
    char printed[32];
    std::snprintf(printed, sizeof printed, "%g", static_cast<double>(loss));
    pl = std::atoi(printed);
  }
  if (t.received + t.duplicates > 0) {
    // "rtt min/avg/max/mdev = …": the average in whole microseconds, printed as ms with three decimals.
    const std::int64_t avg_us = t.rtt_sum_us / (t.received + t.duplicates);
    char printed[48];
    std::snprintf(printed, sizeof printed, "%ld.%03ld", static_cast<long>(avg_us / 1000),
                  static_cast<long>(avg_us % 1000));
    std::sscanf(printed, "%f", &rta);
  }
  if (pl == 100) rta = o.critical_rta;
  if (pl == k_unknown_packet_loss || rta < 0.0f) {
    run.exit_code = k_state_unknown;
    run.output = ping_command_line(o, ipv6) + "\nCRITICAL - Could not interpret output from ping command\n";
    return run;
  }
  int state;
  if (pl >= o.critical_pl || rta >= o.critical_rta || rta < 0)
    state = k_state_critical;
  else if (pl >= o.warning_pl || rta >= o.warning_rta)
    state = k_state_warning;
  else
    state = result == k_state_warning ? k_state_warning : k_state_ok;  // max_state(STATE_OK, result)
  run.exit_code = state;
  if (pl == 100)
    append_printf(run.output, "PING %s - %sPacket loss = %d%%", state_text(state), warn_text.c_str(), pl);
  else
    append_printf(run.output, "PING %s - %sPacket loss = %d%%, RTA = %2.2f ms", state_text(state),
                  warn_text.c_str(), pl, static_cast<double>(rta));
  if (pl != 100) {
    run.output += '|';
    append_fperfdata(run.output, "rta", static_cast<double>(rta), "ms", o.warning_rta > 0, o.warning_rta,
                     o.critical_rta > 0, o.critical_rta, true, 0, false, 0);
  } else {
    append_printf(run.output, "| rta=U;%f;%f;;", static_cast<double>(o.warning_rta),
                  static_cast<double>(o.critical_rta));
  }
  // perfdata() of 2.3.3: label=V%;[w];[c];[min];[max]
  run.output += " pl=";
  append_printf(run.output, "%d%%;", pl);
  if (o.warning_pl > 0) append_printf(run.output, "%d", o.warning_pl);
  run.output += ';';
  if (o.critical_pl > 0) append_printf(run.output, "%d", o.critical_pl);
  run.output += ";0;\n";
  return run;
}

}  // namespace vedette::native
