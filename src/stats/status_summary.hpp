// What naemonstats (Naemon 1.5.2) gathers from status.dat: counts and min/max/average spreads over the
// hoststatus and servicestatus blocks, and the check counters of programstatus. The reading follows
// naemonstats line by line, quirks included (see status_summary.cpp), so its numbers are Naemon's.
// vedettestats' one thread.
#pragma once

#include "files/check_stat.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace vedette::stats {

// Minimum, maximum and running average of one value over the blocks that have it.
struct Spread {
  double min = 0.0;
  double max = 0.0;
  double avg = 0.0;
  bool seen = false;

  // `count` is the number of samples including this one (naemonstats' running average).
  void add(double value, int count);
};

// Within the last 1, 5, 15 and 60 minutes, as naemonstats buckets last_check.
using RecentCounts = std::array<int, 4>;

// Hosts or services: every hoststatus (servicestatus) block.
struct CheckableTotals {
  int entries = 0;
  Spread state_change;
  int active = 0;
  int passive = 0;
  Spread active_latency;
  Spread active_execution_time;
  Spread active_state_change;
  Spread passive_latency;
  Spread passive_state_change;
  RecentCounts active_checked{};
  RecentCounts passive_checked{};
  // Hosts: UP, DOWN, UNREACHABLE; services: OK, WARNING, CRITICAL, UNKNOWN, indexed by state number.
  std::array<int, 4> by_state{};
  int flapping = 0;
  int in_downtime = 0;
  int checked = 0;
  int scheduled = 0;
};

struct StatusSummary {
  std::int64_t created = 0;
  std::optional<std::string> version;  // unset prints as "(null)", as naemonstats' printf does
  std::int64_t program_start = 0;
  int pid = 0;
  CheckableTotals hosts;
  CheckableTotals services;
  // The programstatus counters over the last 1, 5 and 15 minutes.
  std::array<std::array<int, 3>, static_cast<std::size_t>(files::CheckStat::count)> program{};
  // Scheduled + on-demand (cached ones never ran), summed when the programstatus block closes.
  std::array<int, 3> active_host_checks{};
  std::array<int, 3> active_service_checks{};

  const std::array<int, 3>& stat(files::CheckStat s) const { return program[static_cast<std::size_t>(s)]; }
};

// Reads status.dat at `path`; `now` is the time the "last N minutes" counts are relative to. Returns
// the errno of a file that cannot be opened (a read error ends the reading, as naemonstats' fgets loop).
struct SummaryResult {
  StatusSummary summary;
  int error = 0;
};
SummaryResult read_status_summary(const std::string& path, std::int64_t now);

}  // namespace vedette::stats
