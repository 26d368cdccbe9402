#include "metrics/thread_cpu.hpp"

#include <algorithm>
#include <charconv>
#include <dirent.h>
#include <fcntl.h>
#include <map>
#include <unistd.h>

namespace vedette::metrics {

namespace {

std::string read_small_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  char buffer[1024];
  const ssize_t n = ::read(fd, buffer, sizeof buffer);
  ::close(fd);
  return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
}

}  // namespace

bool parse_task_stat(std::string_view line, long ticks_per_second, ThreadCpu& out) {
  // "tid (comm) state ppid ...": comm may hold spaces and parentheses, so it ends at the last ')'.
  const std::size_t open = line.find('(');
  const std::size_t close = line.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open ||
      ticks_per_second <= 0)
    return false;
  out.name = std::string(line.substr(open + 1, close - open - 1));
  std::string_view rest = line.substr(close + 1);
  // After the comm: state is field 3, utime 14 and stime 15 (proc(5)), so the 12th and 13th words here.
  unsigned long long values[2] = {0, 0};
  for (int field = 3; field <= 15; ++field) {
    const std::size_t start = rest.find_first_not_of(' ');
    if (start == std::string_view::npos) return false;
    rest.remove_prefix(start);
    const std::size_t end = std::min(rest.find(' '), rest.size());
    if (field >= 14) {
      const auto [p, ec] = std::from_chars(rest.data(), rest.data() + end, values[field - 14]);
      if (ec != std::errc{} || p != rest.data() + end) return false;
    }
    rest.remove_prefix(end);
  }
  out.user_seconds = static_cast<double>(values[0]) / static_cast<double>(ticks_per_second);
  out.system_seconds = static_cast<double>(values[1]) / static_cast<double>(ticks_per_second);
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
    if (!parse_task_stat(read_small_file(std::string("/proc/self/task/") + entry->d_name + "/stat"), ticks,
                         cpu))
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
