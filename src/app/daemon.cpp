#include "app/daemon.hpp"

#include "commands/command_reader.hpp"
#include "engine/core.hpp"
#include "loop/signals.hpp"
#include "loop/thread_name.hpp"

#include <fmt/format.h>

#include <memory>

namespace vedette::app {

int run_daemon(config::Configuration configuration, DaemonOptions options) {
  loop::set_current_thread_name("core");
  // Before any thread starts (the core starts executor and writer threads): every thread inherits the mask,
  // so SIGTERM/SIGINT/SIGHUP reach only the core loop's signalfd.
  loop::block_loop_signals();
  loop::RealClock clock;
  engine::CoreOptions core_options;
  core_options.log_to_stdout = options.log_to_stdout;
  const bool read_commands = configuration.main.check_external_commands;
  engine::Core core(std::move(configuration), clock, core_options);
  std::unique_ptr<commands::CommandReader> reader;
  if (read_commands) {
    reader = std::make_unique<commands::CommandReader>(core);
    if (!reader->error().empty()) core.log(fmt::format("Error: {}", reader->error()));
  }
  const int rc = core.run();
  reader.reset();  // removes the command file, as Naemon does at shutdown
  return rc;
}

}  // namespace vedette::app
