#include "retention/snapshot.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <utility>

namespace vedette::retention {
namespace {

// Copied per object on the core thread at every save (notification, event and flapping fields: 152 of it).
static_assert(sizeof(ObjectStatus) <= 288);

void fill_program(ProgramFlags& p, const config::MainConfig& m) {
  p.enable_notifications = m.enable_notifications;
  p.active_service_checks_enabled = m.execute_service_checks;
  p.passive_service_checks_enabled = m.accept_passive_service_checks;
  p.active_host_checks_enabled = m.execute_host_checks;
  p.passive_host_checks_enabled = m.accept_passive_host_checks;
  p.enable_event_handlers = m.enable_event_handlers;
  p.obsess_over_services = m.obsess_over_services;
  p.obsess_over_hosts = m.obsess_over_hosts;
  p.check_service_freshness = m.check_service_freshness;
  p.check_host_freshness = m.check_host_freshness;
  p.enable_flap_detection = m.enable_flap_detection;
  p.process_performance_data = m.process_performance_data;
  p.global_host_event_handler = m.global_host_event_handler;
  p.global_service_event_handler = m.global_service_event_handler;
  p.global_host_notification_handler = m.global_host_notification_handler;
  p.global_service_notification_handler = m.global_service_notification_handler;
}

AttributeMasks masks_of(const config::MainConfig& m) {
  return {.host = m.retained_host_attribute_mask,
          .service = m.retained_service_attribute_mask,
          .process_host = m.retained_process_host_attribute_mask,
          .process_service = m.retained_process_service_attribute_mask,
          .contact_host = m.retained_contact_host_attribute_mask,
          .contact_service = m.retained_contact_service_attribute_mask};
}

template <typename State>
void fill_state(Snapshot& snap, ObjectStatus& o, const State& s) {
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
  o.execution_time = s.execution_time;
  o.latency = s.latency;
  o.current_attempt = s.current_attempt;
  o.current_state = static_cast<std::uint8_t>(s.current_state);
  o.last_state = static_cast<std::uint8_t>(s.last_state);
  o.last_hard_state = static_cast<std::uint8_t>(s.last_hard_state);
  o.check_type = static_cast<std::uint8_t>(s.check_type);
  o.state_type = static_cast<std::uint8_t>(s.state_type);
  o.has_been_checked = s.has_been_checked;
  state::copy_attributes(o, s, snap.overrides);
}

// Fills `snap` (fresh or recycled: every field is overwritten).
void fill(Snapshot& snap, const SnapshotSource& src) {
  snap.model = &src.model;
  snap.keep_alive = src.keep_alive;
  snap.created = src.now;
  snap.version.assign(src.version);
  fill_program(snap.program, src.main);
  snap.counters = src.counters;
  snap.masks = masks_of(src.main);
  snap.carried = src.carried;
  snap.comments = src.comments;
  snap.contacts = src.contacts;
  snap.downtimes = src.downtimes;
  snap.overrides.clear();

  const std::size_t host_count = std::min(src.model.hosts.size(), src.hosts.size());
  const std::size_t service_count = std::min(src.model.services.size(), src.services.size());

  snap.text.clear();

  snap.hosts.resize(host_count);
  for (std::size_t i = 0; i < host_count; ++i) {
    const state::HostState& s = src.hosts[i];
    ObjectStatus& o = snap.hosts[i];
    fill_state(snap, o, s);
    o.last_time = {s.last_time_up, s.last_time_down, s.last_time_unreachable, 0};
  }
  snap.services.resize(service_count);
  for (std::size_t i = 0; i < service_count; ++i) {
    const state::ServiceState& s = src.services[i];
    ObjectStatus& o = snap.services[i];
    fill_state(snap, o, s);
    o.last_time = {s.last_time_ok, s.last_time_warning, s.last_time_unknown, s.last_time_critical};
  }
}

}  // namespace

struct SnapshotBuilder::Spare {
  std::mutex mutex;
  std::unique_ptr<Snapshot> snapshot;  // guarded by mutex
};

SnapshotBuilder::SnapshotBuilder() : spare_(std::make_shared<Spare>()) {}
SnapshotBuilder::~SnapshotBuilder() = default;

std::shared_ptr<const Snapshot> SnapshotBuilder::build(const SnapshotSource& source) {
  std::unique_ptr<Snapshot> snap;
  {
    std::lock_guard lock(spare_->mutex);
    snap = std::move(spare_->snapshot);
  }
  if (snap == nullptr) snap = std::make_unique<Snapshot>();
  fill(*snap, source);
  // Whoever drops the last reference gives the memory back; the model, Carried and comment lists are let go
  // at once (they may be the last references to a model or a Carried replaced by a reload).
  return std::shared_ptr<const Snapshot>(snap.release(),
                                         [spare = std::weak_ptr<Spare>(spare_)](const Snapshot* done) {
                                           std::unique_ptr<Snapshot> owned(const_cast<Snapshot*>(done));
                                           owned->keep_alive.reset();
                                           owned->carried.reset();
                                           owned->model = nullptr;
                                           owned->comments.reset();
                                           owned->downtimes.reset();
                                           owned->overrides.clear();
                                           if (const std::shared_ptr<Spare> pool = spare.lock()) {
                                             std::lock_guard lock(pool->mutex);
                                             if (pool->snapshot == nullptr) pool->snapshot = std::move(owned);
                                           }
                                         });
}

std::shared_ptr<const Snapshot> make_snapshot(const SnapshotSource& source) {
  auto snap = std::make_shared<Snapshot>();
  fill(*snap, source);
  return snap;
}

}  // namespace vedette::retention
