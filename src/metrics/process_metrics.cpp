#include "metrics/process_metrics.hpp"

#include "metrics/proc_stat_internal.hpp"

#include <charconv>
#include <dirent.h>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

namespace vedette::metrics {
namespace {

std::int64_t boot_time() {
  std::ifstream in("/proc/stat");
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with("btime ")) continue;
    std::int64_t value = 0;
    const auto [p, ec] = std::from_chars(line.data() + 6, line.data() + line.size(), value);
    return ec == std::errc{} ? value : 0;
  }
  return 0;
}

std::uint64_t count_open_fds() {
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return 0;
  std::uint64_t count = 0;
  while (const dirent* entry = ::readdir(dir))
    if (entry->d_name[0] != '.') ++count;
  ::closedir(dir);
  return count > 0 ? count - 1 : 0;  // the directory's own fd
}

}  // namespace

bool parse_process_stat(std::string_view line, const ProcClock& clock, ProcessStats& out) {
  std::string_view comm;
  std::vector<std::string_view> fields;
  std::uint64_t user = 0;
  std::uint64_t system = 0;
  std::uint64_t start = 0;
  std::uint64_t vsize = 0;
  std::uint64_t rss_pages = 0;
  if (clock.ticks_per_second <= 0 || !internal::split_stat_line(line, comm, fields) ||
      !internal::stat_number(fields, 14, user) || !internal::stat_number(fields, 15, system) ||
      !internal::stat_number(fields, 22, start) || !internal::stat_number(fields, 23, vsize) ||
      !internal::stat_number(fields, 24, rss_pages))
    return false;
  const auto ticks = static_cast<double>(clock.ticks_per_second);
  out.cpu_seconds = static_cast<double>(user + system) / ticks;
  out.start_time_seconds = static_cast<double>(clock.boot_time) + static_cast<double>(start) / ticks;
  out.virtual_memory_bytes = vsize;
  out.resident_memory_bytes = rss_pages * static_cast<std::uint64_t>(clock.page_size);
  return true;
}

std::optional<ProcessStats> read_process_stats() {
  const ProcClock clock{.ticks_per_second = ::sysconf(_SC_CLK_TCK),
                        .page_size = ::sysconf(_SC_PAGESIZE),
                        .boot_time = boot_time()};
  ProcessStats stats;
  if (!parse_process_stat(internal::read_small_file("/proc/self/stat"), clock, stats)) return std::nullopt;
  stats.open_fds = count_open_fds();
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0) stats.max_fds = limit.rlim_cur;
  return stats;
}

void write_process_metrics(const ProcessStats& stats, Exposition& out) {
  out.family("process_cpu_seconds_total", MetricType::counter,
             "Total user and system CPU time spent in seconds.");
  out.sample("process_cpu_seconds_total", {}, stats.cpu_seconds);
  out.family("process_start_time_seconds", MetricType::gauge,
             "Start time of the process since unix epoch in seconds.");
  out.sample("process_start_time_seconds", {}, stats.start_time_seconds);
  out.family("process_virtual_memory_bytes", MetricType::gauge, "Virtual memory size in bytes.");
  out.sample("process_virtual_memory_bytes", {}, stats.virtual_memory_bytes);
  out.family("process_resident_memory_bytes", MetricType::gauge, "Resident memory size in bytes.");
  out.sample("process_resident_memory_bytes", {}, stats.resident_memory_bytes);
  out.family("process_open_fds", MetricType::gauge, "Number of open file descriptors.");
  out.sample("process_open_fds", {}, stats.open_fds);
  out.family("process_max_fds", MetricType::gauge, "Maximum number of open file descriptors.");
  out.sample("process_max_fds", {}, stats.max_fds);
}

void write_build_info(std::string_view version, Exposition& out) {
  out.family("vedette_build_info", MetricType::gauge, "Vedette's version, as a label; the value is 1.");
  out.sample("vedette_build_info", {{"version", version}}, std::uint64_t{1});
}

}  // namespace vedette::metrics
