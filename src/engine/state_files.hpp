// status.dat and retention.dat as the core publishes them: one snapshot type for both (engine/
// status_snapshot.hpp), taken on the core thread and handed to each file's writer thread, which formats and
// writes it atomically. status.dat every status_update_interval, retention.dat at each auto-save
// (retention_update_interval) and on SAVE_STATE_INFORMATION and at shutdown; Livestatus and the reload
// thread take snapshots too. Owns both writers, their two timers, and what their threads report, which it
// logs once per loop iteration (the log is the core thread's). Core thread only.
//
//   StateFiles files(world, daemon_mode);
//   files.schedule_autosave();  files.remove_status_file();  files.publish_status();   // start-up
//   files.report();                                        // once per loop iteration
//   base::Status saved = files.shutdown();                 // retention.dat saved, status.dat removed
#pragma once

#include "base/expected.hpp"
#include "engine/state/core_time.hpp"
#include "engine/status_snapshot.hpp"
#include "engine/thread_messages.hpp"
#include "engine/world/world.hpp"
#include "files/state_snapshot.hpp"
#include "files/status_file.hpp"
#include "loop/loop.hpp"
#include "retention/writer.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::engine {

class StateFiles final : public loop::TimerHandler {
 public:
  StateFiles(World& world, bool daemon_mode);
  ~StateFiles();
  StateFiles(const StateFiles&) = delete;
  StateFiles& operator=(const StateFiles&) = delete;

  // A snapshot of the run-time state for the status writer thread (a few ms at 100k services; the
  // formatting and the disk are the writer's); the next one follows status_update_interval later.
  void publish_status();
  // As Naemon: status.dat exists only while the core runs.
  void remove_status_file();
  // Naemon's auto-save: every retention_update_interval × interval_length seconds (minutes by default).
  void schedule_autosave();
  // A snapshot for the retention writer thread (~2 ms at 100k services); it formats and writes.
  void save_retention();
  // What the reload thread starts from (the same snapshot as retention.dat's). In the status snapshots'
  // recycled memory: a fresh copy costs page faults in proportion to the objects (~30 ms at 100k
  // services, a third of a second at 1M) where bringing the spare up to date costs what changed.
  [[nodiscard]] std::shared_ptr<const files::StatusSnapshot> retention_snapshot();
  // Livestatus': its own builder, so neither takes the other's memory back.
  [[nodiscard]] std::shared_ptr<const files::StatusSnapshot> live_snapshot();
  // The time of the last log rotation, for the program block.
  void set_last_log_rotation(Time t) { last_log_rotation_ = t; }

  // An auto-save is under way: the core keeps a tick so its completion is logged.
  [[nodiscard]] bool autosave_pending() const { return autosave_pending_; }
  // Logs what the writer threads reported since the last look.
  void report();
  // After a reload swap: both periods start again; status.dat at once, retention.dat at the next auto-save
  // (a snapshot here doubled the stall).
  void after_reload();
  // status.dat removed; retention.dat saved when retained, waiting for its writer up to
  // k_final_save_wait. An error when that save failed (the core then exits non-zero).
  [[nodiscard]] base::Status shutdown();

  void on_timer(loop::TimerId id) override;

 private:
  // Failures of a writer thread, for the core thread to log. The writers report once per episode of
  // failure, so a full disk is one log line, not one per attempt.
  static std::function<void(std::string_view)> sink(ThreadMessages& errors);

  void publish_status(std::shared_ptr<const files::StatusSnapshot> snapshot);
  void save_retention(std::shared_ptr<const files::StatusSnapshot> snapshot);
  // The program-wide values both files write, as they are now. Without the check statistics: their report
  // ages the buckets, so only status snapshots take it.
  [[nodiscard]] ProgramStatus program_status() const;
  // In `builder`'s recycled memory.
  [[nodiscard]] std::shared_ptr<const files::StatusSnapshot> take(const ProgramStatus& program,
                                                                  StatusSnapshotBuilder& builder) const;
  [[nodiscard]] std::shared_ptr<const files::StatusSnapshot> take_status(StatusSnapshotBuilder& builder);
  void report_errors(ThreadMessages& errors);
  void report_retention();
  [[nodiscard]] base::Status save_final_retention();

  static constexpr std::chrono::seconds k_final_save_wait{10};

  World& w_;
  const bool daemon_mode_;
  Time last_log_rotation_ = 0;
  ThreadMessages status_errors_;  // before status_, whose thread reports into it
  files::StatusWriter status_;
  StatusSnapshotBuilder status_snapshots_;
  StatusSnapshotBuilder live_snapshots_;
  ThreadMessages retention_errors_;  // before retention_writer_, whose thread reports into it
  retention::Writer retention_writer_;
  std::uint64_t retention_writes_seen_ = 0;
  bool autosave_pending_ = false;
  loop::TimerId status_timer_ = 0;
  loop::TimerId retention_timer_ = 0;
  loop::MonoTime status_due_{};  // when the periodic timers are (or were last) due
  loop::MonoTime retention_due_{};
};

}  // namespace vedette::engine
