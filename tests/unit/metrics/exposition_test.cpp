#include "metrics/exposition.hpp"

#include "metrics/core_metrics.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace vedette::metrics {
namespace {

TEST(ExpositionTest, CounterWithHelpTypeAndLabels) {
  Exposition out;
  out.family("vedette_checks_total", MetricType::counter, "Checks.\nSecond line \\ here.");
  out.sample("vedette_checks_total", {{"kind", "active"}, {"object", "host"}}, std::uint64_t{12});
  out.sample("vedette_checks_total", {}, std::uint64_t{3});
  EXPECT_EQ(out.text(),
            "# HELP vedette_checks_total Checks.\\nSecond line \\\\ here.\n"
            "# TYPE vedette_checks_total counter\n"
            "vedette_checks_total{kind=\"active\",object=\"host\"} 12\n"
            "vedette_checks_total 3\n");
}

TEST(ExpositionTest, LabelValuesAreEscaped) {
  Exposition out;
  out.sample("x", {{"thread", "a\"b\\c\nd"}}, std::int64_t{-2});
  EXPECT_EQ(out.text(), "x{thread=\"a\\\"b\\\\c\\nd\"} -2\n");
}

TEST(ExpositionTest, ValuesAsTheFormatSpellsThem) {
  EXPECT_EQ(Exposition::format_value(0.25), "0.25");
  EXPECT_EQ(Exposition::format_value(3), "3");
  EXPECT_EQ(Exposition::format_value(1e-6), "1e-06");
  EXPECT_EQ(Exposition::format_value(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(Exposition::format_value(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(Exposition::format_value(std::numeric_limits<double>::quiet_NaN()), "NaN");
}

TEST(ExpositionTest, HistogramHasCumulativeBucketsInfSumAndCount) {
  Histogram h(Writers::any, {0.01, 0.1});
  h.observe(0.005);
  h.observe(0.05);
  h.observe(2);
  Exposition out;
  out.family("vedette_check_latency_seconds", MetricType::histogram, "Latency.");
  out.histogram("vedette_check_latency_seconds", {{"object", "service"}}, h.values());
  EXPECT_EQ(out.text(),
            "# HELP vedette_check_latency_seconds Latency.\n"
            "# TYPE vedette_check_latency_seconds histogram\n"
            "vedette_check_latency_seconds_bucket{object=\"service\",le=\"0.01\"} 1\n"
            "vedette_check_latency_seconds_bucket{object=\"service\",le=\"0.1\"} 2\n"
            "vedette_check_latency_seconds_bucket{object=\"service\",le=\"+Inf\"} 3\n"
            "vedette_check_latency_seconds_sum{object=\"service\"} 2.055\n"
            "vedette_check_latency_seconds_count{object=\"service\"} 3\n");
}

TEST(ExpositionTest, CoreMetricsListEveryFamilyOnceAndGearmanOnlyWhenConfigured) {
  CoreMetrics m;
  m.count_check(CheckKind::passive, ObjectKind::service);
  m.external_commands.add(2);
  const std::vector<ThreadCpu> threads{{"core", 1.5, 0.25}, {"exec-0", 0, 0}};
  Exposition out;
  write_core_metrics(m, threads, out);
  const std::string& text = out.text();
  EXPECT_NE(text.find("vedette_checks_total{kind=\"passive\",object=\"service\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("vedette_checks_total{kind=\"distributed\",object=\"host\"} 0\n"), std::string::npos);
  EXPECT_NE(text.find("vedette_external_commands_total 2\n"), std::string::npos);
  EXPECT_NE(text.find("vedette_thread_cpu_seconds_total{thread=\"core\",mode=\"user\"} 1.5\n"),
            std::string::npos);
  EXPECT_NE(text.find("vedette_state_file_write_duration_seconds_count{file=\"retention.dat\"} 0\n"),
            std::string::npos);
  EXPECT_EQ(text.find("gearman"), std::string::npos);
  for (const char* family :
       {"vedette_checks_total", "vedette_check_latency_seconds", "vedette_check_execution_time_seconds",
        "vedette_executor_jobs_waiting", "vedette_executor_jobs_running", "vedette_results_pending",
        "vedette_notifications_total", "vedette_livestatus_requests_total",
        "vedette_livestatus_request_duration_seconds"}) {
    const std::string type = std::string("# TYPE ") + family + " ";
    const std::size_t first = text.find(type);
    EXPECT_NE(first, std::string::npos) << family;
    EXPECT_EQ(text.find(type, first + 1), std::string::npos) << family;
  }
  m.gearman_configured = true;
  m.gearman_jobs_queued.set(4);
  Exposition with_gearman;
  write_core_metrics(m, {}, with_gearman);
  EXPECT_NE(with_gearman.text().find("vedette_gearman_jobs_queued 4\n"), std::string::npos);
}

}  // namespace
}  // namespace vedette::metrics
