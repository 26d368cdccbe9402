#include "native/http_runner.hpp"

#include "loop/epoll.hpp"
#include "loop/raw_time.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <optional>
#include <sys/socket.h>
#include <unistd.h>

namespace vedette::native {
namespace {

constexpr auto& mono_ns = loop::raw_mono_ns;
constexpr auto& wall_us = loop::raw_wall_us;

// check_http reads MAX_INPUT_BUFFER - 1 bytes at a time; -N looks for the end of the headers after each read.
constexpr std::size_t k_read_size = 8192 - 1;

// deltime(): whole microseconds, in seconds.
double seconds_between(std::int64_t from_ns, std::int64_t to_ns) {
  return static_cast<double>((to_ns - from_ns) / 1000) / 1.0e6;
}

// ERR_print_errors_fp(stdout)'s lines, from this thread's OpenSSL error queue (emptied).
std::string tls_errors() {
  std::string out;
  ::ERR_print_errors_cb(
      [](const char* text, std::size_t len, void* into) {
        static_cast<std::string*>(into)->append(text, len);
        return 1;
      },
      &out);
  return out;
}

}  // namespace

struct HttpRunner::Probe : ConnectingProbe<HttpOptions> {
  std::string request;
  std::size_t sent = 0;
  SSL* ssl = nullptr;
  enum class Phase : std::uint8_t {
    resolving,
    connecting,
    handshaking,
    sending,
    receiving
  } phase = Phase::resolving;
  HttpPage page;
  std::int64_t phase_ns = 0;  // when the phase being timed began
  HttpTimes times;
  bool got_first_byte = false;

