#include "exec/executor.hpp"
#include "exec/result_queue.hpp"
#include "native/http_options.hpp"
#include "native/http_report.hpp"
#include "native_jobs.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace vedette::native {
namespace {

HttpOptions parsed(std::vector<std::string> args) {
  args.insert(args.begin(), "/usr/lib/nagios/plugins/check_http");
  std::optional<HttpOptions> o = parse_http_options(args);
  EXPECT_TRUE(o.has_value());
  return o.value_or(HttpOptions{});
}

bool native(std::vector<std::string> args) {
  args.insert(args.begin(), "check_http");
  return parse_http_options(args).has_value();
}

std::string refusal(const std::vector<std::string>& args, std::size_t unknown = ~std::size_t{0}) {
  std::vector<ArgWord> words;
  for (std::size_t i = 0; i < args.size(); ++i) words.push_back({args[i], i != unknown});
  return check_http_refusal(words);
}

TEST(HttpOptions, PortsFollowTheOrderOfHostSslAndPort) {
  HttpOptions o = parsed({"-H", "web:8080"});
  EXPECT_EQ(*o.host_name, "web");
  EXPECT_EQ(o.server_address, "web");
  EXPECT_EQ(o.server_port, 8080);
  EXPECT_EQ(o.virtual_port, 8080);
  o = parsed({"-H", "web:8443", "-S"});  // -S without -p: 443, the Host header keeps 8443
  EXPECT_EQ(o.server_port, 443);
  EXPECT_EQ(o.virtual_port, 8443);
  o = parsed({"-S", "-H", "web:8443"});
  EXPECT_EQ(o.server_port, 8443);
  o = parsed({"-p", "81", "-S", "-H", "web:82", "-I", "10.0.0.1"});
  EXPECT_EQ(o.server_port, 81);
  EXPECT_EQ(o.virtual_port, 82);
  EXPECT_EQ(o.server_address, "10.0.0.1");
  o = parsed({"-H", "::1"});  // two colons: no port
  EXPECT_EQ(*o.host_name, "::1");
  EXPECT_EQ(o.server_port, 80);
}

TEST(HttpOptions, OperandsLegacySpellingsAndTimeouts) {
  HttpOptions o = parsed({"10.1.1.1", "-to", "3", "vhost", "-hn", "ignored-operand-order"});
  EXPECT_EQ(o.server_address, "10.1.1.1");
  EXPECT_EQ(*o.host_name, "ignored-operand-order");  // -hn is -H, which the operand does not override
  EXPECT_EQ(o.timeout_s, 3);
  o = parsed({"-I", "1.2.3.4", "-c", "12.5", "-t", "5"});
  EXPECT_EQ(o.timeout_s, 13);  // the critical threshold raises the alarm past itself
  EXPECT_FALSE(o.host_name.has_value());
  o = parsed({"-H", "h", "-P", "x=1", "-j", "PUT"});
  EXPECT_EQ(o.method, "PUT");
  o = parsed({"-H", "h", "-j", "PUT", "-P", "x=1"});
  EXPECT_EQ(o.method, "PUT");
  o = parsed({"-H", "h", "-P", "x=1"});
  EXPECT_EQ(o.method, "POST");
  o = parsed({"-H", "h", "-m", "10:20", "-f", "critical"});
  EXPECT_EQ(o.min_page_len, 10);
  EXPECT_EQ(o.max_page_len, 20);
  EXPECT_EQ(o.onredirect, 2);
}

TEST(HttpOptions, WhatRunsTheProcess) {
  EXPECT_FALSE(native({}));
  EXPECT_FALSE(native({"-p", "80"}));  // no host
  EXPECT_FALSE(native({"-H", "h", "-C", "30"}));
  EXPECT_FALSE(native({"-H", "h", "-f", "follow"}));
  EXPECT_FALSE(native({"-H", "h", "-S1.2"}));
  EXPECT_FALSE(native({"-H", "h", "--ssl=1.2"}));
  EXPECT_FALSE(native({"-H", "h", "-t", "0"}));
  EXPECT_FALSE(native({"-H", "h", "-t", "x"}));
  EXPECT_FALSE(native({"-H", "h", "-p", "70000"}));
  EXPECT_FALSE(native({"-H", "h", "-w", "5:1"}));
  EXPECT_FALSE(native({"-H", "h", "-j", "CONNECT"}));
  EXPECT_FALSE(native({"-H", "h", "-r", "("}));
  EXPECT_FALSE(native({"-H", "h", "-m", ":5"}));
  EXPECT_FALSE(native({"-I", "/run/socket"}));
  EXPECT_FALSE(native({"-H", "[::1]:80"}));
  EXPECT_TRUE(native({"-H", "h", "-S", "--sni", "-E", "-N", "-B", "--max-redirs=3", "-n"}));
  EXPECT_TRUE(native({"-H", "h", "--ssl"}));

  EXPECT_EQ(refusal({"-H", "h", "-C", "30"}), "unsupported option -C");
  EXPECT_EQ(refusal({"-H", "h", "-f", "sticky"}), "-f follows redirects");
  EXPECT_EQ(refusal({"-H", "h", "-S1.2"}), "a TLS version (-S with a value)");
  EXPECT_EQ(refusal({"-p", "80"}), "no -H or -I");
  EXPECT_EQ(refusal({"-H", "h", "$ARG1$"}, 2), "");  // the run decides
  EXPECT_EQ(refusal({"-H", "h", "-f", "$ARG1$"}, 3), "");
}

TEST(HttpRequest, HeadersInThePluginsOrder) {
  HttpOptions o = parsed({"-H", "web:8080", "-k", "X-A: 1", "-a", "user:pass"});
  EXPECT_EQ(
      http_request(o),
      "GET / HTTP/1.1\r\nUser-Agent: check_http/v2.3.3 (monitoring-plugins 2.3.3)\r\nConnection: close\r\n"
      "Host: web:8080\r\nX-A: 1\r\nAuthorization: Basic dXNlcjpwYXNz\r\n\r\n");
  o = parsed({"-I", "10.0.0.1", "-u", "/x", "-k", "Host: gone", "-A", "me"});
  EXPECT_EQ(http_request(o), "GET /x HTTP/1.0\r\nUser-Agent: me\r\nConnection: close\r\n\r\n");
  o = parsed({"-H", "web", "-S", "-k", "Host: a", "-k", "Host: b", "-P", "k=v", "-b", "p"});
  EXPECT_EQ(
      http_request(o),
      "POST / HTTP/1.1\r\nUser-Agent: check_http/v2.3.3 (monitoring-plugins 2.3.3)\r\nConnection: close\r\n"
      "Host: b\r\nHost: a\r\nProxy-Authorization: Basic cA==\r\n"
      "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\n\r\nk=v");
}

PluginRun report(const std::vector<std::string>& args, std::string page, double total = 0.0126) {
  HttpPage p;
  p.pagesize = page.size();
  p.bytes = std::move(page);
  HttpTimes t;
  t.total = total;
  return report_http(parsed(args), std::move(p), t);
}

TEST(HttpReport, StatusLinesAndStates) {
  PluginRun r = report({"-H", "h"}, "HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output,
            "HTTP OK: HTTP/1.1 200 OK - 29 bytes in 0.013 second response time "
            "|time=0.012600s;;;0.000000;10.000000 size=29B;;;0;\n");
  EXPECT_EQ(report({"-H", "h"}, "HTTP/1.1 404 Not Found\r\n\r\n").exit_code, 1);
  EXPECT_EQ(report({"-H", "h"}, "HTTP/1.1 503 Busy\r\n\r\n").exit_code, 2);
  EXPECT_EQ(report({"-H", "h", "-f", "warning"}, "HTTP/1.1 302 Found\r\n\r\n").exit_code, 1);
  EXPECT_EQ(report({"-H", "h"}, "HTTP/1.1 20 Short\r\n\r\n").output,
            "HTTP CRITICAL: Invalid Status Line (HTTP/1.1 20 Short)\n");
  EXPECT_EQ(report({"-H", "h"}, "HTTP/1.1\r\n\r\n").output,
            "HTTP CRITICAL: Invalid Status Line (HTTP/1.1)\n");
  EXPECT_EQ(report({"-H", "h"}, "HTTP/1.1 700 Far\r\n\r\n").output,
            "HTTP CRITICAL: Invalid Status (HTTP/1.1 700 Far)\n");
  EXPECT_EQ(report({"-H", "h", "-p", "81"}, "SSH-2.0-x \r\n").output,
            "HTTP CRITICAL - Invalid HTTP response received from host on port 81: SSH-2.0-x\n");
  EXPECT_EQ(report({"-H", "h"}, "nope").output,
            "HTTP CRITICAL - Invalid HTTP response received from host: nope\n");
  r = report({"-H", "h", "-e", "200", "-w", "0.01", "-c", "1"}, "HTTP/1.1 200 OK\r\n\r\n");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.output.rfind("HTTP WARNING: Status line output matched \"200\" - 19 bytes in 0.013 second", 0),
            0u)
      << r.output;
}

