#include "native/ping_options.hpp"
#include "native/ping_report.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <sys/socket.h>
#include <vector>

namespace vedette::native {
namespace {

std::vector<std::string> args(std::initializer_list<const char*> words) {
  std::vector<std::string> out{"/usr/lib/nagios/plugins/check_ping"};
  for (const char* w : words) out.emplace_back(w);
  return out;
}

PingTally tally(int transmitted, int received, int duplicates = 0, std::int64_t rtt_sum_us = 0) {
  PingTally t;
  t.transmitted = transmitted;
  t.received = received;
  t.duplicates = duplicates;
  t.rtt_sum_us = rtt_sum_us;
  return t;
}

PingOptions options(std::initializer_list<const char*> words) {
  std::optional<PingOptions> o = parse_ping_options(args(words));
  EXPECT_TRUE(o.has_value());
  return o.value_or(PingOptions{});
}

TEST(PingOptions, ThresholdsPacketsAndTheDeadline) {
  PingOptions o = options({"-H", "10.0.0.1", "-w", "100.5,20%", "-c", "500:60%", "-p", "4", "-4"});
  EXPECT_EQ(o.address, "10.0.0.1");
  EXPECT_EQ(o.family, AF_INET);
  EXPECT_FLOAT_EQ(o.warning_rta, 100.5f);
  EXPECT_EQ(o.warning_pl, 20);
  EXPECT_FLOAT_EQ(o.critical_rta, 500.0f);
  EXPECT_EQ(o.critical_pl, 60);
  EXPECT_EQ(o.packets, 4);
  EXPECT_EQ(o.deadline_s, 10);  // -t's default; 500 ms x 4 + 4 = 6 s is less
  // The deadline grows to fit the packets at the critical RTA, truncated as the plugin's (int) cast does.
  EXPECT_EQ(options({"-H", "h", "-w", "100,20%", "-c", "3000,60%", "-p", "5", "-t", "2"}).deadline_s, 20);
  EXPECT_EQ(options({"-H", "h", "-w", "1,2%", "-c", "100,6%", "-p", "1", "-to", "3", "-nohtml"}).deadline_s,
            3);
  EXPECT_EQ(options({"--hostname=h", "--warning=1,2%", "--critical=2,3%"}).packets, 5);
}

TEST(PingOptions, RefusesWhatThePluginWouldNotRunAsOnePing) {
  const std::vector<std::vector<std::string>> refused = {
      args({}),
      args({"-H", "h", "-w", "100,20%"}),                   // no -c
      args({"-H", "h", "-w", "100", "-c", "500,60%"}),      // an RTA alone: no loss threshold
      args({"-H", "h", "-w", "20%", "-c", "500,60%"}),      // a loss alone
      args({"-H", "h", "-w", "600,20%", "-c", "500,60%"}),  // warning above critical
      args({"-H", "h", "-w", "100,70%", "-c", "500,60%"}),
      args({"-H", "a,b", "-w", "100,20%", "-c", "500,60%"}),           // several addresses
      args({"-H", "h", "-w", "100,20%", "-c", "500,60%", "-p", "3"}),  // 33.3333% loss
      args({"-H", "h", "-w", "100,20%", "-c", "500,60%", "-p", "0"}),
      args({"-H", "h", "-w", "100,20%", "-c", "500,60%", "-v"}),
      args({"-H", "h", "-w", "100,20%", "-c", "500,60%", "-L"}),
      args({"-H", "h", "-w", "100,20%", "-c", "500,60%", "extra"}),  // an operand
      args({"h", "100", "500", "20", "60"}),                         // the positional form
  };
  for (const auto& argv : refused) EXPECT_FALSE(parse_ping_options(argv).has_value()) << argv.size();
}

TEST(PingOptions, LoadTimeRefusal) {
  const std::string_view host = "$HOSTADDRESS$";
  std::vector<ArgWord> words = {{"-H"}, {host, false}, {"-w"}, {"$ARG1$", false}, {"-c"}, {"x"}};
  EXPECT_EQ(check_ping_refusal(words), "");
  words.push_back({"-v"});
  EXPECT_EQ(check_ping_refusal(words), "unsupported option -v");
  EXPECT_EQ(check_ping_refusal(std::vector<ArgWord>{{"-w"}, {"1,2%"}}), "no -H");
  EXPECT_EQ(check_ping_refusal(std::vector<ArgWord>{{"-H"}, {"h"}, {"$ARG1$", false}}),
            "an option word comes from a macro");
}

TEST(PingReport, FormatsAsCheckPing) {
  const PingOptions o = options({"-H", "gw", "-w", "100,20%", "-c", "500,60%", "-p", "5"});
  // 45 µs: the float 0.045 prints as 0.05, in the plugin too.
  const PingTally all = tally(5, 5, 0, 5 * 45);
  PluginRun run = report_ping(o, all, false);
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.output,
            "PING OK - Packet loss = 0%, RTA = 0.05 ms|rta=0.045000ms;100.000000;500.000000;0.000000 "
            "pl=0%;20;60;0;\n");
  // One lost, ping sending on until four answered: 6 sent, 16.6667% read back as 16.
  const PingTally lossy = tally(6, 5, 0, 5 * 150'250);
  run = report_ping(o, lossy, false);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(
      run.output,
      "PING WARNING - Packet loss = 16%, RTA = 150.25 ms|rta=150.250000ms;100.000000;500.000000;0.000000 "
      "pl=16%;20;60;0;\n");
  const PingTally none = tally(10, 0);
  run = report_ping(o, none, false);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.output,
            "PING CRITICAL - Packet loss = 100%| rta=U;100.000000;500.000000;; pl=100%;20;60;0;\n");
  const PingTally dup = tally(5, 5, 1, 6 * 10);
  run = report_ping(o, dup, false);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.output,
            "PING WARNING - DUPLICATES FOUND! Packet loss = 0%, RTA = 0.01 ms|rta=0.010000ms;100.000000;"
            "500.000000;0.000000 pl=0%;20;60;0;\n");
}

