// CheckRunner's Mod-Gearman half (engine/checks/check_runner.hpp, docs/distributed.md): checks, event
// handlers and notifications sent to gearmand as Mod-Gearman's NEB module sends them, the results from the
// result queue taken as the module hands them to Naemon, the checks whose result never came (orphans), jobs
// gearmand could not take, and the options again at a reload.
#include "config/command_compiler.hpp"
#include "engine/checks/check_runner.hpp"
#include "metrics/core_metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <limits>
#include <utility>

namespace vedette::engine {

void CheckRunner::start_distribution(loop::FdHandler& fd_handler) {
  for (const std::string& note : distribution_notes_) log(note);
  distribution_notes_.clear();
  if (distributor_ == nullptr) return;
  log(distributor_->describe());
  w_.loop.watch(distributor_->fd(), loop::Interest::read, fd_handler);
}

// Mod-Gearman's job for a check (handle_host_check / handle_svc_check); the check counts as executing
// until its result or its deadline. The expanded command is in expanded_.
void CheckRunner::send_check(CheckId check, const std::string& queue, gearman::Work work, int timeout_s,
                             loop::WallTime scheduled, loop::MonoTime start_at, bool forced) {
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
  s.job.host_name = w_.model->host(w_.owner_host(check)).name;
  if (service) s.job.service_description = w_.model->services[model::index(check)].description;
  s.job.core_time_us = to_epoch_us(scheduled);
  s.job.timeout_s = std::max(1, timeout_s);
  s.job.command_line = remote_command_line(expanded_);
  expanded_ = {};
  const std::uint32_t generation = generation_[check] = ++last_generation_;
  s.tag = (std::uint64_t{model::index(check)} << 32) | generation;
  submitted_at_[check] = scheduled;
  if (!distributor_->send(std::move(s))) {  // left as it was
    refused_.push_back(std::move(s));
    has_taken_in_ = true;
    return;
  }
  count_launch(check, scheduled);
  w_.state_of(check).is_executing = true;
  const loop::Duration grace =
      std::chrono::seconds(s.job.timeout_s + std::max(1, w_.main.check_result_reaper_frequency));
  distributor_->expect(check, generation, std::max(start_at, w_.loop.now()) + grace);
  if (!w_.loop.is_armed(orphan_timer_)) arm_orphan_timer();
}

bool CheckRunner::send_side_command(const SideCommand& command) {
  const bool notification = command.purpose == SideCommand::Purpose::notification;
  const CheckId check =
      model::is_set(command.service) ? w_.check_of(command.service) : w_.check_of(command.host);
  const gearman::Work work = notification ? gearman::Work::notification : gearman::Work::eventhandler;
  const std::string* queue = distributor_->queue(work, check);
  if (queue == nullptr) return false;
  gearman::Submission s;
  s.queue = *queue;
  s.priority = gearman::priority_for(work, /*forced_check=*/false);
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

// A job that could not go to gearmand (the link gave up during an outage, or its queue was full): a check
// runs here or gets UNKNOWN (gearmand_down=), an event handler or notification runs here.
bool CheckRunner::not_sent(gearman::Submission& s, std::string_view reason, FinishedCheck& out) {
  if (!s.text.empty()) return false;  // performance data: lost, as when the NEB module cannot send it
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
    return false;
  }
  const CheckId check{static_cast<std::uint32_t>(s.tag >> 32)};
  const auto generation = static_cast<std::uint32_t>(s.tag);
  if (!generation_.contains(check) || generation_[check] != generation) return false;  // replaced since
  distributor_->take(check);
  w_.state_of(check).is_executing = false;
  const bool service = w_.is_service(check);
  if (distributor_->options().run_locally_when_down) {
    run_check_locally(check, service ? exec::CheckKind::service : exec::CheckKind::host, std::move(command),
                      s.job.timeout_s, submitted_at_[check], w_.loop.now());
    return false;
  }
  exec::CheckResult r;
  r.generation = generation;
  r.kind = service ? exec::CheckKind::service : exec::CheckKind::host;
  r.outcome = exec::Outcome::exited;
  r.exit_code = k_state_unknown;
  r.output = fmt::format("(Could not submit the check to gearmand: {})", reason);
  r.start_us = r.end_us = to_epoch_us(w_.clock.wall_now());
  return finish(check, r, ResultOrigin{}, out);
}

void CheckRunner::drain_remote() {
  if (distributor_ == nullptr) return;
  assert(!remote_drained_);  // the core took everything drained before
  distributor_->drain(remote_results_, remote_unsent_);
  remote_drained_ = has_taken_in_ = true;
}

// What gearman's half took in, in the order it handled them when it applied each at once: a start()'s
// refusal; what drain_remote() took in (the results, then the jobs the link gave up on), after which the
// orphan timer is armed again; the orphans, then their warning.
bool CheckRunner::take_next_remote(FinishedCheck& out) {
  while (next_refused_ < refused_.size())
    if (not_sent(refused_[next_refused_++], "the queue of jobs waiting for gearmand is full", out))
      return true;
  refused_.clear();
  next_refused_ = 0;
  if (remote_drained_) {
    while (next_remote_result_ < remote_results_.size())
      if (handle_remote_result(remote_results_[next_remote_result_++], out)) return true;
    while (next_remote_unsent_ < remote_unsent_.size())
      if (not_sent(remote_unsent_[next_remote_unsent_++], "gearmand could not be reached", out)) return true;
    remote_results_.clear();
    remote_unsent_.clear();
    next_remote_result_ = next_remote_unsent_ = 0;
    remote_drained_ = false;
    arm_orphan_timer();
  }
  while (next_orphan_ < orphans_.size())
    if (orphaned(orphans_[next_orphan_++], out)) return true;
  if (!orphans_.empty()) {
    log(fmt::format(
        "Warning: gearman: {} check(s) orphaned: no result within their timeout, e.g. from queue '{}'",
        orphans_.size(), orphans_.front().queue));
    orphans_.clear();
    next_orphan_ = 0;
    arm_orphan_timer();
  }
  return false;
}

// A result from the result queue: an active one as if the check had run here (Mod-Gearman's NEB module
// hands it to the core's result processing), a passive one (send_gearman) as a passive result.
bool CheckRunner::handle_remote_result(gearman::IncomingResult& in, FinishedCheck& out) {
  gearman::Result& res = in.result;
  if (res.passive) {
    out = FinishedCheck{};  // nothing of the previous one stays
    return passive_.accept(
        PassiveResult{
            .host_name = res.host_name,
            .service_description = res.service_description,
            .return_code = res.return_code,
            .output = res.output,
            .check_time = (res.start_time_us != 0 ? res.start_time_us : in.received_us) / 1'000'000,
            .source = res.source.empty() || res.source == "(null)" ? "Mod-Gearman Worker" : res.source},
        out);
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
    return false;
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
  return finish(check, r, origin, out);
}

void CheckRunner::arm_orphan_timer() {
  if (distributor_ == nullptr) return;
  if (const std::optional<loop::MonoTime> next = distributor_->next_deadline()) {
    w_.loop.arm_timer(orphan_timer_, *next);
  } else {
    w_.loop.disarm_timer(orphan_timer_);
  }
}

// Checks whose result did not come back within their timeout and check_result_reaper_frequency:
// Mod-Gearman's fake result (orphan_return), or with orphan_*_checks=no only the next regular check. The
// timer is armed again once they are handed out (take_next()).
void CheckRunner::expire_orphans() {
  if (distributor_ == nullptr) return;
  assert(orphans_.empty());  // the core took the previous ones
  orphans_ = distributor_->orphans(w_.loop.now());
  if (orphans_.empty()) {
    arm_orphan_timer();
    return;
  }
  has_taken_in_ = true;
}

bool CheckRunner::orphaned(const Orphan& o, FinishedCheck& out) {
  w_.state_of(o.check).is_executing = false;
  const bool service = w_.is_service(o.check);
  const gearman::Options& options = distributor_->options();
  if (!(service ? options.orphan_service_checks : options.orphan_host_checks)) return false;
  exec::CheckResult r;
  r.generation = generation_[o.check];
  r.kind = service ? exec::CheckKind::service : exec::CheckKind::host;
  r.outcome = exec::Outcome::exited;
  r.exit_code = options.orphan_return;
  r.output = fmt::format("({} check orphaned, is the mod-gearman worker on queue '{}' running?)",
                         service ? "service" : "host", o.queue);
  r.start_us = r.end_us = to_epoch_us(w_.clock.wall_now());
  return finish(o.check, r, {.source = CheckSources::k_mod_gearman}, out);
}

void CheckRunner::reconfigure_distribution(const ByCheck<CheckId>& new_of_old, loop::FdHandler& fd_handler) {
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
    w_.loop.watch(distributor_->fd(), loop::Interest::read, fd_handler);
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
  w_.loop.watch(distributor_->fd(), loop::Interest::read, fd_handler);
  arm_orphan_timer();
}

void CheckRunner::stop_distribution() {
  if (distributor_ == nullptr) return;
  w_.loop.unwatch(distributor_->fd());
  distributor_.reset();
}

void CheckRunner::publish_gearman_metrics() {
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

}  // namespace vedette::engine
