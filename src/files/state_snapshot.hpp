// The run-time state as status.dat and retention.dat write it: one immutable snapshot type for both files
// (and Livestatus, which reads status.dat's). The core builds it (engine/status_snapshot.hpp) every
// status_update_interval for status.dat, every retention_update_interval and at SIGHUP for retention.dat;
// afterwards it may be read on any thread. Only run-time values are copied; names, commands and configured
// attributes are read from the model, which the snapshot keeps alive through `keep_alive`.
#pragma once

#include "files/check_stat.hpp"
#include "files/event_counts.hpp"
#include "state/attributes.hpp"
#include "state/check_state.hpp"
#include "state/comments.hpp"
#include "state/contact_state.hpp"
#include "state/program_counters.hpp"
#include "state/text_block.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::model {
struct Model;
}  // namespace vedette::model

namespace vedette::files {

// The retained_*_attribute_mask options: bits retention.dat never writes.
struct RetainedMasks {
  unsigned long host = 0;
  unsigned long service = 0;
  unsigned long process_host = 0;
  unsigned long process_service = 0;
  unsigned long contact_host = 0;
  unsigned long contact_service = 0;
};

// status.dat's info and programstatus blocks; retention.dat's info and program blocks are a part of it.
struct StatusProgram {
  std::int64_t created = 0;  // info.created: the time the snapshot was taken
  std::string version;       // info.version
  state::ProgramCounters counters;
  int pid = 0;
  bool daemon_mode = false;
  std::int64_t program_start = 0;
  std::int64_t last_log_rotation = 0;
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
  RetainedMasks masks;  // retention.dat only
  // Checks in the last 1, 5 and 15 minutes, indexed by CheckStat.
  std::array<std::array<int, 3>, static_cast<std::size_t>(CheckStat::count)> check_stats{};
  EventCounts events;
};

// The run-time part of one host or service block of either file; everything else in the block comes from
// the model. Kept small (312 bytes, most of it the notification and flap state) because the core thread
// copies one per object per snapshot.
struct StatusState {
  std::int64_t last_check = 0;
  std::int64_t next_check = 0;
  std::int64_t last_state_change = 0;
  std::int64_t last_hard_state_change = 0;
  // Hosts: last_time_up, _down, _unreachable. Services: last_time_ok, _warning, _unknown, _critical.
  std::array<std::int64_t, 4> last_time{};
  state::Timeval last_update;  // the hot state's; 0 in a snapshot made without the engine
  double execution_time = 0;
  double latency = 0;
  // plugin_output, long_plugin_output and performance_data, one after the other in StatusSnapshot::text.
  // Long output has its newlines escaped as "\n" already, as Naemon stores it.
  std::size_t text_offset = 0;
  std::uint32_t output_size = 0;
  std::uint32_t long_output_size = 0;
  std::uint32_t perf_data_size = 0;
  std::uint32_t overrides = 0;  // 1 + index into StatusSnapshot::overrides; 0: the configuration applies
  unsigned long modified_attributes = 0;
  std::int64_t acknowledgement_end_time = 0;
  std::int32_t current_attempt = 1;
  // Downtimes in effect on this very object (the downtime book's depth; status.dat and Livestatus).
  std::int32_t scheduled_downtime_depth = 0;
  std::uint8_t flags = 0;  // the enable flags, one bit per state::Flag
  std::uint8_t acknowledgement_type = 0;
  bool problem_has_been_acknowledged = false;
  std::uint8_t current_state = 0;
  std::uint8_t last_hard_state = 0;
  std::uint8_t check_type = 0;     // 0 active, 1 passive
  std::uint8_t check_options = 0;  // Naemon's CHECK_OPTION_* of the check scheduled next
  std::uint8_t state_type = 1;     // 0 soft, 1 hard
  bool has_been_checked = false;
  bool is_executing = false;  // a check is out (Livestatus; status.dat does not show it)
  // Index into StatusSnapshot::check_sources (Livestatus; Naemon's status.dat does not show it either).
  std::uint16_t check_source = 0;
  std::uint8_t last_state = 0;
  state::NotificationState notification;
  state::EventIds events;
  state::FlapHistory flap;
};

using StatusComment = state::Comment;
using StatusDowntime = state::Downtime;

// Everything one status.dat or retention.dat holds, immutable once built. Names and the configured
// commands, periods, intervals and custom variables are read from `model` (read-only after load), so the
// model must outlive the snapshot: whoever builds it puts the model's owner into `keep_alive` when a reload
// can replace the model while a writer still holds a snapshot.
struct StatusSnapshot {
  const model::Model* model = nullptr;
  std::shared_ptr<const void> keep_alive;
  StatusProgram program;
  std::vector<StatusState> hosts;                                  // indexed like model->hosts
  std::vector<StatusState> services;                               // indexed like model->services
  std::vector<std::shared_ptr<const state::Overrides>> overrides;  // of the few objects that have any
  state::TextBlock text;                                           // the run-time texts
  // The comment and downtime books' snapshots, in the order both files write them, and the contacts'
  // run-time state (indexed like model->contacts). Immutable and replaced only when they change, so every
  // snapshot shares them instead of copying them. Null: none; contacts as configured.
  std::shared_ptr<const std::vector<StatusComment>> comments;
  std::shared_ptr<const std::vector<StatusDowntime>> downtimes;
  std::shared_ptr<const std::vector<state::ContactState>> contacts;
  // The names StatusState::check_source indexes (engine::CheckSources); null: none known.
  std::shared_ptr<const std::vector<std::string>> check_sources;

  [[nodiscard]] std::string_view text_at(std::size_t offset, std::size_t size) const {
    return text.at(offset, size);
  }
  [[nodiscard]] const state::Overrides* overrides_of(const StatusState& st) const {
    return st.overrides == 0 ? nullptr : overrides[st.overrides - 1].get();
  }
  // Contact `index`'s run-time state; null: as configured.
  [[nodiscard]] const state::ContactState* contact_state(std::size_t index) const {
    return contacts != nullptr && index < contacts->size() ? &(*contacts)[index] : nullptr;
  }
};

}  // namespace vedette::files
