// Over 800 lines, for now: Core::Impl still runs checks (gating, spawning, distribution), the state files
// and the reload swap itself. Issue 21 moves its parts into components on the shared World
// (engine/world.hpp) that own their state and return effects the core carries out: CheckSchedule,
// ResultPipeline, Annotations, FlapAlerts, FreshnessChecker and ObjectCommands so far (docs/architecture.md);
// the sections below follow the per-check path: commands, scheduling, results, reload, shutdown.
#include "engine/core.hpp"

#include "base/check.hpp"
#include "config/command_compiler.hpp"
#include "engine/annotations.hpp"
#include "engine/books.hpp"
#include "engine/check_id.hpp"
#include "engine/check_schedule.hpp"
#include "engine/check_sources.hpp"
#include "engine/check_stats.hpp"
#include "engine/comment_book.hpp"
#include "engine/core_time.hpp"
#include "engine/dependencies.hpp"
#include "engine/distribution.hpp"
#include "engine/event_handlers.hpp"
#include "engine/flap_alerts.hpp"
#include "engine/flapping.hpp"
#include "engine/freshness_checker.hpp"
#include "engine/macros.hpp"
#include "engine/notifier.hpp"
#include "engine/object_commands.hpp"
#include "engine/perfdata_output.hpp"
#include "engine/reload.hpp"
#include "engine/result_pipeline.hpp"
#include "engine/state_machine.hpp"
#include "engine/status_snapshot.hpp"
#include "engine/timing_out.hpp"
#include "engine/tsdb_output.hpp"
#include "engine/world.hpp"
#include "exec/executor.hpp"
#include "exec/plugin_output.hpp"
#include "exec/result_queue.hpp"
#include "files/log_file.hpp"
#include "files/status_file.hpp"
#include "loop/signals.hpp"
#include "metrics/core_metrics.hpp"
#include "retention/apply.hpp"
#include "retention/writer.hpp"
#include "state/attributes.hpp"
#include "timeperiod/day_cache.hpp"
#include "timeperiod/evaluator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cctype>
#include <cstring>
#include <ctime>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <type_traits>
#include <unistd.h>
#include <unordered_map>
#include <utility>

namespace vedette::engine {

namespace {

using loop::Duration;
using loop::MonoTime;

// Failures of a writer thread (status.dat, retention.dat), logged by the core thread (the log is the core's).
// The writers report once per episode of failure, so a full disk is one log line, not one per attempt.
struct WriterErrors {
  std::mutex mutex;
  std::vector<std::string> messages;  // guarded by mutex
  std::atomic<bool> pending{false};

  std::function<void(std::string_view)> sink() {
    return [this](std::string_view message) {
      std::lock_guard lock(mutex);
      messages.emplace_back(message);
      pending.store(true, std::memory_order_relaxed);
    };
  }
};

files::StatusWriterOptions status_options(const config::MainConfig& main, WriterErrors& errors) {
  files::StatusWriterOptions out;
  out.path = main.status_file;
  out.on_error = errors.sink();
  return out;
}

// Events of the perfdata writer threads, logged by the core once per iteration.
struct PerfdataEvents {
  std::mutex mutex;
  std::vector<std::string> messages;  // guarded by mutex
  std::atomic<bool> pending{false};

