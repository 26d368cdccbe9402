// Runs the monitoring core on a loaded, valid configuration until SIGTERM/SIGINT; SIGHUP reloads it from
// config_path. Main thread (it becomes the core thread).
#pragma once

#include "config/loader.hpp"

#include <string>

namespace vedette::app {

struct DaemonOptions {
  std::string config_path;    // the main config file, read again at SIGHUP
  bool log_to_stdout = true;  // the foreground run mirrors the log on the terminal
  bool daemon_mode = false;   // -d: fork into the background holding lock_file (app/daemonize.hpp)
  bool allow_root = false;  // --allow-root: started as root with no naemon_user, run as root (privileges.hpp)
};

// Returns the process exit code.
int run_daemon(config::Configuration configuration, DaemonOptions options);

}  // namespace vedette::app
