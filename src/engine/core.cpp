// The core: one loop iteration at a time, it sequences the components on the shared World
// (engine/world/world.hpp, docs/architecture.md): CheckTimers' due checks go through CheckGate to
// CheckRunner, which hands their results back here; those (and PassiveResults') go through ResultPipeline and
// back onto the schedule through CheckScheduler; Annotations, ObjectCommands, FreshnessChecker,
// PerfdataOutputs, LogRotation and StateFiles run beside them. What no component owns is here: start-up and
// shutdown, retention.dat read back, and the reload swap, which reach every component; the sections follow
// that order.
#include "engine/core.hpp"

#include "base/check.hpp"
#include "engine/annotations/annotations.hpp"
#include "engine/books/books.hpp"
#include "engine/books/comment_book.hpp"
#include "engine/checks/check_gate.hpp"
#include "engine/checks/check_runner.hpp"
#include "engine/checks/check_scheduler.hpp"
#include "engine/checks/check_timers.hpp"
#include "engine/checks/flap_alerts.hpp"
#include "engine/checks/freshness_checker.hpp"
#include "engine/checks/passive_results.hpp"
#include "engine/checks/result_pipeline.hpp"
#include "engine/checks/state_machine.hpp"
#include "engine/log_rotation.hpp"
#include "engine/macros/macros.hpp"
#include "engine/notify/notifier.hpp"
#include "engine/object_commands.hpp"
#include "engine/perfdata_outputs.hpp"
#include "engine/state/check_id.hpp"
#include "engine/state/check_sources.hpp"
#include "engine/state/check_stats.hpp"
#include "engine/state/core_time.hpp"
#include "engine/state_files.hpp"
#include "engine/timeperiod_transitions.hpp"
#include "engine/world/reload.hpp"
#include "engine/world/world.hpp"
#include "exec/executor.hpp"
#include "files/log_file.hpp"
#include "loop/signals.hpp"
#include "metrics/core_metrics.hpp"
#include "retention/apply.hpp"
#include "state/attributes.hpp"
#include "timeperiod/day_cache.hpp"
#include "timeperiod/evaluator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cstring>
#include <ctime>
#include <functional>
#include <optional>
#include <random>
#include <thread>
#include <unistd.h>
#include <unordered_map>
#include <utility>

namespace vedette::engine {

namespace {

using loop::Duration;
using loop::MonoTime;

files::LogFileOptions log_options(const config::MainConfig& main, const CoreOptions& options,
                                  std::function<void(std::int64_t)> on_rotated) {
  files::LogFileOptions out;
  out.path = main.log_file;
  out.archive_path = main.log_archive_path;
  out.mirror_fd = options.log_to_stdout ? STDOUT_FILENO : -1;
  out.on_rotated = std::move(on_rotated);
  return out;
}

}  // namespace

// Check ids: services first (ServiceId i is check i), then hosts (HostId i is check services + i).
class Core::Impl final : public loop::TimerHandler, public loop::FdHandler, public loop::BeforePollHook {
 public:
  friend class Core;  // its entry points call the components directly
  Impl(config::Configuration configuration, loop::Clock& clock, CoreOptions options)
      : w_(std::move(configuration), clock,  // moved from in World, after the options are read
           log_options(configuration.main, options,
                       [this](std::int64_t rotation_time) {
                         state_files_.set_last_log_rotation(rotation_time);
                         if (w_.main.log_current_states) w_.log_states("CURRENT");
                       }),
           options.random_seed),
        options_(options),
        runner_(w_, freshness_, passive_, *this,
                {.executor = CheckRunner::executor_options(w_.main, options.executor_threads),
                 .result_period = k_result_period}),
        state_files_(w_, options.daemon_mode) {
    const std::size_t checks = w_.check_count();
    w_.loop.reserve_timers(static_cast<std::uint32_t>(checks + 8));
    tick_timer_ = w_.loop.add_timer(*this);
    timers_.resize(checks);
    runner_.resize(checks);
    freshness_.resize(checks);
  }

  loop::Loop& loop() { return w_.loop; }
  std::thread::id core_thread() const { return core_thread_; }