  void close_connection() {
    if (ssl != nullptr) ::SSL_free(ssl);  // no close_notify: the plugin closes the socket before its shutdown
    ssl = nullptr;
    close_socket();
  }
};

HttpRunner::HttpRunner(loop::Epoll& epoll, std::uint64_t stream_tag, Resolver& resolver,
                       std::vector<NativeDone>& finished)
    : epoll_(epoll),
      stream_tag_(stream_tag),
      resolver_(resolver, epoll, (static_cast<std::uint64_t>(k_inbox_slot) << 2) | stream_tag),
      finished_(finished) {}

HttpRunner::~HttpRunner() {
  abort_all();
  if (tls_ != nullptr) ::SSL_CTX_free(tls_);
}

std::uint64_t HttpRunner::token_of(std::uint32_t slot) const {
  return (static_cast<std::uint64_t>(slots_[slot].serial) << 32) |
         (static_cast<std::uint64_t>(k_slot_base + slot) << 2) | stream_tag_;
}

// np_net_ssl_init: auto-negotiated version, no session tickets, no verification.
SSL_CTX* HttpRunner::tls_context() {
  if (tls_ != nullptr || tls_failed_) return tls_;
  tls_ = ::SSL_CTX_new(::TLS_client_method());
  if (tls_ == nullptr) {
    tls_failed_ = true;
    ::ERR_clear_error();
    return nullptr;
  }
  ::SSL_CTX_set_options(tls_, SSL_OP_NO_SSLv2 | SSL_OP_NO_TICKET);
  ::SSL_CTX_set_mode(tls_, SSL_MODE_AUTO_RETRY);
  return tls_;
}

bool HttpRunner::start(std::span<const std::string> argv, std::int64_t kill_at_ns, std::uint64_t ticket) {
  std::optional<HttpOptions> options = parse_http_options(argv);
  if (!options) return false;
  std::string request = http_request(*options);  // before the clock starts, as it always was
  const StartedProbe started = start_probe(slots_, resolver_, ticket, std::move(*options), kill_at_ns,
                                           &HttpOptions::server_address, &HttpOptions::server_port);
  slots_[started.slot].request = std::move(request);
  if (started.resolved) connect(started.slot);
  return true;
}

void HttpRunner::take_answers() {
  take_resolved(
      resolver_, slots_, [&](std::uint32_t slot) { connect(slot); },
      [&](std::uint32_t slot, int error) { finish(slot, report_http_unresolved(error)); });
}

void HttpRunner::watch(std::uint32_t slot, std::uint32_t events) {
  slots_[slot].watch(epoll_, events, token_of(slot));
}

void HttpRunner::connect(std::uint32_t slot) {
  Probe& p = slots_[slot];
  p.phase = Probe::Phase::connecting;
  on_connect_step(slot, p.begin_connect());
}

void HttpRunner::on_connect_step(std::uint32_t slot, ConnectStep step) {
  Probe& p = slots_[slot];
  switch (step) {
    case ConnectStep::connected:
      return on_connected(slot);
    case ConnectStep::in_progress:
      return watch(slot, loop::Epoll::writable);
    case ConnectStep::no_socket:
      return finish(slot, report_http_no_socket());
    case ConnectStep::failed:
      return finish(slot, report_http_connect_failure(p.options, p.last_error));
  }
}

void HttpRunner::on_connected(std::uint32_t slot) {
  Probe& p = slots_[slot];
  const std::int64_t now = mono_ns();
  p.times.connect = seconds_between(p.clock.started_ns, now);  // the plugin's connect includes the lookup
  p.phase_ns = now;
  if (!p.options.use_ssl) {
    p.phase = Probe::Phase::sending;
    return send_request(slot);
  }
  SSL_CTX* context = tls_context();
  if (context == nullptr) {
    PluginRun run;
    run.exit_code = k_state_critical;
    run.output = "CRITICAL - Cannot create SSL context.\n";
    return finish(slot, std::move(run));
  }
  ::ERR_clear_error();
  p.ssl = ::SSL_new(context);
  if (p.ssl == nullptr) {
    PluginRun run;
    run.exit_code = k_state_critical;
    run.output = "CRITICAL - Cannot initiate SSL handshake.\n";
    ::ERR_clear_error();
    return finish(slot, std::move(run));
  }
  if (p.options.use_sni && p.options.host_name)
    ::SSL_set_tlsext_host_name(p.ssl, p.options.host_name->c_str());
  ::SSL_set_fd(p.ssl, p.fd);
  p.phase = Probe::Phase::handshaking;
  handshake(slot);
}

void HttpRunner::handshake(std::uint32_t slot) {
  Probe& p = slots_[slot];
  ::ERR_clear_error();
  const int rc = ::SSL_connect(p.ssl);
  if (rc == 1) {
    const std::int64_t now = mono_ns();
    p.times.ssl = seconds_between(p.phase_ns, now);
    p.phase = Probe::Phase::sending;
    return send_request(slot);
  }
  const int error = ::SSL_get_error(p.ssl, rc);
  if (error == SSL_ERROR_WANT_READ) return watch(slot, loop::Epoll::readable);
  if (error == SSL_ERROR_WANT_WRITE) return watch(slot, loop::Epoll::writable);
  finish(slot, report_http_tls_failure(tls_errors()));
}

// The plugin sends once and ignores the outcome: a failed send shows in the read that follows.
void HttpRunner::send_request(std::uint32_t slot) {
  Probe& p = slots_[slot];
  if (p.sent == 0) p.phase_ns = mono_ns();
  while (p.sent < p.request.size()) {
    const char* data = p.request.data() + p.sent;
    const std::size_t left = p.request.size() - p.sent;
    if (p.ssl != nullptr) {
      ::ERR_clear_error();
      const int n = ::SSL_write(p.ssl, data, static_cast<int>(left));
      if (n > 0) {
        p.sent += static_cast<std::size_t>(n);
        continue;
      }
      const int error = ::SSL_get_error(p.ssl, n);
      if (error == SSL_ERROR_WANT_WRITE) return watch(slot, loop::Epoll::writable);
      if (error == SSL_ERROR_WANT_READ) return watch(slot, loop::Epoll::readable);
      ::ERR_clear_error();
      break;
    }
    const ssize_t n = ::send(p.fd, data, left, MSG_NOSIGNAL);
    if (n > 0) {
      p.sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return watch(slot, loop::Epoll::writable);
    break;
  }
  const std::int64_t now = mono_ns();
  p.times.headers = seconds_between(p.phase_ns, now);
  p.phase_ns = now;
  p.phase = Probe::Phase::receiving;
  receive(slot);
}

void HttpRunner::receive(std::uint32_t slot) {
  Probe& p = slots_[slot];
  char buffer[k_read_size];
  while (true) {
    ssize_t n;
    if (p.ssl != nullptr) {
      ::ERR_clear_error();
      const int rc = ::SSL_read(p.ssl, buffer, static_cast<int>(sizeof buffer));
      if (rc <= 0) {
        const int error = ::SSL_get_error(p.ssl, rc);
        const int saved_errno = errno;
        ::ERR_clear_error();
        if (rc < 0 && error == SSL_ERROR_WANT_READ) return watch(slot, loop::Epoll::readable);
        if (rc < 0 && error == SSL_ERROR_WANT_WRITE) return watch(slot, loop::Epoll::writable);
        // The plugin's test: 0 (a close, with or without close_notify) ends the page, as does a reset.
        if (rc == 0 || (error == SSL_ERROR_SYSCALL && saved_errno == ECONNRESET)) return end_receiving(slot);
        return finish(slot, report_http_receive_error());
      }
      n = rc;
    } else {
      n = ::read(p.fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) return watch(slot, loop::Epoll::readable);
      if (n == 0 || (n < 0 && errno == ECONNRESET)) return end_receiving(slot);
      if (n < 0) return finish(slot, report_http_receive_error());
    }
    if (!p.got_first_byte) {
      p.got_first_byte = true;
      p.times.firstbyte = seconds_between(p.phase_ns, mono_ns());
    }
    const auto got = static_cast<std::size_t>(n);
    std::replace(buffer, buffer + got, '\0', ' ');
    const std::size_t room = k_kept_bytes - std::min(k_kept_bytes, p.page.bytes.size());
    p.page.bytes.append(buffer, std::min(got, room));
    p.page.pagesize += got;
    if (p.options.no_body && http_headers_done(p.page.bytes)) return end_receiving(slot);
  }
}

void HttpRunner::end_receiving(std::uint32_t slot) {
  Probe& p = slots_[slot];
  const std::int64_t now = mono_ns();
  p.times.transfer = seconds_between(p.phase_ns, now);
  p.close_connection();
  if (p.page.pagesize == 0) return finish(slot, report_http_no_data());
  p.times.total = seconds_between(p.clock.started_ns, mono_ns());
  finish(slot, report_http(p.options, std::move(p.page), p.times));
}

void HttpRunner::on_event(std::uint64_t token, std::uint32_t events) {
  const auto epoll_slot = static_cast<std::uint32_t>((token & 0xffffffffu) >> 2);
  if (epoll_slot == k_inbox_slot) return take_answers();
  const std::uint32_t slot = epoll_slot - k_slot_base;
  if (!slots_.current(slot, static_cast<std::uint32_t>(token >> 32))) return;
  Probe& p = slots_[slot];
  if (p.fd < 0) return;
  switch (p.phase) {
    case Probe::Phase::resolving:
      return;
    case Probe::Phase::connecting:
      return on_connect_step(slot, p.on_connect_event(events));
    case Probe::Phase::handshaking:
      return handshake(slot);
    case Probe::Phase::sending:
      return send_request(slot);
    case Probe::Phase::receiving:
      return receive(slot);
  }
}

std::int64_t HttpRunner::next_deadline_ns() {
  return slots_.next_deadline_ns();
}

void HttpRunner::expire(std::int64_t now_ns) {
  slots_.expire(now_ns, [&](std::uint32_t slot) {
    Probe& p = slots_[slot];
    if (p.clock.killed_at(now_ns))
      finish(slot, {}, /*killed=*/true);
    else if (p.clock.alarm_at(now_ns))
      finish(slot, report_http_timeout(p.options));
  });
}

void HttpRunner::finish(std::uint32_t slot, PluginRun&& run, bool killed) {
  Probe& p = slots_[slot];
  p.close_connection();
  finished_.push_back({p.ticket, std::move(run), killed, p.clock.start_us, wall_us()});
  p.page = {};
  p.request = {};
  p.addresses.clear();
  slots_.release(slot);
}

void HttpRunner::abort_all() {
  slots_.release_all([](Probe& p) { p.close_connection(); });
  resolver_.unwatch();
}

}  // namespace vedette::native