TEST(PingReport, ErrorsAsErrorScanReadsThem) {
  const PingOptions o = options({"-H", "gw", "-w", "100,20%", "-c", "500,60%", "-p", "1"});
  PingTally t = tally(1, 0);
  t.error_line = icmp4_error_text(3, 1);
  EXPECT_EQ(report_ping(o, t, false).output, "CRITICAL - Host Unreachable (gw)\n");
  t.error_line = icmp4_error_text(11, 0);
  EXPECT_EQ(report_ping(o, t, false).output, "CRITICAL - Time to live exceeded (gw)\n");
  t.error_line = icmp4_error_text(3, 13);
  EXPECT_EQ(report_ping(o, t, false).output, "CRITICAL - Packet Filtered (gw)\n");
  t.error_line = icmp6_error_text(1, 3);
  EXPECT_EQ(report_ping(o, t, true).output, "CRITICAL - Host Unreachable (gw)\n");
  t.error_line = icmp6_error_text(1, 2);
  EXPECT_EQ(report_ping(o, t, true).output, "CRITICAL - Destination Unreachable (gw)\n");
  t.error_line = icmp4_error_text(3, 5);  // "Source Route Failed": no reason to die, 100% loss
  EXPECT_EQ(report_ping(o, t, false).exit_code, 2);
  t = tally(0, 0);
  t.send_errno = ENETUNREACH;
  EXPECT_EQ(report_ping(o, t, false).output, "CRITICAL - Network Unreachable (gw)\n");
  t.send_errno = EACCES;
  const PluginRun run = report_ping(o, t, true);
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_EQ(run.output,
            "/bin/ping -6 -n -U -w 10 -c 1 gw\nCRITICAL - Could not interpret output from ping command\n");
  EXPECT_EQ(
      report_ping_invalid_host(o).output,
      "check_ping: Invalid hostname/address - gw\nUsage:\ncheck_ping -H <host_address> -w <wrta>,<wpl>% "
      "-c <crta>,<cpl>%\n [-p packets] [-t timeout] [-4|-6]\n");
}

}  // namespace
}  // namespace vedette::native