  int run() {
    loop::block_loop_signals();  // the caller should have done so before the constructor started threads
    signals_ = std::make_unique<loop::SignalFd>();
    w_.loop.watch(signals_->fd(), loop::Interest::read, *this);
    w_.loop.watch(reloader_.fd(), loop::Interest::read, *this);
    // While checks run, a tick makes sure an iteration comes at least every k_result_period: the runner's
    // results are polled once per iteration.
    w_.loop.set_timer_slack(k_dispatch_ahead);
    w_.loop.add_before_poll(*this);
    w_.program_start = w_.now_epoch();
    w_.check_stats = CheckStats(w_.program_start);
    log_start_lines();
    runner_.start_distribution(*this);
    restore_retained_state();
    annotations_.collect_acknowledgement_expiry();
    w_.mark_all_updated();
    if (w_.main.log_initial_states) w_.log_states("INITIAL");
    scheduler_.initial(w_.main.use_retained_scheduling_info && retained_scheduling_ok_);
    log_rotation_.schedule();
    state_files_.schedule_autosave();
    freshness_.schedule();
    perfdata_.setup();
    // As Naemon: status.dat exists as soon as the core runs, then is rewritten every status_update_interval.
    state_files_.remove_status_file();
    state_files_.publish_status();
    if (options_.before_ready) options_.before_ready();
    // Naemon's readiness line ("Naemon successfully initialized"), which tools and its tests wait for.
    log(fmt::format("Vedette successfully initialized (PID={})", ::getpid()));
    if (log_timeperiod_transitions_) timeperiod_transitions_.start();
    w_.log_file.flush();
    if (options_.on_started) options_.on_started();
    // What start-up queued is handed over, and the tick armed, before the first poll: that poll may
    // otherwise sleep until the first timer, which can be a minute away.
    before_poll();
    w_.loop.run();
    const bool clean = shutdown();
    if (options_.on_stopped) options_.on_stopped();
    return clean ? 0 : 1;
  }

  // What Naemon logs when it starts, and again after each reload.
  void log_start_lines() {
    log(fmt::format("Vedette {} starting... (PID={})", VEDETTE_VERSION, ::getpid()));
    const std::time_t t = static_cast<std::time_t>(w_.program_start);
    std::tm tm{};
    localtime_r(&t, &tm);
    char when[64] = {};
    std::strftime(when, sizeof when, "%a %b %d %H:%M:%S %Z %Y", &tm);  // Naemon's, the zone named
    log(fmt::format("Local time is {}", when));
    log("LOG VERSION: 2.0");
  }

  void stop(std::string_view reason) {
    if (!reason.empty()) log(reason);
    w_.loop.stop();
  }

  void log(std::string_view text) { w_.log(text); }

  // Passive results, from the command file, Livestatus or gearman; applied as they come in.
  bool submit_passive_result(const PassiveResult& p) {
    FinishedCheck f;
    if (!passive_.accept(p, f)) return false;
    apply_finished(f);
    return true;
  }

  void count_external_command() {
    ++w_.events.commands;
    metrics::core_metrics().external_commands.add();
    w_.check_stats.count(files::CheckStat::external_command, 0, w_.now_epoch());
  }

  void save_state() {
    if (w_.main.retain_state_information) state_files_.save_retention();
  }
  bool read_state() { return reread_retained_state(); }
  void restart() { begin_reload(ReloadCause::command); }

  const config::MainConfig& main_config() const { return w_.main; }

 private:
  // While checks run the core wakes once per k_result_period: it applies the results that came in and
  // hands the executors every check falling due within k_dispatch_ahead, each with its own start time,
  // which the executor keeps. So the core wakes four times a second however many checks run, no check
  // starts late for it, and as the executors still hold the previous batch when the next arrives, they
  // need no wakeup for it (Executor::enqueue). Chosen with bench/perfbench: each wakeup of the core costs
  // ~100 µs of CPU on the VMs Vedette is measured on, more than the work of many checks; at 10k services
  // and 100 checks/s the core spent ~17 µs per check with a 100 ms period and 7-11 µs with 250 ms.
  // Results so wait up to 250 ms before they show (docs/compatibility.md).
  static constexpr Duration k_result_period = std::chrono::milliseconds(250);
  static constexpr Duration k_dispatch_ahead = 2 * k_result_period;
  // At SIGTERM: how long running checks may take to finish (stopping stays well within 20 s).
  static constexpr Duration k_shutdown_grace = std::chrono::seconds(5);

 public:
  // A status snapshot for Livestatus: its own builder, so neither takes the other's memory back.
  std::shared_ptr<const files::StatusSnapshot> status_snapshot() { return state_files_.live_snapshot(); }

