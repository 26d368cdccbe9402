#include "exec/executor.hpp"
#include "exec/result_queue.hpp"
#include "model/command_template.hpp"
#include "native/classify.hpp"
#include "native/dummy_check.hpp"
#include "native/plugin_args.hpp"
#include "native/tcp_options.hpp"
#include "native/tcp_report.hpp"
#include "native_jobs.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace vedette::native {
namespace {

std::vector<std::string> args(std::initializer_list<const char*> words) {
  std::vector<std::string> out;
  for (const char* w : words) out.emplace_back(w);
  return out;
}

TEST(TcpOptions, ReadsShortLongAndAttachedForms) {
  const auto o =
      parse_tcp_options(args({"check_tcp", "-H10.0.0.1", "--port=22", "--warning", "1.5", "--critical", "3",
                              "-E", "-s", "a\\r\\n", "-q", "bye", "-e", "x", "-e", "y", "-A", "-6"}));
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->address, "10.0.0.1");
  EXPECT_TRUE(o->host_specified);
  EXPECT_EQ(o->port, 22);
  EXPECT_DOUBLE_EQ(o->warning, 1.5);
  EXPECT_DOUBLE_EQ(o->critical, 3);
  EXPECT_EQ(*o->send, "a\r\n");
  EXPECT_EQ(*o->quit, "bye");  // -E: nothing appended
  EXPECT_EQ(o->expect, (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(o->match_all);
  EXPECT_EQ(o->family, AF_INET6);
}

TEST(TcpOptions, QuitGetsCrLfWithoutEscape) {
  const auto o = parse_tcp_options(args({"check_tcp", "-p", "1", "-q", "bye"}));
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(*o->quit, "bye\r\n");
  EXPECT_FALSE(o->host_specified);
  EXPECT_EQ(o->address, "127.0.0.1");
}

TEST(TcpOptions, RefusesWhatThePluginWouldNotConnectFor) {
  EXPECT_FALSE(parse_tcp_options(args({"check_tcp"})));
  EXPECT_FALSE(parse_tcp_options(args({"check_tcp", "-H", "h"})));             // no port
  EXPECT_FALSE(parse_tcp_options(args({"check_tcp", "-H", "h", "-p", "0"})));  // usage
  EXPECT_FALSE(parse_tcp_options(args({"check_tcp", "-H", "h", "-p", "1", "-S"})));
  EXPECT_FALSE(
      parse_tcp_options(args({"check_tcp", "-H", "h", "-p", "1", "--crit=1"})));  // ambiguous, as for getopt
  EXPECT_FALSE(parse_tcp_options(args({"check_tcp", "-H", "/run/x.sock", "-p", "1"})));
  EXPECT_FALSE(parse_tcp_options(args({"check_tcp", "-H", "h", "-p", "1", "-E", "-s", "x\\"})));
  EXPECT_FALSE(parse_tcp_options(args({"check_tcp", "-H", "h", "-p", "1", "-r", "maybe"})));
}

TEST(TcpOptions, LoadTimeRefusalNamesTheOption) {
  const std::vector<ArgWord> ok{{"-H", true}, {"$HOSTADDRESS$", false}, {"-p", true}, {"$ARG1$", false}};
  EXPECT_EQ(check_tcp_refusal(ok), "");
  const std::vector<ArgWord> ssl{{"-H", true}, {"x", false}, {"-p", true}, {"1", true}, {"--ssl", true}};
  EXPECT_EQ(check_tcp_refusal(ssl), "unsupported option -S");
  const std::vector<ArgWord> macro{{"-H", true}, {"x", false}, {"$ARG1$", false}};
  EXPECT_EQ(check_tcp_refusal(macro), "an option word comes from a macro");
}

TEST(TcpReport, FormatsAsCheckTcp) {
  TcpOptions o;
  o.address = "127.0.0.1";
  o.host_specified = true;
  o.port = 22;
  EXPECT_EQ(report_tcp(o, {}, Match::none, 0.000123).output,
            "TCP OK - 0.000 second response time on 127.0.0.1 port 22|time=0.000123s;;;0.000000;10.000000\n");
  o.expect = {"SSH"};
  o.has_warning = true;
  o.warning = 2;
  EXPECT_EQ(report_tcp(o, "FTP ready\r\n", Match::retry, 0.5).output,
            "TCP WARNING - Unexpected response from host/socket: FTP ready|time=0.500000s;0.000000;;0.000000;"
            "10.000000\n");
  EXPECT_EQ(report_tcp(o, "SSH-2.0\n", Match::success, 0.5).output,
            "TCP OK - 0.500 second response time on 127.0.0.1 port 22 [SSH-2.0]|time=0.500000s;2.000000;;"
            "0.000000;10.000000\n");
  EXPECT_EQ(report_tcp(o, {}, Match::none, 0).output, "No data received from host\n");
  EXPECT_EQ(report_connect_failure(o, ECONNREFUSED).output,
            "connect to address 127.0.0.1 and port 22: Connection refused\n");
}

TEST(CheckDummy, AnswersEveryStateAndUsage) {
  EXPECT_EQ(run_check_dummy(args({"check_dummy", "2", "down"}))->output, "CRITICAL: down\n");
  EXPECT_EQ(run_check_dummy(args({"check_dummy", "7"}))->output,
            "UNKNOWN: Status 7 is not a supported error state\n");
  EXPECT_EQ(run_check_dummy(args({"check_dummy", "x"}))->exit_code, 3);
  EXPECT_FALSE(run_check_dummy(args({"check_dummy", "--version"})).has_value());
}

model::CommandTemplate words(std::initializer_list<std::vector<model::CommandPiece>> argv) {
  model::CommandTemplate t;
  for (const auto& pieces : argv) t.argv.push_back({pieces, false});
  return t;
}
model::CommandPiece lit(std::string_view s) {
  return {model::CommandPiece::Kind::literal, s};
}
model::CommandPiece mac(std::string_view s) {
  return {model::CommandPiece::Kind::macro, s};
}

TEST(Classify, NativeOnlyForSupportedPluginsOfUser1) {
  if (::access("/usr/lib/nagios/plugins/check_tcp", X_OK) != 0) GTEST_SKIP() << "no monitoring-plugins";
  const std::string_view users[] = {"/usr/lib/nagios/plugins/"};
  ClassifyContext ctx;
  ctx.user_macros = users;
  auto tcp =
      words({{mac("USER1"), lit("/check_tcp")}, {lit("-H")}, {mac("HOSTADDRESS")}, {lit("-p")}, {lit("22")}});
  EXPECT_EQ(classify_command(tcp, ctx).plugin, model::NativePlugin::check_tcp);
  auto other = words({{lit("/usr/local/bin/check_tcp")}, {lit("-p")}, {lit("22")}});
  EXPECT_EQ(classify_command(other, ctx).reason, "not a plugin of $USER1$");
  auto http = words({{mac("USER1"), lit("/check_http")}});
  EXPECT_EQ(classify_command(http, ctx).kind, "check_http");
  tcp.needs_shell = true;
  EXPECT_EQ(classify_command(tcp, ctx).reason, "runs under /bin/sh");
  tcp.needs_shell = false;
  ctx.enabled = false;
  EXPECT_EQ(classify_command(tcp, ctx).reason, "native_checks=0");
}

// Many connects in flight on one executor thread: 200 checks against a listener that never accepts, each
// held to its 1 s timeout, finish in about 1 s rather than 200.
TEST(NativeRunner, ManyChecksInFlightOnOneThread) {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener, 0), 0);
  socklen_t len = sizeof addr;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  const std::string port = std::to_string(ntohs(addr.sin_port));

