// What the metrics add to a check result on the core thread: Core::count_active_metrics' work (one
// counter, a latency and an execution-time observation, all Writers::one), in ns per result; the same
// while another thread reads them without pause; and formatting a whole scrape. The daemon's other
// per-result costs are in bench/perfbench.
//
//   build/<dir>/bench/core_metrics_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

#include "metrics/core_metrics.hpp"

#include <benchmark/benchmark.h>

#include <atomic>
#include <thread>

namespace vedette::metrics {
namespace {

void count_result(CoreMetrics& m, double latency, double execution) {
  m.count_check(CheckKind::active, ObjectKind::service);
  m.check_latency[static_cast<std::size_t>(ObjectKind::service)].observe(latency);
  m.check_execution[static_cast<std::size_t>(ObjectKind::service)].observe(execution);
}

// Latencies and run times spread over the buckets, as a real mix of checks would.
constexpr double k_latencies[8] = {0.0002, 0.0008, 0.003, 0.02, 0.2, 0.0004, 0.0011, 0.04};
constexpr double k_executions[8] = {0.004, 0.012, 0.03, 0.008, 0.15, 1.2, 0.02, 0.006};

void BM_CountResult(benchmark::State& state) {
  CoreMetrics& m = core_metrics();
  unsigned i = 0;
  for (auto _ : state) {
    count_result(m, k_latencies[i & 7], k_executions[i & 7]);
    ++i;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CountResult);

// The same while another thread reads the histograms without pause (a scrape's reads, made continuous):
// the cache lines then move between cores.
void BM_CountResultWhileScraped(benchmark::State& state) {
  CoreMetrics& m = core_metrics();
  std::atomic<bool> stop{false};
  std::thread scrape([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      benchmark::DoNotOptimize(m.check_latency[1].values().count);
      benchmark::DoNotOptimize(m.check_execution[1].values().count);
    }
  });
  unsigned i = 0;
  for (auto _ : state) {
    count_result(m, k_latencies[i & 7], k_executions[i & 7]);
    ++i;
  }
  stop = true;
  scrape.join();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CountResultWhileScraped);

// The scrape side, for scale: formatting every metric (no /proc read).
void BM_WriteCoreMetrics(benchmark::State& state) {
  const std::vector<ThreadCpu> threads(12, ThreadCpu{"exec-0", 1.5, 0.5});
  for (auto _ : state) {
    Exposition out;
    write_core_metrics(core_metrics(), threads, out);
    benchmark::DoNotOptimize(out.text().data());
  }
}
BENCHMARK(BM_WriteCoreMetrics);

}  // namespace
}  // namespace vedette::metrics
