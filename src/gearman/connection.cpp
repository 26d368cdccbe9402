#include "gearman/connection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace vedette::gearman {
namespace {

int timeout_ms(std::chrono::milliseconds t) {
  return static_cast<int>(std::clamp<std::int64_t>(t.count(), 1, 3'600'000));
}

// The function every registered queue runs: a C callback that hands the job to the session's hooks. Jobs
// are background jobs, so a failure would only make libgearman complain: each one succeeds, unless handed
// back.
void* serve(gearman_job_st* job, void* context, size_t* result_size, gearman_return_t* ret) {
  *result_size = 0;
  *ret = GEARMAN_SUCCESS;
  const auto* data = static_cast<const char*>(gearman_job_workload(job));
  const std::string_view workload(data ? data : "", data ? gearman_job_workload_size(job) : 0);
  const char* function = gearman_job_function_name(job);
  const JobReply reply = static_cast<const SessionHooks*>(context)->on_job(function ? function : "", workload);
  if (reply.hand_back) {
    // libgearman's FunctionV1 turns this into GEARMAN_FUNCTION_ERROR: it closes the connection without
    // completing the job, and gearmand queues it again.
    *ret = GEARMAN_LOST_CONNECTION;
    return nullptr;
  }
  if (reply.data.empty()) return nullptr;
  auto* out = static_cast<char*>(std::malloc(reply.data.size()));  // libgearman frees it
  if (out == nullptr) return nullptr;
  std::memcpy(out, reply.data.data(), reply.data.size());
  *result_size = reply.data.size();
  return out;
}

}  // namespace

std::string describe(const std::vector<Server>& servers) {
  std::string out;
  for (const Server& s : servers) {
    if (!out.empty()) out += ',';
    out += fmt::format("{}:{}", s.host, s.port);
  }
  return out;
}

std::int64_t wall_now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Client make_client(const std::vector<Server>& servers, std::chrono::milliseconds io_timeout) {
  Client client(gearman_client_create(nullptr));
  if (!client) return nullptr;
  for (const Server& s : servers)
    if (gearman_failed(gearman_client_add_server(client.get(), s.host.c_str(), s.port))) return nullptr;
  gearman_client_set_timeout(client.get(), timeout_ms(io_timeout));
  return client;
}

gearman_return_t send_background(gearman_client_st* client, const std::string& queue,
                                 const std::string& unique, Priority priority, std::string_view payload) {
  gearman_job_handle_t handle;
  const char* id = unique.empty() ? nullptr : unique.c_str();
  switch (priority) {
    case Priority::low:
      return gearman_client_do_low_background(client, queue.c_str(), id, payload.data(), payload.size(),
                                              handle);
    case Priority::high:
      return gearman_client_do_high_background(client, queue.c_str(), id, payload.data(), payload.size(),
                                               handle);
    case Priority::normal:
      break;
  }
  return gearman_client_do_background(client, queue.c_str(), id, payload.data(), payload.size(), handle);
}

WorkerSession::WorkerSession(std::vector<Server> servers, std::vector<std::string> functions,
                             std::string identifier, std::chrono::milliseconds io_timeout,
                             std::chrono::milliseconds retry_interval)
    : servers_(std::move(servers)),
      functions_(std::move(functions)),
      identifier_(std::move(identifier)),
      io_timeout_(io_timeout),
      retry_interval_(retry_interval) {}

void WorkerSession::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    // Wakes gearman_worker_work() at once: it polls this pipe beside its connections.
    if (wake_write_fd_ >= 0) gearman_kill(gearman_id_t{wake_read_fd_, wake_write_fd_}, GEARMAN_INTERRUPT);
  }
  stop_cv_.notify_all();
}

bool WorkerSession::stopping() const {
  std::lock_guard lock(mutex_);
  return stopping_;
}

bool WorkerSession::wait_before_retry() {
  std::unique_lock lock(mutex_);
  return !stop_cv_.wait_for(lock, retry_interval_, [this] { return stopping_; });
}

void WorkerSession::run(const SessionHooks& hooks) {
  gearman_worker_st* worker = nullptr;
  bool down = false;  // an outage was reported and has not ended

  const auto destroy = [&] {
    if (worker == nullptr) return;
    {
      std::lock_guard lock(mutex_);
      wake_read_fd_ = -1;
      wake_write_fd_ = -1;
    }
    gearman_worker_free(worker);
    worker = nullptr;
    connected_.store(false, std::memory_order_relaxed);
  };
  // `error` is a copy: destroy() frees the text libgearman's error pointed into.
  const auto fail = [&](std::string error) {
    destroy();
    if (!down) {
      down = true;
      if (hooks.on_down) hooks.on_down(error);
    }
    return wait_before_retry();
  };

  while (true) {
    if (worker == nullptr) {
      worker = gearman_worker_create(nullptr);
      if (worker == nullptr) {
        if (!fail("cannot create a gearman worker")) break;
        continue;
      }
      bool ok = true;
      for (const Server& s : servers_)
        ok = ok && gearman_success(gearman_worker_add_server(worker, s.host.c_str(), s.port));
      gearman_worker_set_timeout(worker, timeout_ms(io_timeout_));
      if (!identifier_.empty())
        (void)gearman_worker_set_identifier(worker, identifier_.c_str(), identifier_.size());
      for (const std::string& f : functions_)
        ok = ok && gearman_success(gearman_worker_add_function(worker, f.c_str(), 0, &serve,
                                                               const_cast<SessionHooks*>(&hooks)));
      {
        std::lock_guard lock(mutex_);
        if (stopping_) break;
        const gearman_id_t id = gearman_worker_id(worker);
        wake_read_fd_ = id.read_fd;
        wake_write_fd_ = id.write_fd;
      }
      // An echo proves the connection before we call it up; registering happens on the first work().
      if (!ok || gearman_failed(gearman_worker_echo(worker, "ping", 4))) {
        if (!fail(gearman_worker_error(worker) ? gearman_worker_error(worker) : "no connection")) break;
        continue;
      }
      connected_.store(true, std::memory_order_relaxed);
      if (down) {
        down = false;
        if (hooks.on_up) hooks.on_up();
      }
    }
    if (hooks.wait_for_room && !hooks.wait_for_room()) break;
    const gearman_return_t rc = gearman_worker_work(worker);
    switch (rc) {
      case GEARMAN_SUCCESS:
      case GEARMAN_TIMEOUT:  // idle for io_timeout: just ask again
      case GEARMAN_IO_WAIT:
      case GEARMAN_NO_JOBS:
        continue;
      case GEARMAN_SHUTDOWN:
      case GEARMAN_SHUTDOWN_GRACEFUL:
        if (stopping()) break;
        destroy();  // nobody else writes the pipe; start afresh rather than spin on it
        continue;
      default:
        if (!fail(gearman_worker_error(worker) ? gearman_worker_error(worker) : gearman_strerror(rc))) break;
        continue;
    }
    break;
  }
  destroy();
}

}  // namespace vedette::gearman
