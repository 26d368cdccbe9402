#include "livestatus/server.hpp"

#include "livestatus/query.hpp"
#include "livestatus/request.hpp"
#include "livestatus/tables.hpp"
#include "loop/thread_name.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <mutex>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace vedette::livestatus {

namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr std::size_t k_read_chunk = 64u << 10;
// A request is a few header lines; one this large is an attack or a runaway client.
constexpr std::size_t k_max_request = 16u << 20;
constexpr std::uint64_t k_wake_tag = ~std::uint64_t{0};
constexpr std::uint64_t k_listener_tag = std::uint64_t{1} << 63;  // | listener index

void raise_open_files_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  (void)::setrlimit(RLIMIT_NOFILE, &limit);
}

int listen_unix(const std::string& path, const ServerOptions& o, std::string& error) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) {
    error =
        fmt::format("Livestatus: socket path '{}' is {} bytes long, longer than the {} a Unix socket allows",
                    path, path.size(), sizeof addr.sun_path - 1);
    return -1;
  }
  std::memcpy(addr.sun_path, path.data(), path.size());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    error = fmt::format("Livestatus: cannot create a Unix socket: {}", std::strerror(errno));
    return -1;
  }
  // A socket left by an earlier run (or Naemon's) is in the way; anything else at that path is not ours.
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) ::unlink(path.c_str());
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    error = fmt::format("Livestatus: cannot bind the Unix socket '{}': {}", path, std::strerror(errno));
    ::close(fd);
    return -1;
  }
  if (::chmod(path.c_str(), o.socket_mode) != 0 || ::listen(fd, o.max_backlog) != 0) {
    error = fmt::format("Livestatus: cannot listen on '{}': {}", path, std::strerror(errno));
    ::close(fd);
    ::unlink(path.c_str());
    return -1;
  }
  return fd;
}

int listen_tcp(const std::string& where, const ServerOptions& o, std::string& error) {
  const std::size_t colon = where.rfind(':');
  if (colon == std::string::npos || colon + 1 == where.size()) {
    error = fmt::format("Livestatus: '{}' is not host:port", where);
    return -1;
  }
  std::string host = where.substr(0, colon);
  const std::string port = where.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &found);
      rc != 0) {
    error = fmt::format("Livestatus: cannot resolve '{}': {}", where, ::gai_strerror(rc));
    return -1;
  }
  int fd = -1;
  std::string last = "no address";
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    (void)::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, o.max_backlog) != 0) {
      last = std::strerror(errno);
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  if (fd < 0) error = fmt::format("Livestatus: cannot listen on {}: {}", where, last);
  return fd;
}

// The model's timeperiods for an uncached evaluator, built once per model (again after a reload).
struct Periods {
  std::shared_ptr<const void> keep_alive;  // the model's owner
  const model::Model* model = nullptr;
  std::vector<timeperiod::Period> table;
  timeperiod::Evaluator evaluator{{}, nullptr};
};

std::shared_ptr<const Periods> make_periods(const io::StatusSnapshot& s) {
  auto p = std::make_shared<Periods>();
  p->keep_alive = s.keep_alive;
  p->model = s.model;
  p->table.assign(s.model->timeperiods.size(), timeperiod::Period{});
  for (std::size_t i = 0; i < p->table.size(); ++i) {
    p->table[i].rules = &s.model->timeperiods[i].rules;
    for (model::TimeperiodId e : s.model->timeperiods[i].exclusions)
      p->table[i].exclusions.push_back(timeperiod::PeriodIndex{model::index(e)});
  }
  p->evaluator = timeperiod::Evaluator(p->table, nullptr);
  return p;
}

constexpr int k_query_nice = 5;
constexpr std::size_t k_fixed16_size = 16;  // "200 " + 11 digits + "\n"

