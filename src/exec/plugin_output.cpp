#include "exec/plugin_output.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace vedette::exec {
namespace {

std::string_view up_to_nul(std::string_view text) {
  return text.substr(0, text.find('\0'));
}

// isspace() in the C locale: what Naemon's rstrip() removes from the end of the raw output.
bool is_c_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

// Naemon's strip() (shared.c): blanks, tabs, CR and LF off both ends; \v and \f stay.
std::string_view strip(std::string_view text) {
  constexpr std::string_view k_blanks = " \t\r\n";
  const std::size_t first = text.find_first_not_of(k_blanks);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(k_blanks) - first + 1);
}

// escape_plugin_output (utils.c): Naemon keeps long output with newlines as the two bytes '\' 'n'.
std::string escape_newlines(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size() + static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')));
  for (const char c : text) {
    if (c == '\n') {
      escaped += "\\n";
    } else {
      escaped += c;
    }
  }
  return escaped;
}

std::string timed_out_text(CheckKind kind, double seconds) {
  return fmt::format("({} check timed out after {:.2f} seconds)",
                     kind == CheckKind::host ? "Host" : "Service", seconds);
}

}  // namespace

// parse_output() in checks.c, walked with the same strtok_r steps: the first token skips leading newlines;
// the remainder starts right after the first line's newline (so it may begin with blank lines); perfdata
// lines after the remainder's first '|' are split on newlines, empty ones dropped, each joined with a
// space unless it starts with one.
PluginOutput parse_plugin_output(std::string_view raw) {
  raw = up_to_nul(raw);
  while (!raw.empty() && is_c_space(raw.back())) raw.remove_suffix(1);
  PluginOutput parsed;
  if (raw.empty()) return parsed;
  parsed.is_null = false;

  // raw ends in a non-space byte, so there is a first line.
  const std::size_t begin = raw.find_first_not_of('\n');
  const std::size_t end = raw.find('\n', begin);
  const std::string_view first = raw.substr(begin, end == std::string_view::npos ? end : end - begin);
  std::string perf;
  const std::size_t bar = first.find('|');
  if (bar == std::string_view::npos) {
    parsed.output = first;
  } else {
    parsed.output = first.substr(0, bar);
    perf.append(first.substr(bar + 1));
  }

  if (end != std::string_view::npos && end + 1 < raw.size()) {
    const std::string_view rest = raw.substr(end + 1);
    const std::size_t rest_bar = rest.find('|');
    if (rest_bar == std::string_view::npos) {
      parsed.long_output = escape_newlines(rest);
    } else {
      parsed.long_output = escape_newlines(rest.substr(0, rest_bar));
      std::string_view lines = rest.substr(rest_bar + 1);
      while (!lines.empty()) {
        const std::size_t nl = lines.find('\n');
        const std::string_view line = lines.substr(0, nl);
        lines = nl == std::string_view::npos ? std::string_view{} : lines.substr(nl + 1);
        if (line.empty()) continue;
        if (line.front() != ' ') perf += ' ';
        perf.append(line);
      }
    }
  }
  parsed.output = std::string(strip(parsed.output));
  parsed.perf_data = std::string(strip(perf));
  return parsed;
}

// handle_worker_service_check / handle_worker_host_check (checks_service.c, checks_host.c).
std::string combined_output(const CheckResult& result) {
  const std::string_view out = up_to_nul(result.output);
  if (!out.empty()) return std::string(out);
  const std::string_view err = up_to_nul(result.error_output);
  if (!err.empty()) return fmt::format("(No output on stdout) stderr: {}", err);
  return {};
}

