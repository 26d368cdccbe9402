// How Livestatus threads reach the core thread, which alone may read the state and run commands: they ask
// for a snapshot or hand over a command line, and one eventfd wakes the core's loop to do it.
//
//   // Livestatus thread:
//   std::shared_ptr<const files::StatusSnapshot> s = channel.fresh_snapshot();  // taken after this call
//   began std::optional<std::string> error = channel.run_command("[1700000000] DISABLE_SVC_CHECK;web;http");
//   // Core thread, when channel.fd() is readable:
//   channel.clear_wakeup();
//   channel.run_commands([&](std::string_view line) { return reader.execute(line); });
//   for (std::string& line : channel.take_log_lines()) core.log(line);
//   if (channel.snapshot_wanted()) channel.publish(core.status_snapshot());
//
// Requests coalesce: every thread waiting when the core starts a snapshot gets that one, so a hundred
// clients cost the core one snapshot, not a hundred. A thread never gets a snapshot the core began before
// the thread asked, so a query sees every command its client sent before it.
#pragma once

#include "files/status_file.hpp"

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace vedette::livestatus {

class CoreChannel {
 public:
  CoreChannel();  // creates the eventfd; fatal (base/check.hpp) when it cannot
  ~CoreChannel();
  CoreChannel(const CoreChannel&) = delete;
  CoreChannel& operator=(const CoreChannel&) = delete;

  // --- Livestatus threads
  // Blocks until the core has published a snapshot it started after this call; null once closed.
  // `generation`, when given, gets the snapshot's generation, for snapshot_after().
  [[nodiscard]] std::shared_ptr<const files::StatusSnapshot> fresh_snapshot(
      std::uint64_t* generation = nullptr);
  // A snapshot newer than generation `seen`, which it moves on: the latest one when it is, else a fresh one.
  // For a query that polls: any number of them polling at once cost the core one snapshot.
  [[nodiscard]] std::shared_ptr<const files::StatusSnapshot> snapshot_after(std::uint64_t& seen);
  // Hands a command line (without "COMMAND ") to the core and waits until it ran: its error, or nothing
  // when it ran (or the channel closed first).
  [[nodiscard]] std::optional<std::string> run_command(std::string line);
  // LOGROTATE: the core rotates its log at its next wakeup.
  void request_log_rotation();
  // A line for the core's log (the server's own warnings); the core writes it at its next wakeup.
  void post_log_line(std::string line);

  // --- Core thread
  [[nodiscard]] int fd() const { return fd_; }
  void clear_wakeup();
  // Runs the queued command lines in order; `run` returns a line's error or nothing.
  void run_commands(const std::function<std::optional<std::string>(std::string_view line)>& run);
  [[nodiscard]] bool take_log_rotation();
  [[nodiscard]] std::vector<std::string> take_log_lines();
  // Whether a thread waits for a snapshot; true marks the snapshot the core is about to take as the one
  // those threads wait for.
  [[nodiscard]] bool snapshot_wanted();
  void publish(std::shared_ptr<const files::StatusSnapshot> snapshot);
  // Wakes every waiting thread with null and refuses further requests (shutdown).
  void close();

 private:
  void wake();

  int fd_ = -1;
  std::mutex mutex_;
  std::condition_variable published_;
  std::uint64_t requested_ = 0;  // the newest snapshot generation a thread waits for
  std::uint64_t started_ = 0;    // the generation the core is building (or built last)
  std::uint64_t done_ = 0;       // the generation of latest_
  std::shared_ptr<const files::StatusSnapshot> latest_;
  struct PendingCommand {
    std::string line;
    std::uint64_t ticket = 0;
  };
  std::vector<PendingCommand> commands_;
  std::uint64_t next_ticket_ = 0;
  std::uint64_t commands_done_ = 0;  // every ticket up to this one has run
  std::unordered_map<std::uint64_t, std::string> command_errors_;
  std::condition_variable commands_ran_;
  bool rotate_log_ = false;
  std::vector<std::string> log_lines_;
  bool wakeup_pending_ = false;  // one eventfd write per wakeup, however many requests
  bool closed_ = false;
};

}  // namespace vedette::livestatus
