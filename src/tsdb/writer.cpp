#include "tsdb/writer.hpp"

#include "base/check.hpp"
#include "loop/thread_name.hpp"
#include "tsdb/backoff.hpp"
#include "tsdb/http_exchange.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <sys/eventfd.h>
#include <unistd.h>
#include <utility>

namespace vedette::tsdb {
namespace {

constexpr std::chrono::minutes k_drop_report_interval{1};

std::string host_header(const WriterOptions& o) {
  const bool ipv6 = o.host.find(':') != std::string::npos;
  return ipv6 ? fmt::format("[{}]:{}", o.host, o.port) : fmt::format("{}:{}", o.host, o.port);
}

}  // namespace

Writer::Writer(WriterOptions options) : options_(std::move(options)) {
  if (!options_.on_event)
    options_.on_event = [](std::string line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  cancel_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  connection_.set_cancel_fd(cancel_fd_);  // -1 (no eventfd): waits end by their timeout only
  thread_ = base::start_thread([this] { run(); });
}

Writer::~Writer() {
  hand_over();
  std::unique_lock lock(mutex_);
  stop_ = true;
  wake_.notify_one();
  if (!finished_wake_.wait_for(lock, options_.stop_grace, [&] { return finished_; }) && cancel_fd_ >= 0) {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(cancel_fd_, &one, sizeof one);
  }
  lock.unlock();
  thread_.join();
  if (cancel_fd_ >= 0) ::close(cancel_fd_);
}

bool Writer::push(const Sample& s) {
  const std::size_t size = encoded_size(s);
  if (queued_bytes_.load(std::memory_order_relaxed) + size > options_.max_queued_bytes) {
    ++drops_unreported_;
    samples_dropped_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  queued_bytes_.fetch_add(size, std::memory_order_relaxed);
  encode_sample(s, pending_);
  return true;
}

std::string Writer::flush(loop::MonoTime now) {
  if (!pending_.empty() && (now - last_hand_over_ >= options_.flush_interval ||
                            pending_.size() >= options_.max_queued_bytes / 4)) {
    hand_over();
    last_hand_over_ = now;
  }
  if (drops_unreported_ == 0 || (drops_reported_ && now - last_drop_report_ < k_drop_report_interval))
    return {};
  std::string line = fmt::format(
      "Warning: {} writer: dropped {} performance data samples ({} in total): more than {} bytes were "
      "waiting for {}",
      options_.name, drops_unreported_, samples_dropped_.load(std::memory_order_relaxed),
      options_.max_queued_bytes, host_header(options_));
  drops_unreported_ = 0;
  drops_reported_ = true;
  last_drop_report_ = now;
  return line;
}

void Writer::hand_over() {
  if (pending_.empty()) return;
  {
    std::lock_guard lock(mutex_);
    if (shared_.empty()) {
      shared_.swap(pending_);
    } else {
      shared_ += pending_;
    }
  }
  pending_.clear();
  wake_.notify_one();
}

bool Writer::wait_idle(std::chrono::milliseconds timeout) {
  hand_over();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (queued_bytes_.load() == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return queued_bytes_.load() == 0;
}

WriterStats Writer::stats() const {
  return WriterStats{.samples_sent = samples_sent_.load(),
                     .samples_dropped = samples_dropped_.load(),
                     .samples_rejected = samples_rejected_.load(),
                     .samples_lost = samples_lost_.load(),
                     .bytes_sent = bytes_sent_.load(),
                     .connects = connects_.load(),
                     .failures = failures_.load()};
}

void Writer::event(std::string line) {
  options_.on_event(std::move(line));
}

// Samples are taken from the handed-over buffer into one formatted batch at a time; the batch is kept
// until the backend took it, so a failure costs a retry, not data. Meanwhile queued_bytes_ still counts
// what waits, which is what makes push() refuse once the backend is far enough behind.
void Writer::run() {
  loop::set_current_thread_name(options_.name);
  Backoff backoff(options_.backoff_first, options_.backoff_limit);
  std::string work;
  std::string_view rest;
  std::string batch;
  std::size_t batch_bytes = 0;  // encoded bytes of the samples in `batch`
  std::uint64_t batch_samples = 0;
  bool stopping = false;
  while (true) {
    if (batch.empty() && rest.empty()) {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || !shared_.empty(); });
      stopping = stop_;
      if (shared_.empty()) break;  // stopping, nothing left
      work.clear();
      work.swap(shared_);
      rest = work;
    }
    const std::size_t before = rest.size();
    for (Sample s; batch.size() < options_.max_batch_bytes && decode_sample(rest, s);) {
      if (options_.protocol == Protocol::graphite) {
        append_graphite_lines(s, options_.lines, batch);
      } else {
        append_influx_lines(s, options_.lines, batch);
      }
      ++batch_samples;
    }
    batch_bytes += before - rest.size();
    // Stopping while the backend fails: what is left is counted, not tried.
    const bool give_up = stopping && failing_;
    const bool delivered = batch.empty() || (!give_up && deliver(batch, batch_samples));
    if (delivered || give_up) {
      if (!delivered) samples_lost_.fetch_add(batch_samples, std::memory_order_relaxed);
      queued_bytes_.fetch_sub(batch_bytes, std::memory_order_relaxed);
      batch.clear();
      batch_bytes = 0;
      batch_samples = 0;
      if (delivered) backoff.reset();
      continue;
    }
    if (stopping) continue;  // failing_ is set now: the next round gives up
    const std::chrono::milliseconds delay = backoff.next();
    std::unique_lock lock(mutex_);
    wake_.wait_for(lock, delay, [&] { return stop_; });
    stopping = stop_;
  }
  const std::uint64_t total_lost = samples_lost_.load();
  if (total_lost > 0)
    event(fmt::format("Warning: {} writer: {} performance data samples were not sent before shutdown",
                      options_.name, total_lost));
  queued_bytes_.store(0);
  std::lock_guard lock(mutex_);
  finished_ = true;
  finished_wake_.notify_one();
}

bool Writer::deliver(std::string_view batch, std::uint64_t samples) {
  const std::uint64_t rejected_before = samples_rejected_.load(std::memory_order_relaxed);
  if (const base::Status s =
          options_.protocol == Protocol::graphite ? deliver_graphite(batch) : deliver_influx(batch, samples);
      !s) {
    failed(s.error());
    return false;
  }
  samples_sent_.fetch_add(samples - (samples_rejected_.load(std::memory_order_relaxed) - rejected_before),
                          std::memory_order_relaxed);
  bytes_sent_.fetch_add(batch.size(), std::memory_order_relaxed);
  if (failing_) event(fmt::format("{} writer: sending to {} again", options_.name, host_header(options_)));
  failing_ = false;
  return true;
}

void Writer::failed(const std::string& error) {
  connection_.close();
  failures_.fetch_add(1, std::memory_order_relaxed);
  if (failing_) return;  // once per episode
  failing_ = true;
  event(fmt::format("Warning: {} writer: cannot send to {}: {}; retrying in {} to {} s", options_.name,
                    host_header(options_), error, options_.backoff_first.count() / 1000.0,
                    options_.backoff_limit.count() / 1000.0));
}

base::Status Writer::deliver_graphite(std::string_view batch) {
  if (connection_.is_open() && connection_.peer_closed()) connection_.close();
  if (!connection_.is_open()) {
    if (base::Status s = connection_.connect(options_.host, options_.port, options_.timeout); !s) return s;
    connects_.fetch_add(1, std::memory_order_relaxed);
  }
  std::size_t sent = 0;
  return connection_.send_all(batch, options_.timeout, sent);
}

// A reused keep-alive connection may have been closed by the server meanwhile: then the POST is tried once
// more on a new connection before it counts as a failure.
base::Status Writer::deliver_influx(std::string_view batch, std::uint64_t samples) {
  request_.clear();
  append_http_post(host_header(options_), options_.http_target, options_.http_headers, batch, request_);
  base::Status last = base::Status::ok();  // the failure of a reused connection's attempt
  for (int attempt = 0; attempt < 2; ++attempt) {
    const bool reused = connection_.is_open() && !connection_.peer_closed();
    if (!reused) {
      connection_.close();
      if (base::Status s = connection_.connect(options_.host, options_.port, options_.timeout); !s) return s;
      connects_.fetch_add(1, std::memory_order_relaxed);
    }
    std::size_t sent = 0;
    response_.clear();
    std::optional<HttpResponse> response;
    base::Status s = connection_.send_all(request_, options_.timeout, sent);
    while (s && !(response = parse_http_response(response_)))
      s = connection_.receive(response_, options_.timeout);
    if (!s) {
      connection_.close();
      last = s;
      if (reused) continue;
      return s;
    }
    if (!response->keep_alive) connection_.close();
    if (response->status >= 200 && response->status < 300) return base::Status::ok();
    const std::string_view body = response->body.substr(0, 300);
    if (response->status >= 400 && response->status < 500 && response->status != 408 &&
        response->status != 429) {
      // The data or the credentials are wrong: sending the batch again would not help.
      samples_rejected_.fetch_add(samples, std::memory_order_relaxed);
      const auto now = std::chrono::steady_clock::now();
      if (now - last_rejection_report_ < k_drop_report_interval) return base::Status::ok();
      last_rejection_report_ = now;
      event(fmt::format("Warning: {} writer: {} refused {} samples ({} in total): HTTP {} {}", options_.name,
                        host_header(options_), samples, samples_rejected_.load(), response->status, body));
      return base::Status::ok();
    }
    return base::Error{fmt::format("HTTP {} {}", response->status, body)};
  }
  return last;
}

}  // namespace vedette::tsdb
