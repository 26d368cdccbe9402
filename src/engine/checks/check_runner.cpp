#include "engine/checks/check_runner.hpp"

#include "config/command_compiler.hpp"
#include "engine/books/downtime_book.hpp"
#include "exec/plugin_output.hpp"
#include "metrics/core_metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cstring>
#include <limits>
#include <thread>
#include <unistd.h>
#include <utility>

namespace vedette::engine {

namespace {

// The job id of notification commands and event handlers (no host or service has it).
constexpr std::uint32_t k_side_command_id = std::numeric_limits<std::uint32_t>::max();

// The metrics of an active or distributed result: one counter and two histogram observations, all
// written by this thread alone (Writers::one), ~7 ns per result (bench/metrics/core_metrics_bench).
void count_active_metrics(bool service, bool distributed, const CheckOutcome& out) {
  metrics::CoreMetrics& m = metrics::core_metrics();
  const metrics::ObjectKind object = service ? metrics::ObjectKind::service : metrics::ObjectKind::host;
  m.count_check(distributed ? metrics::CheckKind::distributed : metrics::CheckKind::active, object);
  m.check_latency[static_cast<std::size_t>(object)].observe(out.latency);
  m.check_execution[static_cast<std::size_t>(object)].observe(out.execution_time);
}

// Naemon's check_workers: n > 0 workers; n < 0 the CPU count plus |n|; 0 one and a half per CPU, at least 4,
// at most 48. Each executor thread is blocked while its newest child is between clone and exec (vfork
// semantics), which on a saturated machine lasts as long as the child waits for a CPU: so, as Naemon's
// workers, there are more threads than CPUs.
unsigned executor_threads(const config::MainConfig& main, unsigned threads) {
  if (threads != 0) return threads;
  const long cpus = std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
  long n = main.check_workers;
  if (n < 0) n = cpus - n;
  if (n <= 0) n = std::clamp<long>(cpus * 3 / 2, 4, 48);
  return static_cast<unsigned>(n);
}

// max_timing_out_checks: -1 no bound; 0 (default) a quarter of max_concurrent_checks if that is set, else
// k_timing_out_slots_per_thread per executor thread.
constexpr unsigned k_timing_out_slots_per_thread = 8;

}  // namespace

exec::ExecutorOptions CheckRunner::executor_options(const config::MainConfig& main, unsigned threads) {
  exec::ExecutorOptions out;
  out.threads = executor_threads(main, threads);
  if (main.max_timing_out_checks > 0) {
    out.timing_out_slots = static_cast<unsigned>(main.max_timing_out_checks);
  } else if (main.max_timing_out_checks == 0) {
    out.timing_out_slots = main.max_concurrent_checks > 0
                               ? std::max(1u, static_cast<unsigned>(main.max_concurrent_checks) / 4)
                               : out.threads * k_timing_out_slots_per_thread;
  }
  return out;
}

CheckRunner::CheckRunner(World& world, FreshnessChecker& freshness, PassiveResults& passive,
                         loop::TimerHandler& orphan_timer_handler, Options options)
    : w_(world),
      freshness_(freshness),
      passive_(passive),
      result_period_(options.result_period),
      executor_(results_, std::move(options.executor)) {
  // Results are picked up by polling the queue once per loop iteration (collect()): waking the core for
  // each result instead doubled its wakeups, and with them its CPU per check (bench/perfbench/run.sh).
  results_.use_polling();
  orphan_timer_ = w_.loop.add_timer(orphan_timer_handler);
  gearman::OptionMessages messages;
  if (std::optional<gearman::Options> o = distribution_options(w_.main, messages);
      o && messages.errors.empty())
    distributor_ = std::make_unique<Distributor>(std::move(*o), *w_.model);
  for (const std::string& w : messages.warnings) distribution_notes_.push_back("Warning: gearman: " + w);
  for (const std::string& e : messages.errors) distribution_notes_.push_back("Error: gearman: " + e);
}

CheckRunner::~CheckRunner() = default;

void CheckRunner::resize(std::size_t checks) {
  submitted_at_.resize(checks);
  generation_.resize(checks, 0);
  timing_out_.resize(checks, w_.model->commands.size());
}

bool CheckRunner::at_concurrency_limit() const {
  if (w_.main.max_concurrent_checks == 0) return false;
  const std::uint32_t slots = executor_.timing_out_slots();
  const std::uint32_t waiting = slots != 0 && timing_out_out_ > slots ? timing_out_out_ - slots : 0;
  const std::uint32_t running = running_ > waiting ? running_ - waiting : 0;
  return running >= static_cast<std::uint32_t>(w_.main.max_concurrent_checks);
}

void CheckRunner::start(CheckId check, loop::WallTime scheduled, Instant at, bool forced) {
  const bool service = w_.is_service(check);
  const model::Checkable& cfg = w_.checkable_of(check);
  const MacroContext ctx{.model = *w_.model,
                         .main = w_.main,
                         .host = w_.owner_host(check),
                         .service = service ? w_.service_of(check) : model::no_id<model::ServiceId>(),
                         .now = to_epoch(at.wall),
                         .all_hosts = &w_.hosts.all(),
                         .all_services = &w_.services.all(),
                         .timeperiods = &w_.evaluator,
                         .program_start = w_.program_start,
                         .downtime_depths = DowntimeDepths(*w_.downtimes)};
  // The configured command, or the one CHANGE_*_CHECK_COMMAND set (split here: rare).
  const CheckState& st = w_.state_of(check);
  if (st.overrides != nullptr && st.overrides->check_command) {
    const config::CommandCall changed = config::split_command_call(*st.overrides->check_command);
    const auto it = w_.model->command_by_name.find(changed.name);
    if (it == w_.model->command_by_name.end()) return;
    std::vector<std::string_view> args(changed.args.begin(), changed.args.end());
    const model::Command& command = w_.model->commands[model::index(it->second)];
    expand_command(command.compiled, ctx, args, expanded_);
    expanded_.native = command.native;
  } else {
    if (!cfg.check_command.is_set()) return;
    const model::Command& command = w_.model->commands[model::index(cfg.check_command.command)];
    expand_command(command.compiled, ctx, w_.model->args_of(cfg.check_command), expanded_);
    expanded_.native = command.native;
  }
  const exec::CheckKind kind = service ? exec::CheckKind::service : exec::CheckKind::host;
  if (distributor_ != nullptr) {
    const gearman::Work work = service ? gearman::Work::service_check : gearman::Work::host_check;
    if (const std::string* queue = distributor_->queue(work, check)) {
      send_check(check, *queue, work, cfg.check_timeout, scheduled, at.mono, forced);
      return;
    }
  }
  run_check_locally(check, kind, std::move(expanded_), cfg.check_timeout, scheduled, at.mono);
  expanded_ = {};
}

void CheckRunner::run_check_locally(CheckId check, exec::CheckKind kind, ExpandedCommand&& command,
                                    int timeout_s, loop::WallTime scheduled, loop::MonoTime start_at) {
  count_launch(check, scheduled);
  w_.state_of(check).is_executing = true;
  ++running_;
  ++w_.events.forks;
  exec::CheckJob job;
  job.id = model::index(check);
  job.generation = generation_[check] = ++last_generation_;
  job.kind = kind;
  job.argv = std::move(command.argv);
  job.use_shell = command.shell;
  job.env = std::move(command.env);
  job.native = command.native;
  job.timeout_ms = static_cast<std::uint32_t>(std::max(1, timeout_s)) * 1000u;
  job.not_before_ns = static_cast<std::int64_t>(loop::to_key(start_at));  // steady_clock is CLOCK_MONOTONIC
  job.timing_out = timing_out_.expects_timeout(check, configured_command_of(check));
  if (job.timing_out) ++timing_out_out_;
  submitted_at_[check] = scheduled;
  jobs_.push_back(std::move(job));
}

// The check's configured command (TimingOutChecks' class), none while CHANGE_*_CHECK_COMMAND replaces it.
std::uint32_t CheckRunner::configured_command_of(CheckId check) const {
  const CheckState& st = w_.state_of(check);
  if (st.overrides != nullptr && st.overrides->check_command) return TimingOutChecks::k_no_command;
  const model::CommandCall& call = w_.checkable_of(check).check_command;
  return call.is_set() ? model::index(call.command) : TimingOutChecks::k_no_command;
}

// Naemon counts an active check when it hands it to a worker, a host check as a parallel one too.
void CheckRunner::count_launch(CheckId check, loop::WallTime scheduled) {
  const Time at = to_epoch(scheduled), now = w_.now_epoch();
  if (w_.is_service(check)) {
    w_.check_stats.count(files::CheckStat::active_scheduled_service, at, now);
    return;
  }
  w_.check_stats.count(files::CheckStat::active_scheduled_host, at, now);
  w_.check_stats.count(files::CheckStat::parallel_host, at, now);
}

void CheckRunner::run_side_command(SideCommand&& command) {
  if (distributor_ != nullptr && command.purpose != SideCommand::Purpose::other && send_side_command(command))
    return;
  run_locally(std::move(command));
}

void CheckRunner::run_locally(SideCommand&& command) {
  ++w_.events.forks;
  exec::CheckJob job;
  job.id = k_side_command_id;
  job.generation = ++last_generation_;
  job.kind = exec::CheckKind::other;
  job.argv = std::move(command.command.argv);
  job.use_shell = command.command.shell;
  job.env = std::move(command.command.env);
  job.timeout_ms = static_cast<std::uint32_t>(std::max(1, command.timeout_s)) * 1000u;
  command.command = {};
  side_commands_.emplace(job.generation, std::move(command));
  jobs_.push_back(std::move(job));
}

void CheckRunner::submit() {
  if (jobs_.empty()) return;
  executor_.submit_batch(jobs_);
  jobs_.clear();
}

void CheckRunner::collect() {
  assert(next_result_ == results_batch_.size());  // the core took everything collected before
  results_batch_.clear();
  next_result_ = 0;
  if (results_.has_results()) {
    results_.drain(results_batch_);
    has_taken_in_ = true;
  }
  if (distributor_ != nullptr && distributor_->has_results()) drain_remote();
}

// In the order the runner handled them when it applied each at once: the local results, then gearman's.
bool CheckRunner::take_next(FinishedCheck& out) {
  while (next_result_ < results_batch_.size())
    if (handle_result(results_batch_[next_result_++], out)) return true;
  if (take_next_remote(out)) return true;
  has_taken_in_ = false;
  return false;
}

void CheckRunner::report() {
  if (executor_.has_warnings())
    for (const std::string& warning : executor_.take_warnings()) log(warning);
  if (distributor_ != nullptr)
    for (const std::string& line : distributor_->take_log_lines()) log(line);
}

// Naemon's notification_handle_job_result and event_handler_job_handler: a timeout is logged, and a
// notification command that failed.
void CheckRunner::side_command_done(const exec::CheckResult& r) {
  const auto it = side_commands_.find(r.generation);
  if (it == side_commands_.end()) return;
  const SideCommand command = std::move(it->second);
  side_commands_.erase(it);
  switch (r.outcome) {
    case exec::Outcome::timed_out:
      if (!command.timeout_warning.empty()) log(command.timeout_warning);
      return;
    case exec::Outcome::spawn_failed:
      log(fmt::format("Warning: Could not run a command ({}): {}",
                      command.failure_subject.empty() ? "event handler" : command.failure_subject,
                      std::strerror(r.spawn_errno)));
      return;
    default:
      break;
  }
  if (command.failure_subject.empty()) return;
  const bool signalled = r.outcome == exec::Outcome::killed_by_signal;
  const int code = signalled ? r.signal : r.exit_code;
  if (!signalled && code == 0) return;
  log(fmt::format("Warning: Notification command for {} {} {}. stdout: '{}', stderr: '{}'",
                  command.failure_subject, signalled ? "was killed by signal" : "exited with exit code", code,
                  r.output, r.error_output));
}

bool CheckRunner::handle_result(exec::CheckResult& r, FinishedCheck& out) {
  if (r.id == k_side_command_id) {
    side_command_done(r);
    return false;
  }
  if (running_ > 0) --running_;  // every check comes back once, whatever its fate
  if (r.timing_out && timing_out_out_ > 0) --timing_out_out_;
  CheckId check{r.id};
  if (!started_before_reload_.empty()) {
    // A check started under the previous configuration: it counts for the same object in this one.
    if (auto it = started_before_reload_.find(r.generation); it != started_before_reload_.end()) {
      check = it->second;
      started_before_reload_.erase(it);
    }
  }
  // Generations are unique, so this also drops checks of objects a reload removed.
  if (!generation_.contains(check) || r.generation != generation_[check]) return false;
  if (r.outcome == exec::Outcome::cancelled) {  // never started: as if it had not been due yet
    w_.state_of(check).is_executing = false;
    return false;
  }
  if (r.outcome != exec::Outcome::spawn_failed)
    timing_out_.record(check, configured_command_of(check), r.outcome == exec::Outcome::timed_out);
  return finish(check, r, ResultOrigin{}, out);
}

bool CheckRunner::finish(CheckId check, exec::CheckResult& r, const ResultOrigin& origin,
                         FinishedCheck& out) {
  const Time now = w_.now_epoch();
  // Naemon drops the result of a freshness check when a passive result made the object fresh meanwhile.
  if (freshness_.drop_result(check, now)) {
    w_.state_of(check).is_executing = false;
    return false;
  }
  exec::CheckVerdict verdict = exec::interpret_check_result(r, w_.main.service_check_timeout_state);
  FinishedCheck& f = out;
  f = FinishedCheck{};  // nothing of the previous one stays
  f.check = check;
  f.now = now;
  f.source = origin.source;
  CheckOutcome& outcome = f.outcome;
  outcome.type = CheckType::active;
  outcome.state = verdict.state;
  outcome.start = r.start_us / 1'000'000;
  outcome.finish = r.end_us / 1'000'000;
  outcome.execution_time = verdict.execution_time;
  outcome.latency =
      (origin.scheduled
           ? std::max<double>(0, static_cast<double>(r.start_us - to_epoch_us(submitted_at_[check])) / 1e6)
           : 0) +
      origin.extra_latency;
  const bool service = w_.is_service(check);
  count_active_metrics(service, origin.remote, outcome);
  // Results wait up to a result period for the core: reschedule from when the check ended, as if the
  // result had been applied at once.
  f.ended = w_.now_instant();
  const loop::Duration lag = std::chrono::microseconds(to_epoch_us(f.ended.wall) - r.end_us);
  if (lag > loop::Duration::zero() && lag < 2 * result_period_) {
    f.ended.mono -= lag;
    f.ended.wall -= lag;
  }
  const std::string warning = exec::check_warning_text(
      verdict, r.kind, w_.model->host(w_.owner_host(check)).name,
      service ? std::string_view(w_.model->services[model::index(check)].description) : std::string_view());
  if (!warning.empty()) log(warning);
  outcome.output = std::move(verdict.output.output);
  outcome.long_output = std::move(verdict.output.long_output);
  outcome.perf_data = std::move(verdict.output.perf_data);
  return true;
}

void CheckRunner::remap(const ByCheck<CheckId>& old_of_new, const ByCheck<CheckId>& new_of_old,
                        std::size_t commands) {
  const auto new_checks = static_cast<std::uint32_t>(old_of_new.size());
  ByCheck<loop::WallTime> submitted_at(new_checks);
  ByCheck<std::uint32_t> generation(new_checks, 0);
  std::unordered_map<std::uint32_t, CheckId> started;
  for (std::uint32_t i = 0; i < new_checks; ++i) {
    const CheckId c{i};
    const CheckId o = old_of_new[c];
    if (o == k_no_check) continue;
    submitted_at[c] = submitted_at_[o];
    generation[c] = generation_[o];
    if (w_.state_of(o).is_executing) started.emplace(generation_[o], c);
  }
  for (const auto& [gen, id] : started_before_reload_)  // from an earlier reload, still out
    if (new_of_old.contains(id) && new_of_old[id] != k_no_check) started.emplace(gen, new_of_old[id]);
  submitted_at_ = std::move(submitted_at);
  generation_ = std::move(generation);
  started_before_reload_ = std::move(started);
  timing_out_.remap(old_of_new, commands);
}

void CheckRunner::stop_sending() {
  stop_distribution();  // nothing more goes out; results still on their way are not waited for
  executor_.cancel_held();
}

bool CheckRunner::collect_while_running(loop::MonoTime until) {
  if (running_ == 0 || w_.clock.now() >= until) return false;
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  collect();
  return true;
}

void CheckRunner::shutdown() {
  executor_.shutdown();
}

}  // namespace vedette::engine
