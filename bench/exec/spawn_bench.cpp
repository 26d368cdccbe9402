// /bin/true checks through the Executor vs a bare posix_spawn + waitpid loop (the "physical limit" of
// ../shared/bench/peers/spawn_bench.c). Per check: checks/s (items_per_second), CPU µs of the executor
// threads, of the submitting (core) thread, and of the plugin itself.
//
//   build/<dir>/bench/spawn_bench --benchmark_min_time=3
//
// BM_BareLoopPerCpu and BM_ExecutorOpenLoop (20 s each) measure the sustainable rate without the whole
// daemon; run them alternately, e.g. --benchmark_filter='BareLoop|OpenLoop/350/4/', and trust a difference
// only when it repeats: the 2 vCPUs are shared with other builds (others_cpu shows how much they took).
#include "exec/executor.hpp"
#include "exec/result_queue.hpp"
#include "exec/spawner.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <poll.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
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

// CPU seconds the whole machine spent busy so far (/proc/stat), to see how much of a run other processes
// took.
double machine_busy_s() {
  std::FILE* f = std::fopen("/proc/stat", "r");
  if (f == nullptr) return 0;
  unsigned long long v[8] = {};
  const int n = std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                            &v[4], &v[5], &v[6], &v[7]);
  std::fclose(f);
  if (n < 8) return 0;
  const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  return static_cast<double>(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / ticks;  // all but idle and iowait
}

double process_cpu_s() {  // this process and its reaped children
  double total = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage usage{};
    ::getrusage(who, &usage);
    total += static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
             static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  }
  return total;
}

// The machine's limit as ../shared/bench/peers/spawn_bench.c and bench/perfbench/max_rate.sh measure it: one
// bare posix_spawn + waitpid loop of /bin/true per CPU, all at once, in processes of their own.
void BM_BareLoopPerCpu(benchmark::State& state) {
  const long cpus = std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
  const double seconds = static_cast<double>(state.range(0));
  double total = 0;
  const double busy0 = machine_busy_s();
  for (auto _ : state) {
    std::vector<int> pipes;
    std::vector<pid_t> loops;
    for (long i = 0; i < cpus; ++i) {
      int fds[2];
      if (::pipe(fds) != 0) std::abort();
      const pid_t pid = ::fork();
      if (pid == 0) {
        ::close(fds[0]);
        char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
        const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
        std::uint64_t n = 0;
        while (std::chrono::steady_clock::now() < end) {
          pid_t child;
          if (::posix_spawn(&child, "/bin/true", nullptr, nullptr, argv, environ) != 0) ::_exit(1);
          int status;
          ::waitpid(child, &status, 0);
          ++n;
        }
        (void)!::write(fds[1], &n, sizeof n);
        ::_exit(0);
      }
      ::close(fds[1]);
      pipes.push_back(fds[0]);
      loops.push_back(pid);
    }
    for (std::size_t i = 0; i < loops.size(); ++i) {
      std::uint64_t n = 0;
      (void)!::read(pipes[i], &n, sizeof n);
      ::close(pipes[i]);
      int status;
      ::waitpid(loops[i], &status, 0);
      total += static_cast<double>(n);
    }
  }
  state.counters["spawns_per_s"] = total / seconds / static_cast<double>(state.iterations());
  state.counters["busy_cpus"] =
      (machine_busy_s() - busy0) / seconds / static_cast<double>(state.iterations());
}
BENCHMARK(BM_BareLoopPerCpu)->Arg(10)->Iterations(1)->UseRealTime()->Unit(benchmark::kMillisecond);

