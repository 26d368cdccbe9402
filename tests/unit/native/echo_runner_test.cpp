#include "exec/executor.hpp"
#include "exec/result_queue.hpp"
#include "native/icmp_socket.hpp"
#include "native_jobs.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <sys/socket.h>
#include <vector>

namespace vedette::native {
namespace {

// Many pings in flight on one executor thread, sharing its ICMP socket: 100 pings of 127.0.0.1 with two
// packets each take ping's one second between packets, not 100 of them; 100 check_icmp beside them.
TEST(EchoRunner, ManyPingsInFlightOnOneThread) {
  if (IcmpSocket probe; !probe.open(AF_INET)) GTEST_SKIP() << "no ICMP socket here (not root, no ping group)";
  exec::ResultQueue results;
  exec::Executor executor(results, {.threads = 1});
  constexpr int k_checks = 100;
  const auto started = std::chrono::steady_clock::now();
  const std::vector<exec::CheckResult> all =
      run_native_jobs(executor, results, model::NativePlugin::check_ping,
                      std::vector<std::string>{"/usr/lib/nagios/plugins/check_ping", "-H", "127.0.0.1", "-w",
                                               "100,20%", "-c", "500,60%", "-p", "2"},
                      k_checks, std::chrono::seconds(20));
  ASSERT_EQ(all.size(), static_cast<std::size_t>(k_checks));
  for (const auto& r : all) {
    EXPECT_TRUE(r.native);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.rfind("PING OK - Packet loss = 0%, RTA = ", 0), 0u) << r.output;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));

  std::vector<std::string> icmp = {"/usr/lib/nagios/plugins/check_icmp", "-H", "127.0.0.1"};
  const std::vector<exec::CheckResult> icmps = run_native_jobs(
      executor, results, model::NativePlugin::check_icmp, icmp, k_checks, std::chrono::seconds(20));
  ASSERT_EQ(icmps.size(), static_cast<std::size_t>(k_checks));
  for (const auto& r : icmps) {
    EXPECT_TRUE(r.native);
    EXPECT_EQ(r.output.rfind("OK - 127.0.0.1: rta ", 0), 0u) << r.output;
  }
}

}  // namespace
}  // namespace vedette::native
