// Builds the status.dat snapshot (files::StatusSnapshot) from the model, the main config and the hot state.
// Core thread only, every status_update_interval; the result is immutable and handed to files::StatusWriter.
//
//   StatusSnapshotBuilder status_snapshots;  // a member of the core: keeps the memory between dumps
//   ProgramStatus program{.now = now, .program_start = start, .pid = getpid(), .daemon_mode = daemon};
//   status_writer.publish(
//       status_snapshots.build(model, main, hosts, services, program, model_owner, retained_status));
//
// Cost at 100k services: bench/files/status_bench.cpp (BM_SnapshotBuild*).
#pragma once

#include "config/main_config.hpp"
#include "engine/check_state.hpp"
#include "files/status_file.hpp"
#include "model/model.hpp"

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::engine {

// What programstatus needs beyond MainConfig. The defaults are Naemon's values right after start-up for
// what Vedette does not track yet (modified attributes, comment/downtime/event ids, check statistics).
struct ProgramStatus {
  Time now = 0;  // info.created
  Time program_start = 0;
  int pid = 0;
  bool daemon_mode = false;
  Time last_log_rotation = 0;
  unsigned long modified_host_attributes = 0;
  unsigned long modified_service_attributes = 0;
  unsigned long next_comment_id = 1;
  unsigned long next_downtime_id = 1;
  unsigned long next_event_id = 1;
  std::array<std::array<int, 3>, static_cast<std::size_t>(files::CheckStat::count)> check_stats{};
  files::EventCounts events;
  std::string_view version = VEDETTE_VERSION;                     // info.version
  std::shared_ptr<const std::vector<std::string>> check_sources;  // engine::CheckSources::names()
};

// `hosts` and `services` are indexed like model.hosts and model.services. The snapshot reads names,
// commands, periods and enables from `model` when it is written, so the model must outlive it: pass the
// model's owner as `keep_alive` when a reload can replace the model while the writer holds a snapshot.
// Run-time texts (plugin output, long output, perfdata) are copied; `extras` (what the engine does not track
// itself, engine/retained_status.hpp) is shared, not copied.
//
// Fresh memory for every dump costs page faults on our VMs (BM_SnapshotBuildFresh 3.8-6.1 ms against
// BM_SnapshotBuild 2.9-4.0 ms at 100k services), so the builder takes back the memory of the snapshot the
// writer released last and fills it again.
class StatusSnapshotBuilder {
 public:
  StatusSnapshotBuilder();
  ~StatusSnapshotBuilder();
  StatusSnapshotBuilder(const StatusSnapshotBuilder&) = delete;
  StatusSnapshotBuilder& operator=(const StatusSnapshotBuilder&) = delete;

  [[nodiscard]] std::shared_ptr<const files::StatusSnapshot> build(
      const model::Model& model, const config::MainConfig& main, const std::vector<HostState>& hosts,
      const std::vector<ServiceState>& services, const ProgramStatus& program,
      std::shared_ptr<const void> keep_alive = {}, std::shared_ptr<const files::StatusExtras> extras = {});

 private:
  struct Spare;
  std::shared_ptr<Spare> spare_;  // shared with the snapshots' deleters, which may outlive the builder
};

// One snapshot in fresh memory (tests, one-off dumps); the core uses a StatusSnapshotBuilder.
[[nodiscard]] std::shared_ptr<const files::StatusSnapshot> make_status_snapshot(
    const model::Model& model, const config::MainConfig& main, const std::vector<HostState>& hosts,
    const std::vector<ServiceState>& services, const ProgramStatus& program,
    std::shared_ptr<const void> keep_alive = {}, std::shared_ptr<const files::StatusExtras> extras = {});

}  // namespace vedette::engine
