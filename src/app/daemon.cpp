#include "app/daemon.hpp"

#include "app/daemonize.hpp"
#include "app/livestatus_link.hpp"
#include "app/lock_file.hpp"
#include "app/privileges.hpp"
#include "commands/command_fifo.hpp"
#include "commands/command_reader.hpp"
#include "engine/core.hpp"
#include "engine/world/reload.hpp"
#include "livestatus/server.hpp"
#include "livestatus/server_options.hpp"
#include "loop/signals.hpp"
#include "loop/thread_name.hpp"
#include "metrics/http_server.hpp"

#include <fmt/format.h>

#include <ctime>
#include <malloc.h>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace vedette::app {
namespace {

// Another instance on the same command file or Livestatus socket would have them replaced under it, and
// removed when this one stops, leaving it deaf: refused before anything is created or written. (The lock
// file is checked where it is taken.)
base::Status check_no_other_instance(const config::MainConfig& main) {
  if (main.check_external_commands) {
    if (base::Status s = commands::CommandFifo::check_unread(main.command_file); !s) return s;
  }
  std::vector<std::string> ignored;
  if (std::optional<livestatus::ServerOptions> o = livestatus::server_options(main, ignored);
      o && !o->unix_socket.empty()) {
    if (base::Status s = livestatus::Server::check_unserved(o->unix_socket); !s) return s;
  }
  return base::Status::ok();
}

// Naemon takes lock_file in daemon mode only; Vedette in the foreground too, so that `vedette main.cfg`
// next to a running daemon (a forgotten -v) refuses instead of taking its files over. Where no lock file
// can be made (a test configuration whose default /run/naemon does not exist), there is none to honour
// either, unless another user's instance holds one this user may only read.
base::Expected<std::optional<LockFile>> lock_in_foreground(const std::string& path) {
  base::Expected<LockFile> lock = LockFile::open(path);
  if (!lock) {
    if (base::Status unheld = LockFile::check_unheld(path); !unheld) return base::Error{unheld.error()};
    return std::optional<LockFile>();
  }
  if (base::Status taken = lock->acquire(""); !taken) return base::Error{taken.error()};
  return std::optional<LockFile>(std::move(*lock));
}

}  // namespace

