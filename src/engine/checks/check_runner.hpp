// Running checks, from a check the gate let through to its result: the command expanded (the configured one
// or CHANGE_*_CHECK_COMMAND's), started on the executor threads as one batch per loop iteration or sent to
// a Mod-Gearman worker, and its result, from either, turned into a FinishedCheck the core takes back and
// applies. It keeps what is out — a generation per check, so a result of a check since replaced or removed
// is dropped; the scheduled time latency counts from; the running and timing-out counts
// max_concurrent_checks reads — and runs the notification commands and event handlers (SideCommandSink)
// the same way. The Mod-Gearman half (queues, jobs, the result queue, orphans, reload of the options) is
// remote_checks.cpp. Core thread only.
//
//   CheckRunner runner(world, freshness, passive, core, {.executor = ..., .result_period = 250ms});
//   runner.start(check, scheduled, at, forced);    // for each check the gate lets run, then once:
//   runner.submit();                               // the iteration's batch to the executor
//   runner.collect();                              // the results so far, then each in turn:
//   while (runner.next_finished(f)) apply(f);      // applied before the next is taken
#pragma once

#include "engine/checks/distribution.hpp"
#include "engine/checks/finished_check.hpp"
#include "engine/checks/freshness_checker.hpp"
#include "engine/checks/passive_results.hpp"
#include "engine/checks/state_machine.hpp"
#include "engine/checks/timing_out.hpp"
#include "engine/macros/macros.hpp"
#include "engine/notify/side_command.hpp"
#include "engine/state/check_id.hpp"
#include "engine/state/core_requests.hpp"
#include "engine/state/core_time.hpp"
#include "engine/world/world.hpp"
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

class CheckRunner final : public SideCommandSink {
 public:
  struct Options {
    exec::ExecutorOptions executor;
    // How long a result may wait for the core (its loop's tick): within twice that, a check is rescheduled
    // from when it ended, as if its result had been applied at once.
    loop::Duration result_period{};
  };
  // Passive results that come through gearman (send_gearman) are taken in by `passive`; the orphan timer
  // fires at `orphan_timer_handler` (the core), which calls expire_orphans().
  CheckRunner(World& world, FreshnessChecker& freshness, PassiveResults& passive,
              loop::TimerHandler& orphan_timer_handler, Options options);
  // The executor as the main config sizes it (check_workers, max_timing_out_checks); `threads` other than
  // 0 overrides check_workers.
  [[nodiscard]] static exec::ExecutorOptions executor_options(const config::MainConfig& main,
                                                              unsigned threads);
  ~CheckRunner();
  CheckRunner(const CheckRunner&) = delete;
  CheckRunner& operator=(const CheckRunner&) = delete;

  // Start-up, after the World's model is in place.
  void resize(std::size_t checks);

  // max_concurrent_checks: whether as many checks run as it allows (timing-out checks beyond their slots
  // wait in the executor without a process and do not count).
  [[nodiscard]] bool at_concurrency_limit() const;
  // Runs the check's command as of `at` (the executor or the worker holds it until then); `scheduled` is
  // when it was due, which its latency counts from. A check gearmand refuses (its queue full) may finish at
  // once, UNKNOWN: take it with next_finished() before the next check starts.
  void start(CheckId check, loop::WallTime scheduled, Instant at, bool forced);
  // SideCommandSink: an event handler or notification whose object's queue says so goes to gearmand (a job
  // nobody answers); everything else runs on the executor like a check, not counted against
  // max_concurrent_checks.
  void run_side_command(SideCommand&& command) override;
  void log(std::string_view text) override { w_.log(text); }
  // Hands what start() and run_side_command() queued to the executor, in one batch.
  void submit();
  // Takes in the results so far, local and (when its link has some) remote; next_finished() hands them out.
  void collect();
  // The next result taken in (by collect(), drain_remote(), expire_orphans() or a refused start()) into
  // `out`; false when none is left. The core applies each one before it takes the next: what the runner
  // does with a result (a freshness check dropped, a warning logged) sees the results before it applied,
  // as they came in.
  [[nodiscard]] bool next_finished(FinishedCheck& out) { return has_taken_in_ && take_next(out); }
  // Whether checks are out whose results the core must poll for.
  [[nodiscard]] bool expects_results() const { return running_ > 0 || distributor_ != nullptr; }
  // The executor's warnings, gearman's log lines: into the main log.
  void report();

