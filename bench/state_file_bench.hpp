// What the state-file benchmarks share (bench/files/status_bench, bench/retention/retention_bench): their
// fixture, one size at a time, and the writer thread's CPU time. Benchmark thread only.
#pragma once

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>

namespace vedette::bench {

// The fixture of `hosts` hosts, built on first use; the previous size is freed first, as the 1M fixture
// alone holds a few GB.
template <typename Fixture>
Fixture& fixture_of_size(int hosts) {
  static std::unique_ptr<Fixture> fixture;
  static int size = 0;
  if (fixture == nullptr || size != hosts) {
    fixture.reset();
    fixture = std::make_unique<Fixture>(hosts);
    size = hosts;
  }
  return *fixture;
}

// The CPU time (user + system) of this process' thread named `name`, in ms, from its schedstat (ns).
inline double thread_cpu_ms(std::string_view name) {
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string task_name;
    std::getline(comm, task_name);
    if (task_name != name) continue;
    std::ifstream schedstat(task.path() / "schedstat");
    double ns = 0;
    schedstat >> ns;
    return ns / 1e6;
  }
  return 0;
}

}  // namespace vedette::bench
