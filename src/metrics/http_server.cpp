#include "metrics/http_server.hpp"

#include "base/check.hpp"
#include "loop/tcp_listen.hpp"
#include "loop/thread_name.hpp"
#include "metrics/core_metrics.hpp"
#include "metrics/process_metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace vedette::metrics {

namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr std::string_view k_content_type = "text/plain; version=0.0.4; charset=utf-8";

std::string respond(std::string_view status, std::string_view content_type, std::string_view extra_headers,
                    std::string_view body, bool with_body = true) {
  std::string out =
      fmt::format("HTTP/1.1 {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n{}Connection: close\r\n\r\n",
                  status, content_type, body.size(), extra_headers);
  if (with_body) out += body;
  return out;
}

// Where a request head ends (after its empty line), or npos while incomplete. Bare "\n\n" is taken too.
std::size_t head_end(std::string_view buffer) {
  const std::size_t crlf = buffer.find("\r\n\r\n");
  const std::size_t lf = buffer.find("\n\n");
  if (crlf == std::string_view::npos && lf == std::string_view::npos) return std::string_view::npos;
  if (crlf == std::string_view::npos) return lf + 2;
  if (lf == std::string_view::npos) return crlf + 4;
  return std::min(crlf + 4, lf + 2);
}

struct Client {
  int fd = -1;
  SteadyClock::time_point deadline;
  std::string in;
  std::string out;
  std::size_t written = 0;
  bool answered = false;  // `out` holds the whole answer; nothing more is read
};

}  // namespace

std::string http_response(std::string_view head, const MetricsServer::Render& render) {
  const std::string_view line = head.substr(0, head.find_first_of("\r\n"));
  const std::size_t sp1 = line.find(' ');
  const std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp1 == std::string_view::npos || sp2 == std::string_view::npos ||
      line.substr(sp2 + 1).substr(0, 5) != "HTTP/")
    return respond("400 Bad Request", "text/plain; charset=utf-8", "", "bad request\n");
  const std::string_view method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  target = target.substr(0, target.find('?'));
  if (target != "/metrics") return respond("404 Not Found", "text/plain; charset=utf-8", "", "not found\n");
  if (method != "GET" && method != "HEAD")
    return respond("405 Method Not Allowed", "text/plain; charset=utf-8", "Allow: GET, HEAD\r\n",
                   "method not allowed\n");
  return respond("200 OK", k_content_type, "", render(), method == "GET");
}

std::optional<std::string> exposure_warning(const std::string& host_port) {
  const std::string host = loop::listen_host(host_port);
  if (host_port.empty() || loop::is_loopback_host(host)) return std::nullopt;
  return fmt::format(
      "metrics_listen={} listens where other hosts can reach it{}: the metrics endpoint has no "
      "authentication, and every client may read the core's figures and thread names",
      host_port, host.empty() ? " (every address)" : "");
}

std::string render_core_metrics() {
  Exposition out;
  const std::vector<ThreadCpu> threads = read_thread_cpu();
  write_core_metrics(core_metrics(), threads, out);
  if (const std::optional<ProcessStats> process = read_process_stats()) write_process_metrics(*process, out);
  write_build_info(VEDETTE_VERSION, out);
  return out.text();
}

base::Expected<std::unique_ptr<MetricsServer>> MetricsServer::start(const std::string& host_port,
                                                                    Render render, ServerLimits limits) {
  const base::Expected<int> listening = loop::listen_tcp(host_port, 16);
  if (!listening) return base::Error{"metrics: " + listening.error()};
  const int fd = *listening;
  const int wake = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake < 0) {
    base::Error error{fmt::format("metrics: cannot create an eventfd: {}", std::strerror(errno))};
    ::close(fd);
    return error;
  }
  std::unique_ptr<MetricsServer> server(new MetricsServer(fd, wake, std::move(render), limits));
  server->thread_ = base::start_thread([s = server.get()] { s->run(); });
  return server;
}

MetricsServer::MetricsServer(int listen_fd, int wake_fd, Render render, ServerLimits limits)
    : listen_fd_(listen_fd), wake_fd_(wake_fd), render_(std::move(render)), limits_(limits) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    if (addr.ss_family == AF_INET) port_ = ntohs(reinterpret_cast<const sockaddr_in*>(&addr)->sin_port);
    if (addr.ss_family == AF_INET6) port_ = ntohs(reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_port);
  }
}

