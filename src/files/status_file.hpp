// status.dat (`status_file`) in Naemon's format (xsddefault_save_status_data): the core thread builds an
// immutable StatusSnapshot every status_update_interval and hands it to StatusWriter, whose thread
// ("status") formats it into `<status_file>.XXXXXX` in the same directory and renames that over
// status_file, so a reader sees the old file or the new one, never a torn one.
//
//   StatusWriter status({.path = cfg.status_file});
//   status.publish(engine::make_status_snapshot(...));  // core thread, every status_update_interval
//   status.remove_file();                               // core thread, at shutdown (Naemon unlinks it)
//
// publish() and remove_file() are core thread only and never wait for the disk; stats() and wait_idle() any
// thread. Differences from Naemon's file are listed in docs/compatibility.md ("status.dat").
#pragma once

#include "files/check_stat.hpp"
#include "state/attributes.hpp"
#include "state/check_state.hpp"
#include "state/comments.hpp"
#include "state/contact_state.hpp"
#include "state/text_block.hpp"

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::model {
struct Model;
}  // namespace vedette::model

namespace vedette::files {

// What the core has done since it started, by kind. Livestatus' status counters and WaitTrigger read them
// (a trigger fires when its count moves); status.dat has no place for them.
struct EventCounts {
  std::uint64_t service_checks = 0;    // results applied, active and passive
  std::uint64_t host_checks = 0;       //
  std::uint64_t state_changes = 0;     // a host or service changed its state or state type
  std::uint64_t log_messages = 0;      // lines written to the log
  std::uint64_t forks = 0;             // plugins and commands handed to the executor
  std::uint64_t commands = 0;          // external commands carried out
  std::uint64_t program_changes = 0;   // program-wide switches set
  std::uint64_t comment_changes = 0;   // the comment book's version
  std::uint64_t downtime_changes = 0;  // the downtime book's version
};

struct StatusProgram {
  std::int64_t created = 0;  // info.created: the time the snapshot was taken
  std::string version;       // info.version
  unsigned long modified_host_attributes = 0;
  unsigned long modified_service_attributes = 0;
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
  // Naemon's values right after start-up, before any comment, downtime or state change.
  unsigned long next_comment_id = 1;
  unsigned long next_downtime_id = 1;
  unsigned long next_event_id = 1;
  // Checks in the last 1, 5 and 15 minutes, indexed by CheckStat.
  std::array<std::array<int, 3>, static_cast<std::size_t>(CheckStat::count)> check_stats{};
  EventCounts events;
};

// The run-time part of one hoststatus or servicestatus block; everything else in the block comes from the
// model. Kept small (288 bytes, most of it the notification and flap state) because the core thread copies
// one per object per dump.
struct StatusState {
  std::int64_t last_check = 0;
  std::int64_t next_check = 0;
  std::int64_t last_state_change = 0;
  std::int64_t last_hard_state_change = 0;
  // Hosts: last_time_up, _down, _unreachable. Services: last_time_ok, _warning, _unknown, _critical.
  std::array<std::int64_t, 4> last_time{};
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
  std::uint8_t flags = 0;  // the enable flags, one bit per state::Flag
  std::uint8_t acknowledgement_type = 0;
  bool problem_has_been_acknowledged = false;
  std::uint8_t current_state = 0;
  std::uint8_t last_hard_state = 0;
  std::uint8_t check_type = 0;  // 0 active, 1 passive
  std::uint8_t state_type = 1;  // 0 soft, 1 hard
  bool has_been_checked = false;
  bool is_executing = false;  // a check is out (Livestatus; status.dat does not show it)
  // Index into StatusSnapshot::check_sources (Livestatus; Naemon's status.dat does not show it either).
  std::uint16_t check_source = 0;
  std::uint8_t last_state = 0;
  state::NotificationState notification;
  state::EventIds events;
  state::FlapHistory flap;
};

// What status.dat shows of the features the engine does not track itself yet. The defaults are Naemon's
// values for an object none of them ever touched.
struct StatusObjectExtras {
  int scheduled_downtime_depth = 0;
};

// A contact's run-time state; null: as configured.
struct StatusContactExtras {
  const state::ContactState* state = nullptr;
};

using StatusComment = state::Comment;
using StatusDowntime = state::Downtime;

// The values of those features and the comment and downtime blocks, kept by whoever tracks them (the
// engine: what retention.dat carried). Immutable, and changed far less often than status.dat is written,
// so every snapshot shares one instead of copying it; read on the writer thread while a snapshot holds it.
class StatusExtras {
 public:
  virtual ~StatusExtras() = default;
  // The model whose indexes host(), service() and contact() take; a snapshot of another model ignores it.
  [[nodiscard]] virtual const model::Model* model() const = 0;
  // `now` is the object's run-time part in the snapshot being written: some values only hold while the
  // object's state has not moved on.
  [[nodiscard]] virtual StatusObjectExtras host(std::size_t index, const StatusState& now) const = 0;
  [[nodiscard]] virtual StatusObjectExtras service(std::size_t index, const StatusState& now) const = 0;
  [[nodiscard]] virtual StatusContactExtras contact(std::size_t index) const = 0;
  // Host and service comments, then downtimes, in the order to write them.
  [[nodiscard]] virtual std::span<const StatusComment> comments() const = 0;
  [[nodiscard]] virtual std::span<const StatusDowntime> downtimes() const = 0;
};

// Everything one status.dat holds, immutable once built. Names and the configured commands, periods,
// intervals and custom variables are read from `model` (read-only after load), so the model must outlive the
// snapshot: whoever builds it puts the model's owner into `keep_alive` when a reload can replace the model
// while the writer still holds a snapshot.
struct StatusSnapshot {
  const model::Model* model = nullptr;
  std::shared_ptr<const void> keep_alive;
  StatusProgram program;
  std::vector<StatusState> hosts;              // indexed like model->hosts (Naemon's host_list order)
  std::vector<StatusState> services;           // indexed like model->services
  std::shared_ptr<const StatusExtras> extras;  // null: Naemon's "none" values, no comments or downtimes
  std::vector<std::shared_ptr<const state::Overrides>> overrides;  // of the few objects that have any
  state::TextBlock text;                                           // the run-time texts
  // The names StatusState::check_source indexes (engine::CheckSources); null: none known.
  std::shared_ptr<const std::vector<std::string>> check_sources;

