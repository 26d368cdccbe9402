#include "engine/status_snapshot.hpp"

#include "engine/downtime_book.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <utility>

namespace vedette::engine {
namespace {

void fill_program(files::StatusProgram& p, const config::MainConfig& main, const ProgramStatus& program) {
  p.created = program.now;
  p.version.assign(program.version);
  p.counters = program.counters;
  p.pid = program.pid;
  p.daemon_mode = program.daemon_mode;
  p.program_start = program.program_start;
  p.last_log_rotation = program.last_log_rotation;
  p.enable_notifications = main.enable_notifications;
  p.active_service_checks_enabled = main.execute_service_checks;
  p.passive_service_checks_enabled = main.accept_passive_service_checks;
  p.active_host_checks_enabled = main.execute_host_checks;
  p.passive_host_checks_enabled = main.accept_passive_host_checks;
  p.enable_event_handlers = main.enable_event_handlers;
  p.obsess_over_services = main.obsess_over_services;
  p.obsess_over_hosts = main.obsess_over_hosts;
  p.check_service_freshness = main.check_service_freshness;
  p.check_host_freshness = main.check_host_freshness;
  p.enable_flap_detection = main.enable_flap_detection;
  p.process_performance_data = main.process_performance_data;
  p.global_host_event_handler = main.global_host_event_handler;
  p.global_service_event_handler = main.global_service_event_handler;
  p.global_host_notification_handler = main.global_host_notification_handler;
  p.global_service_notification_handler = main.global_service_notification_handler;
  p.masks = {.host = main.retained_host_attribute_mask,
             .service = main.retained_service_attribute_mask,
             .process_host = main.retained_process_host_attribute_mask,
             .process_service = main.retained_process_service_attribute_mask,
             .contact_host = main.retained_contact_host_attribute_mask,
             .contact_service = main.retained_contact_service_attribute_mask};
  p.check_stats = program.check_stats;
  p.events = program.events;
}

template <typename State>
void fill_state(files::StatusSnapshot& snap, files::StatusState& o, const State& s) {
  o.text_offset = snap.text.append(s.plugin_output);
  snap.text.append(s.long_plugin_output);
  snap.text.append(s.perf_data);
  o.output_size = static_cast<std::uint32_t>(s.plugin_output.size());
  o.long_output_size = static_cast<std::uint32_t>(s.long_plugin_output.size());
  o.perf_data_size = static_cast<std::uint32_t>(s.perf_data.size());
  o.last_check = s.last_check;
  o.next_check = s.next_check;
  o.last_state_change = s.last_state_change;
  o.last_hard_state_change = s.last_hard_state_change;
  o.last_update = s.last_update;
  o.execution_time = s.execution_time;
  o.latency = s.latency;
  o.current_attempt = s.current_attempt;
  o.current_state = static_cast<std::uint8_t>(s.current_state);
  o.last_hard_state = static_cast<std::uint8_t>(s.last_hard_state);
  o.check_type = static_cast<std::uint8_t>(s.check_type);
  o.check_options = s.check_options;
  o.state_type = static_cast<std::uint8_t>(s.state_type);
  o.has_been_checked = s.has_been_checked;
  o.is_executing = s.is_executing;
  o.check_source = s.check_source;
  o.last_state = static_cast<std::uint8_t>(s.last_state);
  state::copy_attributes(o, s, snap.overrides);
}

// Fills `snap` (fresh or recycled: every field is overwritten).
void fill(files::StatusSnapshot& snap, const SnapshotSource& src) {
  snap.model = &src.model;
  snap.keep_alive = src.keep_alive;
  snap.comments = src.comments;
  snap.downtimes = src.downtimes;
  snap.contacts = src.contacts;
  fill_program(snap.program, src.main, src.program);
  snap.check_sources = src.program.check_sources;
  snap.overrides.clear();

  const std::size_t host_count = std::min(src.model.hosts.size(), src.hosts.size());
  const std::size_t service_count = std::min(src.model.services.size(), src.services.size());
  const DowntimeBook* depths = src.downtime_depths;

  snap.text.clear();

  snap.hosts.resize(host_count);
  for (std::size_t i = 0; i < host_count; ++i) {
    const HostState& s = src.hosts[i];
    files::StatusState& o = snap.hosts[i];
    fill_state(snap, o, s);
    o.last_time = {s.last_time_up, s.last_time_down, s.last_time_unreachable, 0};
    o.scheduled_downtime_depth =
        depths != nullptr ? depths->depth(model::HostId{static_cast<std::uint32_t>(i)}) : 0;
  }
  snap.services.resize(service_count);
  for (std::size_t i = 0; i < service_count; ++i) {
    const ServiceState& s = src.services[i];
    files::StatusState& o = snap.services[i];
    fill_state(snap, o, s);
    o.last_time = {s.last_time_ok, s.last_time_warning, s.last_time_unknown, s.last_time_critical};
    o.scheduled_downtime_depth =
        depths != nullptr ? depths->depth(model::ServiceId{static_cast<std::uint32_t>(i)}) : 0;
  }
}

}  // namespace

// The memory of the last snapshot released (by the writer, usually on its thread), kept for the next build.
struct StatusSnapshotBuilder::Spare {
  std::mutex mutex;
  std::unique_ptr<files::StatusSnapshot> snapshot;  // guarded by mutex
};

StatusSnapshotBuilder::StatusSnapshotBuilder() : spare_(std::make_shared<Spare>()) {}
StatusSnapshotBuilder::~StatusSnapshotBuilder() = default;

std::shared_ptr<const files::StatusSnapshot> StatusSnapshotBuilder::build(const SnapshotSource& source) {
  std::unique_ptr<files::StatusSnapshot> snap;
  {
    std::lock_guard lock(spare_->mutex);
    snap = std::move(spare_->snapshot);
  }
  if (snap == nullptr) snap = std::make_unique<files::StatusSnapshot>();
  fill(*snap, source);
  // Whoever drops the last reference gives the memory back. The model and the shared lists are let go at
  // once (they may be the last references to ones replaced by a reload); the arrays and the text are kept.
  return std::shared_ptr<const files::StatusSnapshot>(
      snap.release(), [spare = std::weak_ptr<Spare>(spare_)](const files::StatusSnapshot* done) {
        std::unique_ptr<files::StatusSnapshot> owned(const_cast<files::StatusSnapshot*>(done));
        owned->keep_alive.reset();
        owned->comments.reset();
        owned->downtimes.reset();
        owned->contacts.reset();
        owned->check_sources.reset();
        owned->overrides.clear();
        owned->model = nullptr;
        if (const std::shared_ptr<Spare> pool = spare.lock()) {
          std::lock_guard lock(pool->mutex);
          if (pool->snapshot == nullptr) pool->snapshot = std::move(owned);
        }
      });
}

std::shared_ptr<const files::StatusSnapshot> make_status_snapshot(const SnapshotSource& source) {
  auto snap = std::make_shared<files::StatusSnapshot>();
  fill(*snap, source);
  return snap;
}

}  // namespace vedette::engine
