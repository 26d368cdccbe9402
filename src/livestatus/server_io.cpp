// The Livestatus server's I/O thread ("livestatus", Server::Impl in server_internal.hpp): one epoll over the
// listeners and every connection. It accepts (within max_connections, pausing when out of fds), reads
// until a request is complete and hands it to the query threads (server_queries.cpp), writes their
// answers without blocking on a slow reader (an answer in pieces goes back to them for its next piece once
// the client has read the last one), and closes connections idle, stuck or holding too much
// (idle_timeout, query_timeout, max_pending_bytes). It never parses a request or runs a query.
#include "livestatus/server_internal.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/socket.h>
#include <unistd.h>

namespace vedette::livestatus {

namespace {

constexpr std::size_t k_read_chunk = 64u << 10;
// A request is a few header lines; one this large is an attack or a runaway client.
constexpr std::size_t k_max_request = 16u << 20;
// accept4 failing for want of fds or memory leaves the listener readable: it is not watched for this long.
constexpr std::chrono::milliseconds k_accept_pause{100};

}  // namespace

void Server::Impl::watch(int fd, std::uint32_t events, std::uint64_t tag) {
  (void)epoll_->add(fd, events, tag);
}

// What the I/O thread waits for on a connection. While a query runs for it: only a hang-up
// (Epoll::hang_up/error, always reported), edge-triggered, so that a client which closed just its sending
// side, as unixcat does, is not reported again and again.
void Server::Impl::interest(Connection& c, std::uint64_t id, std::uint32_t events) {
  (void)(c.watched ? epoll_->modify(c.fd, events, id) : epoll_->add(c.fd, events, id));
  c.watched = true;
}

void Server::Impl::watch_listeners() {
  for (std::size_t i = 0; i < listeners_.size(); ++i)
    watch(listeners_[i].fd, loop::Epoll::readable, k_listener_tag | i);
}

void Server::Impl::io_loop() {
  std::vector<loop::Epoll::Event> events(256);
  SteadyClock::time_point last_sweep = SteadyClock::now();
  while (!stopping_.load(std::memory_order_relaxed)) {
    std::int64_t timeout_ns = connections_.empty() ? -1 : 1'000'000'000;
    if (accepts_paused_) timeout_ns = std::chrono::nanoseconds(k_accept_pause).count();
    const int n = epoll_->wait(events, timeout_ns);
    if (n < 0 && errno != EINTR) break;
    for (int i = 0; i < n; ++i) {
      const std::uint64_t tag = events[static_cast<std::size_t>(i)].token;
      const std::uint32_t what = events[static_cast<std::size_t>(i)].events;
      if (tag == k_wake_tag) {
        std::uint64_t count = 0;
        (void)!::read(wake_, &count, sizeof count);
        take_answers();
      } else if ((tag & k_listener_tag) != 0) {
        accept_all(listeners_[tag & ~k_listener_tag]);
      } else {
        on_connection(tag, what);
      }
    }
    const SteadyClock::time_point now = SteadyClock::now();
    if (pending_bytes_ > options_.max_pending_bytes) shed_pending(now);
    if (accepts_paused_ && now >= accepts_resume_) {
      accepts_paused_ = false;
      watch_listeners();
    }
    if (now - last_sweep >= std::chrono::seconds(1)) {
      sweep(now);
      last_sweep = now;
    }
  }
}

void Server::Impl::accept_all(const Listener& listener) {
  for (;;) {
    const int fd = ::accept4(listener.fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) pause_accepts(errno);
      return;
    }
    if (connections_.size() >= options_.max_connections) {
      ::close(fd);  // at once, rather than leave the client hanging in the backlog
      refused_log_.post(SteadyClock::now(),
                        fmt::format("Livestatus: refused a connection: {} are open (max_connections={})",
                                    connections_.size(), options_.max_connections));
      continue;
    }
    const std::uint64_t id = ++next_id_;
    Connection& c = connections_[id];
    c.fd = fd;
    c.tcp = listener.tcp;
    c.since = SteadyClock::now();
    c.held = MemoryBudget::Share(budget_);
    interest(c, id, loop::Epoll::readable | loop::Epoll::read_hang_up);
    counters.connections.fetch_add(1, std::memory_order_relaxed);
    counters.active_connections.fetch_add(1, std::memory_order_relaxed);
  }
}

