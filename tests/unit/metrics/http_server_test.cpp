#include "metrics/http_server.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <chrono>
#include <netinet/in.h>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace vedette::metrics {
namespace {

using namespace std::chrono_literals;

std::string body_of(const std::string& response) {
  const std::size_t end = response.find("\r\n\r\n");
  return end == std::string::npos ? std::string() : response.substr(end + 4);
}

const MetricsServer::Render k_render = [] { return std::string("up 1\n"); };

TEST(HttpResponseTest, GetMetricsIsTheExpositionWithItsContentType) {
  const std::string r = http_response("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", k_render);
  EXPECT_EQ(r.rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
  EXPECT_NE(r.find("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"), std::string::npos);
  EXPECT_NE(r.find("Content-Length: 5\r\n"), std::string::npos);
  EXPECT_EQ(body_of(r), "up 1\n");
  EXPECT_EQ(body_of(http_response("GET /metrics?x=1 HTTP/1.0\n\n", k_render)), "up 1\n");
}

TEST(HttpResponseTest, HeadHasNoBodyOtherPathsAre404OtherMethods405) {
  const std::string head = http_response("HEAD /metrics HTTP/1.1\r\n\r\n", k_render);
  EXPECT_EQ(head.rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
  EXPECT_NE(head.find("Content-Length: 5\r\n"), std::string::npos);
  EXPECT_EQ(body_of(head), "");
  int rendered = 0;
  const MetricsServer::Render counting = [&rendered] {
    ++rendered;
    return std::string();
  };
  EXPECT_EQ(http_response("GET / HTTP/1.1\r\n\r\n", counting).rfind("HTTP/1.1 404 ", 0), 0u);
  EXPECT_EQ(http_response("GET /metricsx HTTP/1.1\r\n\r\n", counting).rfind("HTTP/1.1 404 ", 0), 0u);
  const std::string post = http_response("POST /metrics HTTP/1.1\r\n\r\n", counting);
  EXPECT_EQ(post.rfind("HTTP/1.1 405 ", 0), 0u);
  EXPECT_NE(post.find("Allow: GET, HEAD\r\n"), std::string::npos);
  EXPECT_EQ(http_response("garbage\r\n\r\n", counting).rfind("HTTP/1.1 400 ", 0), 0u);
  EXPECT_EQ(http_response("GET /metrics FTP/1\r\n\r\n", counting).rfind("HTTP/1.1 400 ", 0), 0u);
  EXPECT_EQ(rendered, 0);
}

TEST(ExposureWarningTest, OnlyForListenersOtherHostsCanReach) {
  EXPECT_FALSE(exposure_warning(""));
  EXPECT_FALSE(exposure_warning("127.0.0.1:9645"));
  EXPECT_FALSE(exposure_warning("127.1.2.3:9645"));
  EXPECT_FALSE(exposure_warning("[::1]:9645"));
  EXPECT_FALSE(exposure_warning("localhost:9645"));
  EXPECT_TRUE(exposure_warning("0.0.0.0:9645"));
  EXPECT_TRUE(exposure_warning("192.0.2.1:9645"));
  ASSERT_TRUE(exposure_warning(":9645"));
  EXPECT_NE(exposure_warning(":9645")->find("(every address)"), std::string::npos);
}

// A client of the real server on 127.0.0.1.
class MetricsServerTest : public ::testing::Test {
 protected:
  void start(ServerLimits limits) {
    auto started = MetricsServer::start("127.0.0.1:0", k_render, limits);
    ASSERT_TRUE(started) << started.error();
    server_ = std::move(*started);
    ASSERT_NE(server_->port(), 0);
  }
  int connect_client() const {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(server_->port());
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
    return fd;
  }
  // Everything until the server closes, or what came within `wait`.
  static std::string read_all(int fd, std::chrono::milliseconds wait = 3000ms) {
    std::string out;
    char buffer[4096];
    while (true) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0) break;
      const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      if (n <= 0) break;
      out.append(buffer, static_cast<std::size_t>(n));
    }
    return out;
  }
  static bool closed_by_server(int fd, std::chrono::milliseconds wait) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0) return false;
    char c;
    return ::recv(fd, &c, 1, 0) <= 0;
  }

  std::unique_ptr<MetricsServer> server_;
};

TEST_F(MetricsServerTest, AnswersARequestSentInPiecesAndCloses) {
  start({});
  const int fd = connect_client();
  ASSERT_GT(::send(fd, "GET /met", 8, 0), 0);
  ASSERT_GT(::send(fd, "rics HTTP/1.1\r\n\r\n", 17, 0), 0);
  const std::string response = read_all(fd);
  ::close(fd);
  EXPECT_EQ(response.rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
  EXPECT_EQ(body_of(response), "up 1\n");
}

TEST_F(MetricsServerTest, AnOversizedRequestGets431) {
  start({.max_request = 100});
  const int fd = connect_client();
  const std::string junk(400, 'x');
  ASSERT_GT(::send(fd, junk.data(), junk.size(), MSG_NOSIGNAL), 0);
  const std::string response = read_all(fd);
  ::close(fd);
  EXPECT_EQ(response.rfind("HTTP/1.1 431 ", 0), 0u);
}

TEST_F(MetricsServerTest, SilentClientsAreClosedAtTheTimeoutOrWhenANewOneNeedsTheirPlace) {
  start({.max_clients = 2, .timeout = 500ms});
  const int a = connect_client(), b = connect_client();
  ASSERT_GT(::send(a, "G", 1, 0), 0);
  ::usleep(50'000);  // a and b are in before c
  ASSERT_GT(::send(b, "G", 1, 0), 0);
  ::usleep(50'000);
  const int c = connect_client();
  EXPECT_TRUE(closed_by_server(a, 1000ms));  // the oldest made room for c
  ASSERT_GT(::send(c, "GET /metrics HTTP/1.1\r\n\r\n", 25, 0), 0);
  EXPECT_EQ(body_of(read_all(c)), "up 1\n");  // served while b still holds its place
  EXPECT_TRUE(closed_by_server(b, 2000ms));   // the timeout
  ::close(a);
  ::close(b);
  ::close(c);
}

TEST_F(MetricsServerTest, ListeningOnABusyPortIsAnErrorNamingIt) {
  start({});
  const std::string where = "127.0.0.1:" + std::to_string(server_->port());
  const auto busy = MetricsServer::start(where, k_render);
  ASSERT_FALSE(busy);
  EXPECT_NE(busy.error().find("metrics: cannot listen on " + where), std::string::npos) << busy.error();
}

}  // namespace
}  // namespace vedette::metrics
