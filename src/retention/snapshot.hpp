// What one retention.dat holds, taken on the core thread (every retention_update_interval and at shutdown)
// and handed to retention::Writer, whose thread formats and writes it. Taking it copies only the run-time
// values of the hot state (about 250 bytes per object plus the plugin texts); names, commands and configured
// attributes are read from the model, and the fields the engine does not track from the shared Carried,
// when the file is written.
//
//   SnapshotBuilder retention_snapshots;  // a member of the core: keeps the memory between saves
//   writer.publish(retention_snapshots.build({model, main, hosts, services, counters, carried, now}));
//
// build() is core thread only; the Snapshot is immutable and may be read on any thread.
// Cost at 100k services: bench/retention/retention_bench.cpp (BM_RetentionSnapshot*).
#pragma once

#include "config/main_config.hpp"
#include "model/model.hpp"
#include "retention/carried.hpp"
#include "state/check_state.hpp"
#include "state/contact_state.hpp"
#include "state/text_block.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::retention {

// The run-time part of one host or service block.
struct ObjectStatus {
  Time last_check = 0;
  Time next_check = 0;
  Time last_state_change = 0;
  Time last_hard_state_change = 0;
  // Hosts: last_time_up, _down, _unreachable. Services: last_time_ok, _warning, _unknown, _critical.
  std::array<Time, 4> last_time{};
  double execution_time = 0;
  double latency = 0;
  // plugin_output, long_plugin_output and performance_data, one after the other in Snapshot::text.
  std::size_t text_offset = 0;
  std::uint32_t output_size = 0;
  std::uint32_t long_output_size = 0;
  std::uint32_t perf_data_size = 0;
  std::uint32_t overrides = 0;  // 1 + index into Snapshot::overrides; 0: the configuration applies
  unsigned long modified_attributes = 0;
  Time acknowledgement_end_time = 0;
  std::int32_t current_attempt = 1;
  std::uint8_t flags = 0;  // the enable flags, one bit per state::Flag
  std::uint8_t acknowledgement_type = 0;
  bool problem_has_been_acknowledged = false;
  std::uint8_t current_state = 0;
  std::uint8_t last_state = 0;
  std::uint8_t last_hard_state = 0;
  std::uint8_t check_type = 0;  // 0 active, 1 passive
  std::uint8_t state_type = 1;  // 0 soft, 1 hard
  bool has_been_checked = false;
  state::NotificationState notification;
  state::EventIds events;
  state::FlapHistory flap;
};

// The program block's values: MainConfig's run-time flags and handlers as they are now.
struct ProgramFlags {
  bool enable_notifications = true;
  bool active_service_checks_enabled = true;
  bool passive_service_checks_enabled = true;
  bool active_host_checks_enabled = true;
  bool passive_host_checks_enabled = true;
  bool enable_event_handlers = true;
  bool obsess_over_services = false;
  bool obsess_over_hosts = false;
  bool check_service_freshness = true;
  bool check_host_freshness = false;
  bool enable_flap_detection = false;
  bool process_performance_data = false;
  std::string global_host_event_handler;
  std::string global_service_event_handler;
  std::string global_host_notification_handler;
  std::string global_service_notification_handler;
};

// The retained_*_attribute_mask options: bits never written.
struct AttributeMasks {
  unsigned long host = 0;
  unsigned long service = 0;
  unsigned long process_host = 0;
  unsigned long process_service = 0;
  unsigned long contact_host = 0;
  unsigned long contact_service = 0;
};

// Immutable once built. `model` must outlive the snapshot: put the model's owner in `keep_alive` when a
// reload can replace the model while the writer still holds a snapshot.
struct Snapshot {
  const model::Model* model = nullptr;
  std::shared_ptr<const void> keep_alive;
  Time created = 0;     // info.created
  std::string version;  // info.version
  ProgramFlags program;
  ProgramCounters counters;
  AttributeMasks masks;
  std::vector<ObjectStatus> hosts;                                 // indexed like model->hosts
  std::vector<ObjectStatus> services;                              // indexed like model->services
  std::vector<std::shared_ptr<const state::Overrides>> overrides;  // of the few objects that have any
  state::TextBlock text;                                           // the run-time texts
  // Naemon's fields the engine does not track, from apply(); null writes Naemon's "none" values.
  std::shared_ptr<const Carried> carried;
  // Written as hostcomment/servicecomment and hostdowntime/servicedowntime blocks, in this order: the
  // engine's book snapshots (immutable, shared, not copied). Null: none.
  std::shared_ptr<const std::vector<Comment>> comments;
  std::shared_ptr<const std::vector<Downtime>> downtimes;
  // The contacts' run-time state (indexed like model->contacts), shared with the core; null: as configured.
  std::shared_ptr<const std::vector<state::ContactState>> contacts;

  [[nodiscard]] std::string_view text_at(std::size_t offset, std::size_t size) const {
    return text.at(offset, size);
  }
  [[nodiscard]] const state::Overrides* overrides_of(const ObjectStatus& o) const {
    return o.overrides == 0 ? nullptr : overrides[o.overrides - 1].get();
  }
};

struct SnapshotSource {
  const model::Model& model;
  const config::MainConfig& main;  // program flags, handlers and the retained_*_attribute_mask options
  const std::vector<state::HostState>& hosts;        // indexed like model.hosts
  const std::vector<state::ServiceState>& services;  // indexed like model.services
  const ProgramCounters& counters;
  std::shared_ptr<const Carried> carried;  // ApplyResult::carried; may be null
  Time now = 0;
  // Shared with the snapshot (see Snapshot::comments).
  std::shared_ptr<const std::vector<Comment>> comments = {};
  std::shared_ptr<const std::vector<Downtime>> downtimes = {};
  std::shared_ptr<const std::vector<state::ContactState>> contacts = {};
  std::shared_ptr<const void> keep_alive = {};
  std::string_view version = VEDETTE_VERSION;
};

// Fresh memory for every save costs page faults on our VMs, so the builder takes back the memory of the
// snapshot the writer released last and fills it again (as engine::StatusSnapshotBuilder does).
class SnapshotBuilder {
 public:
  SnapshotBuilder();
  ~SnapshotBuilder();
  SnapshotBuilder(const SnapshotBuilder&) = delete;
  SnapshotBuilder& operator=(const SnapshotBuilder&) = delete;

  [[nodiscard]] std::shared_ptr<const Snapshot> build(const SnapshotSource& source);

 private:
  struct Spare;
  std::shared_ptr<Spare> spare_;  // shared with the snapshots' deleters, which may outlive the builder
};

// One snapshot in fresh memory (tests, a one-off save); the core uses a SnapshotBuilder.
[[nodiscard]] std::shared_ptr<const Snapshot> make_snapshot(const SnapshotSource& source);

}  // namespace vedette::retention