// Out of fds (EMFILE, ENFILE) or memory: the listeners stay readable, and accepting again at once would
// spin. They are left unwatched for k_accept_pause (the clients wait in the backlog), then watched again.
void Server::Impl::pause_accepts(int error) {
  for (const Listener& l : listeners_) (void)epoll_->remove(l.fd);
  accepts_paused_ = true;
  const SteadyClock::time_point now = SteadyClock::now();
  accepts_resume_ = now + k_accept_pause;
  accept_log_.post(now, fmt::format("Livestatus: cannot accept connections ({} open): {}; pausing for {} ms",
                                    connections_.size(), std::strerror(error), k_accept_pause.count()));
}

// Keeps pending_bytes_, and the connection's share of the budget, what every connection holds for its
// answer (or its piece of it) and its unfinished requests: the buffers' capacity, their memory.
void Server::Impl::account(Connection& c) {
  std::size_t now = c.in.capacity();
  for (const std::string& piece : c.out) now += piece.capacity();
  pending_bytes_ = pending_bytes_ - c.pending + now;
  c.pending = now;
  c.held.resize(now);
}

// Over max_pending_bytes: closes the connections that made no progress for the longest time (a client
// that reads its answer moves its `since` on) until the rest fit. Answers too large for the budget come in
// pieces, so this takes many clients that read nothing, or huge requests.
void Server::Impl::shed_pending(SteadyClock::time_point now) {
  while (pending_bytes_ > options_.max_pending_bytes) {
    auto stalest = connections_.end();
    for (auto it = connections_.begin(); it != connections_.end(); ++it)
      if (it->second.pending > 0 &&
          (stalest == connections_.end() || it->second.since < stalest->second.since))
        stalest = it;
    if (stalest == connections_.end()) return;
    const auto idle = std::chrono::duration_cast<std::chrono::milliseconds>(now - stalest->second.since);
    pending_log_.post(
        now, fmt::format("Livestatus: closed a connection holding {} bytes not read or not "
                         "complete for {} ms: {} bytes pending (max_pending_bytes={})",
                         stalest->second.pending, idle.count(), pending_bytes_, options_.max_pending_bytes));
    close_connection(stalest->first);
  }
}

void Server::Impl::close_connection(std::uint64_t id) {
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  Connection& c = it->second;
  if (c.hung_up != nullptr) c.hung_up->store(true, std::memory_order_relaxed);  // a query still runs
  ::close(c.fd);  // also drops it from the epoll set
  pending_bytes_ -= c.pending;
  for (std::string& piece : c.out) buffers_.give(std::move(piece));  // the rest of a stream goes as well
  connections_.erase(it);
  counters.active_connections.fetch_sub(1, std::memory_order_relaxed);
}

void Server::Impl::on_connection(std::uint64_t id, std::uint32_t what) {
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  Connection& c = it->second;
  if (c.phase == Phase::writing) {
    if ((what & (loop::Epoll::error | loop::Epoll::hang_up)) != 0) return close_connection(id);
    return write_some(id, c);
  }
  if (c.phase == Phase::busy) {
    // The client is gone (a TCP client that closes sends a FIN as one that only stops sending does, so
    // over TCP only a reset tells): its query or wait ends, and no thread stays with it.
    if ((what & (loop::Epoll::error | loop::Epoll::hang_up)) != 0) close_connection(id);
    return;
  }
  const bool alive = read_some(c);
  account(c);
  if (!alive) return close_connection(id);
  dispatch(id, c);
}

// False when the connection is dead or abusive.
bool Server::Impl::read_some(Connection& c) {
  char buffer[k_read_chunk];
  for (;;) {
    const ssize_t n = ::read(c.fd, buffer, sizeof buffer);
    if (n > 0) {
      if (c.in.empty() && c.scanned == 0) c.since = SteadyClock::now();
      c.in.append(buffer, static_cast<std::size_t>(n));
      if (c.in.size() > k_max_request) return false;
      if (static_cast<std::size_t>(n) < sizeof buffer) return true;
      continue;
    }
    if (n == 0) {
      c.eof = true;
      return true;
    }
    if (errno == EINTR) continue;
    return errno == EAGAIN;
  }
}

