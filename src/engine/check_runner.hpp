// Running checks, from a check the gate let through to its result: the command expanded (the configured one
// or CHANGE_*_CHECK_COMMAND's), started on the executor threads as one batch per loop iteration or sent to
// a Mod-Gearman worker, and its result, from either, turned into a CheckOutcome for the core to apply. It
// keeps what is out — a generation per check, so a result of a check since replaced or removed is dropped;
// the scheduled time latency counts from; the running and timing-out counts max_concurrent_checks reads —
// and runs the notification commands and event handlers (SideCommandSink) the same way. The Mod-Gearman
// half (queues, jobs, the result queue, orphans, reload of the options) is remote_checks.cpp. Core thread
// only.
//
//   CheckRunner runner(world, freshness, finished, {.executor = ..., .result_period = 250ms});
//   runner.start(check, scheduled, at, forced);    // for each check the gate lets run, then once:
//   runner.submit();                               // the iteration's batch to the executor
//   runner.collect();                              // results so far: finished.apply_finished(...) each
#pragma once

#include "engine/check_id.hpp"
#include "engine/core_requests.hpp"
#include "engine/core_time.hpp"
#include "engine/distribution.hpp"
#include "engine/finished_check.hpp"
#include "engine/freshness_checker.hpp"
#include "engine/macros.hpp"
#include "engine/side_command.hpp"
#include "engine/state_machine.hpp"
#include "engine/timing_out.hpp"
#include "engine/world.hpp"
#include "exec/executor.hpp"
#include "exec/result_queue.hpp"
#include "loop/loop.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace vedette::engine {

class CheckRunner final : public SideCommandSink, public loop::TimerHandler {
 public:
  struct Options {
    exec::ExecutorOptions executor;
    // How long a result may wait for the core (its loop's tick): within twice that, a check is rescheduled
    // from when it ended, as if its result had been applied at once.
    loop::Duration result_period{};
  };
  CheckRunner(World& world, FreshnessChecker& freshness, FinishedCheckSink& finished, Options options);
  ~CheckRunner();
  CheckRunner(const CheckRunner&) = delete;
  CheckRunner& operator=(const CheckRunner&) = delete;

  // Start-up, after the World's model is in place.
  void resize(std::size_t checks);

  // max_concurrent_checks: whether as many checks run as it allows (timing-out checks beyond their slots
  // wait in the executor without a process and do not count).
  [[nodiscard]] bool at_concurrency_limit() const;
  // Runs the check's command as of `at` (the executor or the worker holds it until then); `scheduled` is
  // when it was due, which its latency counts from.
  void start(CheckId check, loop::WallTime scheduled, Instant at, bool forced);
  // SideCommandSink: an event handler or notification whose object's queue says so goes to gearmand (a job
  // nobody answers); everything else runs on the executor like a check, not counted against
  // max_concurrent_checks.
  void run_side_command(SideCommand&& command) override;
  void log(std::string_view text) override { w_.log(text); }
  // Hands what start() and run_side_command() queued to the executor, in one batch.
  void submit();
  // The results in so far, local and remote, to the FinishedCheckSink.
  void collect();
  // Whether checks are out whose results the core must poll for.
  [[nodiscard]] bool expects_results() const { return running_ > 0 || distributor_ != nullptr; }
  // The executor's warnings, gearman's log lines: into the main log.
  void report();

  // A reload (after collect()): check c of the new numbering is old_of_new[c]'s, its running check's
  // result counts for it. Call before the World's hot state is replaced (it reads which checks run).
  void remap(const ByCheck<CheckId>& old_of_new, const ByCheck<CheckId>& new_of_old, std::size_t commands);
  // Stops what is left: nothing new goes out; running checks get `grace` to come back and be applied.
  void shutdown(loop::Duration grace);

  // ---- The Mod-Gearman half (remote_checks.cpp) ----

  // The options' notes at start-up, the link's description; watches its fd with `fd_handler`.
  void start_distribution(loop::FdHandler& fd_handler);
  // A reload: the new configuration's options and queues; checks out keep their place under their new
  // ids.
  void reconfigure_distribution(const ByCheck<CheckId>& new_of_old, loop::FdHandler& fd_handler);
  // The link's fd is readable: results, jobs it gave up on, log lines.
  void drain_remote();
  [[nodiscard]] bool owns_fd(int fd) const { return distributor_ != nullptr && fd == distributor_->fd(); }
  // Null unless the main config turns distribution on.
  [[nodiscard]] Distributor* distributor() { return distributor_.get(); }
  // The gearman figures for the metrics endpoint, at most once a second (the link's stats take its lock).
  void publish_gearman_metrics();
  // loop::TimerHandler: the orphan timer.
  void on_timer(loop::TimerId id) override;

 private:
  // Where a result came from: Livestatus' check_source, and what its latency counts from.
  struct ResultOrigin {
    std::uint16_t source = CheckSources::k_core_worker;
    bool scheduled = true;  // started on its schedule: latency = start - scheduled time
    double extra_latency = 0;
    bool remote = false;  // run by a Mod-Gearman worker
  };

  void run_check_locally(CheckId check, exec::CheckKind kind, ExpandedCommand&& command, int timeout_s,
                         loop::WallTime scheduled, loop::MonoTime start_at);
  void run_locally(SideCommand&& command);
  [[nodiscard]] std::uint32_t configured_command_of(CheckId check) const;
  void count_launch(CheckId check, loop::WallTime scheduled);
  void side_command_done(const exec::CheckResult& r);
  void handle_result(exec::CheckResult& r);
  // The result of `check` of this configuration, from the executor or a gearman worker (r.id is not read).
  void finish(CheckId check, exec::CheckResult& r, const ResultOrigin& origin);

  // remote_checks.cpp
  void send_check(CheckId check, const std::string& queue, gearman::Work work, int timeout_s,
                  loop::WallTime scheduled, loop::MonoTime start_at, bool forced);
  bool send_side_command(const SideCommand& command);
  void not_sent(gearman::Submission& s, std::string_view reason);
  void handle_remote_result(gearman::IncomingResult& in);
  void arm_orphan_timer();
  void handle_orphans();
  void stop_distribution();

  World& w_;
  FreshnessChecker& freshness_;
  FinishedCheckSink& finished_;
  const loop::Duration result_period_;
  exec::ResultQueue results_;
  exec::Executor executor_;
  std::vector<exec::CheckJob> jobs_;
  std::vector<exec::CheckResult> results_batch_;
  ExpandedCommand expanded_;              // reused: its vectors keep their capacity
  ByCheck<loop::WallTime> submitted_at_;  // the scheduled time of the running check
  ByCheck<std::uint32_t> generation_;     // the last check started (unique numbers)
  std::uint32_t last_generation_ = 0;
  // Checks started before the last reload and still out: generation -> their object's id now.
  std::unordered_map<std::uint32_t, CheckId> started_before_reload_;
  // Notification commands and event handlers on the executor: generation -> what to log if they fail.
  std::unordered_map<std::uint32_t, SideCommand> side_commands_;
  std::uint32_t running_ = 0;
  TimingOutChecks timing_out_;
  std::uint32_t timing_out_out_ = 0;  // checks handed over as CheckJob::timing_out, not back yet

  std::unique_ptr<Distributor> distributor_;     // null: every check runs here
  std::vector<std::string> distribution_notes_;  // option warnings and errors, logged at start
  std::vector<gearman::IncomingResult> remote_results_;
  std::vector<gearman::Submission> remote_unsent_;
  loop::TimerId orphan_timer_ = 0;
  loop::MonoTime next_gearman_metrics_{};
};

}  // namespace vedette::engine
