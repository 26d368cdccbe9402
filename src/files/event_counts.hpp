// What the core has done since it started, by kind: counters the core thread keeps and copies into each
// snapshot (files/state_snapshot.hpp); its own header so that the core's World needs no snapshot types.
#pragma once

#include <cstdint>

namespace vedette::files {

// Livestatus' status counters and WaitTrigger read them (a trigger fires when its count moves); status.dat
// has no place for them.
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

}  // namespace vedette::files
