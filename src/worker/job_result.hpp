// What vedette-worker does with one Mod-Gearman job: the exec::CheckJob that runs it, and the result a
// Mod-Gearman worker would send for what the plugin did (worker_client.c do_exec_job, check_utils.c
// execute_safe_command, utils.c send_result_back). Pure functions; any thread.
#pragma once

#include "exec/check_job.hpp"
#include "gearman/payload.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace vedette::worker {

struct JobSettings {
  std::string identifier;  // names this worker in outputs and `source` (Mod-Gearman: the host name)
  int job_timeout_s = 60;  // when the job carries none
  int max_age_s = 0;       // a check older than this (from its core time) is not run; 0: no limit
  int timeout_return = 2;  // the state of a check that timed out
  bool show_error_output = true;
};

// The job as the executor runs it: the command line split as Naemon's runcmd splits it (or for /bin/sh when
// it has shell syntax), the job's timeout, and for notifications the NAGIOS_*OUTPUT variables the C worker
// exports. `id` is echoed in the CheckResult. Nothing when the command line holds no command.
[[nodiscard]] std::optional<exec::CheckJob> make_check_job(const gearman::Job& job, std::uint32_t id,
                                                           const JobSettings& settings);

// The result for a host or service job from what the executor reports:
//  - exit codes 0-3 as they are; 126 and 127 (and exec failures) CRITICAL with Mod-Gearman's "Return code
//    of 126/127 is out of bounds. Make sure the plugin ..." text; a signal, or any other code,
//    CRITICAL "Return code of N is out of bounds." with the output below it;
//  - a timeout: timeout_return and "(Service|Host Check Timed Out On Worker: <id>)";
//  - stdout trimmed, stderr appended as "[...] " (show_error_output);
//  - start and finish times from the executor, the job's core time echoed as core_start_time.
[[nodiscard]] gearman::Result make_result(const gearman::Job& job, const exec::CheckResult& done,
                                          const JobSettings& settings);

// For a host or service job older than max_age at `now_us` (wall clock µs): the UNKNOWN result "(Could
// Not Start Check In Time)" the worker sends instead of running it. Nothing when the job may run.
[[nodiscard]] std::optional<gearman::Result> too_old_result(const gearman::Job& job, std::int64_t now_us,
                                                            const JobSettings& settings);

}  // namespace vedette::worker
