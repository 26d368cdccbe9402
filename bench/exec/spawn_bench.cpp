// /bin/true checks through the Executor vs a bare posix_spawn + waitpid loop (the "physical limit" of
// ../shared/bench/peers/spawn_bench.c). Per check: checks/s (items_per_second), CPU µs of the executor
// threads, of the submitting (core) thread, and of the plugin itself.
//
//   build/<dir>/bench/spawn_bench --benchmark_min_time=3
#include "exec/executor.hpp"
#include "exec/result_queue.hpp"
#include "exec/spawner.hpp"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <poll.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <vector>

extern char** environ;

namespace vedette::exec {
namespace {

double thread_cpu_us() {
  rusage usage{};
  ::getrusage(RUSAGE_THREAD, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

double children_cpu_us() {
  rusage usage{};
  ::getrusage(RUSAGE_CHILDREN, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

void BM_BarePosixSpawnWait(benchmark::State& state) {
  char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
  const double cpu0 = thread_cpu_us();
  const double child0 = children_cpu_us();
  for (auto _ : state) {
    pid_t pid;
    if (::posix_spawn(&pid, "/bin/true", nullptr, nullptr, argv, environ) != 0) {
      state.SkipWithError("posix_spawn failed");
      break;
    }
    int status;
    ::waitpid(pid, &status, 0);
  }
  const double n = static_cast<double>(state.iterations());
  state.SetItemsProcessed(state.iterations());
  state.counters["spawner_cpu_us"] = (thread_cpu_us() - cpu0) / n;
  state.counters["plugin_cpu_us"] = (children_cpu_us() - child0) / n;
}
BENCHMARK(BM_BarePosixSpawnWait)->UseRealTime()->Unit(benchmark::kMicrosecond);

// The Spawner alone (pipes, process group, /dev/null, pidfd) with a blocking wait: what the executor's
// setup costs over the bare loop, before any epoll work. range(0): 0 = clone_vfork, 1 = posix_spawn.
void BM_SpawnerWait(benchmark::State& state) {
  const auto method = state.range(0) == 0 ? SpawnMethod::clone_vfork : SpawnMethod::posix_spawn;
  state.SetLabel(state.range(0) == 0 ? "clone_vfork" : "posix_spawn");
  Spawner spawner({.use_pidfd = true, .method = method});
  CheckJob job;
  job.argv = {"/bin/true"};
  const double cpu0 = thread_cpu_us();
  const double child0 = children_cpu_us();
  for (auto _ : state) {
    SpawnedChild child;
    if (spawner.spawn(job, child).status != SpawnStatus::ok) {
      state.SkipWithError("spawn failed");
      break;
    }
    int status;
    ::waitpid(child.pid, &status, 0);
    close_child_fds(child);
  }
  const double n = static_cast<double>(state.iterations());
  state.SetItemsProcessed(state.iterations());
  state.counters["spawner_cpu_us"] = (thread_cpu_us() - cpu0) / n;
  state.counters["plugin_cpu_us"] = (children_cpu_us() - child0) / n;
}
BENCHMARK(BM_SpawnerWait)->Arg(0)->Arg(1)->UseRealTime()->Unit(benchmark::kMicrosecond);

// range(0): executor threads; range(1): checks kept in flight; range(2): 0 = clone_vfork, 1 = posix_spawn.
void BM_ExecutorTrue(benchmark::State& state) {
  ResultQueue queue;
  ExecutorOptions options;
  options.threads = static_cast<unsigned>(state.range(0));
  options.spawn_method = state.range(2) == 0 ? SpawnMethod::clone_vfork : SpawnMethod::posix_spawn;
  state.SetLabel(state.range(2) == 0 ? "clone_vfork" : "posix_spawn");
  Executor executor(queue, options);
  const auto window = static_cast<std::size_t>(state.range(1));
  std::vector<CheckJob> jobs;
  std::vector<CheckResult> results;
  std::size_t in_flight = 0;
  std::size_t ready = 0;
  std::uint32_t next_id = 0;
  double plugin_us = 0;
  std::int64_t counted = 0;

  auto top_up = [&] {
    for (; in_flight < window; ++in_flight) {
      CheckJob job;
      job.id = next_id++;
      job.argv = {"/bin/true"};
      job.timeout_ms = 10'000;
      jobs.push_back(std::move(job));
    }
    executor.submit_batch(jobs);
  };
  auto wait_some = [&] {
    pollfd p{queue.fd(), POLLIN, 0};
    ::poll(&p, 1, 1000);
    queue.drain(results);
    for (const auto& r : results) plugin_us += static_cast<double>(r.plugin_user_us + r.plugin_system_us);
    counted += static_cast<std::int64_t>(results.size());
    in_flight -= results.size();
    ready += results.size();
  };

  const auto exec_cpu0 = executor.cpu_time();
  const double core_cpu0 = thread_cpu_us();
  for (auto _ : state) {
    while (ready == 0) {
      top_up();
      wait_some();
    }
    --ready;
  }
  const double n = static_cast<double>(state.iterations());
  const double exec_us = std::chrono::duration<double, std::micro>(executor.cpu_time() - exec_cpu0).count();
  state.counters["exec_cpu_us"] = exec_us / n;
  state.counters["core_cpu_us"] = (thread_cpu_us() - core_cpu0) / n;
  state.counters["plugin_cpu_us"] = counted > 0 ? plugin_us / static_cast<double>(counted) : 0;
  state.SetItemsProcessed(state.iterations());
  while (in_flight > 0) wait_some();
}
BENCHMARK(BM_ExecutorTrue)
    ->ArgsProduct({{1}, {1, 16}, {0, 1}})
    ->ArgsProduct({{2}, {16, 64}, {0, 1}})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace vedette::exec