  exec::ResultQueue results;
  exec::Executor executor(results, {.threads = 1});
  constexpr int k_checks = 200;
  const auto started = std::chrono::steady_clock::now();
  const std::vector<exec::CheckResult> all = run_native_jobs(
      executor, results, model::NativePlugin::check_tcp,
      args({"/usr/lib/nagios/plugins/check_tcp", "-H", "127.0.0.1", "-p", port.c_str(), "-t", "1"}), k_checks,
      std::chrono::seconds(20));
  int timeouts = 0;
  for (const auto& r : all) {
    EXPECT_TRUE(r.native);
    EXPECT_EQ(r.outcome, exec::Outcome::exited);
    if (r.output == "CRITICAL - Socket timeout after 1 seconds\n") ++timeouts;
  }
  EXPECT_GT(timeouts, k_checks / 2);  // the first few fill the backlog and connect
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));

  // The job's own timeout (service_check_timeout) before the plugin's -t: a timed-out result, as a process
  // killed at its timeout gives.
  const std::vector<exec::CheckResult> killed = run_native_jobs(
      executor, results, model::NativePlugin::check_tcp,
      args({"/usr/lib/nagios/plugins/check_tcp", "-H", "127.0.0.1", "-p", port.c_str(), "-t", "10"}), 1,
      std::chrono::seconds(5), 300);
  ASSERT_EQ(killed.size(), 1u);
  EXPECT_EQ(killed.front().outcome, exec::Outcome::timed_out);
  EXPECT_TRUE(killed.front().native);
  ::close(listener);
}

}  // namespace
}  // namespace vedette::native
