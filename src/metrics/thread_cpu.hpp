// The CPU time of this process's threads, by thread name, from /proc/self/task/*/stat (every thread is
// read from outside, so no thread needs to publish anything). Threads of the same name are added up. Any
// thread; the scrape thread calls it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace vedette::metrics {

struct ThreadCpu {
  std::string name;  // the thread's comm, e.g. "core", "exec-0", "livestatus-1"
  double user_seconds = 0;
  double system_seconds = 0;
};

// Sorted by name; empty if /proc cannot be read.
[[nodiscard]] std::vector<ThreadCpu> read_thread_cpu();

// One /proc/<pid>/task/<tid>/stat line: false if it is not one. `ticks_per_second` is sysconf(_SC_CLK_TCK).
[[nodiscard]] bool parse_task_stat(std::string_view line, long ticks_per_second, ThreadCpu& out);

}  // namespace vedette::metrics
