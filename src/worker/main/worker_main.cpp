// vedette-worker: a Mod-Gearman compatible worker. Reads Mod-Gearman's worker options from files
// (--config=FILE) and the command line (key=value), serves the configured queues until SIGTERM or SIGINT,
// then lets running checks finish (Worker::stop_grace) before it exits.
// Runs in the foreground (for systemd); logs to stderr.
#include "gearman/routing.hpp"
#include "loop/signals.hpp"
#include "worker/worker.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <poll.h>
#include <string>
#include <string_view>
#include <unistd.h>

namespace {

constexpr std::string_view k_usage =
    "usage: vedette-worker [--config=FILE]... [key=value]...\n"
    "Runs Mod-Gearman jobs from gearmand. Options are Mod-Gearman's worker options, for example\n"
    "  --config=/etc/mod-gearman/worker.conf server=localhost:4730 key=secret hostgroups=dmz\n"
    "  max-worker=20 job_timeout=60 max-age=0 timeout_return=2 identifier=NAME encryption=yes\n";

std::mutex log_mutex;

void log_line(std::string_view line) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
  std::lock_guard lock(log_mutex);
  fmt::print(stderr, "[{}] {}\n", stamp, line);
}

std::string host_name() {
  char buffer[256] = {};
  if (::gethostname(buffer, sizeof buffer - 1) != 0) return "unknown";
  return buffer;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace vedette;
  gearman::Options options;
  gearman::OptionMessages messages;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      fmt::print("{}", k_usage);
      return 0;
    }
    if (arg == "-V" || arg == "--version") {
      fmt::print("vedette-worker {}\n", VEDETTE_VERSION);
      return 0;
    }
    gearman::apply_option(options, arg, "command line", messages);
  }
  gearman::finish_options(options, messages, gearman::Side::worker);
  for (const std::string& w : messages.warnings) fmt::print(stderr, "vedette-worker: warning: {}\n", w);
  for (const std::string& e : messages.errors) fmt::print(stderr, "vedette-worker: error: {}\n", e);
  if (!messages.errors.empty()) {
    fmt::print(stderr, "{}", k_usage);
    return 1;
  }

  // Before any thread starts, so only the signalfd sees them.
  loop::block_loop_signals();
  loop::SignalFd signals;

  worker::WorkerOptions w;
  w.servers = options.servers;
  w.codec = options.encryption ? gearman::Codec::encrypted(options.key) : gearman::Codec::clear();
  w.queues = gearman::worker_queues(options);
  w.settings.identifier = options.identifier.empty() ? host_name() : options.identifier;
  w.settings.job_timeout_s = options.job_timeout_s;
  w.settings.max_age_s = options.max_age_s;
  w.settings.timeout_return = options.timeout_return;
  w.max_jobs = static_cast<unsigned>(std::max(1, options.max_worker));
  w.executor_threads = std::clamp(w.max_jobs / 16, 2u, 8u);
  w.io_timeout = std::chrono::milliseconds(std::max(100, options.gearman_connection_timeout_ms));
  w.log = log_line;

  std::string queues;
  for (const std::string& q : w.queues) queues += (queues.empty() ? "" : ",") + q;
  log_line(fmt::format("vedette-worker {} '{}' serving {} on {} ({} jobs at once, {})", VEDETTE_VERSION,
                       w.settings.identifier, queues, options.servers.front().host, w.max_jobs,
                       options.encryption ? "encrypted" : "not encrypted"));
  worker::Worker running(std::move(w));

  while (true) {
    pollfd p{signals.fd(), POLLIN, 0};
    if (::poll(&p, 1, -1) < 0) continue;
    const loop::SignalSet got = signals.drain();
    if (got.contains(SIGTERM) || got.contains(SIGINT)) break;
    if (got.contains(SIGHUP)) log_line("SIGHUP: reloading is not supported; restart to change options");
  }
  // As the C worker: running checks finish and their results go out; what cannot finish in time goes back
  // to gearmand for another worker.
  const worker::WorkerStats before = running.stats();
  log_line(fmt::format("stopping: no more jobs; {} running get {} s to finish", before.running,
                       std::chrono::duration_cast<std::chrono::seconds>(running.stop_grace()).count()));
  running.stop(running.stop_grace());
  const worker::WorkerStats stats = running.stats();
  log_line(fmt::format("stopped after {} jobs ({} results sent, {} dropped, {} too old, {} handed back)",
                       stats.jobs, stats.results_sent, stats.bad_jobs, stats.too_old, stats.handed_back));
  return 0;
}
