#include "engine/state_files.hpp"

#include "engine/books/comment_book.hpp"
#include "engine/books/downtime_book.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <unistd.h>

namespace vedette::engine {

namespace {

files::StatusWriterOptions status_options(const config::MainConfig& main,
                                          std::function<void(std::string_view)> on_error) {
  files::StatusWriterOptions out;
  out.path = main.status_file;
  out.on_error = std::move(on_error);
  return out;
}

retention::WriterOptions retention_options(const config::MainConfig& main,
                                           std::function<void(std::string_view)> on_error) {
  retention::WriterOptions out;
  if (main.retain_state_information) out.path = main.state_retention_file;
  out.on_error = std::move(on_error);
  return out;
}

}  // namespace

std::function<void(std::string_view)> StateFiles::sink(ThreadMessages& errors) {
  return [&errors](std::string_view message) { errors.add(std::string(message)); };
}

StateFiles::StateFiles(World& world, bool daemon_mode)
    : w_(world),
      daemon_mode_(daemon_mode),
      status_(status_options(w_.main, sink(status_errors_))),
      retention_writer_(retention_options(w_.main, sink(retention_errors_))) {
  status_timer_ = w_.loop.add_timer(*this);
  retention_timer_ = w_.loop.add_timer(*this);
}

StateFiles::~StateFiles() = default;

void StateFiles::publish_status() {
  publish_status(take_status(status_snapshots_));
}

void StateFiles::publish_status(std::shared_ptr<const files::StatusSnapshot> snapshot) {
  status_.publish(std::move(snapshot));
  w_.arm_periodic(status_timer_, status_due_,
                  std::chrono::seconds(std::max(1, w_.main.status_update_interval)));
}

void StateFiles::remove_status_file() {
  status_.remove_file();
}

void StateFiles::schedule_autosave() {
  if (!w_.main.retain_state_information || w_.main.retention_update_interval <= 0) return;
  w_.arm_periodic(retention_timer_, retention_due_,
                  seconds(static_cast<double>(w_.main.retention_update_interval) *
                          static_cast<double>(w_.main.interval_length)));
}

void StateFiles::save_retention() {
  save_retention(retention_snapshot());
}

void StateFiles::save_retention(std::shared_ptr<const files::StatusSnapshot> snapshot) {
  retention_writes_seen_ = retention_writer_.stats().writes;
  retention_writer_.publish(std::move(snapshot));
}

std::shared_ptr<const files::StatusSnapshot> StateFiles::retention_snapshot() {
  return take(program_status(), status_snapshots_);
}

std::shared_ptr<const files::StatusSnapshot> StateFiles::live_snapshot() {
  return take_status(live_snapshots_);
}

ProgramStatus StateFiles::program_status() const {
  ProgramStatus program;
  program.now = w_.now_epoch();
  program.program_start = w_.program_start;
  program.pid = static_cast<int>(::getpid());
  program.daemon_mode = daemon_mode_;
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

std::shared_ptr<const files::StatusSnapshot> StateFiles::take(const ProgramStatus& program,
                                                              StatusSnapshotBuilder& builder) const {
  const SnapshotSource source{.model = *w_.model,
                              .main = w_.main,
                              .hosts = w_.hosts.all(),
                              .services = w_.services.all(),
                              .program = program,
                              .downtime_depths = w_.downtimes.get(),
                              .comments = w_.comments->snapshot(),
                              .downtimes = w_.downtimes->snapshot(),
                              .contacts = w_.contacts_snapshot(),
                              .keep_alive = w_.model_owner,
                              .host_changes = &w_.hosts.changes(),
                              .service_changes = &w_.services.changes()};
  return builder.build(source);
}

std::shared_ptr<const files::StatusSnapshot> StateFiles::take_status(StatusSnapshotBuilder& builder) {
  ProgramStatus program = program_status();
  program.check_stats = w_.check_stats.report(program.now);
  return take(program, builder);
}

void StateFiles::report_errors(ThreadMessages& errors) {
  errors.drain([this](const std::string& e) { w_.log(fmt::format("Error: {}", e)); });
}

void StateFiles::report_retention() {
  report_errors(retention_errors_);
  if (!autosave_pending_) return;
  if (retention_writer_.stats().writes == retention_writes_seen_) return;
  autosave_pending_ = false;
  w_.log("Auto-save of retention data completed successfully.");
}

void StateFiles::report() {
  if (autosave_pending_ || retention_errors_.pending()) report_retention();
  if (status_errors_.pending()) report_errors(status_errors_);
}

void StateFiles::after_reload() {
  retention_due_ = {};
  w_.loop.disarm_timer(retention_timer_);
  schedule_autosave();
  status_due_ = {};
  publish_status();
}

base::Status StateFiles::shutdown() {
  base::Status saved = save_final_retention();
  status_.remove_file();  // Naemon removes status.dat when it stops
  return saved;
}

base::Status StateFiles::save_final_retention() {
  if (!w_.main.retain_state_information) return base::Status::ok();
  save_retention();
  const bool idle = retention_writer_.wait_idle(k_final_save_wait);
  const bool written = idle && retention_writer_.stats().writes > retention_writes_seen_;
  report_retention();
  if (written) {
    w_.log("Retention data successfully saved.");
    return base::Status::ok();
  }
  // Naemon logs its success line or nothing; an admin must learn here that what changed since the last
  // save (comments, acknowledgements, states) will be gone at the next start.
  const std::string why = idle ? retention_writer_.last_error()
                               : fmt::format("not written within {} s", k_final_save_wait.count());
  return base::Error{
      fmt::format("Final save of retention data to '{}' failed: {}; what changed since the "
                  "last successful save is lost",
                  w_.main.state_retention_file, why)};
}

void StateFiles::on_timer(loop::TimerId id) {
  if (id != status_timer_ && id != retention_timer_) return;
  // The auto-save period is a multiple of status_update_interval's by default, so both fall due together:
  // they then share one snapshot. A second one in the same instant finds the builder's spare memory taken
  // and copies every object into fresh pages (~20 ms at 100k services, the larger part of what the core
  // thread's cost per check grew by from 10k to 100k with the auto-save every minute).
  const loop::MonoTime due = id == status_timer_ ? status_due_ : retention_due_;
  const bool status = id == status_timer_ || (w_.loop.is_armed(status_timer_) && status_due_ <= due);
  const bool autosave =
      id == retention_timer_ || (w_.loop.is_armed(retention_timer_) && retention_due_ <= due);
  if (!autosave) {
    publish_status();
    return;
  }
  // status.dat's snapshot carries the check statistics too, which retention.dat does not write.
  std::shared_ptr<const files::StatusSnapshot> snapshot =
      status ? take_status(status_snapshots_) : retention_snapshot();
  if (status) publish_status(snapshot);
  save_retention(std::move(snapshot));
  autosave_pending_ = true;
  schedule_autosave();
}

}  // namespace vedette::engine