// Answer buffers, passed from the query threads to the I/O thread and back, so their memory stays mapped.
// Keeps at most k_kept buffers and k_kept_bytes of capacity; larger leftovers are freed.
class BufferPool {
 public:
  std::string take() {
    std::lock_guard lock(mutex_);
    if (free_.empty()) return {};
    std::string b = std::move(free_.back());
    free_.pop_back();
    kept_bytes_ -= b.capacity();
    return b;
  }
  void give(std::string b) {
    if (b.capacity() < 4096) return;
    b.clear();
    std::lock_guard lock(mutex_);
    if (free_.size() >= k_kept || kept_bytes_ + b.capacity() > k_kept_bytes) return;
    kept_bytes_ += b.capacity();
    free_.push_back(std::move(b));
  }

 private:
  static constexpr std::size_t k_kept = 8;
  static constexpr std::size_t k_kept_bytes = std::size_t{256} << 20;
  std::mutex mutex_;
  std::vector<std::string> free_;
  std::size_t kept_bytes_ = 0;
};

}  // namespace

class Server::Impl {
 public:
  Impl(ServerOptions options, CoreChannel& channel) : options_(std::move(options)), channel_(channel) {}

  ~Impl() {
    stopping_.store(true);
    {
      std::lock_guard lock(jobs_mutex_);
      jobs_ready_.notify_all();
    }
    wake_io();
    if (io_thread_.joinable()) io_thread_.join();
    for (std::thread& t : workers_)
      if (t.joinable()) t.join();
    for (auto& [id, c] : connections_) ::close(c.fd);
    for (int fd : listeners_) ::close(fd);
    if (!options_.unix_socket.empty() && unix_bound_) ::unlink(options_.unix_socket.c_str());
    if (epoll_ >= 0) ::close(epoll_);
    if (wake_ >= 0) ::close(wake_);
  }

