#include "native/icmp_options.hpp"
#include "native/icmp_report.hpp"

#include <gtest/gtest.h>

#include <string>
#include <sys/socket.h>
#include <vector>

namespace vedette::native {
namespace {

std::vector<std::string> args(std::initializer_list<const char*> words) {
  std::vector<std::string> out{"/usr/lib/nagios/plugins/check_icmp"};
  for (const char* w : words) out.emplace_back(w);
  return out;
}

TEST(IcmpOptions, TimesWithThePluginsUnitAndDecimalRules) {
  EXPECT_EQ(icmp_time_us("80"), 80'000u);  // milliseconds by default
  EXPECT_EQ(icmp_time_us("80ms"), 80'000u);
  EXPECT_EQ(icmp_time_us("500us"), 500u);
  EXPECT_EQ(icmp_time_us("500u"), 500u);
  EXPECT_EQ(icmp_time_us("2s"), 2'000'000u);
  EXPECT_EQ(icmp_time_us("0.5s"), 500'000u);
  EXPECT_EQ(icmp_time_us("1.25"), 3'500u);  // the decimals as a count of tenths: 1 + 25 x 0.1 ms
  EXPECT_EQ(icmp_time_us("0.001"), 100u);   // "001" is 1, one tenth of a millisecond
  EXPECT_EQ(icmp_time_us("1.5us"), 1u);     // no decimals in microseconds
  EXPECT_EQ(icmp_time_us(""), 0u);
}

TEST(IcmpOptions, ThresholdsTargetsAndLimits) {
  std::optional<IcmpOptions> o =
      parse_icmp_options(args({"-H", "gw", "-w", "100,20%", "-c", "1s,60%", "-n", "3"}));
  ASSERT_TRUE(o);
  EXPECT_EQ(o->target, "gw");
  EXPECT_EQ(o->warning_rta_us, 100'000u);
  EXPECT_EQ(o->warning_pl, 20u);
  EXPECT_EQ(o->critical_rta_us, 1'000'000u);
  EXPECT_EQ(o->critical_pl, 60u);
  EXPECT_EQ(o->packets, 3u);
  EXPECT_EQ(o->max_completion_us(), 3 * 80'000u + 3 * 1'000'000u + 1'000'000u);
  // The target as an operand, before or after the options; the warning capped at the critical.
  o = parse_icmp_options(args({"gw", "-w", "900,90%", "-t", "0"}));
  ASSERT_TRUE(o);
  EXPECT_EQ(o->target, "gw");
  EXPECT_EQ(o->warning_rta_us, 500'000u);
  EXPECT_EQ(o->warning_pl, 80u);
  EXPECT_EQ(o->timeout_s, 10u);  // -t 0 is the default
  // "0,5%": the plugin's scan stops before the ',' — the RTA is "0,5", 0 ms, and the loss stays.
  o = parse_icmp_options(args({"-H", "gw", "-w", "0,5%"}));
  ASSERT_TRUE(o);
  EXPECT_EQ(o->warning_rta_us, 0u);
  EXPECT_EQ(o->warning_pl, 40u);
  for (const auto& argv : {args({}), args({"-H", "a", "-H", "b"}), args({"a", "b"}),
                           args({"-H", "a", "-n", "21"}), args({"-H", "a", "-4", "-6"}),
                           args({"-H", "a", "-v"}), args({"-H", "a", "-w", "5"}), args({"-w", "100,20%"})})
    EXPECT_FALSE(parse_icmp_options(argv)) << argv.size();
  EXPECT_EQ(parse_icmp_options(args({"-H", "a", "-n", "65537"}))->packets, 1u);  // an unsigned short
}

TEST(IcmpOptions, LoadTimeRefusal) {
  EXPECT_EQ(
      check_icmp_refusal(std::vector<ArgWord>{{"-H"}, {"$HOSTADDRESS$", false}, {"-w"}, {"$ARG1$", false}}),
      "");
  EXPECT_EQ(check_icmp_refusal(std::vector<ArgWord>{{"$HOSTADDRESS$", false}}), "");  // an operand
  EXPECT_EQ(check_icmp_refusal(std::vector<ArgWord>{{"-H"}, {"a"}, {"-m"}, {"1"}}), "unsupported option -m");
  EXPECT_EQ(check_icmp_refusal(std::vector<ArgWord>{{"-H"}, {"a"}, {"b"}}), "several targets");
  EXPECT_EQ(check_icmp_refusal(std::vector<ArgWord>{{"-n"}, {"2"}}), "no target");
}

TEST(IcmpReport, FormatsAsCheckIcmp) {
  const IcmpOptions o = *parse_icmp_options(args({"-H", "gw"}));
  IcmpTally t;
  t.sent = 5;
  t.received = 4;
  t.waited_us = 4 * 1'500;
  t.rtmax_us = 2'000;
  t.rtmin_us = 1'000;
  PluginRun run = report_icmp(o, t);
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.output,
            "OK - gw: rta 1.500ms, lost 20%|rta=1.500ms;200.000;500.000;0; pl=20%;40;80;; rtmax=2.000ms;;;; "
            "rtmin=1.000ms;;;; \n");
  t.received = 2;
  t.waited_us = 2 * 1'500;
  EXPECT_EQ(report_icmp(o, t).exit_code, 1);  // 60% lost
  IcmpTally none;
  none.sent = 5;
  run = report_icmp(o, none);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(
      run.output,
      "CRITICAL - gw: rta nan, lost 100%|rta=0.000ms;200.000;500.000;0; pl=100%;40;80;; rtmax=0.000ms;;;; "
      "rtmin=0.000ms;;;; \n");
  none.lost_cause = true;
  none.error_type = 3;
  none.error_code = 1;
  none.error_from = "192.0.2.2";
  EXPECT_EQ(report_icmp(o, none).output.substr(0, 63),
            "CRITICAL - gw: Host unreachable @ 192.0.2.2. rta nan, lost 100%");
  EXPECT_EQ(report_icmp_unresolved(o, "Name or service not known").output,
            "check_icmp: Failed to resolve gw: Name or service not known\n");
}

}  // namespace
}  // namespace vedette::native
