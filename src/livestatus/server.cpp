#include "livestatus/server.hpp"

#include "base/check.hpp"
#include "livestatus/query.hpp"
#include "livestatus/request.hpp"
#include "livestatus/tables.hpp"
#include "loop/tcp_listen.hpp"
#include "loop/thread_name.hpp"
#include "metrics/core_metrics.hpp"

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
#include <map>
#include <mutex>
#include <netdb.h>
#include <netinet/in.h>
#include <optional>
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
// accept4 failing for want of fds or memory leaves the listener readable: it is not watched for this long.
constexpr std::chrono::milliseconds k_accept_pause{100};
// A wait polls fresh snapshots after 10 ms, then twice as long each time up to this.
constexpr std::chrono::milliseconds k_longest_wait_poll{500};

void raise_open_files_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  (void)::setrlimit(RLIMIT_NOFILE, &limit);
}

base::Expected<int> listen_unix(const std::string& path, const ServerOptions& o) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) {
    return base::Error{
        fmt::format("Livestatus: socket path '{}' is {} bytes long, longer than the {} a Unix socket allows",
                    path, path.size(), sizeof addr.sun_path - 1)};
  }
  std::memcpy(addr.sun_path, path.data(), path.size());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return base::Error{fmt::format("Livestatus: cannot create a Unix socket: {}", std::strerror(errno))};
  // A socket left by an earlier run (or Naemon's) is in the way; anything else at that path is not ours.
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) ::unlink(path.c_str());
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    base::Error error{
        fmt::format("Livestatus: cannot bind the Unix socket '{}': {}", path, std::strerror(errno))};
    ::close(fd);
    return error;
  }
  if (::chmod(path.c_str(), o.socket_mode) != 0 || ::listen(fd, o.max_backlog) != 0) {
    base::Error error{fmt::format("Livestatus: cannot listen on '{}': {}", path, std::strerror(errno))};
    ::close(fd);
    ::unlink(path.c_str());
    return error;
  }
  return fd;
}

base::Expected<int> listen_tcp(const std::string& where, const ServerOptions& o) {
  base::Expected<int> fd = loop::listen_tcp(where, o.max_backlog);
  if (!fd) return base::Error{"Livestatus: " + fd.error()};
  return fd;
}

// The model's timeperiods for an uncached evaluator, built once per model (again after a reload).
struct Periods {
  std::shared_ptr<const void> keep_alive;  // the model's owner
  const model::Model* model = nullptr;
  std::vector<timeperiod::Period> table;
  timeperiod::Evaluator evaluator{{}, nullptr};
};