  // Livestatus' LOGROTATE: Naemon's rotate_log_file, as SIGUSR1.
  void flush_log() { w_.log_file.flush(); }

  void reopen_log() { w_.log_file.reopen(w_.now_epoch()); }
  void log_timeperiod_transitions() { log_timeperiod_transitions_ = true; }

 private:
  // retention.dat at start-up: states, outputs and check times back in place before the INITIAL state
  // lines and the first checks (Naemon's read_initial_state_information). A missing file is a first start.
  void restore_retained_state() {
    if (!w_.main.retain_state_information) return;
    const Time now = w_.now_epoch();
    std::optional<retention::ApplyResult> applied =
        load_retained_state(w_.hosts.vector(), w_.services.vector(), w_.contacts, now);
    if (!applied) return;  // a missing file is a first start: nothing read, nothing to adopt
    retained_scheduling_ok_ = applied->scheduling_info_ok;
    w_.last_program_stop = applied->last_program_stop;
    adopt_program_attributes(applied->program);
    w_.numbering.next_event_id = std::max(1ul, applied->program.next_event_id);
    adopt_retained(std::move(*applied), applied->program.next_comment_id, applied->program.next_downtime_id,
                   now);
  }

  // READ_STATE_INFORMATION: the state becomes what a restart would make of retention.dat now (objects,
  // contacts, comments and downtimes as the file has them), as Naemon's command re-runs its start-up
  // reader. What the file cannot know stays: the schedule, the checks running, and the id counters, which
  // never go back (an id is not handed out twice). False when the file cannot be read (Naemon: the command
  // fails); with retain_state_information off, nothing happens, as in Naemon.
  bool reread_retained_state() {
    if (!w_.main.retain_state_information) return true;
    const Time now = w_.now_epoch();
    std::vector<HostState> hosts;
    std::vector<ServiceState> services;
    initial_states(*w_.model, hosts, services);
    std::vector<state::ContactState> contacts = state::initial_contact_states(*w_.model);
    std::optional<retention::ApplyResult> applied = load_retained_state(hosts, services, contacts, now);
    if (!applied) return false;
    auto keep_schedule = [](CheckState& read, const CheckState& running) {
      read.is_executing = running.is_executing;
      read.next_check = running.next_check;
    };
    for (std::size_t h = 0; h < hosts.size(); ++h) {
      keep_schedule(hosts[h], w_.hosts[h]);
      hosts[h].flap.last_state_history_update = w_.hosts[h].flap.last_state_history_update;
    }
    for (std::size_t s = 0; s < services.size(); ++s) keep_schedule(services[s], w_.services[s]);
    w_.hosts.vector() = std::move(hosts);
    w_.services.vector() = std::move(services);
    w_.contacts = std::move(contacts);
    const unsigned long next_comment_id =
        std::max(applied->program.next_comment_id, w_.comments->next_comment_id());
    const unsigned long next_downtime_id =
        std::max(applied->program.next_downtime_id, w_.downtimes->next_downtime_id());
    w_.numbering.next_event_id = std::max(w_.numbering.next_event_id, applied->program.next_event_id);
    adopt_program_attributes(applied->program);
    adopt_retained(std::move(*applied), next_comment_id, next_downtime_id, now);
    annotations_.collect_acknowledgement_expiry();
    // A reload under way must not swap in the books it took at SIGHUP instead of these.
    reload_book_versions_ = {~std::uint64_t{0}, ~std::uint64_t{0}};
    return true;
  }

  // Reads retention.dat into the given state (at its initial values) by Naemon's rules and logs what went
  // wrong; nullopt when the file is missing or cannot be read (the state may then be half applied).
  std::optional<retention::ApplyResult> load_retained_state(std::vector<HostState>& hosts,
                                                            std::vector<ServiceState>& services,
                                                            std::vector<state::ContactState>& contacts,
                                                            Time now) {
    retention::LoadResult r = retention::load(w_.main.state_retention_file,
                                              {*w_.model, w_.cfg.main, hosts, services, contacts}, now);
    for (const retention::Warning& w : r.warnings)
      log(fmt::format("Warning: {}", retention::format_warning(w_.main.state_retention_file, w)));
    if (r.status == retention::Data::Status::error) {
      log(fmt::format("Error: Cannot read retention file '{}': {}", w_.main.state_retention_file, r.error));
      return std::nullopt;
    }
    if (r.status == retention::Data::Status::missing) return std::nullopt;
    // Naemon drops them silently; an admin who renamed objects should know their state did not follow.
    const retention::ApplyCounts& n = r.applied.counts;
    if (n.hosts_dropped + n.services_dropped + n.contacts_dropped > 0) {
      log(fmt::format(
          "Warning: Retention file '{}' has {} host(s), {} service(s) and {} contact(s) that are no "
          "longer configured; their state was dropped.",
          w_.main.state_retention_file, n.hosts_dropped, n.services_dropped, n.contacts_dropped));
    }
    return std::move(r.applied);
  }