  // A reload (after what collect() took in was handed out): check c of the new numbering is old_of_new[c]'s,
  // its running check's result counts for it. Call before the World's hot state is replaced (it reads which
  // checks run).
  void remap(const ByCheck<CheckId>& old_of_new, const ByCheck<CheckId>& new_of_old, std::size_t commands);
  // Shutdown: nothing new goes out, then, while checks run and `until` is ahead, waits a little and
  // collects (the core applies what came back), then stops the executor, which kills what is left.
  void stop_sending();
  [[nodiscard]] bool collect_while_running(loop::MonoTime until);
  void shutdown();

  // ---- The Mod-Gearman half (remote_checks.cpp) ----

  // The options' notes at start-up, the link's description; watches its fd with `fd_handler`.
  void start_distribution(loop::FdHandler& fd_handler);
  // A reload: the new configuration's options and queues; checks out keep their place under their new
  // ids.
  void reconfigure_distribution(const ByCheck<CheckId>& new_of_old, loop::FdHandler& fd_handler);
  // The link's fd is readable: results, jobs it gave up on, log lines (next_finished() hands them out).
  void drain_remote();
  [[nodiscard]] bool owns_fd(int fd) const { return distributor_ != nullptr && fd == distributor_->fd(); }
  // Null unless the main config turns distribution on.
  [[nodiscard]] Distributor* distributor() { return distributor_.get(); }
  // The gearman figures for the metrics endpoint, at most once a second (the link's stats take its lock).
  void publish_gearman_metrics();
  [[nodiscard]] bool owns_timer(loop::TimerId id) const { return id == orphan_timer_; }
  // The orphan timer fired: checks whose result never came (next_finished() hands out their made-up ones).
  void expire_orphans();

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
  // Each of these fills `out` and returns true when what it took in finished a check.
  [[nodiscard]] bool take_next(FinishedCheck& out);
  [[nodiscard]] bool handle_result(exec::CheckResult& r, FinishedCheck& out);
  // The result of `check` of this configuration, from the executor or a gearman worker (r.id is not read).
  [[nodiscard]] bool finish(CheckId check, exec::CheckResult& r, const ResultOrigin& origin,
                            FinishedCheck& out);

  // remote_checks.cpp
  void send_check(CheckId check, const std::string& queue, gearman::Work work, int timeout_s,
                  loop::WallTime scheduled, loop::MonoTime start_at, bool forced);
  bool send_side_command(const SideCommand& command);
  [[nodiscard]] bool not_sent(gearman::Submission& s, std::string_view reason, FinishedCheck& out);
  [[nodiscard]] bool handle_remote_result(gearman::IncomingResult& in, FinishedCheck& out);
  [[nodiscard]] bool take_next_remote(FinishedCheck& out);
  [[nodiscard]] bool orphaned(const Orphan& orphan, FinishedCheck& out);
  void arm_orphan_timer();
  void stop_distribution();

  World& w_;
  FreshnessChecker& freshness_;
  PassiveResults& passive_;
  const loop::Duration result_period_;
  exec::ResultQueue results_;
  exec::Executor executor_;
  std::vector<exec::CheckJob> jobs_;
  // What was taken in and not yet handed out by next_finished(), each list from its `next_` on, in this
  // order. The lists keep their capacity.
  bool has_taken_in_ = false;
  std::vector<exec::CheckResult> results_batch_;
  std::size_t next_result_ = 0;
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
  std::vector<gearman::Submission> refused_;     // by gearmand at start(): its queue was full
  std::size_t next_refused_ = 0;
  std::vector<gearman::IncomingResult> remote_results_;
  std::size_t next_remote_result_ = 0;
  std::vector<gearman::Submission> remote_unsent_;
  std::size_t next_remote_unsent_ = 0;
  bool remote_drained_ = false;  // the orphan timer is armed again once the drained lists are handed out
  std::vector<Orphan> orphans_;
  std::size_t next_orphan_ = 0;
  loop::TimerId orphan_timer_ = 0;
  loop::MonoTime next_gearman_metrics_{};
};

}  // namespace vedette::engine