TEST(HttpReport, BodyChecksAndTheirMessages) {
  const std::string page = "HTTP/1.1 200 OK\r\nServer: t\r\n\r\nHello world";
  PluginRun r = report({"-H", "h", "-s", "absent", "-d", "X-Header-That-Is-Longer-Than-Thirty"}, page);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output.substr(0, r.output.find(" - 41 bytes")),
            "HTTP CRITICAL: HTTP/1.1 200 OK - header 'X-Header-That-Is-Longer-Th...' not found on "
            "'http://h:80/', string 'absent' not found on 'http://h:80/'");
  EXPECT_EQ(report({"-H", "h", "-s", "world"}, page).exit_code, 0);
  EXPECT_EQ(report({"-H", "h", "-s", "Server"}, page).exit_code, 2);  // headers are not the body
  EXPECT_EQ(report({"-H", "h", "-r", "^Hel+o"}, page).exit_code, 0);
  EXPECT_EQ(report({"-H", "h", "--invert-regex", "-r", "^Hel+o"}, page).exit_code, 2);
  r = report({"-H", "h", "-B", "-m", "100"}, page);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("page size 41 too small - 41 bytes"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("size=41B;100;0;0;\nHello world\n"), std::string::npos) << r.output;
}

TEST(HttpReport, ChunkedBodiesAndNoBodyCuts) {
  const std::string chunked =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n5\r\npedia\r\n0\r\n\r\n";
  EXPECT_EQ(report({"-H", "h", "-s", "Wikipedia"}, chunked).exit_code, 0);
  EXPECT_EQ(report({"-H", "h"}, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9\r\nshort").output,
            "HTTP UNKNOWN: Failed to unchunk message body\n");

  std::string cut = "HTTP/1.0 200 OK\nA: b\n\nLF body";
  EXPECT_TRUE(http_headers_done(cut));
  // The plugin's walk of the headers steps over the cut and finds the body after it.
  EXPECT_EQ(report({"-H", "h", "-s", "LF body"}, cut).exit_code, 0);
  std::string crlf = "HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody";
  EXPECT_TRUE(http_headers_done(crlf));
  EXPECT_EQ(report({"-H", "h", "-s", "body"}, crlf).exit_code, 2);
  std::string partial = "HTTP/1.1 200 OK\r\nA: b\r\n";
  EXPECT_FALSE(http_headers_done(partial));
}

// 200 checks in flight on one executor thread against one local server that answers each after 200 ms:
// they overlap, so they take about one answer's time, not 200 of them.
TEST(HttpRunner, ManyRequestsInFlightOnOneThread) {
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener, 512), 0);
  socklen_t len = sizeof addr;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  constexpr int k_checks = 200;
  std::thread server([listener] {
    std::vector<int> clients;
    for (int i = 0; i < k_checks; ++i) {
      const int c = ::accept(listener, nullptr, nullptr);
      if (c < 0) break;
      clients.push_back(c);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    static constexpr char k_page[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    for (const int c : clients) {
      char request[4096];
      if (::read(c, request, sizeof request) > 0) (void)!::write(c, k_page, sizeof k_page - 1);
      ::close(c);
    }
  });
  exec::ResultQueue results;
  exec::Executor executor(results, {.threads = 1});
  const std::vector<exec::CheckResult> all =
      run_native_jobs(executor, results, model::NativePlugin::check_http,
                      {"/usr/lib/nagios/plugins/check_http", "-I", "127.0.0.1", "-p",
                       std::to_string(ntohs(addr.sin_port)), "-s", "ok"},
                      k_checks, std::chrono::seconds(30));
  server.join();
  ::close(listener);
  ASSERT_EQ(all.size(), static_cast<std::size_t>(k_checks));
  for (const auto& r : all) {
    EXPECT_TRUE(r.native);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.rfind("HTTP OK: HTTP/1.1 200 OK - 40 bytes in 0.", 0), 0u) << r.output;
  }
}

}  // namespace
}  // namespace vedette::native
