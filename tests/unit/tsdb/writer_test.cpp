#include "tsdb/writer.hpp"

#include "tsdb/http_exchange.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <netinet/in.h>
#include <optional>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace vedette::tsdb {
namespace {

using namespace std::chrono_literals;

TEST(HttpExchange, PostAndResponses) {
  std::string out;
  append_http_post("db:8086", "/write?db=x", "Authorization: Token t\r\n", "a b=1 1\n", out);
  EXPECT_EQ(out,
            "POST /write?db=x HTTP/1.1\r\nHost: db:8086\r\nUser-Agent: vedette\r\n"
            "Content-Type: text/plain; charset=utf-8\r\nContent-Length: 8\r\nAuthorization: Token t\r\n\r\n"
            "a b=1 1\n");
  EXPECT_FALSE(parse_http_response("HTTP/1.1 204 No Content\r\nX: y\r\n"));
  auto r = parse_http_response("HTTP/1.1 204 No Content\r\nContent-Type: x\r\n\r\nHTTP/1.1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 204);
  EXPECT_TRUE(r->keep_alive);
  EXPECT_EQ(r->size, 44u);
  EXPECT_FALSE(parse_http_response("HTTP/1.1 400 Bad\r\nContent-Length: 5\r\n\r\nabc"));
  r = parse_http_response("HTTP/1.1 400 Bad\r\ncontent-length: 5\r\nConnection: close\r\n\r\nabcde");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(r->body, "abcde");
  EXPECT_FALSE(r->keep_alive);
  r = parse_http_response("garbage\r\n\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 0);
  out.clear();
  append_url_encoded("a b&c=d/é", out);
  EXPECT_EQ(out, "a%20b%26c%3Dd%2F%C3%A9");
}

// A TCP socket bound to a free loopback port (not listening yet); `port` is set to it.
int bound_loopback(std::uint16_t& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  port = ntohs(a.sin_port);
  return fd;
}

// A listening socket on a free loopback port that records what it is sent.
class Sink {
 public:
  Sink() {
    fd_ = bound_loopback(port_);
    ::listen(fd_, 4);
    thread_ = std::thread([this] {
      while (true) {
        const int c = ::accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        char buf[4096];
        for (ssize_t n; (n = ::read(c, buf, sizeof buf)) > 0;) {
          std::lock_guard lock(mutex_);
          received_.append(buf, static_cast<std::size_t>(n));
        }
        ::close(c);
      }
    });
  }
  ~Sink() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  std::uint16_t port() const { return port_; }
  std::string received() {
    std::lock_guard lock(mutex_);
    return received_;
  }

 private:
  int fd_ = -1;
  std::uint16_t port_ = 0;
  std::mutex mutex_;
  std::string received_;
  std::thread thread_;
};

// A port nothing listens on: bound, never listening, so connects are refused.
std::uint16_t dead_port(int& fd) {
  std::uint16_t port = 0;
  fd = bound_loopback(port);
  return port;
}

Sample sample(std::int64_t time) {
  return Sample{
      .name = "vedette.h.services.s", .host = "h", .service = "s", .perf_data = "x=1", .time = time};
}

TEST(Writer, GraphiteLinesArriveInBatches) {
  Sink sink;
  WriterOptions o;
  o.host = "127.0.0.1";
  o.port = sink.port();
  o.lines.metadata = false;
  o.flush_interval = 0ms;
  Writer writer(o);
  const loop::MonoTime now{};
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(writer.push(sample(100 + i)));
  EXPECT_EQ(writer.flush(now), "");
  ASSERT_TRUE(writer.wait_idle(5s));
  for (int i = 0; i < 100 && sink.received().size() < 3 * 33; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(sink.received(),
            "vedette.h.services.s.perfdata.x.value 1 100\n"
            "vedette.h.services.s.perfdata.x.value 1 101\n"
            "vedette.h.services.s.perfdata.x.value 1 102\n");
  EXPECT_EQ(writer.stats().samples_sent, 3u);
  EXPECT_EQ(writer.stats().connects, 1u);
}

TEST(Writer, DeadBackendDropsWithACountAndOneReport) {
  int fd = -1;
  std::mutex mutex;
  std::vector<std::string> events;
  WriterOptions o;
  o.host = "127.0.0.1";
  o.port = dead_port(fd);
  o.max_queued_bytes = 64 * 1024;
  o.backoff_first = 50ms;
  o.backoff_limit = 200ms;
  o.on_event = [&](std::string line) {
    std::lock_guard lock(mutex);
    events.push_back(std::move(line));
  };
  {
    Writer writer(o);
    loop::MonoTime now{std::chrono::hours(1)};
    std::size_t accepted = 0;
    for (int i = 0; i < 5000; ++i) accepted += writer.push(sample(i)) ? 1 : 0;
    EXPECT_LT(accepted, 5000u);
    EXPECT_EQ(writer.stats().samples_dropped, 5000 - accepted);
    const std::string first = writer.flush(now);
    EXPECT_NE(first.find("Warning: graphite writer: dropped"), std::string::npos) << first;
    for (int i = 0; i < 10; ++i) writer.push(sample(i));
    EXPECT_EQ(writer.flush(now + 1s), "");  // at most once a minute
    EXPECT_NE(writer.flush(now + 61s), "");
    std::this_thread::sleep_for(300ms);
  }
  ::close(fd);
  std::lock_guard lock(mutex);
  ASSERT_GE(events.size(), 2u);
  EXPECT_NE(events.front().find("Warning: graphite writer: cannot send to 127.0.0.1:"), std::string::npos)
      << events.front();
  EXPECT_NE(events.back().find("were not sent before shutdown"), std::string::npos) << events.back();
  EXPECT_EQ(events.size(), 2u);  // one failure report for the whole episode
}

// An InfluxDB that takes the request and never answers, with a timeout far beyond the grace: stopping
// takes stop_grace, not the timeout, and the batch in flight counts as lost.
TEST(Writer, StoppingCancelsAnExchangeTheBackendNeverAnswers) {
  std::uint16_t port = 0;
  const int listener = bound_loopback(port);
  ::listen(listener, 4);  // the kernel accepts; nobody reads or answers
  std::mutex mutex;
  std::vector<std::string> events;
  WriterOptions o;
  o.protocol = Protocol::influxdb;
  o.host = "127.0.0.1";
  o.port = port;
  o.http_target = "/write?db=perf";
  o.flush_interval = 0ms;
  o.timeout = 60s;
  o.stop_grace = 200ms;
  o.on_event = [&](std::string line) {
    std::lock_guard lock(mutex);
    events.push_back(std::move(line));
  };
  std::optional<Writer> writer(std::in_place, o);
  writer->push(sample(100));
  EXPECT_EQ(writer->flush(loop::MonoTime{}), "");
  EXPECT_FALSE(writer->wait_idle(300ms));  // sent, waiting for the answer
  const auto start = std::chrono::steady_clock::now();
  writer.reset();
  const auto stopping = std::chrono::steady_clock::now() - start;
  ::close(listener);
  EXPECT_GE(stopping, 200ms);
  EXPECT_LT(stopping, 5s);
  std::lock_guard lock(mutex);
  ASSERT_FALSE(events.empty());
  EXPECT_NE(events.back().find("1 performance data samples were not sent before shutdown"), std::string::npos)
      << events.back();
}

}  // namespace
}  // namespace vedette::tsdb
