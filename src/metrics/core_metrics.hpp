// The process-wide metrics of the core: what the threads that do the work count as they go (relaxed
// atomics, see counter.hpp and histogram.hpp), and what the scrape thread formats (write_core_metrics).
// Process-wide rather than passed down because the counting happens in exec, files, gearman, livestatus and
// engine alike, and a scrape must never reach into objects another thread owns and may destroy (a reload
// rebuilds the gearman link; the executor goes at shutdown): every value lives here, for the process's life.
//
//   metrics::core_metrics().external_commands.add();           // any thread
//   metrics::Exposition out; metrics::write_core_metrics(out);  // the scrape thread
#pragma once

#include "metrics/counter.hpp"
#include "metrics/exposition.hpp"
#include "metrics/histogram.hpp"
#include "metrics/thread_cpu.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <span>

namespace vedette::metrics {

// How a check result came in, the `kind` label of vedette_checks_total.
enum class CheckKind : std::uint8_t { active, passive, distributed };
// The `object` label: host or service.
enum class ObjectKind : std::uint8_t { host, service };
// The `file` label of vedette_state_file_write_duration_seconds.
enum class StateFile : std::uint8_t { status, retention };

struct CoreMetrics {
  static constexpr std::size_t k_check_kinds = 3;
  static constexpr std::size_t k_objects = 2;

  // Core thread: check results applied, by kind and object (index check_index()).
  std::array<Counter, k_check_kinds * k_objects> checks{Counter{Writers::one}, Counter{Writers::one},
                                                        Counter{Writers::one}, Counter{Writers::one},
                                                        Counter{Writers::one}, Counter{Writers::one}};
  // Core thread, active checks (local and distributed): start - scheduled time, and the plugin's run time.
  std::array<Histogram, k_objects> check_latency{
      Histogram{Writers::one, {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}},
      Histogram{Writers::one, {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}}};
  std::array<Histogram, k_objects> check_execution{
      Histogram{Writers::one, {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}},
      Histogram{Writers::one, {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}}};
  // Executor threads: jobs held for their start time or not yet spawned, and plugins running.
  Gauge executor_waiting;
  Gauge executor_running;
  // Results pushed by the executors and not yet taken by the core.
  Gauge results_pending;
  // Core thread: external commands carried out (command file and Livestatus COMMAND alike).
  Counter external_commands{Writers::one};
  // Core thread: notifications sent, one per contact notified, by object.
  std::array<Counter, k_objects> notifications{Counter{Writers::one}, Counter{Writers::one}};
  // Livestatus query threads: requests answered, and how long each took.
  Counter livestatus_requests{Writers::any};
  Histogram livestatus_latency{Writers::any, {0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10}};
  // The status and retention writer threads: one file written (format, fsync, rename). Writers::any: a
  // process may have more than one writer of a kind (the tests do), and a write takes milliseconds.
  std::array<Histogram, 2> state_file_write{
      Histogram{Writers::any, {0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}},
      Histogram{Writers::any, {0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}}};
  // Core thread, about once a second while Mod-Gearman is configured (gearman_configured).
  std::atomic<bool> gearman_configured{false};
  Gauge gearman_jobs_queued;  // waiting in the link to be sent to gearmand
  Gauge gearman_checks_out;   // checks sent whose result has not come back
  Gauge gearman_jobs_sent;    // the link's running totals (exported as counters)
  Gauge gearman_send_failures;
  Gauge gearman_results;

  static constexpr std::size_t check_index(CheckKind kind, ObjectKind object) {
    return static_cast<std::size_t>(kind) * k_objects + static_cast<std::size_t>(object);
  }
  void count_check(CheckKind kind, ObjectKind object) { checks[check_index(kind, object)].add(); }
};

// The one instance, for the process's life.
[[nodiscard]] CoreMetrics& core_metrics();

// Every metric of `m`, and `threads`' CPU, in the order of docs/metrics.md.
void write_core_metrics(const CoreMetrics& m, std::span<const ThreadCpu> threads, Exposition& out);

}  // namespace vedette::metrics