  // What the core keeps from an applied retention.dat besides the hot state: the comments and downtimes,
  // and what depends on program-wide flags and on the last notifications.
  void adopt_retained(retention::ApplyResult&& applied, unsigned long next_comment_id,
                      unsigned long next_downtime_id, Time now) {
    w_.contacts_changed();
    annotations_.adopt_books(load_books(*w_.model, applied.comments, next_comment_id, applied.downtimes,
                                        next_downtime_id, now, w_.main.date_format));
    w_.apply_main_settings();  // use_retained_program_state may have changed program-wide flags
    notifier_.restore_next_notifications(w_.notifier_world(now));
  }

  // retention.dat's program-wide modified attributes (the id counters are the books' and the numbering's).
  void adopt_program_attributes(const retention::ProgramCounters& program) {
    w_.modified_host_attributes = program.modified_host_attributes;
    w_.modified_service_attributes = program.modified_service_attributes;
  }

  // loop::TimerHandler: the tick, which only makes an iteration happen (the other components own their
  // timers), and the runner's orphan timer, whose made-up results are applied at once.
  void on_timer(loop::TimerId id) override {
    if (!runner_.owns_timer(id)) return;
    runner_.expire_orphans();
    apply_finished_checks();
  }

  // Once per iteration, in this order: collect the finished checks, apply each with its follow-ups on the
  // schedule (they may make host checks due now), let the gate decide on the due checks and start those it
  // lets run as one batch; then keep a tick while checks are out, and hand the log lines over.
  void before_poll() override {
    VEDETTE_CHECK(std::this_thread::get_id() == core_thread_, "the core's loop runs off the core thread");
    runner_.collect();
    apply_finished_checks();
    if (!timers_.due().empty()) run_due_checks();
    runner_.submit();
    // Results from gearman are polled too; passive ones (send_gearman) come without a check out, so with
    // distribution on the tick never stops.
    if ((runner_.expects_results() || state_files_.autosave_pending()) && !w_.loop.is_armed(tick_timer_))
      w_.loop.arm_timer(tick_timer_, w_.loop.now() + k_result_period);
    state_files_.report();
    perfdata_.flush();
    runner_.report();
    runner_.publish_gearman_metrics();
    w_.log_file.flush();
  }

  // Each check runs as of its due time (or now, if that has passed): the gate decides whether it runs and
  // when it is due next (rescheduled from that time); its check_period and macros see that time, and the
  // executor or the worker starts it then.
  void run_due_checks() {
    const Instant now = w_.now_instant();
    for (CheckId check : timers_.due()) {
      const Instant at = timers_.run_time(check, now);
      const loop::WallTime scheduled = timers_.scheduled_at(check);
      const bool forced = timers_.take_forced(check);
      const CheckGate::Decision d = gate_.decide(check, at, forced, runner_.at_concurrency_limit());
      if (d.next_in) scheduler_.arm(check, at, *d.next_in, d.check_options);
      switch (d.action) {
        case CheckGate::Action::skip:
          break;
        case CheckGate::Action::run:
          runner_.start(check, scheduled, at, forced);
          apply_finished_checks();  // gearmand may have refused it: UNKNOWN at once
          break;
        case CheckGate::Action::assume_up: {  // Naemon runs no plugin for a host without check_command
          CheckOutcome r;
          r.start = r.finish = to_epoch(at.wall);
          apply_host(w_.host_of(check), r, r.start, at);
          break;
        }
      }
    }
    timers_.clear_due();
  }

  // What the runner took in, each result applied before the runner hands out the next (which may depend
  // on it: a freshness check's result is dropped once a passive one made its object fresh).
  void apply_finished_checks() {
    while (runner_.next_finished(finished_)) apply_finished(finished_);
  }

