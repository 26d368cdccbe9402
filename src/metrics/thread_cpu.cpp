#include "metrics/thread_cpu.hpp"

#include "metrics/proc_stat_internal.hpp"

#include <algorithm>
#include <charconv>
#include <dirent.h>
#include <fcntl.h>
#include <map>
#include <unistd.h>

namespace vedette::metrics {

std::string internal::read_small_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  char buffer[1024];
  const ssize_t n = ::read(fd, buffer, sizeof buffer);
  ::close(fd);
  return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
}

bool parse_task_stat(std::string_view line, long ticks_per_second, ThreadCpu& out) {
  std::string_view comm;
  std::vector<std::string_view> fields;
  std::uint64_t user = 0;
  std::uint64_t system = 0;
  if (ticks_per_second <= 0 || !internal::split_stat_line(line, comm, fields) ||
      !internal::stat_number(fields, 14, user) || !internal::stat_number(fields, 15, system))
    return false;
  out.name = std::string(comm);
  out.user_seconds = static_cast<double>(user) / static_cast<double>(ticks_per_second);
  out.system_seconds = static_cast<double>(system) / static_cast<double>(ticks_per_second);
  return true;
}

std::vector<ThreadCpu> read_thread_cpu() {
  const long ticks = ::sysconf(_SC_CLK_TCK);
  std::map<std::string, ThreadCpu> by_name;
  DIR* dir = ::opendir("/proc/self/task");
  if (dir == nullptr) return {};
  while (const dirent* entry = ::readdir(dir)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    ThreadCpu cpu;
    if (!parse_task_stat(internal::read_small_file(std::string("/proc/self/task/") + entry->d_name + "/stat"),
                         ticks, cpu))
      continue;
    ThreadCpu& sum = by_name[cpu.name];
    sum.name = cpu.name;
    sum.user_seconds += cpu.user_seconds;
    sum.system_seconds += cpu.system_seconds;
  }
  ::closedir(dir);
  std::vector<ThreadCpu> out;
  out.reserve(by_name.size());
  for (auto& [name, cpu] : by_name) out.push_back(std::move(cpu));
  return out;
}

}  // namespace vedette::metrics
