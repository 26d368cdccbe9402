#include "metrics/core_metrics.hpp"

namespace vedette::metrics {

namespace {

constexpr const char* k_object_names[CoreMetrics::k_objects] = {"host", "service"};
constexpr const char* k_kind_names[CoreMetrics::k_check_kinds] = {"active", "passive", "distributed"};

std::uint64_t as_count(const Gauge& g) {
  return g.value() > 0 ? static_cast<std::uint64_t>(g.value()) : 0;
}

void write_checks(const CoreMetrics& m, Exposition& out) {
  out.family("vedette_checks_total", MetricType::counter,
             "Check results applied, by kind (active: run by this core's executors, passive: submitted, "
             "distributed: run by a Mod-Gearman worker) and object.");
  for (std::size_t k = 0; k < CoreMetrics::k_check_kinds; ++k)
    for (std::size_t o = 0; o < CoreMetrics::k_objects; ++o)
      out.sample("vedette_checks_total", {{"kind", k_kind_names[k]}, {"object", k_object_names[o]}},
                 m.checks[k * CoreMetrics::k_objects + o].value());
  out.family("vedette_check_latency_seconds", MetricType::histogram,
             "Active and distributed checks: how late they started after their scheduled time.");
  for (std::size_t o = 0; o < CoreMetrics::k_objects; ++o)
    out.histogram("vedette_check_latency_seconds", {{"object", k_object_names[o]}},
                  m.check_latency[o].values());
  out.family("vedette_check_execution_time_seconds", MetricType::histogram,
             "Active and distributed checks: how long the plugin ran.");
  for (std::size_t o = 0; o < CoreMetrics::k_objects; ++o)
    out.histogram("vedette_check_execution_time_seconds", {{"object", k_object_names[o]}},
                  m.check_execution[o].values());
}

void write_queues(const CoreMetrics& m, Exposition& out) {
  out.family("vedette_executor_jobs_waiting", MetricType::gauge,
             "Jobs (checks, notifications, event handlers) the executor threads hold for their start time.");
  out.sample("vedette_executor_jobs_waiting", {}, m.executor_waiting.value());
  out.family("vedette_executor_jobs_running", MetricType::gauge, "Plugins and commands running now.");
  out.sample("vedette_executor_jobs_running", {}, m.executor_running.value());
  out.family("vedette_results_pending", MetricType::gauge,
             "Results the executors finished that the core has not taken yet.");
  out.sample("vedette_results_pending", {}, m.results_pending.value());
}

void write_events(const CoreMetrics& m, Exposition& out) {
  out.family("vedette_external_commands_total", MetricType::counter,
             "External commands carried out (command file and Livestatus COMMAND).");
  out.sample("vedette_external_commands_total", {}, m.external_commands.value());
  out.family("vedette_notifications_total", MetricType::counter,
             "Notifications sent, one per contact notified, by object.");
  for (std::size_t o = 0; o < CoreMetrics::k_objects; ++o)
    out.sample("vedette_notifications_total", {{"object", k_object_names[o]}}, m.notifications[o].value());
  out.family("vedette_livestatus_requests_total", MetricType::counter, "Livestatus requests answered.");
  out.sample("vedette_livestatus_requests_total", {}, m.livestatus_requests.value());
  out.family("vedette_livestatus_request_duration_seconds", MetricType::histogram,
             "Livestatus requests: from the whole request to its whole answer (waits excluded).");
  out.histogram("vedette_livestatus_request_duration_seconds", {}, m.livestatus_latency.values());
  out.family("vedette_state_file_write_duration_seconds", MetricType::histogram,
             "status.dat and retention.dat: formatting, writing, fsync and rename of one file.");
  out.histogram("vedette_state_file_write_duration_seconds", {{"file", "status.dat"}},
                m.state_file_write[static_cast<std::size_t>(StateFile::status)].values());
  out.histogram("vedette_state_file_write_duration_seconds", {{"file", "retention.dat"}},
                m.state_file_write[static_cast<std::size_t>(StateFile::retention)].values());
}

void write_gearman(const CoreMetrics& m, Exposition& out) {
  if (!m.gearman_configured.load(std::memory_order_relaxed)) return;
  out.family("vedette_gearman_jobs_queued", MetricType::gauge, "Jobs waiting to be sent to gearmand.");
  out.sample("vedette_gearman_jobs_queued", {}, m.gearman_jobs_queued.value());
  out.family("vedette_gearman_checks_in_flight", MetricType::gauge,
             "Checks sent to gearmand whose result has not come back.");
  out.sample("vedette_gearman_checks_in_flight", {}, m.gearman_checks_out.value());
  out.family("vedette_gearman_jobs_sent_total", MetricType::counter, "Jobs gearmand accepted.");
  out.sample("vedette_gearman_jobs_sent_total", {}, as_count(m.gearman_jobs_sent));
  out.family("vedette_gearman_send_failures_total", MetricType::counter,
             "Attempts to send a job that failed.");
  out.sample("vedette_gearman_send_failures_total", {}, as_count(m.gearman_send_failures));
  out.family("vedette_gearman_results_total", MetricType::counter, "Results taken from gearmand.");
  out.sample("vedette_gearman_results_total", {}, as_count(m.gearman_results));
}

void write_threads(std::span<const ThreadCpu> threads, Exposition& out) {
  out.family("vedette_thread_cpu_seconds_total", MetricType::counter,
             "CPU time of the daemon's threads (plugins excluded), by thread name and mode.");
  for (const ThreadCpu& t : threads) {
    out.sample("vedette_thread_cpu_seconds_total", {{"thread", t.name}, {"mode", "user"}}, t.user_seconds);
    out.sample("vedette_thread_cpu_seconds_total", {{"thread", t.name}, {"mode", "system"}},
               t.system_seconds);
  }
}

}  // namespace

CoreMetrics& core_metrics() {
  static CoreMetrics metrics;
  return metrics;
}

void write_core_metrics(const CoreMetrics& m, std::span<const ThreadCpu> threads, Exposition& out) {
  write_checks(m, out);
  write_queues(m, out);
  write_events(m, out);
  write_gearman(m, out);
  write_threads(threads, out);
}

}  // namespace vedette::metrics