int run_daemon(config::Configuration configuration, DaemonOptions options) {
  loop::set_current_thread_name("core");
  // Before any thread starts (the core starts executor and writer threads): every thread inherits the mask,
  // so SIGTERM/SIGINT/SIGHUP/SIGUSR1 reach only the core loop's signalfd.
  loop::block_loop_signals();
  // Decided before the fork, so a refusal or an unknown user reaches the terminal and the exit code.
  const PrivilegePlan privileges = plan_privileges(configuration.main, options.allow_root, started_as_root());
  if (!privileges.error.empty()) {
    fmt::print(stderr, "{}\n", privileges.error);
    return 1;
  }
  if (!privileges.warning.empty()) fmt::print(stderr, "{}\n", privileges.warning);
  // Once the lock file is held (first, as in Naemon: its message names the other instance's PID): the
  // command file and the socket of another instance, then the privilege drop. All before the core creates
  // anything (objects.cache, log, status.dat, retention.dat, the command FIFO), so nothing of a running
  // instance is touched and all of it belongs to the daemon's user; only the lock file is written before,
  // as the starting user.
  const auto alone_then_drop_privileges = [&] {
    if (base::Status alone = check_no_other_instance(configuration.main); !alone)
      return base::Status(base::Error{"Error: " + alone.error()});
    return privileges.switch_to ? switch_user(*privileges.switch_to) : base::Status::ok();
  };
  // Daemon mode forks, so it comes before the core starts any thread.
  std::optional<Daemonizer> daemon;
  std::optional<LockFile> foreground_lock;
  if (options.daemon_mode) {
    base::Expected<Daemonizer> started =
        Daemonizer::start(configuration.main.lock_file, alone_then_drop_privileges);
    if (!started) {
      fmt::print(stderr, "{}\nBailing out due to failure to daemonize. (PID={})\n", started.error(),
                 ::getpid());
      return 1;
    }
    daemon = std::move(*started);
  } else {
    base::Expected<std::optional<LockFile>> locked = lock_in_foreground(configuration.main.lock_file);
    if (!locked) {
      fmt::print(stderr, "{}\n", locked.error());
      return 1;
    }
    foreground_lock = std::move(*locked);
    if (base::Status s = alone_then_drop_privileges(); !s) {
      if (foreground_lock) foreground_lock->release();
      fmt::print(stderr, "{}\n", s.error());
      return 1;
    }
  }
  loop::RealClock clock;
  engine::CoreOptions core_options;
  core_options.log_to_stdout = options.log_to_stdout;
  core_options.daemon_mode = options.daemon_mode;
  core_options.config_path = options.config_path;
  if (daemon) {
    core_options.on_started = [&daemon] { daemon->report_started(); };
    core_options.on_stopped = [&daemon] { daemon->release(); };
  } else if (foreground_lock) {
    core_options.on_stopped = [&foreground_lock] { foreground_lock->release(); };
  }
  const bool read_commands = configuration.main.check_external_commands;
  // As Naemon: objects.cache once the configuration is loaded, before the first check (and at each reload).
  // Written on a thread of its own while the core starts and reads retention.dat back (at a million
  // services each takes a second or more), and waited for before the core says it is initialized. A failure
  // is logged and the daemon runs on (the CGIs then read an old or no file). The model is read-only from here
  // on.
  std::string cache_error;
  std::thread cache_writer([&cache_error, main = configuration.main, &model = *configuration.model] {
    loop::set_current_thread_name("objects.cache");
    cache_error = engine::write_object_cache(main, model, std::time(nullptr));
  });
  engine::Core* started_core = nullptr;
  auto finish_object_cache = [&cache_writer, &cache_error, &started_core] {
    if (!cache_writer.joinable()) return;
    cache_writer.join();
    if (!cache_error.empty() && started_core != nullptr)
      started_core->log(fmt::format("Error: {}", cache_error));
  };
  core_options.before_ready = finish_object_cache;
  engine::Core core(std::move(configuration), clock, core_options);
  started_core = &core;
  // After the core: whichever way this function returns, the writer is done before the model goes.
  struct JoinAtExit {
    decltype(finish_object_cache)& finish;
    ~JoinAtExit() { finish(); }
  } object_cache_done{finish_object_cache};
  // Loading and objects.cache leave tens of MB of freed heap at 100k objects; give them back to the system
  // rather than keep them resident for the daemon's lifetime.
  ::malloc_trim(0);
  // Livestatus' COMMAND goes through the same dispatcher, with or without the command file.
  auto reader = std::make_unique<commands::CommandReader>(core, read_commands);
  if (!reader->error().empty()) core.log(fmt::format("Error: {}", reader->error()));
  std::vector<std::string> livestatus_notes;
  auto livestatus_started = LivestatusLink::start(core, *reader, livestatus_notes);
  for (const std::string& note : livestatus_notes) core.log(note);
  if (!livestatus_started) {
    core.log(fmt::format("Error: {}", livestatus_started.error()));
    fmt::print(stderr, "Error: {}\n", livestatus_started.error());
    return 1;
  }
  std::unique_ptr<LivestatusLink> livestatus = std::move(*livestatus_started);  // null: none asked for
  // The metrics endpoint reads only what the threads publish (metrics/core_metrics.hpp), so it may start
  // before the core runs and stop after it. Started once: a reload does not move it.
  std::unique_ptr<metrics::MetricsServer> metrics_server;
  if (const std::string& listen = core.main_config().metrics_listen; !listen.empty()) {
    auto started = metrics::MetricsServer::start(listen, metrics::render_core_metrics);
    if (!started) {
      core.log(fmt::format("Error: {}", started.error()));
      fmt::print(stderr, "Error: {}\n", started.error());
      return 1;
    }
    metrics_server = std::move(*started);
    if (std::optional<std::string> warning = metrics::exposure_warning(listen))
      core.log("Warning: " + *warning);
  }
  const int rc = core.run();
  metrics_server.reset();
  livestatus.reset();  // before the reader its commands go through
  reader.reset();      // removes the command file, as Naemon does at shutdown
  return rc;
}

}  // namespace vedette::app