// The branches of process_service_check_result (checks_service.c) and process_host_check_result
// (checks_host.c), in Naemon's order: timeout, then "did not exit properly", then out-of-bounds codes.
CheckVerdict interpret_check_result(const CheckResult& result, int service_check_timeout_state) {
  CheckVerdict verdict;
  verdict.execution_time = std::max(0.0, static_cast<double>(result.end_us - result.start_us) / 1e6);
  const bool exited_normally = result.outcome == Outcome::exited || result.outcome == Outcome::exec_failed;
  verdict.return_code = exited_normally ? result.exit_code : 3;
  const bool early_timeout = result.outcome == Outcome::timed_out;
  // A job error in Naemon's worker (no process could be started) arrives with exited_ok = FALSE.
  const bool exited_ok = result.outcome != Outcome::spawn_failed;
  const bool out_of_bounds = verdict.return_code < 0 || verdict.return_code > 3;
  const int rc = verdict.return_code;

  if (result.kind == CheckKind::host) {
    // Hosts parse the output first and replace it only afterwards.
    verdict.output = parse_plugin_output(combined_output(result));
    if (verdict.output.is_null) verdict.output.output = "(No output returned from host check)";
    std::replace(verdict.output.output.begin(), verdict.output.output.end(), ';', ':');
    verdict.state = rc;
    if (early_timeout) {
      verdict.output = {timed_out_text(CheckKind::host, verdict.execution_time), {}, {}, false};
      verdict.state = 3;
      verdict.problem = CheckProblem::timed_out;
    } else if (!exited_ok) {
      verdict.output = {"(Host check did not exit properly)", {}, {}, false};
      verdict.state = 2;
      verdict.problem = CheckProblem::did_not_exit_properly;
    } else if (out_of_bounds) {
      verdict.output = {fmt::format("(Return code of {} is out of bounds{})", rc,
                                    rc == 126 || rc == 127 ? " - plugin may be missing" : ""),
                        {},
                        {},
                        false};
      verdict.state = 2;
      verdict.problem = CheckProblem::return_code_out_of_bounds;
    }
    return verdict;
  }

  if (early_timeout) {
    verdict.output = {timed_out_text(CheckKind::service, verdict.execution_time), {}, {}, false};
    verdict.state = service_check_timeout_state;
    verdict.problem = CheckProblem::timed_out;
  } else if (!exited_ok) {
    verdict.output = {"(Service check did not exit properly)", {}, {}, false};
    verdict.state = 2;
    verdict.problem = CheckProblem::did_not_exit_properly;
  } else if (out_of_bounds) {
    const char* hint = rc == 126   ? " - plugin may not be executable"
                       : rc == 127 ? " - plugin may be missing"
                                   : "";
    verdict.output = {fmt::format("(Return code of {} is out of bounds{})", rc, hint), {}, {}, false};
    verdict.state = 2;
    verdict.problem = CheckProblem::return_code_out_of_bounds;
  } else {
    verdict.output = parse_plugin_output(combined_output(result));
    if (verdict.output.is_null) {
      verdict.output.output = "(No output returned from plugin)";
    } else {
      std::replace(verdict.output.output.begin(), verdict.output.output.end(), ';', ':');
    }
    verdict.state = rc;
  }
  return verdict;
}

std::string check_warning_text(const CheckVerdict& verdict, CheckKind kind, std::string_view host_name,
                               std::string_view service_description) {
  const int rc = verdict.return_code;
  const bool host = kind == CheckKind::host;
  switch (verdict.problem) {
    case CheckProblem::none:
    case CheckProblem::timed_out:
      return {};
    case CheckProblem::did_not_exit_properly:
      if (host) return fmt::format("Warning:  Check of host '{}' did not exit properly!", host_name);
      return fmt::format("Warning:  Check of service '{}' on host '{}' did not exit properly!",
                         service_description, host_name);
    case CheckProblem::return_code_out_of_bounds:
      if (host) {
        return fmt::format(
            "Warning: Return code of {} for check of host '{}' was out of bounds.{}", rc, host_name,
            rc == 126 || rc == 127 ? " Make sure the plugin you're trying to run actually exists." : "");
      }
      // Naemon's text really lacks the space before "Make" for 126; kept byte for byte.
      return fmt::format(
          "Warning: Return code of {} for check of service '{}' on host '{}' was out of bounds.{}", rc,
          service_description, host_name,
          rc == 126   ? "Make sure the plugin you're trying to run is executable."
          : rc == 127 ? " Make sure the plugin you're trying to run actually exists."
                      : "");
  }
  return {};
}

int host_up_or_down(int state, bool use_aggressive_host_checking) {
  if (!use_aggressive_host_checking && state == 1) state = 0;
  return state == 0 ? 0 : 1;
}

}  // namespace vedette::exec