  // A check's result, from the runner (local or remote) or a passive one.
  void apply_finished(const FinishedCheck& f) {
    if (w_.is_service(f.check)) {
      const model::ServiceId sid = w_.service_of(f.check);
      apply_service(sid, f.outcome, f.now, f.ended);
      w_.services[model::index(sid)].check_source = f.source;
    } else {
      const model::HostId hid = w_.host_of(f.check);
      apply_host(hid, f.outcome, f.now, f.ended);
      w_.hosts[model::index(hid)].check_source = f.source;
    }
  }

  // loop::FdHandler
  void on_ready(int fd, loop::Interest) override {
    if (signals_ && fd == signals_->fd()) {
      loop::SignalSet got = signals_->drain();
      for (int sig : {SIGTERM, SIGINT}) {
        if (got.contains(sig)) stop(fmt::format("Caught '{}', shutting down...", ::strsignal(sig)));
      }
      if (got.contains(SIGHUP)) begin_reload(ReloadCause::signal);
      // As Naemon: logrotate moves the log away, then SIGUSR1 makes the core write to a new one.
      if (got.contains(SIGUSR1)) w_.log_file.reopen(w_.now_epoch());
      return;
    }
    if (fd == reloader_.fd()) finish_reload();
    if (runner_.owns_fd(fd)) {
      runner_.drain_remote();
      apply_finished_checks();
    }
  }

  // `base`: when the result counts as applied; retries and the next regular check are scheduled from it.
  void apply_service(model::ServiceId sid, const CheckOutcome& r, Time now, Instant base) {
    scheduler_.follow(w_.check_of(sid), results_pipeline_.apply_service(sid, r, now), base);
  }
  void apply_host(model::HostId hid, const CheckOutcome& r, Time now, Instant base) {
    scheduler_.follow(w_.check_of(hid), results_pipeline_.apply_host(hid, r, now), base);
  }

  // SIGHUP: as Naemon, a reload re-reads the whole configuration. The new one is loaded and prepared on the
  // reload thread while checks go on (engine/world/reload.hpp); the swap happens in finish_reload().
  enum class ReloadCause { signal, command };  // RESTART_PROGRAM logs no "Caught" line
  void begin_reload(ReloadCause cause) {
    if (cause == ReloadCause::signal) log(fmt::format("Caught '{}', restarting...", ::strsignal(SIGHUP)));
    if (options_.config_path.empty()) {
      log("Warning: No main config file to reload from; the running configuration is kept.");
      return;
    }
    if (reloader_.busy()) {
      reload_again_ = true;  // the files may have changed again since that reload read them
      return;
    }
    start_reload();
  }

  void start_reload() {
    reload_book_versions_ = {w_.comments->version(), w_.downtimes->version()};
    reloader_.start({options_.config_path, state_files_.retention_snapshot(), w_.now_epoch()});
  }

  void finish_reload() {
    std::unique_ptr<PreparedConfig> p = reloader_.take();
    if (!p) return;
    for (const config::Diagnostic& d : p->diags.all()) log(config::Diagnostics::format(d));
    if (!p->ok()) {
      log(
          fmt::format("Error: Reload failed: {} error(s) in the configuration; the running configuration is "
                      "kept. Run Vedette with -v to verify it.",
                      std::max<std::size_t>(1, p->diags.error_count())));
    } else {
      swap_in(*p);
    }
    if (reload_again_) {
      reload_again_ = false;
      start_reload();
    }
  }