  void add(const files::PerfdataEvent& e) { add(e.message); }
  void add(std::string message) {
    std::lock_guard lock(mutex);
    messages.push_back(std::move(message));
    pending.store(true, std::memory_order_relaxed);
  }
};

retention::WriterOptions retention_options(const config::MainConfig& main, WriterErrors& errors) {
  retention::WriterOptions out;
  if (main.retain_state_information) out.path = main.state_retention_file;
  out.on_error = errors.sink();
  return out;
}

// Naemon's check_workers: n > 0 workers; n < 0 the CPU count plus |n|; 0 one and a half per CPU, at least 4,
// at most 48. Each executor thread is blocked while its newest child is between clone and exec (vfork
// semantics), which on a saturated machine lasts as long as the child waits for a CPU: so, as Naemon's
// workers, there are more threads than CPUs.
unsigned executor_threads(const config::MainConfig& main, const CoreOptions& options) {
  if (options.executor_threads != 0) return options.executor_threads;
  const long cpus = std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
  long n = main.check_workers;
  if (n < 0) n = cpus - n;
  if (n <= 0) n = std::clamp<long>(cpus * 3 / 2, 4, 48);
  return static_cast<unsigned>(n);
}

// max_timing_out_checks: -1 no bound; 0 (default) a quarter of max_concurrent_checks if that is set, else
// k_timing_out_slots_per_thread per executor thread.
constexpr unsigned k_timing_out_slots_per_thread = 8;

exec::ExecutorOptions executor_options(const config::MainConfig& main, const CoreOptions& options) {
  exec::ExecutorOptions out;
  out.threads = executor_threads(main, options);
  if (main.max_timing_out_checks > 0) {
    out.timing_out_slots = static_cast<unsigned>(main.max_timing_out_checks);
  } else if (main.max_timing_out_checks == 0) {
    out.timing_out_slots = main.max_concurrent_checks > 0
                               ? std::max(1u, static_cast<unsigned>(main.max_concurrent_checks) / 4)
                               : out.threads * k_timing_out_slots_per_thread;
  }
  return out;
}

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
class Core::Impl final : public loop::TimerHandler,
                         public loop::FdHandler,
                         public loop::BeforePollHook,
                         public SideCommandSink,
                         public PerfdataSink {
 public:
  friend class Core;  // its entry points call the components directly
  Impl(config::Configuration configuration, loop::Clock& clock, CoreOptions options)
      : w_(std::move(configuration), clock,  // moved from in World, after the options are read
           log_options(configuration.main, options,
                       [this](std::int64_t rotation_time) {
                         last_log_rotation_ = rotation_time;
                         log_states(w_.main.log_current_states, "CURRENT");
                       }),
           options.random_seed),
        options_(options),
        executor_(results_, executor_options(w_.main, options)),
        status_(status_options(w_.main, status_errors_)),
        retention_writer_(retention_options(w_.main, retention_errors_)) {
    w_.side_commands = this;
    const std::size_t checks = w_.check_count();
    w_.loop.reserve_timers(static_cast<std::uint32_t>(checks + 8));
    rotation_timer_ = w_.loop.add_timer(*this);
    host_perfdata_timer_ = w_.loop.add_timer(*this);
    service_perfdata_timer_ = w_.loop.add_timer(*this);
    tsdb_timer_ = w_.loop.add_timer(*this);
    status_timer_ = w_.loop.add_timer(*this);
    retention_timer_ = w_.loop.add_timer(*this);
    tick_timer_ = w_.loop.add_timer(*this);
    orphan_timer_ = w_.loop.add_timer(*this);
    schedule_.resize(checks);
    submitted_at_.resize(checks);
    generation_.resize(checks, 0);
    freshness_.resize(checks);
    timing_out_.resize(checks, w_.model->commands.size());
    gearman::OptionMessages messages;
    if (std::optional<gearman::Options> o = distribution_options(w_.main, messages);
        o && messages.errors.empty())
      distributor_ = std::make_unique<Distributor>(std::move(*o), *w_.model);
    for (const std::string& w : messages.warnings) distribution_notes_.push_back("Warning: gearman: " + w);
    for (const std::string& e : messages.errors) distribution_notes_.push_back("Error: gearman: " + e);
  }

  loop::Loop& loop() { return w_.loop; }
  std::thread::id core_thread() const { return core_thread_; }

  int run() {
    loop::block_loop_signals();  // the caller should have done so before the constructor started threads
    signals_ = std::make_unique<loop::SignalFd>();
    w_.loop.watch(signals_->fd(), loop::Interest::read, *this);
    w_.loop.watch(reloader_.fd(), loop::Interest::read, *this);
    // Results are picked up by polling the queue once per iteration; while checks run, a tick makes sure
    // an iteration comes at least every k_result_period. Waking the core for each result instead doubled
    // its wakeups, and with them its CPU per check (bench/perfbench/run.sh).
    results_.use_polling();
    w_.loop.set_timer_slack(k_dispatch_ahead);
    w_.loop.add_before_poll(*this);
    w_.program_start = w_.now_epoch();
    w_.check_stats = CheckStats(w_.program_start);
    log_start_lines();
    log_distribution_start();
    restore_retained_state();
    annotations_.collect_acknowledgement_expiry();
    log_states(w_.main.log_initial_states, "INITIAL");
    schedule_initial_checks();
    schedule_log_rotation();
    schedule_retention_save();
    freshness_.schedule();
    setup_perfdata();
    // As Naemon: status.dat exists as soon as the core runs, then is rewritten every status_update_interval.
    status_.remove_file();
    publish_status();
    w_.log_file.flush();
    if (options_.on_started) options_.on_started();
    // What start-up queued is handed over, and the tick armed, before the first poll: that poll may
    // otherwise sleep until the first timer, which can be a minute away.
    before_poll();
    w_.loop.run();
    shutdown();
    if (options_.on_stopped) options_.on_stopped();
    return 0;
  }

  // What Naemon logs when it starts, and again after each reload.
  void log_start_lines() {
    log(fmt::format("Vedette {} starting... (PID={})", VEDETTE_VERSION, ::getpid()));
    const std::time_t t = static_cast<std::time_t>(w_.program_start);
    char when[64] = {};
    ctime_r(&t, when);
    std::string_view local(when);
    if (!local.empty() && local.back() == '\n') local.remove_suffix(1);
    log(fmt::format("Local time is {}", local));
    log("LOG VERSION: 2.0");
  }

  void stop(std::string_view reason) {
    if (!reason.empty()) log(reason);
    w_.loop.stop();
  }

  void log(std::string_view text) override { w_.log(text); }

  bool submit_passive_result(const PassiveResult& p) {
    const Instant at = w_.now_instant();  // one clock read per result
    const Time now = to_epoch(at.wall);
    if (model::is_set(p.service)) return submit_passive_service_result(p.service, p, now, at);
    auto host_it = w_.model->host_by_name.find(p.host_name);
    if (host_it == w_.model->host_by_name.end()) {
      log(
          fmt::format("Warning:  Passive check result was received for {} '{}'{}, but the host could not be "
                      "found!",
                      p.service_description.empty() ? "host" : "service",
                      p.service_description.empty() ? p.host_name : p.service_description,
                      p.service_description.empty() ? "" : fmt::format(" on host '{}'", p.host_name)));
      return false;
    }
    if (p.service_description.empty()) {
      if (!w_.main.accept_passive_host_checks || p.return_code < 0 || p.return_code > 2 ||
          !w_.hosts[model::index(host_it->second)].enabled(state::Flag::passive_checks))
        return false;
      const CheckOutcome r = passive_outcome(p, now);
      w_.check_stats.count(files::CheckStat::passive_host, r.start, now);
      metrics::core_metrics().count_check(metrics::CheckKind::passive, metrics::ObjectKind::host);
      apply_host(host_it->second, r, now, at);
      w_.hosts[model::index(host_it->second)].check_source = passive_source(p);
      return true;
    }
    model::ServiceId sid = w_.model->find_service(p.host_name, p.service_description);
    if (!model::is_set(sid)) {
      log(
          fmt::format("Warning:  Passive check result was received for service '{}' on host '{}', but the "
                      "service could not be found!",
                      p.service_description, p.host_name));
      return false;
    }
    return submit_passive_service_result(sid, p, now, at);
  }

  void schedule_check(CheckId check, Time when, bool forced) {
    if (schedule_.is_armed(check) && w_.state_of(check).next_check < when && !forced) return;
    schedule_.set_forced(check, forced);
    schedule(check, until_epoch(when, w_.clock.wall_now()));
  }
  void schedule_service_check(model::ServiceId s, Time when, bool forced) {
    schedule_check(w_.check_of(s), when, forced);
  }
  void schedule_host_check(model::HostId h, Time when, bool forced) {
    schedule_check(w_.check_of(h), when, forced);
  }

  // ObjectCommands changes a setting; a change that asks for it reschedules the check here.
  void follow(CheckId check, Reschedule r) {
    if (r == Reschedule::within_interval) reschedule_within_interval(check, w_.checkable_of(check));
  }

  void count_external_command() {
    ++w_.events.commands;
    metrics::core_metrics().external_commands.add();
    w_.check_stats.count(files::CheckStat::external_command, 0, w_.now_epoch());
  }

  void save_state() {
    if (w_.main.retain_state_information) publish_retention();
  }
  bool read_state() { return reread_retained_state(); }
  void restart() { begin_reload(false); }

  const model::Model& model() const { return *w_.model; }
  const config::MainConfig& main_config() const { return w_.main; }
  const std::vector<HostState>& hosts() const { return w_.hosts; }
  const std::vector<ServiceState>& services() const { return w_.services; }

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
  // The job id of notification commands and event handlers (no host or service has it).
  static constexpr std::uint32_t k_side_command_id = std::numeric_limits<std::uint32_t>::max();
  static constexpr Duration k_dispatch_ahead = 2 * k_result_period;
  // At SIGTERM: how long running checks may take to finish (stopping stays well within 20 s).
  static constexpr Duration k_shutdown_grace = std::chrono::seconds(5);

  bool submit_passive_service_result(model::ServiceId sid, const PassiveResult& p, Time now, Instant at) {
    if (!w_.main.accept_passive_service_checks ||
        !w_.services[model::index(sid)].enabled(state::Flag::passive_checks))
      return false;
    CheckOutcome r = passive_outcome(p, now);
    if (r.state < 0 || r.state > 3) r.state = k_state_unknown;
    w_.check_stats.count(files::CheckStat::passive_service, r.start, now);
    metrics::core_metrics().count_check(metrics::CheckKind::passive, metrics::ObjectKind::service);
    apply_service(sid, r, now, at);
    w_.services[model::index(sid)].check_source = passive_source(p);
    return true;
  }

  std::uint16_t passive_source(const PassiveResult& p) {
    return p.source.empty() ? CheckSources::k_command_file : w_.check_sources.intern(p.source);
  }

  static CheckOutcome passive_outcome(const PassiveResult& p, Time now) {
    CheckOutcome r;
    r.type = CheckType::passive;
    r.start = r.finish = p.check_time != 0 ? p.check_time : now;
    r.latency = std::max<double>(0, static_cast<double>(now - r.start));
    // As Naemon: a "\n" in a passive result stays two characters, in the output or the perfdata (the
    // command file has no escapes; the result is one line, so it has no long output).
    exec::PluginOutput out = exec::parse_plugin_output(p.output);
    r.output = std::move(out.output);
    std::replace(r.output.begin(), r.output.end(), ';', ':');  // as for active results, hosts' too
    r.long_output = std::move(out.long_output);
    r.perf_data = std::move(out.perf_data);
    r.state = p.return_code;
    return r;
  }

  // Arms the check's timer `delay` after `base`; next_check follows in wall time.
  void schedule_from(CheckId check, Instant base, Duration delay) {
    w_.state_of(check).next_check = to_epoch(schedule_.arm(check, base, delay));
  }
  void schedule(CheckId check, Duration delay) { schedule_from(check, w_.now_instant(), delay); }

 public:
  // A status snapshot for Livestatus: its own builder, so neither takes the other's memory back.
  std::shared_ptr<const files::StatusSnapshot> status_snapshot() {
    return take_status_snapshot(live_snapshots_);
  }

  // Livestatus' LOGROTATE: Naemon's rotate_log_file, as SIGUSR1.
  void flush_log() { w_.log_file.flush(); }

  void reopen_log() { w_.log_file.reopen(w_.now_epoch()); }

 private:
  // Naemon's schedule_next_*_check(check_window): a random point within the check interval from now.
  void reschedule_within_interval(CheckId check, const model::Checkable& cfg) {
    const CheckState& st = w_.state_of(check);
    const double interval = w_.interval_seconds(state::check_interval_of(cfg, st));
    if (interval <= 0 || st.is_executing) return;
    schedule(check, seconds(std::uniform_real_distribution<double>(0, 1)(w_.rng) * interval));
  }

  // Naemon's schedule_*_check(now): an earlier check already scheduled stands.
  void schedule_now(CheckId check) {
    CheckState& st = w_.state_of(check);
    if (st.is_executing) return;
    if (schedule_.is_armed(check) && schedule_.scheduled_at(check) <= w_.clock.wall_now()) return;
    schedule(check, Duration::zero());
  }

  void schedule_initial_checks() {
    // As Naemon: each check's first run falls at a random point within its own interval, so checks spread
    // evenly from the start and nothing runs in a burst; with use_retained_scheduling_info a retained
    // next_check is kept where Naemon keeps it (retention::initial_check_delay).
    const Time now = w_.now_epoch();
    const bool retained = w_.main.use_retained_scheduling_info && retained_scheduling_ok_;
    auto first_delay = [&](const CheckState& st, double interval) {
      const double random01 = std::uniform_real_distribution<double>(0, 1)(w_.rng);
      if (!retained) return seconds(random01 * interval);
      return seconds(retention::initial_check_delay(st.next_check, now, interval,
                                                    w_.main.retained_scheduling_randomize_window, random01));
    };
    for (std::uint32_t s = 0; s < w_.services.size(); ++s) {
      const double interval =
          w_.interval_seconds(state::check_interval_of(w_.model->services[s], w_.services[s]));
      if (interval <= 0) continue;
      schedule(w_.check_of(model::ServiceId{s}), first_delay(w_.services[s], interval));
    }
    for (std::uint32_t h = 0; h < w_.hosts.size(); ++h) {
      const double interval = w_.interval_seconds(state::check_interval_of(w_.model->hosts[h], w_.hosts[h]));
      if (interval <= 0) continue;
      schedule(w_.check_of(model::HostId{h}), first_delay(w_.hosts[h], interval));
    }
  }

  // retention.dat at start-up: states, outputs and check times back in place before the INITIAL state
  // lines and the first checks (Naemon's read_initial_state_information). A missing file is a first start.
  void restore_retained_state() {
    if (!w_.main.retain_state_information) return;
    const Time now = w_.now_epoch();
    std::optional<retention::ApplyResult> applied =
        load_retained_state(w_.hosts, w_.services, w_.contacts, now);
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
    w_.hosts = std::move(hosts);
    w_.services = std::move(services);
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
    w_.notifier->restore_next_notifications(w_.notifier_world(now));
  }

  // Naemon's auto-save: every retention_update_interval × interval_length seconds (minutes by default).
  void schedule_retention_save() {
    if (!w_.main.retain_state_information || w_.main.retention_update_interval <= 0) return;
    w_.arm_periodic(retention_timer_, retention_due_,
                    seconds(static_cast<double>(w_.main.retention_update_interval) *
                            static_cast<double>(w_.main.interval_length)));
  }

  // A snapshot for the retention writer thread (~2 ms at 100k services); it formats and writes.
  void publish_retention() {
    retention_writes_seen_ = retention_writer_.stats().writes;
    retention_writer_.publish(retention_snapshot());
  }

  // retention.dat's program-wide modified attributes (the id counters are the books' and the numbering's).
  void adopt_program_attributes(const retention::ProgramCounters& program) {
    w_.modified_host_attributes = program.modified_host_attributes;
    w_.modified_service_attributes = program.modified_service_attributes;
  }

  // The program-wide values both state files write, as they are now (the books keep the comment and
  // downtime ids). Without the check statistics: their report ages the buckets, so only status snapshots
  // take it.
  ProgramStatus program_status() const {
    ProgramStatus program;
    program.now = w_.now_epoch();
    program.program_start = w_.program_start;
    program.pid = static_cast<int>(::getpid());
    program.daemon_mode = options_.daemon_mode;
    program.last_log_rotation = last_log_rotation_;
    program.check_sources = w_.check_sources.names();
    program.counters = {.modified_host_attributes = w_.modified_host_attributes,
                        .modified_service_attributes = w_.modified_service_attributes,
                        .next_comment_id = w_.comments->next_comment_id(),
                        .next_downtime_id = w_.downtimes->next_downtime_id(),
                        .next_event_id = w_.numbering.next_event_id};
    program.events = w_.events;
    program.events.comment_changes = w_.comments->version();
    program.events.downtime_changes = w_.downtimes->version();
    return program;
  }

  // One snapshot of the run-time state, the same for both state files, the reload thread and Livestatus:
  // in `builder`'s recycled memory, or in fresh memory without one (retention.dat and the reload: minutes
  // apart, so keeping their memory for reuse would only add to the resident size).
  std::shared_ptr<const files::StatusSnapshot> take_snapshot(const ProgramStatus& program,
                                                             StatusSnapshotBuilder* builder) const {
    const SnapshotSource source{.model = *w_.model,
                                .main = w_.main,
                                .hosts = w_.hosts,
                                .services = w_.services,
                                .program = program,
                                .downtime_depths = w_.downtimes.get(),
                                .comments = w_.comments->snapshot(),
                                .downtimes = w_.downtimes->snapshot(),
                                .contacts = w_.contacts_snapshot(),
                                .keep_alive = w_.model_owner};
    return builder != nullptr ? builder->build(source) : make_status_snapshot(source);
  }

  std::shared_ptr<const files::StatusSnapshot> retention_snapshot() const {
    return take_snapshot(program_status(), nullptr);
  }

  // Log lines for the failures a writer thread reported since the last look (the log is the core's).
  void report_writer_errors(WriterErrors& errors) {
    std::lock_guard lock(errors.mutex);
    for (const std::string& e : errors.messages) log(fmt::format("Error: {}", e));
    errors.messages.clear();
    errors.pending.store(false, std::memory_order_relaxed);
  }

  // Log lines for what the retention writer thread did since the last look.
  void report_retention() {
    report_writer_errors(retention_errors_);
    if (!autosave_pending_) return;
    if (retention_writer_.stats().writes == retention_writes_seen_) return;
    autosave_pending_ = false;
    log("Auto-save of retention data completed successfully.");
  }

  // loop::TimerHandler: a check is due. Collected here, run in before_poll() as one batch.
  void on_timer(loop::TimerId id) override {
    if (id == tick_timer_) return;  // before_poll() collects the results
    if (id == orphan_timer_) {
      handle_orphans();
      return;
    }
    if (id == status_timer_) {
      publish_status();
      return;
    }
    if (id == retention_timer_) {
      publish_retention();
      autosave_pending_ = true;
      schedule_retention_save();
      return;
    }
    if (id == tsdb_timer_) return;  // before_poll hands the samples over
    if (id == host_perfdata_timer_ || id == service_perfdata_timer_) {
      const bool hosts = id == host_perfdata_timer_;
      PerfdataOutput& out = hosts ? *host_perfdata_ : *service_perfdata_;
      w_.arm_periodic(id, hosts ? host_perfdata_due_ : service_perfdata_due_,
                      std::chrono::seconds(out.processing_interval()));
      out.process(MacroContext{.model = *w_.model,
                               .main = w_.main,
                               .now = w_.now_epoch(),
                               .all_hosts = &w_.hosts,
                               .all_services = &w_.services,
                               .program_start = w_.program_start,
                               .downtimes = w_.downtimes.get()});
      return;
    }
    if (id == rotation_timer_) {
      // Timers may fire up to k_dispatch_ahead early; a rotation waits for its exact time.
      const Duration early = std::chrono::seconds(next_rotation_) - w_.clock.wall_now().time_since_epoch();
      if (early > Duration::zero()) {
        w_.loop.arm_timer(rotation_timer_, w_.loop.now() + early);
        return;
      }
      w_.log_file.rotate(next_rotation_, w_.main.log_rotation_method);
      schedule_log_rotation();
      return;
    }
  }

  // A snapshot of the run-time state for the status writer thread (a few ms at 100k services; the
  // formatting and the disk are the writer's).
  void publish_status() {
    status_.publish(take_status_snapshot(status_snapshots_));
    w_.arm_periodic(status_timer_, status_due_,
                    std::chrono::seconds(std::max(1, w_.main.status_update_interval)));
  }

  std::shared_ptr<const files::StatusSnapshot> take_status_snapshot(StatusSnapshotBuilder& builder) {
    ProgramStatus program = program_status();
    program.check_stats = w_.check_stats.report(program.now);
    return take_snapshot(program, &builder);
  }

  // log_rotation_method: the next rotation in local time, as a monotonic timer (wall time only names it).
  void schedule_log_rotation() {
    next_rotation_ = files::LogFile::next_rotation(w_.now_epoch(), w_.main.log_rotation_method);
    if (next_rotation_ == 0) return;
    const Duration until = std::chrono::seconds(next_rotation_) - w_.clock.wall_now().time_since_epoch();
    w_.loop.arm_timer(rotation_timer_, w_.loop.now() + std::max(Duration::zero(), until));
  }

  // Once per iteration, in this order: apply finished checks (they may schedule host checks now), start
  // the due ones as one batch, keep a tick while checks are out, then hand the log lines over.
  void before_poll() override {
    VEDETTE_CHECK(std::this_thread::get_id() == core_thread_, "the core's loop runs off the core thread");
    drain_results();
    if (distributor_ != nullptr && distributor_->has_results()) drain_remote();
    if (!schedule_.due().empty()) run_due_checks();
    if (!jobs_.empty()) executor_.submit_batch(jobs_);
    jobs_.clear();
    // Results from gearman are polled too; passive ones (send_gearman) come without a check out, so with
    // distribution on the tick never stops.
    if ((running_ > 0 || distributor_ != nullptr || autosave_pending_) && !w_.loop.is_armed(tick_timer_))
      w_.loop.arm_timer(tick_timer_, w_.loop.now() + k_result_period);
    if (autosave_pending_ || retention_errors_.pending.load(std::memory_order_relaxed)) report_retention();
    if (status_errors_.pending.load(std::memory_order_relaxed)) report_writer_errors(status_errors_);
    if (host_perfdata_) host_perfdata_->flush();
    if (service_perfdata_) service_perfdata_->flush();
    if (tsdb_ != nullptr) flush_tsdb();
    if (perfdata_events_.pending.load(std::memory_order_relaxed)) report_perfdata_events();
    if (executor_.has_warnings())
      for (const std::string& warning : executor_.take_warnings()) log(warning);
    if (distributor_ != nullptr) log_distribution_events();
    publish_gearman_metrics();
    w_.log_file.flush();
  }

  // The gearman figures for the metrics endpoint, at most once a second (the link's stats take its lock).
  void publish_gearman_metrics() {
    metrics::CoreMetrics& m = metrics::core_metrics();
    m.gearman_configured.store(distributor_ != nullptr, std::memory_order_relaxed);
    if (distributor_ == nullptr || w_.loop.now() < next_gearman_metrics_) return;
    next_gearman_metrics_ = w_.loop.now() + std::chrono::seconds(1);
    const gearman::LinkStats link = distributor_->link_stats();
    m.gearman_jobs_queued.set(static_cast<std::int64_t>(link.queued_jobs));
    m.gearman_checks_out.set(static_cast<std::int64_t>(distributor_->checks_out()));
    m.gearman_jobs_sent.set(static_cast<std::int64_t>(link.sent));
    m.gearman_send_failures.set(static_cast<std::int64_t>(link.send_failures));
    m.gearman_results.set(static_cast<std::int64_t>(link.results));
  }

  void flush_tsdb() {
    for (const std::string& line : tsdb_->flush(w_.loop.now())) log(line);
    if (tsdb_->has_pending() && !w_.loop.is_armed(tsdb_timer_))
      w_.loop.arm_timer(tsdb_timer_, w_.loop.now() + tsdb_->flush_interval());
  }

  // A reload's old Graphite/InfluxDB writers send what they hold (a slow backend: up to
  // the writer's stop grace) on a thread of their own, so the core never waits for a backend.
  // Shutdown joins them.
  void retire_tsdb() {
    std::erase_if(retiring_tsdb_,
                  [](const RetiringTsdb& r) { return r.done->load(std::memory_order_acquire); });
    if (tsdb_ == nullptr) return;
    auto done = std::make_shared<std::atomic<bool>>(false);
    retiring_tsdb_.push_back({base::start_thread<std::jthread>([old = std::move(tsdb_), done]() mutable {
                                old.reset();
                                done->store(true, std::memory_order_release);
                              }),
                              done});
  }

  void report_perfdata_events() {
    std::lock_guard lock(perfdata_events_.mutex);
    for (const std::string& m : perfdata_events_.messages) log(m);
    perfdata_events_.messages.clear();
    perfdata_events_.pending.store(false, std::memory_order_relaxed);
  }

  // The perfdata outputs for the configuration now (start-up and each reload). The old files close first,
  // as Naemon's cleanup and initialization do: a mode 'w' file starts empty again.
  void setup_perfdata() {
    host_perfdata_.reset();
    service_perfdata_.reset();
    w_.loop.disarm_timer(host_perfdata_timer_);
    w_.loop.disarm_timer(service_perfdata_timer_);
    host_perfdata_due_ = service_perfdata_due_ = {};
    std::vector<std::string> warnings;
    auto on_event = [this](const files::PerfdataEvent& e) { perfdata_events_.add(e); };
    retire_tsdb();
    tsdb_ = std::make_unique<TsdbOutput>(w_.main,
                                         [this](std::string line) { perfdata_events_.add(std::move(line)); });
    if (!tsdb_->has_writers()) tsdb_.reset();
    host_perfdata_ =
        std::make_unique<PerfdataOutput>(*w_.model, w_.main, PerfdataObject::host, on_event, warnings);
    service_perfdata_ =
        std::make_unique<PerfdataOutput>(*w_.model, w_.main, PerfdataObject::service, on_event, warnings);
    for (const std::string& w : warnings) log(w);
    if (host_perfdata_->processing_interval() > 0)
      w_.arm_periodic(host_perfdata_timer_, host_perfdata_due_,
                      std::chrono::seconds(host_perfdata_->processing_interval()));
    if (service_perfdata_->processing_interval() > 0)
      w_.arm_periodic(service_perfdata_timer_, service_perfdata_due_,
                      std::chrono::seconds(service_perfdata_->processing_interval()));
  }

  // PerfdataSink: after each result (ResultPipeline).
  void after_result(CheckId check, Time now) override {
    if (!w_.main.process_performance_data) return;  // the common case, decided before building macros
    const MacroContext ctx = w_.object_macros(check, now);
    if (w_.is_service(check)) {
      service_perfdata_->after_result(ctx, w_.services[model::index(check)], *this);
    } else {
      host_perfdata_->after_result(ctx, w_.hosts[model::index(ctx.host)], *this);
    }
    if (tsdb_ != nullptr) tsdb_->after_result(ctx, w_.state_of(check));
    if (distributor_ != nullptr && distributor_->distributes_perfdata())
      distributor_->send_perfdata(ctx, w_.state_of(check), w_.model->hosts[model::index(ctx.host)].name,
                                  w_.is_service(check)
                                      ? std::string_view(w_.model->services[model::index(check)].description)
                                      : std::string_view());
  }

  // Each check runs as of its due time (or now, if that has passed): it is rescheduled from there, its
  // check_period and macros see that time, and the executor starts it then.
  void run_due_checks() {
    const Instant now = w_.now_instant();
    for (CheckId check : schedule_.due()) {
      const Instant at = schedule_.run_time(check, now);
      if (w_.is_service(check))
        run_service_check(w_.service_of(check), at);
      else
        run_host_check(w_.host_of(check), at);
    }
    schedule_.clear_due();
  }

  // Timing-out checks beyond their slots wait in the executor without a process: they do not count.
  bool max_concurrent_reached() const {
    if (w_.main.max_concurrent_checks == 0) return false;
    const std::uint32_t slots = executor_.timing_out_slots();
    const std::uint32_t waiting = slots != 0 && timing_out_out_ > slots ? timing_out_out_ - slots : 0;
    const std::uint32_t running = running_ > waiting ? running_ - waiting : 0;
    return running >= static_cast<std::uint32_t>(w_.main.max_concurrent_checks);
  }

  // Naemon's handle_service_check_event() for a scheduled check.
  void run_service_check(model::ServiceId sid, Instant at) {
    const CheckId check = w_.check_of(sid);
    const model::Service& cfg = w_.model->services[model::index(sid)];
    ServiceState& st = w_.services[model::index(sid)];
    const loop::WallTime scheduled = schedule_.scheduled_at(check);
    const Time now = to_epoch(at.wall);
    const double interval = w_.interval_seconds(state::check_interval_of(cfg, st));
    const bool forced = schedule_.take_forced(check);
    if (interval > 0 && !st.is_executing) schedule_from(check, at, seconds(interval));
    if (st.is_executing) return;
    if (!forced) {
      if (max_concurrent_reached()) {
        const double retry = state::retry_interval_of(cfg, st);
        if (retry != 0) schedule_from(check, at, seconds(w_.interval_seconds(retry)));
        return;
      }
      if (!w_.main.execute_service_checks || !st.enabled(state::Flag::active_checks)) return;
      if (st.last_check + static_cast<Time>(w_.main.cached_service_check_horizon) > now &&
          st.last_check <= now)
        return;
      const model::TimeperiodId period = w_.check_period_of(cfg, st);
      if (!w_.in_period(period, now)) {
        postpone_to_period(check, period, at, interval);
        return;
      }
      if (service_dependencies_failed(sid, now) &&
          !skip_check_for_failed_dependency(w_.main.service_skip_check_dependency_status, true, st,
                                            "(service dependency check failed)"))
        return;
      if (w_.main.service_parents_disable_service_checks != 0 && all_parents_failing(cfg, st) &&
          !skip_check_for_failed_dependency(w_.main.service_skip_check_dependency_status, true, st,
                                            "(service parents failed)"))
        return;
    }
    start_check(check, cfg.check_command, cfg.check_timeout, exec::CheckKind::service, scheduled, at.mono,
                forced,
                MacroContext{.model = *w_.model,
                             .main = w_.main,
                             .host = cfg.host,
                             .service = sid,
                             .now = now,
                             .all_hosts = &w_.hosts,
                             .all_services = &w_.services,
                             .timeperiods = &w_.evaluator,
                             .program_start = w_.program_start,
                             .downtimes = w_.downtimes.get()});
  }

  void run_host_check(model::HostId hid, Instant at) {
    const CheckId check = w_.check_of(hid);
    const model::Host& cfg = w_.model->hosts[model::index(hid)];
    HostState& st = w_.hosts[model::index(hid)];
    const loop::WallTime scheduled = schedule_.scheduled_at(check);
    const Time now = to_epoch(at.wall);
    const double interval = w_.interval_seconds(state::check_interval_of(cfg, st));
    const bool forced = schedule_.take_forced(check);
    if (interval > 0 && !st.is_executing) schedule_from(check, at, seconds(interval));
    if (st.is_executing) return;
    if (!forced) {
      if (!w_.main.execute_host_checks || !st.enabled(state::Flag::active_checks)) return;
      if (max_concurrent_reached()) return;
      const model::TimeperiodId period = w_.check_period_of(cfg, st);
      if (!w_.in_period(period, now)) {
        postpone_to_period(check, period, at, interval);
        return;
      }
      if (host_dependencies_failed(hid, now) &&
          !skip_check_for_failed_dependency(w_.main.host_skip_check_dependency_status, false, st,
                                            "(host dependency check failed)"))
        return;
    }
    if (!cfg.check_command.is_set() && (st.overrides == nullptr || !st.overrides->check_command)) {
      // Naemon runs no plugin for a host without check_command: the host is assumed UP.
      CheckOutcome r;
      r.start = r.finish = now;
      apply_host(hid, r, now, at);
      return;
    }
    start_check(check, cfg.check_command, cfg.check_timeout, exec::CheckKind::host, scheduled, at.mono,
                forced,
                MacroContext{.model = *w_.model,
                             .main = w_.main,
                             .host = hid,
                             .now = now,
                             .all_hosts = &w_.hosts,
                             .all_services = &w_.services,
                             .timeperiods = &w_.evaluator,
                             .program_start = w_.program_start,
                             .downtimes = w_.downtimes.get()});
  }

  // ---- Dependencies (engine/dependencies.hpp) ----

  DependencyRules dependency_rules(Time now) const {
    return {
        .timeperiods = w_.evaluator, .soft_state_dependencies = w_.main.soft_state_dependencies, .now = now};
  }
  bool service_dependencies_failed(model::ServiceId sid, Time now) const {
    if (w_.model->service_dependencies.empty()) return false;  // most configurations: no lookup per check
    auto of = [&](model::ServiceId s) { return w_.notifier->index().service_execution_dependencies(s); };
    return dependencies_failed(dependency_rules(now), of(sid), std::span<const ServiceState>(w_.services),
                               of);
  }
  bool host_dependencies_failed(model::HostId hid, Time now) const {
    if (w_.model->host_dependencies.empty()) return false;
    auto of = [&](model::HostId h) { return w_.notifier->index().host_execution_dependencies(h); };
    return dependencies_failed(dependency_rules(now), of(hid), std::span<const HostState>(w_.hosts), of);
  }
  // Naemon's service_parents_disable_service_checks test: a service not OK whose parents are none OK.
  bool all_parents_failing(const model::Service& cfg, const ServiceState& st) const {
    return st.current_state != k_state_ok && all_service_parents_failing(cfg, w_.services);
  }
  // Outside its check_period a check waits for the next valid time (Naemon: plus a random share of the
  // check window, so a period that opens does not release every check at once).
  void postpone_to_period(CheckId check, model::TimeperiodId period, Instant at, double window) {
    const Time now = to_epoch(at.wall);
    const std::time_t next =
        w_.evaluator.next_valid_time(timeperiod::PeriodIndex{model::index(period)},
                                     static_cast<std::time_t>(now), static_cast<std::time_t>(now));
    if (next <= now) return;  // no valid time within the horizon: stay on the normal schedule
    const double spread = window > 1 ? std::uniform_real_distribution<double>(0, window - 1)(w_.rng) : 0;
    schedule_from(check, at, seconds(static_cast<double>(next - now) + spread));
  }

  // Runs the configured command, or the one CHANGE_*_CHECK_COMMAND set (split here: rare).
  void start_check(CheckId check, const model::CommandCall& call, int timeout_s, exec::CheckKind kind,
                   loop::WallTime scheduled, MonoTime start_at, bool forced, const MacroContext& ctx) {
    CheckState& st = w_.state_of(check);
    if (st.overrides != nullptr && st.overrides->check_command) {
      const config::CommandCall changed = config::split_command_call(*st.overrides->check_command);
      const auto it = w_.model->command_by_name.find(changed.name);
      if (it == w_.model->command_by_name.end()) return;
      std::vector<std::string_view> args(changed.args.begin(), changed.args.end());
      const model::Command& command = w_.model->commands[model::index(it->second)];
      expand_command(command.compiled, ctx, args, expanded_);
      expanded_.native = command.native;
    } else {
      if (!call.is_set()) return;
      const model::Command& command = w_.model->commands[model::index(call.command)];
      expand_command(command.compiled, ctx, w_.model->args_of(call), expanded_);
      expanded_.native = command.native;
    }
    if (distributor_ != nullptr) {
      const gearman::Work work =
          kind == exec::CheckKind::host ? gearman::Work::host_check : gearman::Work::service_check;
      if (const std::string* queue = distributor_->queue(work, check)) {
        send_check(check, *queue, work, timeout_s, scheduled, start_at, forced);
        return;
      }
    }
    run_check_locally(check, kind, std::move(expanded_), timeout_s, scheduled, start_at);
    expanded_ = {};
  }

  void run_check_locally(CheckId check, exec::CheckKind kind, ExpandedCommand&& command, int timeout_s,
                         loop::WallTime scheduled, MonoTime start_at) {
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
  std::uint32_t configured_command_of(CheckId check) const {
    const CheckState& st = w_.state_of(check);
    if (st.overrides != nullptr && st.overrides->check_command) return TimingOutChecks::k_no_command;
    const model::CommandCall& call = w_.is_service(check)
                                         ? w_.model->services[model::index(check)].check_command
                                         : w_.model->host(w_.host_of(check)).check_command;
    return call.is_set() ? model::index(call.command) : TimingOutChecks::k_no_command;
  }

  // Naemon counts an active check when it hands it to a worker, a host check as a parallel one too.
  void count_launch(CheckId check, loop::WallTime scheduled) {
    const Time at = to_epoch(scheduled), now = w_.now_epoch();
    if (w_.is_service(check)) {
      w_.check_stats.count(files::CheckStat::active_scheduled_service, at, now);
      return;
    }
    w_.check_stats.count(files::CheckStat::active_scheduled_host, at, now);
    w_.check_stats.count(files::CheckStat::parallel_host, at, now);
  }

  // ---- Distributed checks (engine/distribution.hpp, docs/distributed.md) ----

  void log_distribution_start() {
    for (const std::string& note : distribution_notes_) log(note);
    distribution_notes_.clear();
    if (distributor_ == nullptr) return;
    log(distributor_->describe());
    w_.loop.watch(distributor_->fd(), loop::Interest::read, *this);
  }

  // Mod-Gearman's job for a check (handle_host_check / handle_svc_check); the check counts as executing
  // until its result or its deadline. The expanded command is in expanded_.
  void send_check(CheckId check, const std::string& queue, gearman::Work work, int timeout_s,
                  loop::WallTime scheduled, MonoTime start_at, bool forced) {
    const gearman::Options& options = distributor_->options();
    const bool service = w_.is_service(check);
    gearman::Submission s;
    s.queue = queue;
    s.priority = gearman::priority_for(work, forced);
    // Held by the link until due, as the executor holds a local check (steady_clock is the loop's clock).
    s.not_before = std::chrono::steady_clock::time_point(
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(start_at.time_since_epoch()));
    s.job.type = service ? gearman::JobType::service : gearman::JobType::host;
    s.job.result_queue = options.result_queue;
    s.job.target_queue = queue;
    s.job.host_name =
        w_.model->host(service ? w_.model->services[model::index(check)].host : w_.host_of(check)).name;
    if (service) s.job.service_description = w_.model->services[model::index(check)].description;
    s.job.core_time_us = to_epoch_us(scheduled);
    s.job.timeout_s = std::max(1, timeout_s);
    s.job.command_line = remote_command_line(expanded_);
    expanded_ = {};
    const std::uint32_t generation = generation_[check] = ++last_generation_;
    s.tag = (std::uint64_t{model::index(check)} << 32) | generation;
    submitted_at_[check] = scheduled;
    if (!distributor_->send(std::move(s))) {
      not_sent(s, "the queue of jobs waiting for gearmand is full");
      return;
    }
    count_launch(check, scheduled);
    w_.state_of(check).is_executing = true;
    const Duration grace =
        std::chrono::seconds(s.job.timeout_s + std::max(1, w_.main.check_result_reaper_frequency));
    distributor_->expect(check, generation, std::max(start_at, w_.loop.now()) + grace);
    if (!w_.loop.is_armed(orphan_timer_)) arm_orphan_timer();
  }

  // A job that could not go to gearmand (the link gave up during an outage, or its queue was full): a check
  // runs here or gets UNKNOWN (gearmand_down=), an event handler or notification runs here.
  void not_sent(gearman::Submission& s, std::string_view reason) {
    if (!s.text.empty()) return;  // performance data: lost, as when the NEB module cannot send it
    bool shell = false;
    std::vector<config::EnvVar> env;
    std::vector<std::string> argv = config::split_expanded_line(s.job.command_line, shell, env);
    ExpandedCommand command{std::move(argv), shell, std::move(env)};
    if (s.job.type == gearman::JobType::eventhandler || s.job.type == gearman::JobType::notification) {
      SideCommand side;
      side.command = std::move(command);
      side.timeout_s = s.job.type == gearman::JobType::notification ? w_.main.notification_timeout
                                                                    : w_.main.event_handler_timeout;
      run_locally(std::move(side));
      return;
    }
    const CheckId check{static_cast<std::uint32_t>(s.tag >> 32)};
    const auto generation = static_cast<std::uint32_t>(s.tag);
    if (!generation_.contains(check) || generation_[check] != generation) return;  // replaced since
    distributor_->take(check);
    w_.state_of(check).is_executing = false;
    const bool service = w_.is_service(check);
    if (distributor_->options().run_locally_when_down) {
      run_check_locally(check, service ? exec::CheckKind::service : exec::CheckKind::host, std::move(command),
                        s.job.timeout_s, submitted_at_[check], w_.loop.now());
      return;
    }
    exec::CheckResult r;
    r.generation = generation;
    r.kind = service ? exec::CheckKind::service : exec::CheckKind::host;
    r.outcome = exec::Outcome::exited;
    r.exit_code = k_state_unknown;
    r.output = fmt::format("(Could not submit the check to gearmand: {})", reason);
    r.start_us = r.end_us = to_epoch_us(w_.clock.wall_now());
    finish_check(check, r);
  }

  void drain_remote() {
    distributor_->drain(remote_results_, remote_unsent_);
    for (gearman::IncomingResult& in : remote_results_) handle_remote_result(in);
    for (gearman::Submission& s : remote_unsent_) not_sent(s, "gearmand could not be reached");
    remote_results_.clear();
    remote_unsent_.clear();
    arm_orphan_timer();
  }

  // A result from the result queue: an active one as if the check had run here (Mod-Gearman's NEB module
  // hands it to the core's result processing), a passive one (send_gearman) as a passive result.
  void handle_remote_result(gearman::IncomingResult& in) {
    gearman::Result& res = in.result;
    if (res.passive) {
      (void)submit_passive_result(PassiveResult{
          .host_name = res.host_name,
          .service_description = res.service_description,
          .return_code = res.return_code,
          .output = res.output,
          .check_time = (res.start_time_us != 0 ? res.start_time_us : in.received_us) / 1'000'000,
          .source = res.source.empty() || res.source == "(null)" ? "Mod-Gearman Worker" : res.source});
      return;
    }
    CheckId check = k_no_check;
    if (res.service_description.empty()) {
      if (auto it = w_.model->host_by_name.find(res.host_name); it != w_.model->host_by_name.end())
        check = w_.check_of(it->second);
    } else if (const model::ServiceId sid = w_.model->find_service(res.host_name, res.service_description);
               model::is_set(sid)) {
      check = w_.check_of(sid);
    }
    if (check == k_no_check) {
      log(res.service_description.empty()
              ? fmt::format("Warning: gearman: a check result came for host '{}', which does not exist",
                            res.host_name)
              : fmt::format("Warning: gearman: a check result came for service '{}' on host '{}', which does "
                            "not exist",
                            res.service_description, res.host_name));
      return;
    }
    // As the NEB module: latency= (send_gearman's) adds to the check's own latency, which a result no job
    // of ours asked for does not have.
    const ResultOrigin origin{
        .source = res.source.empty() || res.source == "(null)" ? CheckSources::k_mod_gearman
                                                               : w_.check_sources.intern(res.source),
        .scheduled = distributor_->take(check),
        .extra_latency = static_cast<double>(std::max<std::int64_t>(0, res.latency_us)) / 1e6,
        .remote = true};
    exec::CheckResult r = remote_check_result(in);
    r.generation = generation_[check];
    finish_check(check, r, origin);
  }

  void arm_orphan_timer() {
    if (distributor_ == nullptr) return;
    if (const std::optional<MonoTime> next = distributor_->next_deadline()) {
      w_.loop.arm_timer(orphan_timer_, *next);
    } else {
      w_.loop.disarm_timer(orphan_timer_);
    }
  }

  // Checks whose result did not come back within their timeout and check_result_reaper_frequency:
  // Mod-Gearman's fake result (orphan_return), or with orphan_*_checks=no only the next regular check.
  void handle_orphans() {
    const std::vector<Orphan> orphans = distributor_->orphans(w_.loop.now());
    const gearman::Options& options = distributor_->options();
    for (const Orphan& o : orphans) {
      w_.state_of(o.check).is_executing = false;
      const bool service = w_.is_service(o.check);
      if (!(service ? options.orphan_service_checks : options.orphan_host_checks)) continue;
      exec::CheckResult r;
      r.generation = generation_[o.check];
      r.kind = service ? exec::CheckKind::service : exec::CheckKind::host;
      r.outcome = exec::Outcome::exited;
      r.exit_code = options.orphan_return;
      r.output = fmt::format("({} check orphaned, is the mod-gearman worker on queue '{}' running?)",
                             service ? "service" : "host", o.queue);
      r.start_us = r.end_us = to_epoch_us(w_.clock.wall_now());
      finish_check(o.check, r, {.source = CheckSources::k_mod_gearman});
    }
    if (!orphans.empty())
      log(fmt::format(
          "Warning: gearman: {} check(s) orphaned: no result within their timeout, e.g. from queue "
          "'{}'",
          orphans.size(), orphans.front().queue));
    arm_orphan_timer();
  }

  // A reload: the new configuration's options and queues; checks out keep their place under their new ids.
  void reconfigure_distribution(const ByCheck<CheckId>& new_of_old) {
    gearman::OptionMessages messages;
    std::optional<gearman::Options> options = distribution_options(w_.main, messages);
    for (const std::string& w : messages.warnings) log("Warning: gearman: " + w);
    for (const std::string& e : messages.errors) log("Error: gearman: " + e);
    if (!messages.errors.empty()) {
      if (distributor_ == nullptr) return;
      log("Error: gearman: the options are unusable; the running ones are kept");
      options = distributor_->options();
    }
    if (distributor_ == nullptr) {
      if (!options) return;
      distributor_ = std::make_unique<Distributor>(std::move(*options), *w_.model);
      log(distributor_->describe());
      w_.loop.watch(distributor_->fd(), loop::Interest::read, *this);
      return;
    }
    w_.loop.unwatch(distributor_->fd());
    const bool relinked = distributor_->reconfigure(options ? std::move(*options) : distributor_->options(),
                                                    *w_.model, new_of_old);
    if (!options) {  // distribution turned off: nothing out will come back
      for (std::uint32_t c = 0; c < w_.check_count(); ++c)
        if (distributor_->take(CheckId{c})) w_.state_of(CheckId{c}).is_executing = false;
      distributor_.reset();
      w_.loop.disarm_timer(orphan_timer_);
      log("gearman: distribution is off; every check runs here");
      return;
    }
    if (relinked) log(distributor_->describe());
    w_.loop.watch(distributor_->fd(), loop::Interest::read, *this);
    arm_orphan_timer();
  }

  void log_distribution_events() {
    for (const std::string& line : distributor_->take_log_lines()) log(line);
  }

  // loop::FdHandler
  void on_ready(int fd, loop::Interest) override {
    if (signals_ && fd == signals_->fd()) {
      loop::SignalSet got = signals_->drain();
      for (int sig : {SIGTERM, SIGINT}) {
        if (got.contains(sig)) stop(fmt::format("Caught '{}', shutting down...", ::strsignal(sig)));
      }
      if (got.contains(SIGHUP)) begin_reload(true);
      // As Naemon: logrotate moves the log away, then SIGUSR1 makes the core write to a new one.
      if (got.contains(SIGUSR1)) w_.log_file.reopen(w_.now_epoch());
      return;
    }
    if (fd == reloader_.fd()) finish_reload();
    if (distributor_ != nullptr && fd == distributor_->fd()) drain_remote();
  }

  // SideCommandSink: an event handler or notification whose object's queue says so goes to gearmand (a job
  // nobody answers); everything else runs on the executor like a check, not counted against
  // max_concurrent_checks.
  void run_side_command(SideCommand&& command) override {
    if (distributor_ != nullptr && command.purpose != SideCommand::Purpose::other &&
        send_side_command(command))
      return;
    run_locally(std::move(command));
  }

  bool send_side_command(const SideCommand& command) {
    const bool notification = command.purpose == SideCommand::Purpose::notification;
    const CheckId check =
        model::is_set(command.service) ? w_.check_of(command.service) : w_.check_of(command.host);
    const std::string* queue =
        distributor_->queue(notification ? gearman::Work::notification : gearman::Work::eventhandler, check);
    if (queue == nullptr) return false;
    gearman::Submission s;
    s.queue = *queue;
    s.priority = gearman::priority_for(
        notification ? gearman::Work::notification : gearman::Work::eventhandler, false);
    s.job.type = notification ? gearman::JobType::notification : gearman::JobType::eventhandler;
    s.job.start_time_us = s.job.core_time_us = to_epoch_us(w_.clock.wall_now());
    s.job.command_line = remote_command_line(command.command);
    if (notification) {
      const CheckState& st = w_.state_of(check);
      s.job.contact = command.contact;
      s.job.plugin_output = st.plugin_output;
      s.job.long_plugin_output = st.long_plugin_output;
    }
    s.tag = std::numeric_limits<std::uint64_t>::max();
    return distributor_->send(std::move(s));
  }

  void run_locally(SideCommand&& command) {
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

  // Naemon's notification_handle_job_result and event_handler_job_handler: a timeout is logged, and a
  // notification command that failed.
  void side_command_done(const exec::CheckResult& r) {
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
                    command.failure_subject, signalled ? "was killed by signal" : "exited with exit code",
                    code, r.output, r.error_output));
  }

  void handle_result(exec::CheckResult& r) {
    if (r.id == k_side_command_id) {
      side_command_done(r);
      return;
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
    if (!generation_.contains(check) || r.generation != generation_[check]) return;
    if (r.outcome == exec::Outcome::cancelled) {  // never started: as if it had not been due yet
      w_.state_of(check).is_executing = false;
      return;
    }
    if (r.outcome != exec::Outcome::spawn_failed)
      timing_out_.record(check, configured_command_of(check), r.outcome == exec::Outcome::timed_out);
    finish_check(check, r);
  }

  // The metrics of an active or distributed result: one counter and two histogram observations, all
  // written by this thread alone (Writers::one), ~7 ns per result (bench/metrics/core_metrics_bench).
  static void count_active_metrics(bool service, bool distributed, const CheckOutcome& out) {
    metrics::CoreMetrics& m = metrics::core_metrics();
    const metrics::ObjectKind object = service ? metrics::ObjectKind::service : metrics::ObjectKind::host;
    m.count_check(distributed ? metrics::CheckKind::distributed : metrics::CheckKind::active, object);
    m.check_latency[static_cast<std::size_t>(object)].observe(out.latency);
    m.check_execution[static_cast<std::size_t>(object)].observe(out.execution_time);
  }

  // Where a result came from: Livestatus' check_source, and what its latency counts from.
  struct ResultOrigin {
    std::uint16_t source = CheckSources::k_core_worker;
    bool scheduled = true;  // the check was started on its schedule: latency = start - scheduled time
    double extra_latency = 0;
    bool remote = false;  // run by a Mod-Gearman worker
  };

  void finish_check(CheckId check, exec::CheckResult& r) { finish_check(check, r, ResultOrigin{}); }
  // The result of `check` of this configuration, from the executor or a gearman worker (r.id is not read).
  void finish_check(CheckId check, exec::CheckResult& r, const ResultOrigin& origin) {
    const Time now = w_.now_epoch();
    // Naemon drops the result of a freshness check when a passive result made the object fresh meanwhile.
    if (freshness_.drop_result(check, now)) {
      w_.state_of(check).is_executing = false;
      return;
    }
    const exec::CheckVerdict verdict = exec::interpret_check_result(r, w_.main.service_check_timeout_state);
    CheckOutcome out;
    out.type = CheckType::active;
    out.state = verdict.state;
    out.start = r.start_us / 1'000'000;
    out.finish = r.end_us / 1'000'000;
    out.execution_time = verdict.execution_time;
    out.latency =
        (origin.scheduled
             ? std::max<double>(0, static_cast<double>(r.start_us - to_epoch_us(submitted_at_[check])) / 1e6)
             : 0) +
        origin.extra_latency;
    count_active_metrics(w_.is_service(check), origin.remote, out);
    out.output = verdict.output.output;
    out.long_output = verdict.output.long_output;
    out.perf_data = verdict.output.perf_data;
    // Results wait up to a result period for the core: reschedule from when the check ended, as if the
    // result had been applied at once.
    Instant ended = w_.now_instant();
    const Duration lag = std::chrono::microseconds(to_epoch_us(ended.wall) - r.end_us);
    if (lag > Duration::zero() && lag < 2 * k_result_period) {
      ended.mono -= lag;
      ended.wall -= lag;
    }
    if (w_.is_service(check)) {
      const model::ServiceId sid = w_.service_of(check);
      const model::Service& svc = w_.model->services[model::index(sid)];
      std::string warning = exec::check_warning_text(verdict, r.kind, svc.host_name, svc.description);
      if (!warning.empty()) log(warning);
      apply_service(sid, out, now, ended);
      w_.services[model::index(sid)].check_source = origin.source;
    } else {
      const model::HostId hid = w_.host_of(check);
      std::string warning =
          exec::check_warning_text(verdict, r.kind, w_.model->hosts[model::index(hid)].name, {});
      if (!warning.empty()) log(warning);
      apply_host(hid, out, now, ended);
      w_.hosts[model::index(hid)].check_source = origin.source;
    }
  }

  // `base`: when the result counts as applied; retries and the next regular check are scheduled from it.
  void apply_service(model::ServiceId sid, const CheckOutcome& r, Time now, Instant base) {
    schedule_followups(w_.check_of(sid), results_pipeline_.apply_service(sid, r, now), base);
  }
  void apply_host(model::HostId hid, const CheckOutcome& r, Time now, Instant base) {
    schedule_followups(w_.check_of(hid), results_pipeline_.apply_host(hid, r, now), base);
  }

  // What a result asks of the schedule, after everything else it did (Naemon's order).
  void schedule_followups(CheckId check, const ScheduleFollowups& next, Instant base) {
    using Next = ScheduleFollowups::Next;
    if (next.next == Next::retry || (next.next == Next::regular_if_unset && !schedule_.is_armed(check)))
      schedule_from(check, base, seconds(next.interval_s));
    for (CheckId other : next.check_now) schedule_now(other);
    for (model::ServiceId master : next.force_now) schedule_service_check(master, 0, false);
  }

  void log_states(bool enabled, std::string_view kind) {
    if (!enabled) return;
    for (std::size_t h = 0; h < w_.hosts.size(); ++h)
      log(fmt::format("{} HOST STATE: {};{};{};{};{}", kind, w_.model->hosts[h].name,
                      host_state_name(w_.hosts[h].current_state), state_type_name(w_.hosts[h].state_type),
                      w_.hosts[h].current_attempt, w_.hosts[h].plugin_output));
    for (std::size_t s = 0; s < w_.services.size(); ++s)
      log(fmt::format("{} SERVICE STATE: {};{};{};{};{};{}", kind, w_.model->services[s].host_name,
                      w_.model->services[s].description, service_state_name(w_.services[s].current_state),
                      state_type_name(w_.services[s].state_type), w_.services[s].current_attempt,
                      w_.services[s].plugin_output));
  }

  // SIGHUP: as Naemon, a reload re-reads the whole configuration. The new one is loaded and prepared on the
  // reload thread while checks go on (engine/reload.hpp); the swap happens in finish_reload().
  void begin_reload(bool from_signal) {
    if (from_signal) log(fmt::format("Caught '{}', restarting...", ::strsignal(SIGHUP)));
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
    reloader_.start({options_.config_path, retention_snapshot(), w_.now_epoch()});
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
    assert(schedule_.due().empty() &&
           jobs_.empty());  // before_poll() hands them over; the fds are served before it
    drain_results();        // what came back so far belongs to the old objects
    if (distributor_ != nullptr) drain_remote();

    const model::Model& old = *w_.model;
    const model::Model& next = *p.configuration.model;
    const CheckIds old_ids = w_.check_ids();
    const CheckIds new_ids{next.services.size()};
    const auto old_checks = static_cast<std::uint32_t>(old_ids.count(w_.hosts.size()));
    const auto new_checks = static_cast<std::uint32_t>(new_ids.count(next.hosts.size()));
    ByCheck<CheckId> old_of_new(new_checks, k_no_check), new_of_old(old_checks, k_no_check);
    for (std::uint32_t s = 0; s < next.services.size(); ++s) {
      const model::ServiceId o = old.find_service(next.services[s].host_name, next.services[s].description);
      if (model::is_set(o)) old_of_new[new_ids.of(model::ServiceId{s})] = old_ids.of(o);
    }
    for (std::uint32_t h = 0; h < next.hosts.size(); ++h) {
      if (auto it = old.host_by_name.find(next.hosts[h].name); it != old.host_by_name.end())
        old_of_new[new_ids.of(model::HostId{h})] = old_ids.of(it->second);
    }
    std::size_t kept = 0;
    for (std::uint32_t i = 0; i < new_checks; ++i) {
      if (old_of_new[CheckId{i}] == k_no_check) continue;
      new_of_old[old_of_new[CheckId{i}]] = CheckId{i};
      ++kept;
    }

    // The schedule and the checks out, by new id.
    const ByCheck<std::uint8_t> was_armed = schedule_.remap(old_of_new);
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
    // The hot state: the prepared one (retention.dat's rules), replaced by the exact current one of every
    // object that is kept. A hard problem stays at the last attempt, however max_check_attempts changed.
    std::vector<HostState> hosts = std::move(p.hosts);
    std::vector<ServiceState> services = std::move(p.services);
    auto fit_attempts = [](CheckState& st, int max_attempts) {
      max_attempts = std::max(1, max_attempts);
      if (st.current_state != 0 && st.state_type == StateType::hard) st.current_attempt = max_attempts;
      st.current_attempt = std::min(st.current_attempt, max_attempts);
    };
    // What commands changed comes from the prepared state too: retention.dat's rules decide which changes
    // survive a changed configuration. So does last_update, as the SIGHUP snapshot wrote it (the later of
    // the stamp and the last check), as a restart would read it back. The whole HostState or ServiceState
    // is kept, not only its CheckState: the flap history holds the id of the flapping comment the book
    // keeps, which retention.dat has no key for (a flapping object would otherwise leave its comment behind
    // when it stops).
    auto keep = [&]<typename State>(State& prepared, State&& current, const model::Checkable& cfg) {
      const unsigned long modified = prepared.modified_attributes;
      const std::uint8_t flags = prepared.flags;
      const state::Timeval last_update = prepared.last_update;
      std::shared_ptr<const state::Overrides> overrides = std::move(prepared.overrides);
      prepared = std::move(current);
      prepared.modified_attributes = modified;
      prepared.flags = flags;
      prepared.last_update = last_update;
      prepared.overrides = std::move(overrides);
      fit_attempts(prepared, state::max_check_attempts_of(cfg, prepared));
    };
    for (std::uint32_t s = 0; s < next.services.size(); ++s) {
      const CheckId o = old_of_new[new_ids.of(model::ServiceId{s})];
      if (o == k_no_check) continue;
      keep(services[s], std::move(w_.services[model::index(old_ids.service(o))]), next.services[s]);
    }
    for (std::uint32_t h = 0; h < next.hosts.size(); ++h) {
      const CheckId o = old_of_new[new_ids.of(model::HostId{h})];
      if (o == k_no_check) continue;
      keep(hosts[h], std::move(w_.hosts[model::index(old_ids.host(o))]), next.hosts[h]);
    }

    // The swap. The old model lives on while a writer thread still holds a snapshot of it; what the core
    // held is freed on another thread.
    struct Replaced {
      std::shared_ptr<const model::Model> model;
      std::vector<HostState> hosts;
      std::vector<ServiceState> services;
      std::unique_ptr<CommentBook> comments{};
      std::unique_ptr<DowntimeBook> downtimes{};
    };
    // Contacts: as the retention rules prepared them, with the notification times they have now.
    std::vector<state::ContactState> contacts = std::move(p.contacts);
    for (std::size_t c = 0; c < contacts.size(); ++c) {
      const auto it = old.contact_by_name.find(next.contacts[c].name);
      if (it == old.contact_by_name.end()) continue;
      const state::ContactState& now = w_.contacts[model::index(it->second)];
      contacts[c].last_host_notification = now.last_host_notification;
      contacts[c].last_service_notification = now.last_service_notification;
    }
    auto replaced = std::make_shared<Replaced>(
        Replaced{std::move(w_.model_owner), std::move(w_.hosts), std::move(w_.services)});
    w_.cfg = std::move(p.configuration);
    w_.model_owner = std::move(w_.cfg.model);
    w_.model = w_.model_owner.get();
    w_.hosts = std::move(hosts);
    w_.services = std::move(services);
    w_.contacts = std::move(contacts);
    w_.contacts_changed();
    submitted_at_ = std::move(submitted_at);
    generation_ = std::move(generation);
    freshness_.resize(new_checks);
    timing_out_.remap(old_of_new, w_.model->commands.size());
    started_before_reload_ = std::move(started);
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
    w_.notifier = std::make_unique<Notifier>(*w_.model);
    w_.notifier->restore_next_notifications(w_.notifier_world(w_.now_epoch()));
    annotations_.collect_acknowledgement_expiry();

    w_.program_start = w_.now_epoch();
    w_.check_stats = CheckStats(w_.program_start);  // Naemon's init_check_stats at every (re)start
    log_start_lines();
    reconfigure_distribution(new_of_old);
    if (!p.object_cache_error.empty()) log(fmt::format("Error: {}", p.object_cache_error));
    setup_perfdata();
    log_states(w_.main.log_initial_states, "INITIAL");

    // Kept checks stay where they were in the schedule (within their new interval); new ones, and kept
    // ones that had no regular check before, are spread over their first interval.
    const Instant now = w_.now_instant();
    for (std::uint32_t i = 0; i < new_checks; ++i) {
      const CheckId c{i};
      const double interval =
          w_.interval_seconds(state::check_interval_of(w_.checkable_of(c), w_.state_of(c)));
      if (interval <= 0) continue;
      if (was_armed[c] != 0) {
        const Duration left = std::max(Duration::zero(), schedule_.due_at(c) - now.mono);
        if (left <= seconds(interval)) {
          schedule_from(c, now, left);
          continue;
        }
      }
      if (!w_.state_of(c).is_executing)
        schedule_from(c, now, seconds(std::uniform_real_distribution<double>(0, 1)(w_.rng) * interval));
    }
    schedule_log_rotation();
    retention_due_ = {};
    w_.loop.disarm_timer(retention_timer_);
    schedule_retention_save();
    freshness_.schedule();
    status_due_ = {};
    publish_status();  // retention.dat follows at the next auto-save (a snapshot here doubled the stall)

    reloader_.dispose(std::move(replaced));
    const auto swap_ms = std::chrono::duration<double, std::milli>(w_.clock.now() - began).count();
    log(
        fmt::format("Configuration reloaded: {} hosts, {} services ({} objects kept, {} new, {} removed); "
                    "loaded in {:.0f} ms, prepared in {:.0f} ms, swapped in {:.1f} ms.",
                    w_.hosts.size(), w_.services.size(), kept, new_checks - kept, old_checks - kept,
                    p.load_time.count() / 1e3, p.prepare_time.count() / 1e3, swap_ms));
  }

  void drain_results() {
    if (!results_.has_results()) return;
    results_.drain(results_batch_);
    for (exec::CheckResult& r : results_batch_) handle_result(r);
    results_batch_.clear();
  }

  // Nothing new starts; checks already running get k_shutdown_grace to finish and be applied (logged, in
  // status.dat and retention.dat); the executor then kills what is left.
  void shutdown() {
    if (distributor_ != nullptr) {  // nothing more goes out; results still on their way are not waited for
      w_.loop.unwatch(distributor_->fd());
      distributor_.reset();
    }
    executor_.cancel_held();
    const MonoTime until = w_.clock.now() + k_shutdown_grace;
    while (running_ > 0 && w_.clock.now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      drain_results();
    }
    executor_.shutdown();
    report_perfdata_events();
    host_perfdata_.reset();  // the last lines are written (or reported lost) before the log closes
    service_perfdata_.reset();
    tsdb_.reset();
    retiring_tsdb_.clear();  // joins them
    report_perfdata_events();
    if (w_.main.retain_state_information) {
      publish_retention();
      const bool written = retention_writer_.wait_idle(std::chrono::seconds(10)) &&
                           retention_writer_.stats().writes > retention_writes_seen_;
      report_retention();
      if (written) log("Retention data successfully saved.");
    }
    status_.remove_file();  // Naemon removes status.dat when it stops
    log(fmt::format("Successfully shutdown... (PID={})", ::getpid()));
    w_.log_file.flush();
  }

  const std::thread::id core_thread_ = std::this_thread::get_id();  // the thread that built the Core
  World w_;                                                         // first: everything below reads it
  Annotations annotations_{w_};
  FlapAlerts flap_alerts_{w_, annotations_};
  ObjectCommands objects_{w_, flap_alerts_};
  ResultPipeline results_pipeline_{w_, annotations_, flap_alerts_, *this};
  FreshnessChecker freshness_{w_, [this](CheckId c, Time now) { schedule_check(c, now, true); }};
  CoreOptions options_;
  exec::ResultQueue results_;
  exec::Executor executor_;
  WriterErrors status_errors_;  // before status_, whose thread reports into it
  files::StatusWriter status_;
  StatusSnapshotBuilder status_snapshots_;
  StatusSnapshotBuilder live_snapshots_;
  WriterErrors retention_errors_;  // before retention_writer_, whose thread reports into it
  retention::Writer retention_writer_;
  std::uint64_t retention_writes_seen_ = 0;
  bool autosave_pending_ = false;
  bool retained_scheduling_ok_ = false;
  std::unique_ptr<loop::SignalFd> signals_;
  PerfdataEvents perfdata_events_;  // before the outputs, whose threads report into it
  std::unique_ptr<PerfdataOutput> host_perfdata_;
  std::unique_ptr<PerfdataOutput> service_perfdata_;
  std::unique_ptr<TsdbOutput> tsdb_;  // null: no graphite_writer / influxdb_writer
  struct RetiringTsdb {
    std::jthread thread;  // joins when erased
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::vector<RetiringTsdb> retiring_tsdb_;  // a reload's old writers, still sending (retire_tsdb())
  loop::TimerId tsdb_timer_ = 0;             // wakes the loop for samples still waiting for their hand-over
  loop::TimerId host_perfdata_timer_ = 0;
  loop::TimerId service_perfdata_timer_ = 0;
  MonoTime host_perfdata_due_{};
  MonoTime service_perfdata_due_{};
  // Notification commands and event handlers on the executor: generation -> what to log if they fail.
  std::unordered_map<std::uint32_t, SideCommand> side_commands_;

  CheckSchedule schedule_{w_.loop};
  ByCheck<loop::WallTime> submitted_at_;  // the scheduled time of the running check
  ByCheck<std::uint32_t> generation_;     // the last check started (unique numbers)
  std::uint32_t last_generation_ = 0;
  // Checks started before the last reload and still out: generation -> their object's id now.
  std::unordered_map<std::uint32_t, CheckId> started_before_reload_;
  Reloader reloader_;
  bool reload_again_ = false;
  std::pair<std::uint64_t, std::uint64_t> reload_book_versions_;  // the books' versions at the last SIGHUP //
                                                                  // SIGHUP while a reload was under way
  std::vector<exec::CheckJob> jobs_;
  std::vector<exec::CheckResult> results_batch_;
  ExpandedCommand expanded_;
  std::uint32_t running_ = 0;
  TimingOutChecks timing_out_;
  std::uint32_t timing_out_out_ = 0;  // checks handed over as CheckJob::timing_out, not back yet
  loop::TimerId rotation_timer_ = 0;
  loop::TimerId status_timer_ = 0;
  loop::TimerId retention_timer_ = 0;
  MonoTime status_due_{};  // when the periodic timers are (or were last) due
  MonoTime retention_due_{};
  loop::TimerId tick_timer_ = 0;
  loop::TimerId orphan_timer_ = 0;
  MonoTime next_gearman_metrics_{};  // publish_gearman_metrics()
  // Distributed checks: nullptr unless the main config turns them on.
  std::unique_ptr<Distributor> distributor_;
  std::vector<std::string> distribution_notes_;  // option warnings and errors, logged at start
  std::vector<gearman::IncomingResult> remote_results_;
  std::vector<gearman::Submission> remote_unsent_;
  Time next_rotation_ = 0;
  Time last_log_rotation_ = 0;
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
void Core::schedule_service_check(model::ServiceId service, Time when, bool forced) {
  on_core_thread()->schedule_service_check(service, when, forced);
}
void Core::schedule_host_check(model::HostId host, Time when, bool forced) {
  on_core_thread()->schedule_host_check(host, when, forced);
}
void Core::set_program_switch(ProgramSwitch which, bool on) {
  on_core_thread()->objects_.set_program_switch(which, on);
}
void Core::set_flag(model::ServiceId service, state::Flag flag, bool on) {
  Impl* core = on_core_thread();
  const CheckId check = core->w_.check_of(service);
  core->follow(check, core->objects_.set_flag(check, flag, on));
}
void Core::set_flag(model::HostId host, state::Flag flag, bool on) {
  Impl* core = on_core_thread();
  const CheckId check = core->w_.check_of(host);
  core->follow(check, core->objects_.set_flag(check, flag, on));
}
void Core::change_attribute(model::ServiceId service, const AttributeChange& change) {
  Impl* core = on_core_thread();
  const CheckId check = core->w_.check_of(service);
  core->follow(check, core->objects_.change_attribute(check, change));
}
void Core::change_attribute(model::HostId host, const AttributeChange& change) {
  Impl* core = on_core_thread();
  const CheckId check = core->w_.check_of(host);
  core->follow(check, core->objects_.change_attribute(check, change));
}
void Core::acknowledge(model::ServiceId service, const Acknowledgement& ack) {
  Impl* impl = on_core_thread();
  impl->annotations_.acknowledge(impl->w_.check_of(service), ack);
}
void Core::acknowledge(model::HostId host, const Acknowledgement& ack) {
  Impl* impl = on_core_thread();
  impl->annotations_.acknowledge(impl->w_.check_of(host), ack);
}
void Core::remove_acknowledgement(model::ServiceId service) {
  Impl* impl = on_core_thread();
  impl->annotations_.remove_acknowledgement(impl->w_.check_of(service));
}
void Core::remove_acknowledgement(model::HostId host) {
  Impl* impl = on_core_thread();
  impl->annotations_.remove_acknowledgement(impl->w_.check_of(host));
}
void Core::add_comment(model::ServiceId service, const UserComment& comment) {
  Impl* impl = on_core_thread();
  impl->annotations_.add_comment(impl->w_.check_of(service), comment);
}
void Core::add_comment(model::HostId host, const UserComment& comment) {
  Impl* impl = on_core_thread();
  impl->annotations_.add_comment(impl->w_.check_of(host), comment);
}
bool Core::delete_comment(bool service_comment, unsigned long comment_id) {
  Impl* impl = on_core_thread();
  return impl->annotations_.delete_comment(service_comment, comment_id);
}
void Core::delete_all_comments(model::ServiceId service) {
  Impl* impl = on_core_thread();
  impl->annotations_.delete_all_comments(impl->w_.check_of(service));
}
void Core::delete_all_comments(model::HostId host) {
  Impl* impl = on_core_thread();
  impl->annotations_.delete_all_comments(impl->w_.check_of(host));
}
unsigned long Core::schedule_downtime(model::ServiceId service, const DowntimeRequest& request) {
  Impl* impl = on_core_thread();
  return impl->annotations_.schedule_downtime(impl->w_.check_of(service), request);
}
unsigned long Core::schedule_downtime(model::HostId host, const DowntimeRequest& request) {
  Impl* impl = on_core_thread();
  return impl->annotations_.schedule_downtime(impl->w_.check_of(host), request);
}
void Core::schedule_propagated_downtime(model::HostId host, const DowntimeRequest& request, bool triggered) {
  Impl* impl = on_core_thread();
  impl->annotations_.schedule_propagated_downtime(host, request, triggered);
}
bool Core::delete_downtime(bool service_downtime, unsigned long downtime_id) {
  Impl* impl = on_core_thread();
  return impl->annotations_.delete_downtime(service_downtime, downtime_id);
}
void Core::send_custom_notification(model::ServiceId service, unsigned options, std::string_view author,
                                    std::string_view comment) {
  Impl* core = on_core_thread();
  core->objects_.send_custom_notification(core->w_.check_of(service), options, author, comment);
}
void Core::send_custom_notification(model::HostId host, unsigned options, std::string_view author,
                                    std::string_view comment) {
  Impl* core = on_core_thread();
  core->objects_.send_custom_notification(core->w_.check_of(host), options, author, comment);
}
void Core::set_contact_notifications(model::ContactId contact, bool host_notifications, bool on) {
  on_core_thread()->objects_.set_contact_notifications(contact, host_notifications, on);
}
void Core::change_contact(model::ContactId contact, const ContactChange& change) {
  on_core_thread()->objects_.change_contact(contact, change);
}
void Core::delay_notification(model::ServiceId service, Time when) {
  Impl* core = on_core_thread();
  core->objects_.delay_notification(core->w_.check_of(service), when);
}
void Core::delay_notification(model::HostId host, Time when) {
  Impl* core = on_core_thread();
  core->objects_.delay_notification(core->w_.check_of(host), when);
}
std::size_t Core::delete_downtimes(const DowntimeFilter& filter) {
  Impl* impl = on_core_thread();
  return impl->annotations_.delete_downtimes(filter);
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
const model::Model& Core::model() const {
  return on_core_thread()->model();
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
void Core::flush_log() {
  on_core_thread()->flush_log();
}
const config::MainConfig& Core::main_config() const {
  return on_core_thread()->main_config();
}
const std::vector<HostState>& Core::hosts() const {
  return on_core_thread()->hosts();
}
const std::vector<ServiceState>& Core::services() const {
  return on_core_thread()->services();
}

}  // namespace vedette::engine
