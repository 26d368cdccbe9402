// What server.cpp, server_io.cpp and server_queries.cpp share: the Livestatus server's state,
// Server::Impl. server.cpp binds the sockets, starts and stops the threads; server_io.cpp is the I/O thread
// ("livestatus": accepting, reading requests, writing answers, timeouts and limits on every connection);
// server_queries.cpp is the query threads ("livestatus-N": parsing and answering a request, polling a
// waiting query, producing a long answer piece by piece). The two kinds of thread meet in jobs_
// (I/O -> query) and answers_ (query -> I/O), pass answer buffers round through the BufferPool, and hold
// memory within one MemoryBudget. Private to livestatus.
#pragma once

#include "base/expected.hpp"
#include "livestatus/core_channel.hpp"
#include "livestatus/memory_budget.hpp"
#include "livestatus/query.hpp"
#include "livestatus/request.hpp"
#include "livestatus/server.hpp"
#include "livestatus/server_options.hpp"
#include "livestatus/tables.hpp"
#include "livestatus/view.hpp"
#include "loop/epoll.hpp"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace vedette::livestatus {

using SteadyClock = std::chrono::steady_clock;

// The pieces answers are made of (server_queries.cpp), passed from the query threads to the I/O thread and
// back once written, so that their memory stays mapped (a fresh piece is mostly page faults) and comes in
// one size that the allocator reuses. What it keeps counts in the MemoryBudget: at most a quarter of the
// budget, all of it given up (trim) when a query needs the room. Any thread.
class BufferPool {
 public:
  explicit BufferPool(MemoryBudget& budget) : kept_(budget), max_kept_bytes_(budget.limit() / 4) {}

