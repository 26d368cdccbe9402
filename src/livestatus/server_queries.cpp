// The Livestatus server's query threads ("livestatus-N", Server::Impl in server_internal.hpp): each takes a
// complete request the I/O thread (server_io.cpp) read, or a waiting query that is due, parses and answers
// it from a fresh snapshot (core_channel.hpp) into a pooled buffer, runs a COMMAND through the core (within
// tcp_commands), and hands the answer back to the I/O thread. A waiting query (WaitCondition,
// WaitTrigger) is polled on newer snapshots and holds no thread between its polls. An answer too large for
// the memory budget (max_pending_bytes) is counted first and then produced a piece at a time as its client
// reads (Stream); it holds no thread between its steps either.
#include "livestatus/server_internal.hpp"
#include "metrics/core_metrics.hpp"
#include "timeperiod/evaluator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <iterator>

namespace vedette::livestatus {

struct Server::Impl::Periods {
  std::shared_ptr<const void> keep_alive;  // the model's owner
  const model::Model* model = nullptr;
  std::vector<timeperiod::Period> table;
  timeperiod::Evaluator evaluator{{}, nullptr};
};

namespace {

// A wait polls fresh snapshots after 10 ms, then twice as long each time up to this.
constexpr std::chrono::milliseconds k_longest_wait_poll{500};
constexpr std::size_t k_fixed16_size = 16;  // "200 " + 11 digits + "\n"
constexpr std::string_view k_shutting_down = "Query canceled, core is shutting down.";
// The command file's longest line (CommandFifo::k_max_line_bytes): a COMMAND longer than it would put a
// plugin output or comment of up to a request's 16 MB into the state, and into every answer that shows it.
constexpr std::size_t k_max_command_line = 64 * 1024;
// An answer is made k_piece bytes (and a row) at a time: what a client that reads nothing holds of a long
// answer. A query thread makes k_pieces_a_turn of them, then takes the requests that came meanwhile: 1 MB
// of log lines is a few ms (bench/livestatus/log_memory.py).
constexpr std::size_t k_piece = std::size_t{256} << 10;
constexpr std::size_t k_piece_capacity = k_piece + (k_piece / 4);  // and a row, mostly
constexpr std::size_t k_pieces_a_turn = 4;

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

std::shared_ptr<const Server::Impl::Periods> Server::Impl::make_periods(const files::StatusSnapshot& s) {
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

// Each thread takes a due wait first, else the next request, else the next step of an answer in pieces,
// and sleeps until one of them is there.
void Server::Impl::work() {
  for (;;) {
    Job job;
    std::unique_ptr<Waiting> waiting;
    std::unique_ptr<Stream> stream;
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
        // Steps leave one thread to the requests (when there are two or more), which then wait for no
        // long answer; the thread that ends a step takes the next.
        if (!steps_.empty() && steps_running_ < std::max(options_.threads - 1, 1)) {
          stream = std::move(steps_.front());
          steps_.pop_front();
          ++steps_running_;
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
    } else if (stream != nullptr) {
      answer = step(std::move(stream));
      std::lock_guard lock(jobs_mutex_);
      --steps_running_;
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
void Server::Impl::prepare(View& view, std::shared_ptr<const files::StatusSnapshot> snapshot,
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
std::optional<Server::Impl::Answer> Server::Impl::answer_request(Job& job) {
  counters.requests.fetch_add(1, std::memory_order_relaxed);
  Answer answer = answer_to(job.id, /*keep_alive=*/false);
  Request request;
  RequestError error;
  if (!parse_request(job.request, request, error)) {
    if (error.code == 0) return answer;  // no request at all: nothing to answer, and the module hangs up
    answer.keep_alive = request.keep_alive;
    return framed(answer, request.fixed16, error.code, error.message);
  }
  answer.keep_alive = request.keep_alive;
  switch (request.method) {
    case Method::command:
      // As the module: a command keeps the connection open, and only a failure is answered, with the
      // query handler's "400: <reason>" line (Monitoring::Livestatus reads it so).
      answer.keep_alive = true;
      if (request.command.size() > k_max_command_line)
        return framed(answer, request.fixed16, 400,
                      fmt::format("400: COMMAND of {} bytes is longer than the {} the command file takes",
                                  request.command.size(), k_max_command_line));
      if (std::optional<std::string> refused = refused_over_tcp(job, request.command))
        return framed(answer, request.fixed16, 400, fmt::format("400: {}", *refused));
      if (std::optional<std::string> failed = channel_.run_command(request.command))
        return framed(answer, request.fixed16, 400, fmt::format("400: {}", *failed));
      return answer;
    case Method::logrotate:
      channel_.request_log_rotation();
      return answer;
    case Method::get:
      break;
  }
  const Table* table = find_table(request.table);  // parse_request answered a missing or unknown one
  std::optional<Query> query = Query::compile(request, *table, error);
  if (!query) return framed(answer, request.fixed16, error.code, error.message);
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
    return framed(answer, request.fixed16, 452, k_shutting_down);
  return run_query(job.id, request, std::move(*query), view, std::move(periods), std::move(job.hung_up));
}

// tcp_commands: what a TCP client (no authentication) may not run.
std::optional<std::string> Server::Impl::refused_over_tcp(const Job& job, std::string_view command) const {
  using T = ServerOptions::TcpCommands;
  if (!job.tcp || options_.tcp_commands == T::all) return std::nullopt;
  if (options_.tcp_commands == T::none) return "COMMAND is refused on TCP connections (tcp_commands=none)";
  if (names_command(command, "PROCESS_FILE"))
    return "PROCESS_FILE is refused on TCP connections (tcp_commands=no_process_file)";
  return std::nullopt;
}

// `answer` with one piece: an error, or COMMAND's failure line, framed as the client asked.
Server::Impl::Answer Server::Impl::framed(Answer& answer, bool fixed16, int code, std::string_view message) {
  answer.pieces.emplace_back();
  frame_response(fixed16, code, message, answer.pieces.back());
  return std::move(answer);
}

bool Server::Impl::prepare_view(View& view, std::shared_ptr<const Periods>& periods,
                                std::shared_ptr<const files::StatusSnapshot> snapshot) {
  if (snapshot == nullptr) return false;
  view.settings = &options_.settings;
  view.counters = &counters;
  prepare(view, std::move(snapshot), periods);
  return true;
}

Server::Impl::Answer Server::Impl::answer_to(std::uint64_t id, bool keep_alive) {
  return Answer{.id = id,
                .pieces = {},
                .keep_alive = keep_alive,
                .held = MemoryBudget::Share(budget_),
                .stream = nullptr};
}

// Answers a compiled GET over `view`: its first step (build), and the others as they come due.
std::optional<Server::Impl::Answer> Server::Impl::run_query(std::uint64_t id, const Request& request,
                                                            Query&& query, const View& view,
                                                            std::shared_ptr<const Periods> periods,
                                                            std::shared_ptr<std::atomic<bool>> hung_up) {
  auto s = std::make_unique<Stream>();
  s->id = id;
  s->held = MemoryBudget::Share(budget_);
  s->hung_up = std::move(hung_up);
  s->fixed16 = request.fixed16;
  s->keep_alive = request.keep_alive;
  s->query.emplace(std::move(query));
  s->periods = std::move(periods);
  Query::Limits limits;
  limits.max_response_size = options_.max_response_size;
  limits.cancelled = s->hung_up.get();
  if (request.timelimit > 0) limits.deadline = SteadyClock::now() + std::chrono::seconds(request.timelimit);
  s->run = s->query->start(view, limits);
  return step(std::move(s));
}

std::optional<Server::Impl::Answer> Server::Impl::step(std::unique_ptr<Stream> s) {
  switch (s->stage) {
    case Stream::Stage::building:
      return build(std::move(s));
    case Stream::Stage::counting:
      return count(std::move(s));
    case Stream::Stage::sending:
      break;
  }
  return send(std::move(s));
}

// The whole answer, in pieces that go out together, while the budget has room for another piece; a few
// pieces a turn, then the stream waits behind the other clients' requests. The first piece is made
// whatever the budget says, so that small answers always come at once; a small one goes out in a string
// of its own size, and the piece back to the pool.
std::optional<Server::Impl::Answer> Server::Impl::build(std::unique_ptr<Stream> s) {
  RequestError error;
  for (std::size_t made = 0;; ++made) {
    std::size_t capacity = 0;
    for (const std::string& piece : s->built) capacity += piece.capacity();
    if (made == k_pieces_a_turn) {
      queue(std::move(s));
      return std::nullopt;
    }
    if (!s->built.empty() && !s->held.try_resize(capacity + k_piece_capacity)) {
      buffers_.trim();
      if (!s->held.try_resize(capacity + k_piece_capacity)) {
        // Too large for the memory left: counted, then made again in pieces as the client reads them.
        for (std::string& piece : s->built) buffers_.give(std::move(piece));
        s->built.clear();
        s->held.resize(0);
        s->stage = Stream::Stage::counting;
        queue(std::move(s));
        return std::nullopt;
      }
    }
    std::string piece = buffers_.take(k_piece_capacity);
    if (s->fixed16 && s->built.empty()) piece.append(k_fixed16_size, ' ');
    const Query::Step step = s->run->step(piece, k_piece, error);
    s->held.resize(capacity + piece.capacity());
    s->built.push_back(std::move(piece));
    if (step == Query::Step::more) continue;
    Answer answer = answer_to(s->id, s->keep_alive);
    if (step == Query::Step::failed) {
      for (std::string& p : s->built) buffers_.give(std::move(p));
      return framed(answer, s->fixed16, error.code, error.message);
    }
    std::string& first = s->built.front();
    // The header frame_response() writes, in the room left for it.
    if (s->fixed16) fmt::format_to(first.data(), "200 {:>11}\n", s->run->produced());
    if (s->built.size() == 1 && first.size() < first.capacity() / 4) {
      std::string own = first;
      buffers_.give(std::move(first));
      first = std::move(own);
    }
    answer.pieces = std::move(s->built);
    answer.held = std::move(s->held);
    return answer;
  }
}

// A few pieces of the answer made and thrown away, for its length: the client gets the error instead if
// the answer fails (413 over max_response_size or Timelimit), as the module answers, before any of it is
// sent. Then the stream waits its turn again, behind the other clients' requests.
std::optional<Server::Impl::Answer> Server::Impl::count(std::unique_ptr<Stream> s) {
  MemoryBudget::Share held(budget_);
  std::string piece = buffers_.take(k_piece_capacity);
  RequestError error;
  Query::Step step = Query::Step::more;
  for (std::size_t made = 0; made < k_pieces_a_turn && step == Query::Step::more; ++made) {
    step = s->run->step(piece, k_piece, error);
    held.resize(piece.capacity());
    piece.clear();
  }
  buffers_.give(std::move(piece));
  if (step == Query::Step::more) {
    queue(std::move(s));
    return std::nullopt;
  }
  if (step == Query::Step::failed) {
    Answer answer = answer_to(s->id, s->keep_alive);
    return framed(answer, s->fixed16, error.code, error.message);
  }
  // A second run over the same View (the same snapshot and log lines) gives the same bytes. The count held
  // the answer to max_response_size and Timelimit; the client's reading takes its own time.
  s->length = s->run->produced();
  Query::Limits limits;
  limits.cancelled = s->hung_up.get();
  s->run = s->run->again(limits);
  s->stage = Stream::Stage::sending;
  return send(std::move(s));
}

// The next piece of a counted answer (the first after the fixed16 header), and the stream with it when
// more is to come. Should the pieces not add up to the length counted (a column that reads something
// besides the snapshot), the answer is cut at that length and the connection closes: the client could not
// read another answer on it.
Server::Impl::Answer Server::Impl::send(std::unique_ptr<Stream> s) {
  Answer answer = answer_to(s->id, s->keep_alive);
  std::string piece = buffers_.take(k_piece_capacity);
  const std::size_t before = s->run->produced();
  if (s->fixed16 && before == 0) fmt::format_to(std::back_inserter(piece), "200 {:>11}\n", s->length);
  const std::size_t body_start = piece.size();
  RequestError error;
  const Query::Step step = s->run->step(piece, k_piece, error);
  const std::size_t produced = s->run->produced();
  if (step == Query::Step::more && produced < s->length) {
    answer.stream = std::move(s);
  } else if (step != Query::Step::done || produced != s->length) {
    piece.resize(body_start + std::min(produced, s->length) - std::min(before, s->length));
    answer.keep_alive = false;
  }
  answer.held.resize(piece.capacity());
  answer.pieces.push_back(std::move(piece));
  return answer;
}

void Server::Impl::queue(std::unique_ptr<Stream> s) {
  {
    std::lock_guard lock(jobs_mutex_);
    steps_.push_back(std::move(s));
  }
  jobs_ready_.notify_one();
}

// How many events of the trigger's kind the core has seen, by the view's snapshot.
std::uint64_t Server::Impl::trigger_count(const View& view, WaitTrigger trigger) {
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
std::optional<Server::Impl::Answer> Server::Impl::poll(std::unique_ptr<Waiting> w) {
  if (w->hung_up != nullptr && w->hung_up->load(std::memory_order_relaxed)) return std::nullopt;
  Answer answer = answer_to(w->id, w->request.keep_alive);
  View view;
  std::shared_ptr<const Periods> periods;
  // The first look needs a snapshot taken after the request came; later ones any newer than the last.
  if (!prepare_view(
          view, periods,
          w->polled ? channel_.snapshot_after(w->generation) : channel_.fresh_snapshot(&w->generation)))
    return framed(answer, w->request.fixed16, 452, k_shutting_down);
  const WaitTrigger trigger = w->request.wait_trigger;
  const bool trigger_only = !w->query->has_wait_condition();
  if (!w->polled) {
    w->polled = true;
    w->events_before = trigger_count(view, trigger);
  }
  const bool done =
      trigger_only ? trigger_count(view, trigger) != w->events_before : w->query->wait_condition_holds(view);
  const SteadyClock::time_point now = SteadyClock::now();
  const bool bounded = w->deadline != SteadyClock::time_point{};
  if (done || (bounded && now >= w->deadline))
    return run_query(w->id, w->request, std::move(*w->query), view, std::move(periods),
                     std::move(w->hung_up));
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

}  // namespace vedette::livestatus