  [[nodiscard]] std::string_view text_at(std::size_t offset, std::size_t size) const {
    return text.at(offset, size);
  }
  [[nodiscard]] const state::Overrides* overrides_of(const StatusState& st) const {
    return st.overrides == 0 ? nullptr : overrides[st.overrides - 1].get();
  }
};

// Appends the whole status.dat text for `snapshot` to `out`. Exposed for tests and the benchmark.
void format_status(const StatusSnapshot& snapshot, std::string& out);

struct StatusWriterOptions {
  std::string path;  // status_file; empty or "/dev/null": nothing is written, as in Naemon
  // fsync the temp file before the rename, as Naemon's xsddefault does; it costs writer time only.
  bool fsync = true;
  // Writer thread. Called once per episode of failure (create, write, rename, remove), again only after a
  // success. Default: one line on stderr.
  std::function<void(std::string_view message)> on_error{};
};

struct StatusWriterStats {
  std::uint64_t writes = 0;          // files renamed into place
  std::uint64_t failures = 0;        // attempts that did not replace the file
  std::uint64_t skipped = 0;         // snapshots replaced by a newer one before they were written
  std::uint64_t last_write_us = 0;   // format + write (+ fsync) + rename of the last file
  std::uint64_t last_format_us = 0;  // the formatting part of it
  std::uint64_t last_bytes = 0;      // size of the last file
};

class StatusWriter {
 public:
  explicit StatusWriter(StatusWriterOptions options);  // starts the thread named "status"
  // Finishes the write in progress and what is still waiting (a snapshot or a removal), then joins.
  ~StatusWriter();
  StatusWriter(const StatusWriter&) = delete;
  StatusWriter& operator=(const StatusWriter&) = delete;

  // Hands a snapshot over: one short lock, one wakeup if the writer sleeps. A snapshot still waiting is
  // replaced (newest wins; there is never a backlog), and a removal still waiting is cancelled.
  void publish(std::shared_ptr<const StatusSnapshot> snapshot);

  // Drops a waiting snapshot; after the write in progress (if any) the writer unlinks status_file. A
  // missing file is not an error.
  void remove_file();

  // Tests and shutdown ordering only, never from the loop: blocks until nothing is waiting or being
  // written. False on timeout.
  bool wait_idle(std::chrono::milliseconds timeout);

  [[nodiscard]] StatusWriterStats stats() const;

 private:
  class Worker;
  std::unique_ptr<Worker> worker_;
};

}  // namespace vedette::files