MetricsServer::~MetricsServer() {
  const std::uint64_t one = 1;
  (void)!::write(wake_fd_, &one, sizeof one);
  if (thread_.joinable()) thread_.join();
  ::close(listen_fd_);
  ::close(wake_fd_);
}

void MetricsServer::run() {
  loop::set_current_thread_name("metrics");
  std::vector<Client> clients;
  std::vector<pollfd> fds;
  SteadyClock::time_point accept_paused_until{};
  while (true) {
    const SteadyClock::time_point now = SteadyClock::now();
    // Clients past their time are closed before anything else, whatever they were doing.
    std::erase_if(clients, [&](Client& c) {
      if (c.deadline > now) return false;
      ::close(c.fd);
      return true;
    });
    fds.clear();
    fds.push_back({wake_fd_, POLLIN, 0});
    // accept4 failing for want of fds or memory leaves the listener readable: not watched for a while.
    fds.push_back({listen_fd_, static_cast<short>(now < accept_paused_until ? 0 : POLLIN), 0});
    int timeout_ms =
        now < accept_paused_until
            ? static_cast<int>(
                  std::chrono::ceil<std::chrono::milliseconds>(accept_paused_until - now).count())
            : -1;
    for (const Client& c : clients) {
      fds.push_back({c.fd, static_cast<short>(c.answered ? POLLOUT : POLLIN), 0});
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(c.deadline - now).count();
      timeout_ms = timeout_ms < 0 ? static_cast<int>(left) : std::min(timeout_ms, static_cast<int>(left));
    }
    if (::poll(fds.data(), fds.size(), timeout_ms) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[0].revents != 0) return;
    // Clients first: accepting may add to `clients`, whose indexes match fds[2…] only until then.
    for (std::size_t i = 0; i < clients.size(); ++i) {
      Client& c = clients[i];
      const short revents = fds[i + 2].revents;
      if (revents == 0) continue;
      bool close_it = (revents & (POLLERR | POLLNVAL)) != 0;
      if (!close_it && !c.answered) {
        char buffer[4096];
        const ssize_t n = ::recv(c.fd, buffer, sizeof buffer, 0);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) close_it = true;
        if (n > 0) c.in.append(buffer, static_cast<std::size_t>(n));
        if (const std::size_t end = head_end(c.in); end != std::string::npos && !close_it) {
          c.out = http_response(std::string_view(c.in).substr(0, end), render_);
          c.answered = true;
        } else if (c.in.size() > limits_.max_request && !close_it) {
          c.out = respond("431 Request Header Fields Too Large", "text/plain; charset=utf-8", "",
                          "request too large\n");
          c.answered = true;
        }
        if (c.answered) std::string().swap(c.in);
      }
      if (!close_it && c.answered) {
        const ssize_t n = ::send(c.fd, c.out.data() + c.written, c.out.size() - c.written, MSG_NOSIGNAL);
        if (n > 0) c.written += static_cast<std::size_t>(n);
        if ((n < 0 && errno != EAGAIN && errno != EINTR) || c.written == c.out.size()) close_it = true;
      }
      if (close_it) {
        ::close(c.fd);
        c.fd = -1;
      }
    }
    std::erase_if(clients, [](const Client& c) { return c.fd < 0; });
    if (fds[1].revents & POLLIN) {
      // A few per round, so a flood of connections cannot keep the clients already in from being served.
      for (int k = 0; k < 16; ++k) {
        const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
          if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
            accept_paused_until = SteadyClock::now() + std::chrono::milliseconds(100);
          break;
        }
        if (clients.size() >= limits_.max_clients) {
          // Full: the oldest client still sending its request makes room (a scrape takes milliseconds, so
          // whoever has held a slot longest is the likeliest to be stuck or hostile); with none, the
          // newcomer.
          const auto oldest =
              std::find_if(clients.begin(), clients.end(), [](const Client& c) { return !c.answered; });
          if (oldest == clients.end()) {
            ::close(fd);
            continue;
          }
          ::close(oldest->fd);
          clients.erase(oldest);
        }
        Client& c = clients.emplace_back();
        c.fd = fd;
        c.deadline = SteadyClock::now() + limits_.timeout;
      }
    }
  }
}

}  // namespace vedette::metrics