  bool start(std::string& error) {
    raise_open_files_limit();
    if (!options_.unix_socket.empty()) {
      const int fd = listen_unix(options_.unix_socket, options_, error);
      if (fd < 0) return false;
      unix_bound_ = true;
      listeners_.push_back(fd);
    }
    if (!options_.tcp_listen.empty()) {
      const int fd = listen_tcp(options_.tcp_listen, options_, error);
      if (fd < 0) return false;
      listeners_.push_back(fd);
    }
    epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
    wake_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (epoll_ < 0 || wake_ < 0) {
      error = fmt::format("Livestatus: {}", std::strerror(errno));
      return false;
    }
    watch(wake_, EPOLLIN, k_wake_tag);
    for (std::size_t i = 0; i < listeners_.size(); ++i) watch(listeners_[i], EPOLLIN, k_listener_tag | i);
    io_thread_ = std::thread([this] {
      loop::set_current_thread_name("livestatus");
      io_loop();
    });
    for (int i = 0; i < options_.threads; ++i) {
      workers_.emplace_back([this, i] {
        loop::set_current_thread_name(fmt::format("livestatus-{}", i + 1));
        // Below the executor and core threads: a big query on a busy machine waits, a check does not.
        (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), k_query_nice);
        work();
      });
    }
    return true;
  }

  Counters counters;

 private:
  enum class Phase : std::uint8_t { reading, busy, writing };

  struct Connection {
    int fd = -1;
    Phase phase = Phase::reading;
    std::string in;
    std::size_t scanned = 0;  // bytes of `in` already searched for the empty line
    std::string out;
    std::size_t written = 0;
    bool keep_alive = false;
    bool eof = false;
    bool watched = false;
    SteadyClock::time_point since;  // start of the idle or reading time, or the last write progress
  };
  struct Job {
    std::uint64_t id = 0;
    std::string request;
  };
  struct Answer {
    std::uint64_t id = 0;
    std::string bytes;
    bool keep_alive = false;
  };

  // --- I/O thread

  void watch(int fd, std::uint32_t events, std::uint64_t tag) {
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = tag;
    (void)::epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &ev);
  }
  // What the I/O thread waits for on a connection; none while a query runs for it (a hang-up then would
  // be reported again and again: it is noticed when the answer cannot be written).
  void interest(Connection& c, std::uint64_t id, std::uint32_t events) {
    if (events == 0) {
      if (c.watched) (void)::epoll_ctl(epoll_, EPOLL_CTL_DEL, c.fd, nullptr);
      c.watched = false;
      return;
    }
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = id;
    (void)::epoll_ctl(epoll_, c.watched ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c.fd, &ev);
    c.watched = true;
  }
  void wake_io() {
    const std::uint64_t one = 1;
    if (wake_ >= 0) (void)!::write(wake_, &one, sizeof one);
  }

  void io_loop() {
    std::vector<epoll_event> events(256);
    SteadyClock::time_point last_sweep = SteadyClock::now();
    while (!stopping_.load(std::memory_order_relaxed)) {
      const int timeout = connections_.empty() ? -1 : 1000;
      const int n = ::epoll_wait(epoll_, events.data(), static_cast<int>(events.size()), timeout);
      if (n < 0 && errno != EINTR) break;
      for (int i = 0; i < n; ++i) {
        const std::uint64_t tag = events[static_cast<std::size_t>(i)].data.u64;
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
      if (now - last_sweep >= std::chrono::seconds(1)) {
        sweep(now);
        last_sweep = now;
      }
    }
  }

  void accept_all(int listener) {
    for (;;) {
      const int fd = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;  // EAGAIN, or out of fds: the rest wait in the backlog
      const std::uint64_t id = ++next_id_;
      Connection& c = connections_[id];
      c.fd = fd;
      c.since = SteadyClock::now();
      interest(c, id, EPOLLIN | EPOLLRDHUP);
      counters.connections.fetch_add(1, std::memory_order_relaxed);
      counters.active_connections.fetch_add(1, std::memory_order_relaxed);
    }
  }

  void close_connection(std::uint64_t id) {
    auto it = connections_.find(id);
    if (it == connections_.end()) return;
    ::close(it->second.fd);  // also drops it from the epoll set
    buffers_.give(std::move(it->second.out));
    connections_.erase(it);
    counters.active_connections.fetch_sub(1, std::memory_order_relaxed);
  }

  void on_connection(std::uint64_t id, std::uint32_t what) {
    auto it = connections_.find(id);
    if (it == connections_.end()) return;
    Connection& c = it->second;
    if (c.phase == Phase::writing) {
      if ((what & (EPOLLERR | EPOLLHUP)) != 0) return close_connection(id);
      return write_some(id, c);
    }
    if (c.phase == Phase::busy) return interest(c, id, 0);
    if (!read_some(c)) return close_connection(id);
    dispatch(id, c);
  }

  // False when the connection is dead or abusive.
  bool read_some(Connection& c) {
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
  void dispatch(std::uint64_t id, Connection& c) {
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
    c.phase = Phase::busy;
    interest(c, id, 0);
    {
      std::lock_guard lock(jobs_mutex_);
      jobs_.push_back(Job{id, std::move(request)});
    }
    jobs_ready_.notify_one();
  }

  void take_answers() {
    std::vector<Answer> answers;
    {
      std::lock_guard lock(answers_mutex_);
      answers.swap(answers_);
    }
    for (Answer& a : answers) {
      auto it = connections_.find(a.id);
      if (it == connections_.end()) continue;
      Connection& c = it->second;
      c.out = std::move(a.bytes);
      c.written = 0;
      c.keep_alive = a.keep_alive && !c.eof;
      c.phase = Phase::writing;
      c.since = SteadyClock::now();
      write_some(a.id, c);
    }
  }

  void write_some(std::uint64_t id, Connection& c) {
    while (c.written < c.out.size()) {
      const ssize_t n = ::send(c.fd, c.out.data() + c.written, c.out.size() - c.written, MSG_NOSIGNAL);
      if (n > 0) {
        c.written += static_cast<std::size_t>(n);
        c.since = SteadyClock::now();
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) {
        interest(c, id, EPOLLOUT);
        return;
      }
      return close_connection(id);
    }
    if (!c.keep_alive) return close_connection(id);
    buffers_.give(std::move(c.out));
    c.out = std::string();
    c.written = 0;
    c.phase = Phase::reading;
    c.since = SteadyClock::now();
    interest(c, id, EPOLLIN | EPOLLRDHUP);
    if (!c.in.empty()) dispatch(id, c);  // the client sent its next request already
  }

  // Closes connections idle too long, stuck in the middle of a request, or not reading their answer.
  void sweep(SteadyClock::time_point now) {
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

  // --- Query threads

  void work() {
    for (;;) {
      Job job;
      {
        std::unique_lock lock(jobs_mutex_);
        jobs_ready_.wait(lock, [&] { return stopping_.load() || !jobs_.empty(); });
        if (stopping_.load()) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      Answer answer = answer_request(job);
      {
        std::lock_guard lock(answers_mutex_);
        answers_.push_back(std::move(answer));
      }
      wake_io();
    }
  }

  // What a query over `snapshot` needs besides it: the timeperiods (once per model) and the tables' index
  // (once per snapshot, from the previous one's model part). Every query of one snapshot shares them.
  void prepare(View& view, std::shared_ptr<const io::StatusSnapshot> snapshot,
               std::shared_ptr<const Periods>& periods) {
    std::lock_guard lock(prepared_mutex_);
    if (periods_ == nullptr || periods_->model != snapshot->model ||
        periods_->keep_alive != snapshot->keep_alive)
      periods_ = make_periods(*snapshot);
    // Every time, not once per snapshot address: the builder reuses a released snapshot's memory, so a new
    // snapshot can sit where the last one did. Unchanged parts are taken over (tens of ns).
    index_ = make_table_index(snapshot, index_.get());
    periods = periods_;
    view.status = std::move(snapshot);
    view.now = std::time(nullptr);
    view.periods = &periods->evaluator;
    view.index = index_;
    view.in_period.clear();
  }

  Answer answer_request(const Job& job) {
    counters.requests.fetch_add(1, std::memory_order_relaxed);
    Answer answer{.id = job.id, .bytes = {}, .keep_alive = false};
    Request request;
    RequestError error;
    if (!parse_request(job.request, request, error)) {
      if (error.code == 0) return answer;  // no request at all: nothing to answer, and the module hangs up
      answer.keep_alive = request.keep_alive;
      frame_response(request.fixed16, error.code, error.message, answer.bytes);
      return answer;
    }
    answer.keep_alive = request.keep_alive;
    switch (request.method) {
      case Method::command:
        // As the module: a command keeps the connection open, and only a failure is answered, with the
        // query handler's "400: <reason>" line (Monitoring::Livestatus reads it so).
        answer.keep_alive = true;
        if (std::optional<std::string> failed = channel_.run_command(request.command))
          frame_response(request.fixed16, 400, fmt::format("400: {}", *failed), answer.bytes);
        return answer;
      case Method::logrotate:
        channel_.request_log_rotation();
        return answer;
      case Method::get:
        break;
    }
    // The body goes straight into a pooled buffer, after room for the fixed16 header: no copy, and pages
    // that stay mapped from one answer to the next (a fresh 100 MB answer is mostly page faults here).
    std::string out = buffers_.take();
    if (request.fixed16) out.append(k_fixed16_size, ' ');
    const std::size_t body_start = out.size();
    const int code = answer_get(request, out, error);
    if (code == 200) {
      // The header frame_response() writes, in the room left for it.
      if (request.fixed16) fmt::format_to(out.data(), "200 {:>11}\n", out.size() - body_start);
    } else {
      out.clear();
      frame_response(request.fixed16, code, error.message, out);
    }
    answer.bytes = std::move(out);
    return answer;
  }

  int answer_get(const Request& request, std::string& body, RequestError& error) {
    const Table* table = find_table(request.table);  // parse_request answered a missing or unknown one
    std::optional<Query> query = Query::compile(request, *table, error);
    if (!query) return error.code;
    std::shared_ptr<const io::StatusSnapshot> snapshot = channel_.fresh_snapshot();
    if (snapshot == nullptr) {
      error = {452, "Query canceled, core is shutting down."};
      return error.code;
    }
    std::shared_ptr<const Periods> periods;
    View view;
    view.settings = &options_.settings;
    view.counters = &counters;
    prepare(view, std::move(snapshot), periods);
    if (request.has_wait) wait_for(*query, request, view, periods);
    Query::Limits limits;
    limits.max_response_size = options_.max_response_size;
    if (request.timelimit > 0) limits.deadline = SteadyClock::now() + std::chrono::seconds(request.timelimit);
    return query->run(view, limits, body, error);
  }

  // How many events of the trigger's kind the core has seen, by the view's snapshot.
  static std::uint64_t trigger_count(const View& view, WaitTrigger trigger) {
    const io::EventCounts& e = view.status->program.events;
    switch (trigger) {
      case WaitTrigger::check:
        return e.service_checks + e.host_checks;
      case WaitTrigger::state:
        return e.state_changes;
      case WaitTrigger::log:
        return e.log_messages;
      case WaitTrigger::downtime:
        return e.downtime_changes;
      case WaitTrigger::comment:
        return e.comment_changes;
      case WaitTrigger::command:
        return e.commands;
      case WaitTrigger::program:
        return e.program_changes;
      case WaitTrigger::all:
        break;
    }
    return e.service_checks + e.host_checks + e.state_changes + e.log_messages + e.downtime_changes +
           e.comment_changes + e.commands + e.program_changes;
  }

  // WaitObject/WaitCondition: a fresh snapshot until the condition holds or WaitTimeout passes. A WaitTrigger
  // without a condition waits for the next event of its kind: until the core's count of them moves. The
  // core builds each snapshot, so the polls back off (10 ms, doubling up to 500 ms) rather than spin.
  void wait_for(const Query& query, const Request& request, View& view,
                std::shared_ptr<const Periods>& periods) {
    const bool bounded = request.wait_timeout.count() > 0;
    const SteadyClock::time_point deadline = SteadyClock::now() + request.wait_timeout;
    const bool trigger_only = !query.has_wait_condition();
    const std::uint64_t events_before = trigger_count(view, request.wait_trigger);
    const auto done = [&] {
      return trigger_only ? trigger_count(view, request.wait_trigger) != events_before
                          : query.wait_condition_holds(view);
    };
    std::chrono::milliseconds pause{10};
    while (!done() && !stopping_.load()) {
      const SteadyClock::time_point now = SteadyClock::now();
      if (bounded && now >= deadline) return;
      std::this_thread::sleep_for(bounded ? std::min<SteadyClock::duration>(pause, deadline - now) : pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(500));
      std::shared_ptr<const io::StatusSnapshot> snapshot = channel_.fresh_snapshot();
      if (snapshot == nullptr) return;
      prepare(view, std::move(snapshot), periods);
    }
  }

  ServerOptions options_;
  CoreChannel& channel_;
  BufferPool buffers_;
  std::atomic<bool> stopping_{false};
  std::vector<int> listeners_;
  bool unix_bound_ = false;
  int epoll_ = -1;
  int wake_ = -1;
  std::thread io_thread_;
  std::vector<std::thread> workers_;
  // I/O thread only.
  std::unordered_map<std::uint64_t, Connection> connections_;
  std::uint64_t next_id_ = 0;
  // I/O thread -> query threads.
  std::mutex jobs_mutex_;
  std::condition_variable jobs_ready_;
  std::deque<Job> jobs_;
  // Query threads -> I/O thread.
  std::mutex answers_mutex_;
  std::vector<Answer> answers_;
  std::mutex prepared_mutex_;
  std::shared_ptr<const Periods> periods_;
  std::shared_ptr<const TableIndex> index_;
};

std::unique_ptr<Server> Server::start(ServerOptions options, CoreChannel& channel, std::string& error) {
  auto impl = std::make_unique<Impl>(std::move(options), channel);
  if (!impl->start(error)) return nullptr;
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() = default;

const Counters& Server::counters() const {
  return impl_->counters;
}

}  // namespace vedette::livestatus
