// A perfdata writer: samples from the core go, in batches, to a Graphite (plaintext over TCP) or InfluxDB
// (line protocol over HTTP) backend. The core thread only appends to a bounded buffer; a thread of the
// writer's own (named after it: "graphite", "influxdb") owns the socket, formats the lines, connects with
// a timeout, reconnects with exponential backoff and reports through `on_event`.
//
//   Writer writer(options);                      // starts the thread; connects when there is data
//   if (!writer.push(sample)) { /* dropped */ }  // core thread, per result: a copy into a reused buffer
//   std::string note = writer.flush(now);        // core thread, once per loop iteration; log it if set
//   /* destroy at shutdown or reload: what the backend takes within the timeout is sent, the rest counted */
#pragma once

#include "base/expected.hpp"
#include "loop/clock.hpp"
#include "tsdb/connection.hpp"
#include "tsdb/line_format.hpp"
#include "tsdb/sample.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace vedette::tsdb {

enum class Protocol : std::uint8_t { graphite, influxdb };

struct WriterOptions {
  std::string name = "graphite";  // thread name and the writer's name in log lines
  Protocol protocol = Protocol::graphite;
  std::string host;
  std::uint16_t port = 0;
  std::string
      http_target;  // influxdb: "/write?db=…&precision=s" or "/api/v2/write?org=…&bucket=…&precision=s"
  std::string http_headers;  // influxdb: complete header lines ("Authorization: Token …\r\n")
  LineOptions lines{};
  // Bounded memory: push() refuses samples while this many bytes wait (in the core's buffer, handed over,
  // or being sent).
  std::size_t max_queued_bytes = std::size_t{16} << 20;
  // How often the core hands its samples over (and wakes the thread): one lock and one wakeup per interval,
  // not per check.
  std::chrono::milliseconds flush_interval{1000};
  std::chrono::milliseconds timeout{5000};  // connect, each send, the HTTP answer
  std::chrono::milliseconds backoff_first{1000};
  std::chrono::milliseconds backoff_limit{60000};
  std::size_t max_batch_bytes = std::size_t{1} << 20;  // formatted bytes per send or POST
  // How long a stopping writer may go on sending what it holds; then what is still in flight is cancelled
  // and counted lost, so neither a shutdown nor the retention file written after it waits for a backend
  // that takes the request and never answers.
  std::chrono::milliseconds stop_grace{5000};
  // Called on the writer's thread with a line for the log ("Warning: graphite writer: …"): hand it to the
  // core thread, do not log from here. Default: stderr.
  std::function<void(std::string)> on_event{};
};

// Totals since construction; any thread.
struct WriterStats {
  std::uint64_t samples_sent = 0;      // delivered to the backend (for InfluxDB: answered 2xx)
  std::uint64_t samples_dropped = 0;   // refused by push() while the buffer was full
  std::uint64_t samples_rejected = 0;  // InfluxDB answered 4xx for their batch: not retried
  std::uint64_t samples_lost = 0;      // still queued when the writer was destroyed
  std::uint64_t bytes_sent = 0;
  std::uint64_t connects = 0;  // successful connections
  std::uint64_t failures = 0;  // failed connects, sends and server errors
};

class Writer {
 public:
  explicit Writer(WriterOptions options);
  // Hands over what is pending and stops the thread: what was queued is sent if the backend is reachable
  // (one attempt each, no backoff; while it was already failing, none); the rest counts as lost and is
  // reported. Waits at most stop_grace (plus a name lookup in progress).
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Core thread. Copies `s` into the core's buffer: no syscall, no lock, no allocation once the buffer has
  // grown. False, and counted, when the bound is reached.
  bool push(const Sample& s);

  // Core thread, once per iteration. Every flush_interval (or sooner when the buffer is a quarter full)
  // hands the buffer over: one short lock and a wakeup. Returns a line to log about dropped samples — at
  // the first drop, then at most once a minute while drops go on — or an empty string.
  [[nodiscard]] std::string flush(loop::MonoTime now);

  // Core thread: whether a later flush() has something to do (samples to hand over, drops to report).
  [[nodiscard]] bool has_pending() const { return !pending_.empty() || drops_unreported_ > 0; }

  // Tests only: hands everything over and waits until it was sent (or dropped). False on timeout.
  bool wait_idle(std::chrono::milliseconds timeout);

  [[nodiscard]] WriterStats stats() const;
  [[nodiscard]] const WriterOptions& options() const { return options_; }

 private:
  void hand_over();
  void run();
  bool deliver(std::string_view batch, std::uint64_t samples);
  base::Status deliver_graphite(std::string_view batch);
  base::Status deliver_influx(std::string_view batch, std::uint64_t samples);
  void failed(const std::string& error);
  void event(std::string line);

  WriterOptions options_;

  // Core thread only.
  std::string pending_;
  loop::MonoTime last_hand_over_{};
  loop::MonoTime last_drop_report_{};
  bool drops_reported_ = false;
  std::uint64_t drops_unreported_ = 0;

  // Between the threads.
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string shared_;     // guarded by mutex_
  bool stop_ = false;      // guarded by mutex_
  bool finished_ = false;  // guarded by mutex_: run() returned
  std::condition_variable finished_wake_;
  int cancel_fd_ = -1;  // eventfd: signalled when stop_grace is over, ends the connection's waits
  std::atomic<std::size_t> queued_bytes_{0};
  std::atomic<std::uint64_t> samples_sent_{0}, samples_dropped_{0}, samples_rejected_{0}, samples_lost_{0},
      bytes_sent_{0}, connects_{0}, failures_{0};

  // Writer thread only.
  Connection connection_;
  std::string request_;
  std::string response_;
  bool failing_ = false;  // since the last failure was reported; cleared by a success
  std::chrono::steady_clock::time_point last_rejection_report_{};

  std::thread thread_;  // last: it reads everything above
};

}  // namespace vedette::tsdb
