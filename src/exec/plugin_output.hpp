// Plugin output and outcome -> what Naemon stores for a check: state, plugin_output, long_plugin_output,
// perf_data. Pure functions, any thread (the core applies them when it drains results, or an executor
// thread may apply them before pushing). Every rule below is Naemon's, sources named in the .cpp.
#pragma once

#include "exec/check_job.hpp"

#include <string>
#include <string_view>

namespace vedette::exec {

struct PluginOutput {
  std::string output;       // first non-empty line up to its first '|', trimmed of " \t\r\n"
  std::string long_output;  // the lines after it up to the next '|', newlines escaped as the two bytes "\n"
  std::string perf_data;    // after the first line's '|', plus every later line after that '|', trimmed
  bool is_null = true;      // no text at all (empty after trailing whitespace): Naemon's NULL plugin output
};

// Naemon's process_check_result (rstrip) followed by parse_check_output(..., escape_newlines = TRUE).
// Text after a NUL byte is ignored, as Naemon's C strings do.
[[nodiscard]] PluginOutput parse_plugin_output(std::string_view raw);

// Naemon's raw check output for a result: stdout if it has any byte, else "(No output on stdout) stderr: "
// and stderr, else empty (NULL in Naemon). Bytes from a NUL on are dropped first.
[[nodiscard]] std::string combined_output(const CheckResult& result);

enum class CheckProblem : std::uint8_t {
  none,
  timed_out,              // Naemon's early_timeout
  did_not_exit_properly,  // exited_ok == FALSE: no process ran (Outcome::spawn_failed)
  return_code_out_of_bounds,
};

struct CheckVerdict {
  // Service: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN. Host: the same scale before Naemon turns it into UP or
  // DOWN (host_up_or_down); the DOWN/UNREACHABLE decision and "(Host assumed to be UP)" are the engine's.
  int state = 3;
  int return_code = 3;          // the plugin's exit status; 3 (UNKNOWN) if it died by a signal, as Naemon
  double execution_time = 0.0;  // seconds, (end - start), never negative
  PluginOutput output;          // plugin_output has ';' replaced by ':' where Naemon does it
  CheckProblem problem = CheckProblem::none;
};

// service_check_timeout_state: Naemon's option of that name (0-3; its default is 2, CRITICAL). Host
// timeouts are always UNKNOWN, as in Naemon. CheckKind::other is treated as a service.
[[nodiscard]] CheckVerdict interpret_check_result(const CheckResult& result, int service_check_timeout_state);

// The runtime warning Naemon logs for a problem, without the trailing newline; empty when it logs none.
// host_name/service_description name the object (service_description unused for hosts).
[[nodiscard]] std::string check_warning_text(const CheckVerdict& verdict, CheckKind kind,
                                             std::string_view host_name,
                                             std::string_view service_description);

// Naemon's translation of an active host check's state: WARNING counts as UP unless
// use_aggressive_host_checking, OK is UP, anything else DOWN. Returns 0 (UP) or 1 (DOWN).
[[nodiscard]] int host_up_or_down(int state, bool use_aggressive_host_checking);

}  // namespace vedette::exec
