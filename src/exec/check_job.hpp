// What the core hands an executor (CheckJob) and what comes back (CheckResult). Both are plain values that
// cross threads by move: the executor never sees the model and the core never sees a pid or an fd.
// Any thread; owned by whoever holds the value.
#pragma once

#include "model/native_plugin.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace vedette::exec {

// Decides how plugin_output.hpp maps a result to a state and text; the executor itself treats all alike.
enum class CheckKind : std::uint8_t { host, service, other };

// Same shape as config::EnvVar, so split_expanded_line's output moves straight in.
using EnvVar = std::pair<std::string, std::string>;

inline constexpr std::uint32_t k_default_output_cap_bytes = 64 * 1024;

struct CheckJob {
  std::uint32_t id = 0;          // the host or service id; echoed back untouched
  std::uint32_t generation = 0;  // echoed back; lets the core drop results of a check it rescheduled away
  CheckKind kind = CheckKind::service;
  // use_shell == false: argv[0] is executed with argv, searched in PATH as execvp does (Naemon's runcmd).
  // use_shell == true: argv holds exactly one element, the whole line, run as `/bin/sh -c <line>`.
  // This is what config::split_expanded_line and model::CommandTemplate produce.
  std::vector<std::string> argv;
  bool use_shell = false;
  std::vector<EnvVar> env;            // added to the daemon's environment, overriding names it already has
  std::uint32_t timeout_ms = 60'000;  // 0 means 60 s, as in Naemon's worker
  // Applies to stdout and to stderr separately; bytes past it are read and discarded.
  std::uint32_t output_cap_bytes = k_default_output_cap_bytes;
  // CLOCK_MONOTONIC ns before which the plugin is not started; 0 (or a time past) starts it at once. The
  // core hands checks over a little before they are due, so that it need not wake for each one.
  std::int64_t not_before_ns = 0;
  // The core expects this check to time out (its last run did, see engine/checks/timing_out.hpp). Such jobs
  // run in the few slots ExecutorOptions::timing_out_slots grants them and queue for one otherwise, so that
  // hanging plugins cannot take every spawn and every process while healthy checks wait behind them.
  bool timing_out = false;
  // Set from the command at load (model::Command::native): run inside the executor if argv parses as the
  // plugin's supported options, else as a process (docs/native-checks.md).
  model::NativePlugin native = model::NativePlugin::none;
};

enum class Outcome : std::uint8_t {
  exited,            // exit_code is the plugin's
  killed_by_signal,  // signal holds the number; core_dumped may be set
  timed_out,         // the process group got SIGKILL at the deadline; output is what had arrived
  // posix_spawn reported an exec failure (ENOENT, EACCES, ENOEXEC, ...). As in Naemon, whose child writes
  // "execvp(...) failed" to stderr and exits with errno: exit_code = spawn_errno, stderr holds that text.
  exec_failed,
  // No child ran (spawn_errno says why), or it cannot be waited for (ECHILD). A shortage of fds, processes
  // or memory (EMFILE, ENFILE, EAGAIN, ENOMEM) is no result: the executor tries the job again.
  spawn_failed,
  cancelled,  // held for a later start and cancelled before it (Executor::cancel_held): nothing ran
};

struct CheckResult {
  std::uint32_t id = 0;
  std::uint32_t generation = 0;
  CheckKind kind = CheckKind::service;
  Outcome outcome = Outcome::spawn_failed;
  int exit_code = 0;  // exited, exec_failed
  int signal = 0;     // killed_by_signal
  bool core_dumped = false;
  int spawn_errno = 0;       // exec_failed, spawn_failed
  std::string output;        // stdout, at most output_cap_bytes
  std::string error_output;  // stderr, at most output_cap_bytes
  bool output_truncated = false;
  bool error_output_truncated = false;
  // Wall clock (CLOCK_REALTIME) in µs since the epoch: start just before the spawn, end when the plugin was
  // reaped or killed. Naemon's execution_time is (end - start); its latency is start - scheduled time.
  std::int64_t start_us = 0;
  std::int64_t end_us = 0;
  // Wall clock µs when the executor thread took the job off its queue, or for a job handed over early when
  // it fell due: start_us - dequeued_us is the spawn delay behind other jobs.
  std::int64_t dequeued_us = 0;
  // CPU of the plugin process itself (wait4 rusage; grandchildren it did not wait for are not counted).
  std::int64_t plugin_user_us = 0;
  std::int64_t plugin_system_us = 0;
  bool timing_out = false;  // the job's, echoed back
  bool native = false;      // ran inside the executor (native/), no process; the plugin CPU fields are 0
};

}  // namespace vedette::exec
