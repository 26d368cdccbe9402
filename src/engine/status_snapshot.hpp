// Builds the state files' snapshot (files::StatusSnapshot: status.dat, retention.dat and Livestatus) from
// the model, the main config, the hot state and the books. Core thread only; the result is immutable and
// handed to files::StatusWriter, retention::Writer or the reload thread.
//
//   StatusSnapshotBuilder status_snapshots;  // a member of the core: keeps the memory between dumps
//   status_writer.publish(status_snapshots.build({.model = model, .main = main, .hosts = hosts, ...}));
//   retention_writer.publish(status_snapshots.build(same_source));  // the same memory, brought up to date
//   auto copy = make_status_snapshot(same_source);                  // tests: fresh memory
//
// Cost at 100k services: bench/files/status_bench.cpp (BM_SnapshotBuild*).
#pragma once

#include "config/main_config.hpp"
#include "engine/state/check_state.hpp"
#include "engine/state/state_table.hpp"
#include "files/state_snapshot.hpp"
#include "model/model.hpp"

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::engine {

class DowntimeBook;

// What programstatus and retention.dat's program block need beyond MainConfig, filled once per snapshot.
// The defaults are Naemon's values right after start-up.
struct ProgramStatus {
  Time now = 0;  // info.created
  Time program_start = 0;
  int pid = 0;
  bool daemon_mode = false;
  Time last_log_rotation = 0;
  state::ProgramCounters counters{};
  std::array<std::array<int, 3>, static_cast<std::size_t>(files::CheckStat::count)> check_stats{};
  files::EventCounts events{};
  std::string_view version = VEDETTE_VERSION;                       // info.version
  std::shared_ptr<const std::vector<std::string>> check_sources{};  // engine::CheckSources::names()
};

// What a snapshot is taken of. `hosts` and `services` are indexed like model.hosts and model.services. The
// snapshot reads names, commands, periods and enables from `model` when it is written, so the model must
// outlive it: pass the model's owner as `keep_alive` when a reload can replace the model while a writer
// holds a snapshot. Run-time texts (plugin output, long output, perfdata) are copied; the comment, downtime
// and contact lists are shared, not copied.
struct SnapshotSource {
  const model::Model& model;
  const config::MainConfig& main;  // program flags, handlers and the retained_*_attribute_mask options
  const std::vector<HostState>& hosts;
  const std::vector<ServiceState>& services;
  const ProgramStatus& program;
  // Each object's scheduled_downtime_depth, read from the book; null: 0 everywhere.
  const DowntimeBook* downtime_depths = nullptr;
  std::shared_ptr<const std::vector<state::Comment>> comments = {};
  std::shared_ptr<const std::vector<state::Downtime>> downtimes = {};
  std::shared_ptr<const std::vector<state::ContactState>> contacts = {};
  std::shared_ptr<const void> keep_alive = {};
  // When each object last changed (engine::StateTable): a builder copies only those changed since the
  // snapshot whose memory it recycles. Null: every object is copied.
  const ChangeMarks* host_changes = nullptr;
  const ChangeMarks* service_changes = nullptr;
};

// Fresh memory for every dump costs page faults on our VMs (BM_SnapshotBuildFresh 3.8-6.1 ms against
// BM_SnapshotBuild 2.9-4.0 ms at 100k services), so the builder takes back the memory of the snapshot the
// writer released last and fills it again.
class StatusSnapshotBuilder {
 public:
  StatusSnapshotBuilder();
  ~StatusSnapshotBuilder();
  StatusSnapshotBuilder(const StatusSnapshotBuilder&) = delete;
  StatusSnapshotBuilder& operator=(const StatusSnapshotBuilder&) = delete;

  // Recycles the memory of the snapshot released last: when the source has ChangeMarks, only the objects
  // changed since that snapshot was filled are copied (refilled whole after a reload, or when the texts
  // left behind outgrow those in use).
  [[nodiscard]] std::shared_ptr<const files::StatusSnapshot> build(const SnapshotSource& source);

  struct Filled;

 private:
  struct Spare;
  std::shared_ptr<Spare> spare_;  // shared with the snapshots' deleters, which may outlive the builder
  bool verify_ = false;           // VEDETTE_VERIFY_SNAPSHOTS: compare each build with a full one
};

// One snapshot in fresh memory (tests, benchmarks); the core's state files use a StatusSnapshotBuilder.
[[nodiscard]] std::shared_ptr<const files::StatusSnapshot> make_status_snapshot(const SnapshotSource& source);

}  // namespace vedette::engine