  // The new configuration takes over. Every host and service that still exists (by name) keeps its state
  // exactly as it is now, its place in the schedule and its running check, whose result will count for it;
  // new objects are spread over their first interval as at start-up; results of checks of removed objects
  // are dropped when they come back.
  void swap_in(PreparedConfig& p) {
    const MonoTime began = w_.clock.now();
    assert(timers_.due().empty());  // before_poll() runs them; the fds are served before it
    runner_.collect();              // what came back so far belongs to the old objects
    apply_finished_checks();
    runner_.drain_remote();
    apply_finished_checks();

    const model::Model& old = *w_.model;
    const model::Model& next = *p.configuration.model;
    const CheckMapping mapping = map_checks(old, next);
    const ByCheck<CheckId>& old_of_new = mapping.old_of_new;
    const ByCheck<CheckId>& new_of_old = mapping.new_of_old;
    const auto old_checks = static_cast<std::uint32_t>(new_of_old.size());
    const auto new_checks = static_cast<std::uint32_t>(old_of_new.size());
    const std::size_t kept = mapping.kept;

    // The schedule and the checks out, by new id (the runner reads which old checks run: before the swap).
    const ByCheck<std::uint8_t> was_armed = timers_.remap(old_of_new);
    runner_.remap(old_of_new, new_of_old, next.commands.size());
    keep_current_state(p, mapping, old, next, w_.hosts.vector(), w_.services.vector(), w_.contacts);

    // The swap. The old model lives on while a writer thread still holds a snapshot of it; what the core
    // held is freed on another thread.
    struct Replaced {
      std::shared_ptr<const model::Model> model;
      std::vector<HostState> hosts;
      std::vector<ServiceState> services;
      std::unique_ptr<CommentBook> comments{};
      std::unique_ptr<DowntimeBook> downtimes{};
    };
    auto replaced = std::make_shared<Replaced>(
        Replaced{std::move(w_.model_owner), std::move(w_.hosts.vector()), std::move(w_.services.vector())});
    w_.cfg = std::move(p.configuration);
    w_.model_owner = std::move(w_.cfg.model);
    w_.model = w_.model_owner.get();
    w_.hosts.vector() = std::move(p.hosts);
    w_.services.vector() = std::move(p.services);
    w_.contacts = std::move(p.contacts);
    w_.contacts_changed();
    freshness_.resize(new_checks);
    adopt_program_attributes(p.retained.program);
    // The reload thread built the books from the comments and downtimes at SIGHUP; a command that changed
    // them since (rare) makes the core build them again, here, from the ones it has now.
    std::unique_ptr<CommentBook> old_comments = std::move(w_.comments);
    std::unique_ptr<DowntimeBook> old_downtimes = std::move(w_.downtimes);
    if (old_comments->version() == reload_book_versions_.first &&
        old_downtimes->version() == reload_book_versions_.second) {
      annotations_.adopt_books(std::move(p.books));
    } else {
      annotations_.adopt_books(load_books(
          *w_.model, *old_comments->snapshot(), old_comments->next_comment_id(), *old_downtimes->snapshot(),
          old_downtimes->next_downtime_id(), w_.now_epoch(), w_.main.date_format));
    }
    replaced->comments = std::move(old_comments);
    replaced->downtimes = std::move(old_downtimes);
    w_.apply_main_settings();
    w_.build_periods();
    notifier_ = Notifier(*w_.model, runner_);
    notifier_.restore_next_notifications(w_.notifier_world(w_.now_epoch()));
    annotations_.collect_acknowledgement_expiry();

    w_.program_start = w_.now_epoch();
    w_.check_stats = CheckStats(w_.program_start);  // Naemon's init_check_stats at every (re)start
    log_start_lines();
    runner_.reconfigure_distribution(new_of_old, *this);
    if (!p.object_cache_error.empty()) log(fmt::format("Error: {}", p.object_cache_error));
    perfdata_.setup();
    w_.mark_all_updated();
    if (w_.main.log_initial_states) w_.log_states("INITIAL");

    scheduler_.after_reload(was_armed);
    log_rotation_.schedule();
    freshness_.schedule();
    state_files_.after_reload();
    if (log_timeperiod_transitions_) timeperiod_transitions_.start();  // as the module, loaded anew

    reloader_.dispose(std::move(replaced));
    const auto swap_ms = std::chrono::duration<double, std::milli>(w_.clock.now() - began).count();
    log(
        fmt::format("Configuration reloaded: {} hosts, {} services ({} objects kept, {} new, {} removed); "
                    "loaded in {:.0f} ms, prepared in {:.0f} ms, swapped in {:.1f} ms.",
                    w_.hosts.size(), w_.services.size(), kept, new_checks - kept, old_checks - kept,
                    p.load_time.count() / 1e3, p.prepare_time.count() / 1e3, swap_ms));
  }

