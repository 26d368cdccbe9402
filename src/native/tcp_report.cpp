#include "native/tcp_report.hpp"

#include <cctype>
#include <cstring>

namespace vedette::native {

Match expect_match(const std::string& received, const TcpOptions& options) {
  const char* status = received.c_str();
  std::size_t matched = 0;
  for (const std::string& expect : options.expect)
    if (std::strstr(status, expect.c_str()) != nullptr) ++matched;
  const bool success = options.match_all ? matched == options.expect.size() : matched >= 1;
  return success ? Match::success : Match::retry;  // not exact: never a failure before the reading ends
}

PluginRun report_connect_failure(const TcpOptions& options, int error) {
  PluginRun run;
  run.exit_code = options.refuse_state;
  append_printf(run.output, "connect to address %s and port %d: %s\n", options.address.c_str(), options.port,
                std::strerror(error));
  return run;
}

PluginRun report_socket_timeout(const TcpOptions& options) {
  PluginRun run;
  run.exit_code = k_state_critical;
  append_printf(run.output, "CRITICAL - Socket timeout after %d seconds\n", options.timeout_s);
  return run;
}

PluginRun report_invalid_host(const TcpOptions& options) {
  PluginRun run;
  run.exit_code = k_state_critical;
  append_printf(run.output, "TCP CRITICAL - Invalid hostname, address or socket: %s\n",
                options.address.c_str());
  return run;
}

PluginRun report_tcp(const TcpOptions& options, std::string received, Match match, double elapsed_s) {
  PluginRun run;
  const bool expecting = !options.expect.empty();
  std::size_t len = received.size();
  if (expecting) {
    if (match == Match::retry) match = Match::failure;
    if (len == 0) {
      run.exit_code = k_state_critical;
      run.output = "No data received from host\n";
      return run;
    }
    // The plugin strips trailing blanks but never the first byte (`while (--len > 0 && isspace(...))`).
    while (--len > 0 && std::isspace(static_cast<unsigned char>(received[len])) &&
           static_cast<unsigned char>(received[len]) < 0x80)
      received[len] = '\0';
  }
  const char* status = received.c_str();  // printed with %s: up to the first NUL

  int result = k_state_ok;
  if (options.has_critical && elapsed_s > options.critical)
    result = k_state_critical;
  else if (options.has_warning && elapsed_s > options.warning)
    result = k_state_warning;
  if (match == Match::failure && result != k_state_critical) result = options.mismatch_state;

  std::string& out = run.output;
  append_printf(out, "TCP %s - ", state_text(result));
  if (match == Match::failure && len != 0 && !options.hide_output) {
    append_printf(out, "Unexpected response from host/socket: %s", status);
  } else {
    if (match == Match::failure)
      out += "Unexpected response from host/socket on ";
    else
      append_printf(out, "%.3f second response time on ", elapsed_s);
    if (options.host_specified)
      append_printf(out, "%s port %d", options.address.c_str(), options.port);
    else
      append_printf(out, "port %d", options.port);
  }
  if (match != Match::failure && !options.hide_output && len != 0) append_printf(out, " [%s]", status);
  // On a mismatch the plugin prints zeroes for the thresholds it has.
  const bool failed = match == Match::failure;
  out += '|';
  append_fperfdata(out, "time", elapsed_s, "s", options.has_warning, failed ? 0 : options.warning,
                   options.has_critical, failed ? 0 : options.critical, true, 0, true, options.timeout_s);
  out += '\n';
  run.exit_code = result;
  return run;
}

}  // namespace vedette::native