  // An empty buffer with at least `capacity` and at most twice that; its memory is the caller's to count.
  std::string take(std::size_t capacity) {
    std::string b;
    {
      std::lock_guard lock(mutex_);
      for (auto it = free_.rbegin(); it != free_.rend(); ++it) {
        if (it->capacity() < capacity || it->capacity() > 2 * capacity) continue;
        b = std::move(*it);
        free_.erase(std::next(it).base());
        kept_.resize(kept_.bytes() - b.capacity());
        return b;
      }
    }
    b.reserve(capacity);
    return b;
  }
  // Keeps b (its memory counted by the pool now) or frees it.
  void give(std::string b) {
    if (b.capacity() < 4096) return;
    b.clear();
    std::lock_guard lock(mutex_);
    if (kept_.bytes() + b.capacity() > max_kept_bytes_) return;
    kept_.resize(kept_.bytes() + b.capacity());
    free_.push_back(std::move(b));
  }
  void trim() {
    std::vector<std::string> freed;
    std::lock_guard lock(mutex_);
    freed.swap(free_);
    kept_.resize(0);
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> free_;
  MemoryBudget::Share kept_;  // the capacity of free_
  const std::size_t max_kept_bytes_;
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

class Server::Impl {
 public:
  Impl(ServerOptions options, CoreChannel& channel) : options_(std::move(options)), channel_(channel) {}
  ~Impl();  // stops and joins the threads, closes every socket, unlinks the Unix one

  base::Status start();  // binds, listens, starts the threads

  Counters counters;

 private:
  // epoll tags of the I/O thread besides connection ids.
  static constexpr std::uint64_t k_wake_tag = ~std::uint64_t{0};
  static constexpr std::uint64_t k_listener_tag = std::uint64_t{1} << 63;  // | listener index

  enum class Phase : std::uint8_t { reading, busy, writing };

  // The model's timeperiods for an uncached evaluator, built once per model (again after a reload).
  struct Periods;  // server_queries.cpp

  // A GET being answered, from its first step to its last piece (server_queries.cpp). It holds the query
  // and what the run's View points into; it goes from a query thread to the I/O thread with each piece
  // and back for the next one, so that no thread waits on a client that reads slowly or not at all.
  struct Stream {
    // building: in pieces kept until the answer is complete, while the MemoryBudget has room for them;
    // counting: too large for that, so the rest is made and thrown away piece by piece for the length (or
    // the error) first; sending: made from the start again, a piece each time the client read the last.
    enum class Stage : std::uint8_t { building, counting, sending };
    std::uint64_t id = 0;
    std::shared_ptr<std::atomic<bool>> hung_up;
    bool fixed16 = false;
    bool keep_alive = false;
    std::optional<Query> query;              // the run points into it: it never moves
    std::shared_ptr<const Periods> periods;  // the run's View points into it
    std::unique_ptr<Query::Run> run;
    Stage stage = Stage::building;
    std::deque<std::string> built;  // building: the pieces made so far
    MemoryBudget::Share held;       // building: their capacity
    std::size_t length = 0;         // sending: of the body, counted
  };

  struct Listener {
    int fd = -1;
    bool tcp = false;
  };
  struct Connection {
    int fd = -1;
    bool tcp = false;
    Phase phase = Phase::reading;
    std::string in;
    std::size_t scanned = 0;      // bytes of `in` already searched for the empty line
    std::deque<std::string> out;  // the answer's pieces not written yet
    std::size_t written = 0;      // bytes of out.front() written
    std::size_t pending = 0;      // in's and out's capacity: what this connection adds to pending_bytes_
    MemoryBudget::Share held;     // the same, in the budget
    bool keep_alive = false;
    bool eof = false;
    bool watched = false;
    SteadyClock::time_point since;  // start of the idle or reading time, or the last write progress
    // Set by the I/O thread when the client hangs up while its query runs or waits: the query stops.
    std::shared_ptr<std::atomic<bool>> hung_up;
    std::unique_ptr<Stream> stream;  // the rest of the answer being written, when more is to come
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
    std::deque<std::string> pieces;  // the answer's bytes, in order
    bool keep_alive = false;
    MemoryBudget::Share held;        // the pieces' capacity
    std::unique_ptr<Stream> stream;  // null: `pieces` end the answer
  };

  // --- I/O thread (server_io.cpp)
  void watch(int fd, std::uint32_t events, std::uint64_t tag);
  void interest(Connection& c, std::uint64_t id, std::uint32_t events);
  void watch_listeners();
  void io_loop();
  void accept_all(const Listener& listener);
  void pause_accepts(int error);
  void account(Connection& c);
  void shed_pending(SteadyClock::time_point now);
  void close_connection(std::uint64_t id);
  void on_connection(std::uint64_t id, std::uint32_t what);
  bool read_some(Connection& c);
  void dispatch(std::uint64_t id, Connection& c);
  void take_answers();
  void write_some(std::uint64_t id, Connection& c);
  void sweep(SteadyClock::time_point now);

  // Any thread: wakes the I/O thread to take the answers.
  void wake_io() {
    const std::uint64_t one = 1;
    if (wake_ >= 0) (void)!::write(wake_, &one, sizeof one);
  }

  // --- Query threads (server_queries.cpp)
  void work();
  static std::shared_ptr<const Periods> make_periods(const files::StatusSnapshot& s);
  void prepare(View& view, std::shared_ptr<const files::StatusSnapshot> snapshot,
               std::shared_ptr<const Periods>& periods);
  std::optional<Answer> answer_request(Job& job);
  [[nodiscard]] std::optional<std::string> refused_over_tcp(const Job& job, std::string_view command) const;
  static Answer framed(Answer& answer, bool fixed16, int code, std::string_view message);
  bool prepare_view(View& view, std::shared_ptr<const Periods>& periods,
                    std::shared_ptr<const files::StatusSnapshot> snapshot);
  std::optional<Answer> run_query(std::uint64_t id, const Request& request, Query&& query, const View& view,
                                  std::shared_ptr<const Periods> periods,
                                  std::shared_ptr<std::atomic<bool>> hung_up);
  Answer answer_to(std::uint64_t id, bool keep_alive);
  std::optional<Answer> step(std::unique_ptr<Stream> s);
  std::optional<Answer> build(std::unique_ptr<Stream> s);
  std::optional<Answer> count(std::unique_ptr<Stream> s);
  Answer send(std::unique_ptr<Stream> s);
  void queue(std::unique_ptr<Stream> s);
  static std::uint64_t trigger_count(const View& view, WaitTrigger trigger);
  std::optional<Answer> poll(std::unique_ptr<Waiting> w);

  ServerOptions options_;
  CoreChannel& channel_;
  // Whole answers are made in memory within half of max_pending_bytes: the other half is room for the
  // pieces of longer answers and for requests, before the I/O thread sheds connections (server_io.cpp).
  MemoryBudget budget_{options_.max_pending_bytes / 2};
  BufferPool buffers_{budget_};
  std::atomic<bool> stopping_{false};
  std::vector<Listener> listeners_;
  bool unix_bound_ = false;
  std::optional<loop::Epoll> epoll_;  // made by start()
  int wake_ = -1;
  std::thread io_thread_;
  std::vector<std::thread> workers_;
  // I/O thread only.
  std::unordered_map<std::uint64_t, Connection> connections_;
  std::uint64_t next_id_ = 0;
  std::size_t pending_bytes_ = 0;  // the connections' part of budget_: see account()
  bool accepts_paused_ = false;
  SteadyClock::time_point accepts_resume_{};
  RateLimitedLog accept_log_{channel_};
  RateLimitedLog refused_log_{channel_};
  RateLimitedLog pending_log_{channel_};
  // I/O thread -> query threads, and query threads among themselves (waits_, by when they are due; steps_,
  // the answers in pieces, taken after requests so that a client's question never waits behind them).
  std::mutex jobs_mutex_;
  std::condition_variable jobs_ready_;
  std::deque<Job> jobs_;
  std::deque<std::unique_ptr<Stream>> steps_;
  int steps_running_ = 0;
  std::multimap<SteadyClock::time_point, std::unique_ptr<Waiting>> waits_;
  // Query threads -> I/O thread.
  std::mutex answers_mutex_;
  std::vector<Answer> answers_;
  std::mutex prepared_mutex_;
  std::shared_ptr<const Periods> periods_;
  std::shared_ptr<const TableIndex> index_;
};

}  // namespace vedette::livestatus
