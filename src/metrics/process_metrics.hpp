// The standard process_* metrics every Prometheus client library exports (CPU, memory, file descriptors,
// start time), read from /proc/self, and vedette_build_info. The scrape thread calls them; any thread.
#pragma once

#include "metrics/exposition.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

namespace vedette::metrics {

struct ProcessStats {
  double cpu_seconds = 0;         // user + system, all threads
  double start_time_seconds = 0;  // since the epoch
  std::uint64_t virtual_memory_bytes = 0;
  std::uint64_t resident_memory_bytes = 0;
  std::uint64_t open_fds = 0;
  std::uint64_t max_fds = 0;  // RLIMIT_NOFILE's soft limit
};

struct ProcClock {
  long ticks_per_second = 100;  // sysconf(_SC_CLK_TCK)
  long page_size = 4096;
  std::int64_t boot_time = 0;  // /proc/stat's btime: seconds since the epoch
};

// The CPU, memory and start time of one /proc/<pid>/stat line; false if it is not one.
[[nodiscard]] bool parse_process_stat(std::string_view line, const ProcClock& clock, ProcessStats& out);

// This process now; nullopt when /proc cannot be read.
[[nodiscard]] std::optional<ProcessStats> read_process_stats();

// process_cpu_seconds_total, process_start_time_seconds, process_virtual_memory_bytes,
// process_resident_memory_bytes, process_open_fds, process_max_fds.
void write_process_metrics(const ProcessStats& stats, Exposition& out);

// vedette_build_info{version="…"} 1.
void write_build_info(std::string_view version, Exposition& out);

}  // namespace vedette::metrics