  // Nothing new starts; checks already running get k_shutdown_grace to finish and be applied (logged, in
  // status.dat and retention.dat); the executor then kills what is left.
  // False when retention.dat could not be saved: the daemon then exits 1.
  bool shutdown() {
    runner_.stop_sending();
    const MonoTime until = w_.clock.now() + k_shutdown_grace;
    while (runner_.collect_while_running(until)) apply_finished_checks();
    runner_.shutdown();
    perfdata_.shutdown();
    const base::Status saved = state_files_.shutdown();
    if (saved) {
      log(fmt::format("Successfully shutdown... (PID={})", ::getpid()));
    } else {
      log(fmt::format("Error: {}", saved.error()));
      log(fmt::format("Shutdown with errors: retention data not saved (PID={})", ::getpid()));
    }
    w_.log_file.flush();
    return static_cast<bool>(saved);
  }

  const std::thread::id core_thread_ = std::this_thread::get_id();  // the thread that built the Core
  World w_;                                                         // first: everything below reads it
  FreshnessChecker freshness_{w_, [this](CheckId c, Time now) {
                                scheduler_.at(c, now, /*forced=*/true, state::k_check_option_freshness);
                              }};
  PassiveResults passive_{w_};
  CoreOptions options_;
  CheckRunner runner_;                     // after freshness_, passive_ and options_, which it reads
  FinishedCheck finished_;                 // reused for each result the runner hands out
  Notifier notifier_{*w_.model, runner_};  // the runner runs notifications and event handlers
  Annotations annotations_{w_, notifier_};
  FlapAlerts flap_alerts_{w_, annotations_, notifier_};
  ObjectCommands objects_{w_, flap_alerts_, notifier_};
  PerfdataOutputs perfdata_{w_, runner_};
  ResultPipeline results_pipeline_{w_, annotations_, flap_alerts_, notifier_, runner_, perfdata_};
  LogRotation log_rotation_{w_};
  StateFiles state_files_;
  bool retained_scheduling_ok_ = false;
  std::unique_ptr<loop::SignalFd> signals_;

  CheckTimers timers_{w_.loop};
  CheckScheduler scheduler_{w_, timers_};
  CheckGate gate_{w_, notifier_};
  TimeperiodTransitions timeperiod_transitions_{w_};
  bool log_timeperiod_transitions_ = false;  // Livestatus runs: its module logs them
  Reloader reloader_;
  bool reload_again_ = false;                                     // SIGHUP while a reload was under way
  std::pair<std::uint64_t, std::uint64_t> reload_book_versions_;  // the books' versions at the last SIGHUP
  loop::TimerId tick_timer_ = 0;
};

Core::Core(config::Configuration configuration, loop::Clock& clock, CoreOptions options)
    : impl_(std::make_unique<Impl>(std::move(configuration), clock, options)) {}
Core::~Core() = default;

// Everything the Core offers is for the core thread (the one that built it): the loop, the command reader
// and the Livestatus link all call from there. A call from another thread would race the hot state.
Core::Impl* Core::on_core_thread() const {
  VEDETTE_CHECK(std::this_thread::get_id() == impl_->core_thread(),
                "engine::Core called off the core thread");
  return impl_.get();
}
loop::Loop& Core::loop() {
  return on_core_thread()->loop();
}
int Core::run() {
  return on_core_thread()->run();
}
void Core::stop(std::string_view reason) {
  on_core_thread()->stop(reason);
}
bool Core::submit_passive_result(const PassiveResult& result) {
  return on_core_thread()->submit_passive_result(result);
}
void Core::save_state() {
  on_core_thread()->save_state();
}
bool Core::read_state() {
  return on_core_thread()->read_state();
}
void Core::restart() {
  on_core_thread()->restart();
}
void Core::log(std::string_view text) {
  on_core_thread()->log(text);
}
std::shared_ptr<const files::StatusSnapshot> Core::status_snapshot() {
  return on_core_thread()->status_snapshot();
}
void Core::count_external_command() {
  on_core_thread()->count_external_command();
}
void Core::reopen_log() {
  on_core_thread()->reopen_log();
}
void Core::log_timeperiod_transitions() {
  on_core_thread()->log_timeperiod_transitions();
}
void Core::flush_log() {
  on_core_thread()->flush_log();
}
const config::MainConfig& Core::main_config() const {
  return on_core_thread()->main_config();
}
// The components themselves: a command calls the one that does its work (engine/core_commands.hpp).
CoreCommands Core::commands() {
  Impl* core = on_core_thread();
  return {core->w_, core->annotations_, core->objects_, core->scheduler_, *this};
}

}  // namespace vedette::engine