// Hands a complete request to the query threads, or waits for more.
void Server::Impl::dispatch(std::uint64_t id, Connection& c) {
  // Blank lines between requests are no requests.
  const std::size_t first = c.in.find_first_not_of('\n');
  if (first == std::string::npos) {
    c.in.clear();
    c.scanned = 0;
  } else if (first > 0) {
    c.in.erase(0, first);
    c.scanned = 0;
  }
  std::string request;
  const std::size_t from = c.scanned == 0 ? 0 : c.scanned - 1;
  const std::size_t end = c.in.find("\n\n", from);
  if (end != std::string::npos) {
    request.assign(c.in, 0, end + 1);
    c.in.erase(0, end + 2);
    c.scanned = 0;
  } else if (c.eof && !c.in.empty()) {
    request = std::move(c.in);  // a request ended by the client closing its side
    c.in.clear();
    c.scanned = 0;
  } else if (c.eof) {
    return close_connection(id);
  } else {
    c.scanned = c.in.size();
    return;
  }
  account(c);
  c.phase = Phase::busy;
  interest(c, id, loop::Epoll::read_hang_up | loop::Epoll::edge_triggered);
  c.hung_up = std::make_shared<std::atomic<bool>>(false);
  {
    std::lock_guard lock(jobs_mutex_);
    jobs_.push_back(Job{.id = id, .request = std::move(request), .tcp = c.tcp, .hung_up = c.hung_up});
  }
  jobs_ready_.notify_one();
}

void Server::Impl::take_answers() {
  std::vector<Answer> answers;
  {
    std::lock_guard lock(answers_mutex_);
    answers.swap(answers_);
  }
  for (Answer& a : answers) {
    auto it = connections_.find(a.id);
    if (it == connections_.end()) continue;
    Connection& c = it->second;
    if (a.stream == nullptr) c.hung_up.reset();  // else the next piece's query may still be cancelled
    c.out = std::move(a.pieces);
    c.written = 0;
    c.keep_alive = a.keep_alive && !c.eof;
    c.stream = std::move(a.stream);
    c.phase = Phase::writing;
    c.since = SteadyClock::now();
    account(c);
    write_some(a.id, c);
  }
}

// A piece is given back as soon as it is written, so a slow reader of a long answer frees it as it reads.
void Server::Impl::write_some(std::uint64_t id, Connection& c) {
  bool wrote_pieces = false;
  while (!c.out.empty()) {
    std::string& piece = c.out.front();
    if (c.written == piece.size()) {
      buffers_.give(std::move(piece));
      c.out.pop_front();
      c.written = 0;
      wrote_pieces = true;
      continue;
    }
    const ssize_t n = ::send(c.fd, piece.data() + c.written, piece.size() - c.written, MSG_NOSIGNAL);
    if (n > 0) {
      c.written += static_cast<std::size_t>(n);
      c.since = SteadyClock::now();
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      if (wrote_pieces) account(c);
      interest(c, id, loop::Epoll::writable);
      return;
    }
    return close_connection(id);
  }
  account(c);
  if (c.stream != nullptr) {
    // The next piece, made while the client reads what the socket buffer holds of this one.
    c.phase = Phase::busy;
    interest(c, id, loop::Epoll::read_hang_up | loop::Epoll::edge_triggered);
    queue(std::move(c.stream));
    return;
  }
  if (!c.keep_alive) return close_connection(id);
  c.phase = Phase::reading;
  c.since = SteadyClock::now();
  interest(c, id, loop::Epoll::readable | loop::Epoll::read_hang_up);
  if (!c.in.empty()) dispatch(id, c);  // the client sent its next request already
}

// Closes connections idle too long, stuck in the middle of a request, or not reading their answer.
void Server::Impl::sweep(SteadyClock::time_point now) {
  std::vector<std::uint64_t> expired;
  for (auto& [id, c] : connections_) {
    const auto waited = now - c.since;
    const bool partial = !c.in.empty();
    if (c.phase == Phase::reading) {
      const auto limit = partial ? options_.query_timeout : options_.idle_timeout;
      if (limit.count() > 0 && waited > limit) expired.push_back(id);
    } else if (c.phase == Phase::writing) {
      if (options_.idle_timeout.count() > 0 && waited > options_.idle_timeout) expired.push_back(id);
    }
  }
  for (std::uint64_t id : expired) close_connection(id);
}

}  // namespace vedette::livestatus
