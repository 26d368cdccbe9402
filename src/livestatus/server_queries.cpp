// The Livestatus server's query threads ("livestatus-N", Server::Impl in server_internal.hpp): each takes a
// complete request the I/O thread (server_io.cpp) read, or a waiting query that is due, parses and answers
// it from a fresh snapshot (core_channel.hpp) into a pooled buffer, runs a COMMAND through the core (within
// tcp_commands), and hands the answer back to the I/O thread. A waiting query (WaitCondition,
// WaitTrigger) is polled on newer snapshots and holds no thread between its polls.
#include "livestatus/server_internal.hpp"
#include "metrics/core_metrics.hpp"
#include "timeperiod/evaluator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

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

// Each thread takes a due wait first, else the next job, and sleeps until one of them is there.
void Server::Impl::work() {
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
std::optional<std::string> Server::Impl::refused_over_tcp(const Job& job, std::string_view command) const {
  using T = ServerOptions::TcpCommands;
  if (!job.tcp || options_.tcp_commands == T::all) return std::nullopt;
  if (options_.tcp_commands == T::none) return "COMMAND is refused on TCP connections (tcp_commands=none)";
  if (names_command(command, "PROCESS_FILE"))
    return "PROCESS_FILE is refused on TCP connections (tcp_commands=no_process_file)";
  return std::nullopt;
}

RequestError Server::Impl::shutting_down() {
  return {452, "Query canceled, core is shutting down."};
}

Server::Impl::Answer Server::Impl::framed_error(Answer& answer, const Request& request,
                                                const RequestError& error) {
  frame_response(request.fixed16, error.code, error.message, answer.bytes);
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

// Runs a compiled GET over `view` into a framed answer.
Server::Impl::Answer Server::Impl::run_query(Answer& answer, const Request& request, const Query& query,
                                             const View& view, const std::atomic<bool>* hung_up) {
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
  const bool done =
      trigger_only ? trigger_count(view, trigger) != w->events_before : w->query->wait_condition_holds(view);
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

}  // namespace vedette::livestatus
