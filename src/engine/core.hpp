// The running core: owns the model and all mutable state, runs every active check on schedule through the
// executor threads, applies results as Naemon does and writes the log. Everything here runs on the core
// thread (the one that calls run()); executor and writer threads only exchange values with it.
//
//   engine::Core core(std::move(configuration), clock, {.log_to_stdout = true});
//   core.loop().watch(fifo_fd, loop::Interest::read, reader);   // the app adds its inputs
//   return core.run();                                         // until stop() (SIGTERM/SIGINT)
#pragma once

#include "config/loader.hpp"
#include "engine/core_commands.hpp"
#include "engine/state/core_requests.hpp"
#include "files/status_file.hpp"
#include "loop/clock.hpp"
#include "loop/loop.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace vedette::engine {

struct CoreOptions {
  std::string config_path;        // the main config file SIGHUP reloads; empty: SIGHUP is only logged
  bool log_to_stdout = false;     // mirror the log on stdout (the foreground run)
  bool daemon_mode = false;       // -d: status.dat's daemon_mode
  unsigned executor_threads = 0;  // 0: from check_workers, as Naemon sizes its worker pool
  std::uint64_t random_seed = 0;  // 0: from the clock; tests fix it for a reproducible initial spread
  // Called once from run() before the initialization line, with the state in place: what start-up work
  // beside the core (the daemon's objects.cache) must finish before the core says it is ready.
  std::function<void()> before_ready;
  // Called once from run(), when status.dat has been written and the loop is about to start (daemon mode
  // lets the waiting parent exit then).
  std::function<void()> on_started;
  // Called from run() after the shutdown line: daemon mode removes the lock file.
  std::function<void()> on_stopped;
};

class Core {
 public:
  Core(config::Configuration configuration, loop::Clock& clock, CoreOptions options = {});
  ~Core();
  Core(const Core&) = delete;
  Core& operator=(const Core&) = delete;

  loop::Loop& loop();
  // Starts the executor threads, logs start-up, schedules every check, then runs the loop until stop().
  // Returns the process exit code.
  int run();
  void stop(std::string_view reason);

  // Results submitted through the command file (PROCESS_SERVICE_CHECK_RESULT / PROCESS_HOST_CHECK_RESULT).
  // Unknown objects are logged and ignored, as Naemon does. False when Naemon refuses the result (passive
  // checks not accepted, globally or by the object; a host state outside 0-2): the command failed.
  [[nodiscard]] bool submit_passive_result(const PassiveResult& result);

  // SAVE_STATE_INFORMATION: retention.dat now (written by its thread).
  void save_state();
  // READ_STATE_INFORMATION: retention.dat is read on the core thread and replaces the run-time state of
  // objects, contacts, comments and downtimes, as a restart would restore it; the schedule and running
  // checks stay. False when the file could not be read (Naemon's command then fails).
  [[nodiscard]] bool read_state();
  // RESTART_PROGRAM: a reload, as SIGHUP does (without the "Caught" line: no signal came).
  void restart();

  // A line in the main log, "[now] text".
  void log(std::string_view text);
  // Hands the lines logged so far to the log's writer thread, as each loop iteration does: for drivers
  // that call into the core without running its loop (the command fuzzer).
  void flush_log();
  // An external command is being carried out (counted for Livestatus' status table and WaitTrigger).
  void count_external_command();
  // The run-time state as status.dat would show it now (built on the calling thread, the core's: a few ms
  // at 100k services). Livestatus answers from these.
  std::shared_ptr<const files::StatusSnapshot> status_snapshot();
  // As SIGUSR1 (Livestatus' LOGROTATE): close and reopen the log, "LOG ROTATION: EXTERNAL".
  void reopen_log();
  // Livestatus runs: log its module's TIMEPERIOD TRANSITION lines from run() on
  // (engine/timeperiod_transitions).
  void log_timeperiod_transitions();

  const config::MainConfig& main_config() const;
  // The components external commands call (commands/command_dispatch), valid as long as the Core.
  CoreCommands commands();

 private:
  class Impl;
  Impl* on_core_thread() const;  // impl_, after checking the caller is on the core thread
  std::unique_ptr<Impl> impl_;
};

}  // namespace vedette::engine
