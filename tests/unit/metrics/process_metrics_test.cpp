#include "metrics/process_metrics.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ctime>
#include <string>

namespace vedette::metrics {
namespace {

using ::testing::HasSubstr;

// A /proc/<pid>/stat line of proc(5)'s 52 fields, with a comm that holds a space and parentheses.
constexpr const char* k_line =
    "4242 (vedette (x) y) S 1 4242 4242 0 -1 4194560 1200 0 0 0 250 50 0 0 20 0 12 0 123456 104857600 "
    "2560 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

TEST(ProcessMetrics, ParsesCpuMemoryAndStartTime) {
  ProcessStats s;
  ASSERT_TRUE(parse_process_stat(
      k_line, {.ticks_per_second = 100, .page_size = 4096, .boot_time = 1'700'000'000}, s));
  EXPECT_DOUBLE_EQ(s.cpu_seconds, 3.0);                             // (250 + 50) ticks
  EXPECT_DOUBLE_EQ(s.start_time_seconds, 1'700'000'000 + 1234.56);  // boot time + 123456 ticks
  EXPECT_EQ(s.virtual_memory_bytes, 104857600u);
  EXPECT_EQ(s.resident_memory_bytes, 2560u * 4096u);
  EXPECT_FALSE(parse_process_stat("4242 (short) S 1 2 3", {}, s));
  EXPECT_FALSE(parse_process_stat("", {}, s));
}

TEST(ProcessMetrics, ThisProcessHasSaneFigures) {
  const std::optional<ProcessStats> s = read_process_stats();
  ASSERT_TRUE(s);
  EXPECT_GT(s->resident_memory_bytes, 0u);
  EXPECT_GE(s->virtual_memory_bytes, s->resident_memory_bytes);
  EXPECT_GE(s->open_fds, 3u);  // stdin, stdout, stderr
  EXPECT_GE(s->max_fds, s->open_fds);
  const double now = static_cast<double>(std::time(nullptr));
  EXPECT_LE(s->start_time_seconds, now + 1);
  EXPECT_GT(s->start_time_seconds, now - 3600) << "this test process started within the hour";
}

TEST(ProcessMetrics, WritesTheStandardFamiliesAndBuildInfo) {
  Exposition out;
  write_process_metrics({.cpu_seconds = 1.5,
                         .start_time_seconds = 1'700'000'000,
                         .virtual_memory_bytes = 10,
                         .resident_memory_bytes = 5,
                         .open_fds = 7,
                         .max_fds = 1024},
                        out);
  write_build_info("1.2.3", out);
  EXPECT_THAT(out.text(),
              HasSubstr("# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 1.5\n"));
  EXPECT_THAT(out.text(), HasSubstr("process_start_time_seconds 1700000000\n"));
  EXPECT_THAT(out.text(), HasSubstr("process_resident_memory_bytes 5\n"));
  EXPECT_THAT(out.text(), HasSubstr("process_open_fds 7\n"));
  EXPECT_THAT(out.text(), HasSubstr("process_max_fds 1024\n"));
  EXPECT_THAT(out.text(),
              HasSubstr("# TYPE vedette_build_info gauge\nvedette_build_info{version=\"1.2.3\"} 1\n"));
}

}  // namespace
}  // namespace vedette::metrics
