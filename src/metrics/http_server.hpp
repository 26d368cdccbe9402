// The metrics endpoint: one thread ("metrics") with its own poll() over a TCP listener and a few clients,
// answering `GET /metrics` with what `render` returns (Prometheus' text format), 404 for any other path and
// 405 for any other method. It never touches the core thread: `render` runs on this thread and reads only
// what other threads publish (core_metrics.hpp).
//
//   auto server = MetricsServer::start("127.0.0.1:9645", [] { return render_core_metrics(); });
//   if (!server) fail(server.error());  // ~MetricsServer stops the thread and closes every socket
#pragma once

#include "base/expected.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace vedette::metrics {

// What a client may hold of the daemon: a hostile or stuck one is closed, never waited for.
struct ServerLimits {
  std::size_t max_clients = 16;             // one more: the oldest still sending its request is closed for it
  std::size_t max_request = 8192;           // bytes of request line and headers; more: 431 and close
  std::chrono::milliseconds timeout{5000};  // from accept to the last byte of the answer
};

class MetricsServer {
 public:
  using Render = std::function<std::string()>;

  // Listens on `host_port` and starts the thread, or says why it cannot listen.
  [[nodiscard]] static base::Expected<std::unique_ptr<MetricsServer>> start(const std::string& host_port,
                                                                            Render render,
                                                                            ServerLimits limits = {});
  ~MetricsServer();  // stops and joins the thread, closes the sockets
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // The port listened on (useful with port 0).
  [[nodiscard]] std::uint16_t port() const { return port_; }

 private:
  MetricsServer(int listen_fd, int wake_fd, Render render, ServerLimits limits);
  void run();

  int listen_fd_;
  int wake_fd_;  // an eventfd: the destructor's stop
  std::uint16_t port_ = 0;
  Render render_;
  ServerLimits limits_;
  std::thread thread_;
};

// The answer to one complete request head (request line and headers): status line, headers and body. Pure,
// for the tests: `render` is called only for GET or HEAD /metrics (a HEAD answer has no body).
[[nodiscard]] std::string http_response(std::string_view request_head, const MetricsServer::Render& render);

// A warning (without "Warning: ") when `host_port` is reachable from other hosts (any address but a
// loopback one), which may then read every figure of the core without authentication.
[[nodiscard]] std::optional<std::string> exposure_warning(const std::string& host_port);

// The metrics of core_metrics() and the threads' CPU, as served.
[[nodiscard]] std::string render_core_metrics();

}  // namespace vedette::metrics