// Open loop, as the core drives the executor: every 250 ms one batch of the checks due 250-500 ms ahead,
// evenly spaced at range(0) checks/s, for range(2) s (the first 3 s not counted); range(1) executor threads.
// Reports the checks started per second and the start latency (start - due time) percentiles, the figures
// max_rate.sh judges a rate by (p99 <= 100 ms, >= 95 % executed).
void BM_ExecutorOpenLoop(benchmark::State& state) {
  const double rate = static_cast<double>(state.range(0));
  const auto seconds = std::chrono::seconds(state.range(2));
  constexpr auto k_period = std::chrono::milliseconds(250);
  constexpr auto k_warmup = std::chrono::seconds(3);
  for (auto _ : state) {
    const double busy0 = machine_busy_s();
    const double own0 = process_cpu_s();
    ResultQueue queue;
    ExecutorOptions options;
    options.threads = static_cast<unsigned>(state.range(1));
    Executor executor(queue, options);
    const auto mono0 = std::chrono::steady_clock::now();
    const auto wall0 = std::chrono::system_clock::now();
    const auto step =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(1 / rate));
    std::vector<CheckJob> jobs;
    std::vector<CheckResult> results;
    std::vector<double> latency_ms;
    std::uint32_t next = 0;
    std::size_t outstanding = 0;
    std::vector<std::int64_t> started_us;
    // BENCH_DUMP=file: one line per check (id, due ms, start latency ms, start - dequeued ms).
    std::FILE* dump =
        std::getenv("BENCH_DUMP") != nullptr ? std::fopen(std::getenv("BENCH_DUMP"), "w") : nullptr;
    auto due = [&](std::uint32_t i) { return k_period + step * i; };  // since mono0
    auto collect = [&] {
      queue.drain(results);
      for (const CheckResult& r : results) {
        --outstanding;
        const auto due_wall =
            wall0 + std::chrono::duration_cast<std::chrono::system_clock::duration>(due(r.id));
        const auto due_us =
            std::chrono::duration_cast<std::chrono::microseconds>(due_wall.time_since_epoch()).count();
        if (due(r.id) < k_warmup || due(r.id) >= seconds) continue;
        latency_ms.push_back(static_cast<double>(r.start_us - due_us) / 1e3);
        if (dump != nullptr)
          std::fprintf(dump, "%u %.3f %.3f %.3f\n", r.id,
                       std::chrono::duration<double, std::milli>(due(r.id)).count(), latency_ms.back(),
                       static_cast<double>(r.start_us - r.dequeued_us) / 1e3);
        started_us.push_back(r.start_us);
      }
      results.clear();
    };
    for (auto tick = mono0; tick - mono0 < seconds; tick += k_period) {
      std::this_thread::sleep_until(tick);
      collect();
      const auto horizon = tick - mono0 + 2 * k_period;
      for (; due(next) < horizon && due(next) < seconds; ++next) {
        CheckJob job;
        job.id = next;
        job.argv = {"/bin/true"};
        job.timeout_ms = 60'000;
        job.not_before_ns =
            std::chrono::duration_cast<std::chrono::nanoseconds>((mono0 + due(next)).time_since_epoch())
                .count();
        jobs.push_back(std::move(job));
      }
      outstanding += executor.submit_batch(jobs);
    }
    const auto measured = std::chrono::duration<double>(seconds - k_warmup).count();
    const std::int64_t end_us = std::chrono::duration_cast<std::chrono::microseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count();
    while (outstanding > 0) {
      std::this_thread::sleep_for(k_period);
      collect();
    }
    // Checks due in the measured span that had not started when the load stopped count as not executed.
    std::size_t counted = 0;
    for (std::int64_t us : started_us) counted += us <= end_us ? 1 : 0;
    if (dump != nullptr) std::fclose(dump);
    std::sort(latency_ms.begin(), latency_ms.end());
    auto pct = [&](double p) {
      return latency_ms.empty()
                 ? 0.0
                 : latency_ms[static_cast<std::size_t>(p * static_cast<double>(latency_ms.size() - 1))];
    };
    // CPU other processes took meanwhile, per second: well above 0 means the run was disturbed.
    state.counters["others_cpu"] =
        (machine_busy_s() - busy0 - (process_cpu_s() - own0)) /
        std::chrono::duration<double>(std::chrono::steady_clock::now() - mono0).count();
    state.counters["busy_cpus"] =
        (machine_busy_s() - busy0) /
        std::chrono::duration<double>(std::chrono::steady_clock::now() - mono0).count();
    state.counters["started_per_s"] = static_cast<double>(counted) / measured;
    state.counters["lat_p50_ms"] = pct(0.5);
    state.counters["lat_p99_ms"] = pct(0.99);
    state.counters["lat_max_ms"] = pct(1.0);
    state.counters["exec_cpu_ms_per_s"] =
        std::chrono::duration<double, std::milli>(executor.cpu_time()).count() /
        std::chrono::duration<double>(seconds).count();
  }
}
BENCHMARK(BM_ExecutorOpenLoop)
    ->ArgsProduct({{300, 350}, {4, 8}, {20}})
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vedette::exec
