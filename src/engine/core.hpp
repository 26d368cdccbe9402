// The running core: owns the model and all mutable state, runs every active check on schedule through the
// executor threads, applies results as Naemon does and writes the log. Everything here runs on the core
// thread (the one that calls run()); executor and writer threads only exchange values with it.
//
//   engine::Core core(std::move(configuration), clock, {.log_to_stdout = true});
//   core.loop().watch(fifo_fd, loop::Interest::read, reader);   // the app adds its inputs
//   return core.run();                                         // until stop() (SIGTERM/SIGINT)
#pragma once

#include "config/loader.hpp"
#include "engine/check_id.hpp"
#include "engine/check_state.hpp"
#include "engine/core_requests.hpp"
#include "engine/downtime_book.hpp"
#include "files/status_file.hpp"
#include "loop/clock.hpp"
#include "loop/loop.hpp"
#include "state/attributes.hpp"

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

  // SCHEDULE_(FORCED_)SVC_CHECK and SCHEDULE_(FORCED_)HOST_CHECK, as Naemon's schedule_*_check: a check
  // already scheduled earlier stands unless `forced`; a forced check runs at `when` whatever disabled
  // checks, check_period, max_concurrent_checks or the cached-result horizon say. `when` in the past: now.
  void schedule_service_check(model::ServiceId service, Time when, bool forced);
  void schedule_host_check(model::HostId host, Time when, bool forced);
  // As Naemon's start_/stop_* and enable_/disable_* program commands: a change sets the switch's bit in the
  // program's modified host and/or service attributes (kept in retention.dat); no change, no bit.
  void set_program_switch(ProgramSwitch which, bool on);
  // ENABLE_/DISABLE_ for one object (…_SVC_CHECK, …_HOST_NOTIFICATIONS, START_OBSESSING_OVER_SVC, …), as
  // Naemon's enable_*/disable_* functions: a change sets the flag's bit in the object's modified_attributes
  // (kept in retention.dat); no change, no bit. Enabling active checks puts the next check within one
  // check interval.
  void set_flag(model::ServiceId service, state::Flag flag, bool on);
  void set_flag(model::HostId host, state::Flag flag, bool on);
  // CHANGE_* for one object, as Naemon's handlers: the value and its modified-attribute bit.
  void change_attribute(model::ServiceId service, const AttributeChange& change);
  void change_attribute(model::HostId host, const AttributeChange& change);
  // As Naemon: an object that is OK/UP has no problem to acknowledge, and an end time already past changes
  // nothing. REMOVE_*_ACKNOWLEDGEMENT ends it (with its non-persistent comments).
  void acknowledge(model::ServiceId service, const Acknowledgement& ack);
  void acknowledge(model::HostId host, const Acknowledgement& ack);
  void remove_acknowledgement(model::ServiceId service);
  void remove_acknowledgement(model::HostId host);
  // ADD_*_COMMENT, DEL_*_COMMENT (false: no comment of that kind with that id; Naemon's command then fails),
  // DEL_ALL_*_COMMENTS (every comment of the object, downtime and acknowledgement ones too, as Naemon).
  void add_comment(model::ServiceId service, const UserComment& comment);
  void add_comment(model::HostId host, const UserComment& comment);
  bool delete_comment(ObjectKind kind, unsigned long comment_id);
  void delete_all_comments(model::ServiceId service);
  void delete_all_comments(model::HostId host);
  // SCHEDULE_*_DOWNTIME for one object, as Naemon's schedule_downtime with its comment: the new id, or 0
  // when Naemon refuses it (times that make no sense, an unknown trigger, a flexible one without duration).
  unsigned long schedule_downtime(model::ServiceId service, const DowntimeRequest& request);
  unsigned long schedule_downtime(model::HostId host, const DowntimeRequest& request);
  // SCHEDULE_AND_PROPAGATE_(TRIGGERED_)HOST_DOWNTIME: the host's, then one for every host below it (each
  // host's children before it, children in name order), triggered by the host's when `triggered`.
  void schedule_propagated_downtime(model::HostId host, const DowntimeRequest& request, bool triggered);
  // DEL_HOST_DOWNTIME / DEL_SVC_DOWNTIME (with every downtime it triggered): false when there is no downtime
  // of that kind with that id. DEL_DOWNTIME_BY_*: how many matched.
  bool delete_downtime(ObjectKind kind, unsigned long downtime_id);
  std::size_t delete_downtimes(const DowntimeFilter& filter);
  // SEND_CUSTOM_SVC_NOTIFICATION / SEND_CUSTOM_HOST_NOTIFICATION: a CUSTOM notification with Naemon's
  // option bits (1 broadcast, 2 forced, 4 increment).
  void send_custom_notification(model::ServiceId service, unsigned options, std::string_view author,
                                std::string_view comment);
  void send_custom_notification(model::HostId host, unsigned options, std::string_view author,
                                std::string_view comment);
  // ENABLE_/DISABLE_CONTACT_HOST_NOTIFICATIONS and …_SVC_…, as Naemon: a change sets the notifications bit
  // in the contact's modified host (service) attributes; no change, no bit.
  void set_contact_notifications(model::ContactId contact, bool host_notifications, bool on);
  // The CHANGE_*CONTACT* commands, with Naemon's modified-attribute bits.
  void change_contact(model::ContactId contact, const ContactChange& change);
  // DELAY_SVC_NOTIFICATION / DELAY_HOST_NOTIFICATION: no problem notification before `when`.
  void delay_notification(model::ServiceId service, Time when);
  void delay_notification(model::HostId host, Time when);
  // SAVE_STATE_INFORMATION: retention.dat now (written by its thread).
  void save_state();
  // READ_STATE_INFORMATION: retention.dat is read on the core thread and replaces the run-time state of
  // objects, contacts, comments and downtimes, as a restart would restore it; the schedule and running
  // checks stay. False when the file could not be read (Naemon's command then fails).
  [[nodiscard]] bool read_state();
  // Naemon's last_update of the object a command just changed.
  void mark_updated(model::ServiceId service);
  void mark_updated(model::HostId host);
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

  const model::Model& model() const;
  const config::MainConfig& main_config() const;
  const std::vector<HostState>& hosts() const;
  const std::vector<ServiceState>& services() const;

 private:
  class Impl;
  Impl* on_core_thread() const;  // impl_, after checking the caller is on the core thread
  std::unique_ptr<Impl> impl_;
};

}  // namespace vedette::engine