std::shared_ptr<const Periods> make_periods(const files::StatusSnapshot& s) {
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

// One log line a minute at most for one kind of trouble, with the count of those held back, so that a flood
// of clients cannot flood the log. I/O thread only.
class RateLimitedLog {
 public:
  explicit RateLimitedLog(CoreChannel& channel) : channel_(channel) {}
  void post(SteadyClock::time_point now, std::string line) {
    if (now < next_) {
      ++held_back_;
      return;
    }
    if (held_back_ > 0) line += fmt::format(" (and {} more times in the minute before)", held_back_);
    channel_.post_log_line(std::move(line));
    held_back_ = 0;
    next_ = now + std::chrono::minutes(1);
  }

 private:
  CoreChannel& channel_;
  SteadyClock::time_point next_{};
  std::uint64_t held_back_ = 0;
};

// The name of a COMMAND line's external command: Naemon's, from the second byte after the ']' to the ';',
// and with white space trimmed as well, so that no spelling the dispatcher would run slips by.
bool names_command(std::string_view line, std::string_view name) {
  const std::size_t close = line.find(']');
  if (close == std::string_view::npos) return false;
  std::string_view field = line.substr(close + 1);
  field = field.substr(0, field.find(';'));
  if (!field.empty() && field.substr(1) == name) return true;
  while (!field.empty() && (field.front() == ' ' || field.front() == '\t')) field.remove_prefix(1);
  while (!field.empty() && (field.back() == ' ' || field.back() == '\t')) field.remove_suffix(1);
  return field == name;
}

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
    for (const Listener& l : listeners_) ::close(l.fd);
    if (!options_.unix_socket.empty() && unix_bound_) ::unlink(options_.unix_socket.c_str());
    if (epoll_ >= 0) ::close(epoll_);
    if (wake_ >= 0) ::close(wake_);
  }

  base::Status start() {
    raise_open_files_limit();
    if (!options_.unix_socket.empty()) {
      const base::Expected<int> fd = listen_unix(options_.unix_socket, options_);
      if (!fd) return base::Error{fd.error()};
      unix_bound_ = true;
      listeners_.push_back(Listener{.fd = *fd, .tcp = false});
    }
    if (!options_.tcp_listen.empty()) {
      const base::Expected<int> fd = listen_tcp(options_.tcp_listen, options_);
      if (!fd) return base::Error{fd.error()};
      listeners_.push_back(Listener{.fd = *fd, .tcp = true});
    }
    epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
    wake_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (epoll_ < 0 || wake_ < 0) return base::Error{fmt::format("Livestatus: {}", std::strerror(errno))};
    watch(wake_, EPOLLIN, k_wake_tag);
    watch_listeners();
    io_thread_ = base::start_thread([this] {
      loop::set_current_thread_name("livestatus");
      io_loop();
    });
    for (int i = 0; i < options_.threads; ++i) {
      workers_.push_back(base::start_thread([this, i] {
        loop::set_current_thread_name(fmt::format("livestatus-{}", i + 1));
        // Below the executor and core threads: a big query on a busy machine waits, a check does not.
        (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), k_query_nice);
        work();
      }));
    }
    return base::Status::ok();
  }

  Counters counters;

 private:
  enum class Phase : std::uint8_t { reading, busy, writing };

  struct Listener {
    int fd = -1;
    bool tcp = false;
  };
  struct Connection {
    int fd = -1;
    bool tcp = false;
    Phase phase = Phase::reading;
    std::string in;
    std::size_t scanned = 0;  // bytes of `in` already searched for the empty line
    std::string out;
    std::size_t written = 0;
    std::size_t pending = 0;  // what this connection adds to pending_bytes_
    bool keep_alive = false;
    bool eof = false;
    bool watched = false;
    SteadyClock::time_point since;  // start of the idle or reading time, or the last write progress
    // Set by the I/O thread when the client hangs up while its query runs or waits: the query stops.
    std::shared_ptr<std::atomic<bool>> hung_up;
  };
  struct Job {
    std::uint64_t id = 0;
    std::string request;
    bool tcp = false;
    std::shared_ptr<std::atomic<bool>> hung_up;
  };
  // A query waiting for its WaitCondition or WaitTrigger. It holds no thread between its polls: the query
  // threads take it up again when it is due, as they take jobs.
  struct Waiting {
    std::uint64_t id = 0;
    std::shared_ptr<std::atomic<bool>> hung_up;
    Request request;
    std::optional<Query> query;
    bool polled = false;
    std::uint64_t generation = 0;        // of the last snapshot polled (CoreChannel::snapshot_after)
    std::uint64_t events_before = 0;     // the trigger's count by the first snapshot
    SteadyClock::time_point deadline{};  // WaitTimeout; {}: none
    std::chrono::milliseconds pause{10};
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
  // What the I/O thread waits for on a connection. While a query runs for it: only a hang-up
  // (EPOLLHUP/EPOLLERR, always reported), edge-triggered, so that a client which closed just its sending
  // side, as unixcat does, is not reported again and again.
  void interest(Connection& c, std::uint64_t id, std::uint32_t events) {
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = id;
    (void)::epoll_ctl(epoll_, c.watched ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c.fd, &ev);
    c.watched = true;
  }
  void watch_listeners() {
    for (std::size_t i = 0; i < listeners_.size(); ++i) watch(listeners_[i].fd, EPOLLIN, k_listener_tag | i);
  }
  void wake_io() {
    const std::uint64_t one = 1;
    if (wake_ >= 0) (void)!::write(wake_, &one, sizeof one);
  }

  void io_loop() {
    std::vector<epoll_event> events(256);
    SteadyClock::time_point last_sweep = SteadyClock::now();
    while (!stopping_.load(std::memory_order_relaxed)) {
      int timeout = connections_.empty() ? -1 : 1000;
      if (accepts_paused_) timeout = static_cast<int>(k_accept_pause.count());
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

  void accept_all(const Listener& listener) {
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
      interest(c, id, EPOLLIN | EPOLLRDHUP);
      counters.connections.fetch_add(1, std::memory_order_relaxed);
      counters.active_connections.fetch_add(1, std::memory_order_relaxed);
    }
  }

  // Out of fds (EMFILE, ENFILE) or memory: the listeners stay readable, and accepting again at once would
  // spin. They are left unwatched for k_accept_pause (the clients wait in the backlog), then watched again.
  void pause_accepts(int error) {
    for (const Listener& l : listeners_) (void)::epoll_ctl(epoll_, EPOLL_CTL_DEL, l.fd, nullptr);
    accepts_paused_ = true;
    const SteadyClock::time_point now = SteadyClock::now();
    accepts_resume_ = now + k_accept_pause;
    accept_log_.post(now,
                     fmt::format("Livestatus: cannot accept connections ({} open): {}; pausing for {} ms",
                                 connections_.size(), std::strerror(error), k_accept_pause.count()));
  }

  // Keeps pending_bytes_ the sum of every connection's unread answer and unfinished request.
  void account(Connection& c) {
    const std::size_t now = c.in.size() + (c.out.size() - c.written);
    pending_bytes_ = pending_bytes_ - c.pending + now;
    c.pending = now;
  }

  // Over max_pending_bytes: closes the connections that made no progress for the longest time (a client
  // that reads its answer moves its `since` on) until the rest fit.
  void shed_pending(SteadyClock::time_point now) {
    while (pending_bytes_ > options_.max_pending_bytes) {
      auto stalest = connections_.end();
      for (auto it = connections_.begin(); it != connections_.end(); ++it)
        if (it->second.pending > 0 &&
            (stalest == connections_.end() || it->second.since < stalest->second.since))
          stalest = it;
      if (stalest == connections_.end()) return;
      const auto idle = std::chrono::duration_cast<std::chrono::milliseconds>(now - stalest->second.since);
      pending_log_.post(now, fmt::format("Livestatus: closed a connection holding {} bytes not read or not "
                                         "complete for {} ms: {} bytes pending (max_pending_bytes={})",
                                         stalest->second.pending, idle.count(), pending_bytes_,
                                         options_.max_pending_bytes));
      close_connection(stalest->first);
    }
  }

  void close_connection(std::uint64_t id) {
    auto it = connections_.find(id);
    if (it == connections_.end()) return;
    Connection& c = it->second;
    if (c.hung_up != nullptr) c.hung_up->store(true, std::memory_order_relaxed);  // a query still runs
    ::close(c.fd);  // also drops it from the epoll set
    pending_bytes_ -= c.pending;
    buffers_.give(std::move(c.out));
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
    if (c.phase == Phase::busy) {
      // The client is gone (a TCP client that closes sends a FIN as one that only stops sending does, so
      // over TCP only a reset tells): its query or wait ends, and no thread stays with it.
      if ((what & (EPOLLERR | EPOLLHUP)) != 0) close_connection(id);
      return;
    }
    const bool alive = read_some(c);
    account(c);
    if (!alive) return close_connection(id);
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
    account(c);
    c.phase = Phase::busy;
    interest(c, id, EPOLLRDHUP | EPOLLET);
    c.hung_up = std::make_shared<std::atomic<bool>>(false);
    {
      std::lock_guard lock(jobs_mutex_);
      jobs_.push_back(Job{.id = id, .request = std::move(request), .tcp = c.tcp, .hung_up = c.hung_up});
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
      c.hung_up.reset();
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
        account(c);
        interest(c, id, EPOLLOUT);
        return;
      }
      return close_connection(id);
    }
    if (!c.keep_alive) return close_connection(id);
    buffers_.give(std::move(c.out));
    c.out = std::string();
    c.written = 0;
    account(c);
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

  // Each thread takes a due wait first, else the next job, and sleeps until one of them is there.
  void work() {
    for (;;) {
      Job job;
      std::unique_ptr<Waiting> waiting;
      {
        std::unique_lock lock(jobs_mutex_);
        for (;;) {
          if (stopping_.load()) return;
          if (!waits_.empty() && waits_.begin()->first <= SteadyClock::now()) {
            waiting = std::move(waits_.begin()->second);
            waits_.erase(waits_.begin());
            break;
          }
          if (!jobs_.empty()) {
            job = std::move(jobs_.front());
            jobs_.pop_front();
            break;
          }
          if (waits_.empty()) {
            jobs_ready_.wait(lock);
          } else {
            // A copy: wait_until reads its deadline again after waking, and another thread may have taken
            // (and freed) that wait meanwhile.
            const SteadyClock::time_point until = waits_.begin()->first;
            jobs_ready_.wait_until(lock, until);
          }
        }
      }
      std::optional<Answer> answer;
      if (waiting != nullptr) {
        answer = poll(std::move(waiting));
      } else {
        // The metrics time a request from here (a wait is timed only to its first poll).
        const SteadyClock::time_point start = SteadyClock::now();
        answer = answer_request(job);
        metrics::CoreMetrics& m = metrics::core_metrics();
        m.livestatus_requests.add();
        m.livestatus_latency.observe_us(
            std::chrono::duration_cast<std::chrono::microseconds>(SteadyClock::now() - start).count());
      }
      if (!answer) continue;
      {
        std::lock_guard lock(answers_mutex_);
        answers_.push_back(std::move(*answer));
      }
      wake_io();
    }
  }

  // What a query over `snapshot` needs besides it: the timeperiods (once per model) and the tables' index
  // (once per snapshot, from the previous one's model part). Every query of one snapshot shares them.
  void prepare(View& view, std::shared_ptr<const files::StatusSnapshot> snapshot,
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

  // An answer, or nothing: no request at all, or a wait that goes on (waits_).
  std::optional<Answer> answer_request(Job& job) {
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
        if (std::optional<std::string> refused = refused_over_tcp(job, request.command)) {
          frame_response(request.fixed16, 400, fmt::format("400: {}", *refused), answer.bytes);
        } else if (std::optional<std::string> failed = channel_.run_command(request.command)) {
          frame_response(request.fixed16, 400, fmt::format("400: {}", *failed), answer.bytes);
        }
        return answer;
      case Method::logrotate:
        channel_.request_log_rotation();
        return answer;
      case Method::get:
        break;
    }
    const Table* table = find_table(request.table);  // parse_request answered a missing or unknown one
    std::optional<Query> query = Query::compile(request, *table, error);
    if (!query) return framed_error(answer, request, error);
    if (request.has_wait) {
      auto waiting = std::make_unique<Waiting>();
      waiting->id = job.id;
      waiting->hung_up = std::move(job.hung_up);
      if (request.wait_timeout.count() > 0) waiting->deadline = SteadyClock::now() + request.wait_timeout;
      waiting->request = std::move(request);
      waiting->query = std::move(query);
      return poll(std::move(waiting));
    }
    View view;
    std::shared_ptr<const Periods> periods;
    if (!prepare_view(view, periods, channel_.fresh_snapshot()))
      return framed_error(answer, request, error = shutting_down());
    return run_query(answer, request, *query, view, job.hung_up.get());
  }

  // tcp_commands: what a TCP client (no authentication) may not run.
  [[nodiscard]] std::optional<std::string> refused_over_tcp(const Job& job, std::string_view command) const {
    using T = ServerOptions::TcpCommands;
    if (!job.tcp || options_.tcp_commands == T::all) return std::nullopt;
    if (options_.tcp_commands == T::none) return "COMMAND is refused on TCP connections (tcp_commands=none)";
    if (names_command(command, "PROCESS_FILE"))
      return "PROCESS_FILE is refused on TCP connections (tcp_commands=no_process_file)";
    return std::nullopt;
  }

  static RequestError shutting_down() { return {452, "Query canceled, core is shutting down."}; }

  static Answer framed_error(Answer& answer, const Request& request, const RequestError& error) {
    frame_response(request.fixed16, error.code, error.message, answer.bytes);
    return std::move(answer);
  }

  bool prepare_view(View& view, std::shared_ptr<const Periods>& periods,
                    std::shared_ptr<const files::StatusSnapshot> snapshot) {
    if (snapshot == nullptr) return false;
    view.settings = &options_.settings;
    view.counters = &counters;
    prepare(view, std::move(snapshot), periods);
    return true;
  }

  // Runs a compiled GET over `view` into a framed answer.
  Answer run_query(Answer& answer, const Request& request, const Query& query, const View& view,
                   const std::atomic<bool>* hung_up) {
    // The body goes straight into a pooled buffer, after room for the fixed16 header: no copy, and pages
    // that stay mapped from one answer to the next (a fresh 100 MB answer is mostly page faults here).
    std::string out = buffers_.take();
    if (request.fixed16) out.append(k_fixed16_size, ' ');
    const std::size_t body_start = out.size();
    Query::Limits limits;
    limits.max_response_size = options_.max_response_size;
    limits.cancelled = hung_up;
    if (request.timelimit > 0) limits.deadline = SteadyClock::now() + std::chrono::seconds(request.timelimit);
    RequestError error;
    const int code = query.run(view, limits, out, error);
    if (code == 200) {
      // The header frame_response() writes, in the room left for it.
      if (request.fixed16) fmt::format_to(out.data(), "200 {:>11}\n", out.size() - body_start);
    } else {
      out.clear();
      frame_response(request.fixed16, code, error.message, out);
    }
    answer.bytes = std::move(out);
    return std::move(answer);
  }

  // How many events of the trigger's kind the core has seen, by the view's snapshot.
  static std::uint64_t trigger_count(const View& view, WaitTrigger trigger) {
    const files::EventCounts& e = view.status->program.events;
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

  // One look at a waiting query: on a fresh snapshot, whether its WaitCondition holds (or, a WaitTrigger
  // without a condition: whether the core's count of such events moved since the first look). Then the
  // answer, or the wait goes back to waits_ to be polled again (10 ms, doubling up to 500 ms: the core builds
  // each snapshot) until WaitTimeout, if any. Nothing once the client hung up: the wait just ends.
  std::optional<Answer> poll(std::unique_ptr<Waiting> w) {
    if (w->hung_up != nullptr && w->hung_up->load(std::memory_order_relaxed)) return std::nullopt;
    Answer answer{.id = w->id, .bytes = {}, .keep_alive = w->request.keep_alive};
    View view;
    std::shared_ptr<const Periods> periods;
    // The first look needs a snapshot taken after the request came; later ones any newer than the last.
    if (!prepare_view(
            view, periods,
            w->polled ? channel_.snapshot_after(w->generation) : channel_.fresh_snapshot(&w->generation)))
      return framed_error(answer, w->request, shutting_down());
    const WaitTrigger trigger = w->request.wait_trigger;
    const bool trigger_only = !w->query->has_wait_condition();
    if (!w->polled) {
      w->polled = true;
      w->events_before = trigger_count(view, trigger);
    }
    const bool done = trigger_only ? trigger_count(view, trigger) != w->events_before
                                   : w->query->wait_condition_holds(view);
    const SteadyClock::time_point now = SteadyClock::now();
    const bool bounded = w->deadline != SteadyClock::time_point{};
    if (done || (bounded && now >= w->deadline))
      return run_query(answer, w->request, *w->query, view, w->hung_up.get());
    SteadyClock::time_point due = now + w->pause;
    if (bounded) due = std::min(due, w->deadline);
    w->pause = std::min(w->pause * 2, k_longest_wait_poll);
    {
      std::lock_guard lock(jobs_mutex_);
      waits_.emplace(due, std::move(w));
    }
    jobs_ready_.notify_one();
    return std::nullopt;
  }

  ServerOptions options_;
  CoreChannel& channel_;
  BufferPool buffers_;
  std::atomic<bool> stopping_{false};
  std::vector<Listener> listeners_;
  bool unix_bound_ = false;
  int epoll_ = -1;
  int wake_ = -1;
  std::thread io_thread_;
  std::vector<std::thread> workers_;
  // I/O thread only.
  std::unordered_map<std::uint64_t, Connection> connections_;
  std::uint64_t next_id_ = 0;
  std::size_t pending_bytes_ = 0;  // see account()
  bool accepts_paused_ = false;
  SteadyClock::time_point accepts_resume_{};
  RateLimitedLog accept_log_{channel_};
  RateLimitedLog refused_log_{channel_};
  RateLimitedLog pending_log_{channel_};
  // I/O thread -> query threads, and query threads among themselves (waits_, by when they are due).
  std::mutex jobs_mutex_;
  std::condition_variable jobs_ready_;
  std::deque<Job> jobs_;
  std::multimap<SteadyClock::time_point, std::unique_ptr<Waiting>> waits_;
  // Query threads -> I/O thread.
  std::mutex answers_mutex_;
  std::vector<Answer> answers_;
  std::mutex prepared_mutex_;
  std::shared_ptr<const Periods> periods_;
  std::shared_ptr<const TableIndex> index_;
};

base::Expected<std::unique_ptr<Server>> Server::start(ServerOptions options, CoreChannel& channel) {
  auto impl = std::make_unique<Impl>(std::move(options), channel);
  if (base::Status s = impl->start(); !s) return base::Error{s.error()};
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() = default;

const Counters& Server::counters() const {
  return impl_->counters;
}

}  // namespace vedette::livestatus
