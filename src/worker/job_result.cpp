#include "worker/job_result.hpp"

#include "config/command_compiler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace vedette::worker {
namespace {

bool is_check(const gearman::Job& job) {
  return job.type == gearman::JobType::host || job.type == gearman::JobType::service;
}

std::string trimmed(std::string_view text) {
  if (const auto nul = text.find('\0'); nul != std::string_view::npos) text = text.substr(0, nul);
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(first, last - first + 1));
}

std::string signal_name(int signo) {
  const char* abbrev = sigabbrev_np(signo);
  return abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", signo);
}

}  // namespace

std::optional<exec::CheckJob> make_check_job(const gearman::Job& job, std::uint32_t id,
                                             const JobSettings& settings) {
  exec::CheckJob check;
  check.id = id;
  check.kind = job.type == gearman::JobType::host      ? exec::CheckKind::host
               : job.type == gearman::JobType::service ? exec::CheckKind::service
                                                       : exec::CheckKind::other;
  bool needs_shell = false;
  check.argv = config::split_expanded_line(job.command_line, needs_shell, check.env);
  if (check.argv.empty()) return std::nullopt;
  check.use_shell = needs_shell;
  const int timeout_s = job.timeout_s > 0 ? job.timeout_s : std::max(1, settings.job_timeout_s);
  check.timeout_ms = static_cast<std::uint32_t>(std::min(timeout_s, 86'400)) * 1000;
  if (job.type == gearman::JobType::notification) {
    // get_job exports the outputs for notification scripts that read the environment.
    const bool service = !job.service_description.empty();
    check.env.emplace_back(service ? "NAGIOS_SERVICEOUTPUT" : "NAGIOS_HOSTOUTPUT", job.plugin_output);
    check.env.emplace_back(service ? "NAGIOS_LONGSERVICEOUTPUT" : "NAGIOS_LONGHOSTOUTPUT",
                           job.long_plugin_output);
  }
  return check;
}

gearman::Result make_result(const gearman::Job& job, const exec::CheckResult& done,
                            const JobSettings& settings) {
  gearman::Result r;
  r.host_name = job.host_name;
  r.service_description = job.type == gearman::JobType::service ? job.service_description : std::string();
  r.core_start_time_us = job.core_time_us;
  r.start_time_us = done.start_us;
  r.finish_time_us = done.end_us;
  r.source = fmt::format("Vedette Worker @ {}", settings.identifier);
  const std::string& id = settings.identifier;

  std::string out = trimmed(done.output);
  std::string err = trimmed(done.error_output);
  int code = 0;
  switch (done.outcome) {
    case exec::Outcome::exited:
      code = done.exit_code;
      break;
    case exec::Outcome::killed_by_signal:
      code = 128 + done.signal;
      break;
    case exec::Outcome::exec_failed:
      // Naemon's and Mod-Gearman's shells report these as 127 (not found) and 126 (not executable).
      code = done.spawn_errno == ENOENT || done.spawn_errno == ENOTDIR ? 127 : 126;
      break;
    case exec::Outcome::timed_out:
      r.return_code = settings.timeout_return;
      r.early_timeout = true;
      r.output = fmt::format("({} Check Timed Out On Worker: {})",
                             job.type == gearman::JobType::service ? "Service" : "Host", id);
      return r;
    case exec::Outcome::spawn_failed:
    case exec::Outcome::cancelled:
      r.return_code = 3;
      r.exited_ok = false;
      r.output = fmt::format(
          "UNKNOWN: could not start the plugin: {} (worker: {})",
          done.outcome == exec::Outcome::cancelled ? "cancelled" : std::strerror(done.spawn_errno), id);
      return r;
  }

  if (code == 126) {
    out = fmt::format(
        "CRITICAL: Return code of 126 is out of bounds. Make sure the plugin you're trying to run is "
        "executable. "
        "(worker: {})",
        id);
    code = 2;
  } else if (code == 127) {
    out = fmt::format(
        "CRITICAL: Return code of 127 is out of bounds. Make sure the plugin you're trying to run actually "
        "exists. (worker: {})",
        id);
    code = 2;
  } else if (code >= 128 && code < 144) {
    out = fmt::format(
        "CRITICAL: Return code of {} is out of bounds. Plugin exited by signal {}. (worker: {})\n{}", code,
        signal_name(code - 128), id, out);
    code = 2;
  } else if (code < 0 || code > 3) {
    out = fmt::format("CRITICAL: Return code of {} is out of bounds. (worker: {})\n{}", code, id, out);
    code = 2;
  }
  // send_result_back: stderr after the output, in brackets.
  if (settings.show_error_output && !err.empty()) {
    if (!out.empty()) out += '\n';
    out += fmt::format("[{}] ", err);
  }
  r.return_code = code;
  r.output = std::move(out);
  return r;
}

std::optional<gearman::Result> too_old_result(const gearman::Job& job, std::int64_t now_us,
                                              const JobSettings& settings) {
  if (settings.max_age_s <= 0 || !is_check(job) || job.core_time_us <= 0) return std::nullopt;
  if (now_us - job.core_time_us <= static_cast<std::int64_t>(settings.max_age_s) * 1'000'000)
    return std::nullopt;
  gearman::Result r;
  r.host_name = job.host_name;
  r.service_description = job.type == gearman::JobType::service ? job.service_description : std::string();
  r.core_start_time_us = job.core_time_us;
  r.start_time_us = now_us;
  r.finish_time_us = now_us;
  r.return_code = 3;
  r.source = fmt::format("Vedette Worker @ {}", settings.identifier);
  r.output = "(Could Not Start Check In Time)";
  return r;
}

}  // namespace vedette::worker
