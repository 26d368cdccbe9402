// Command line entry point: parses arguments and runs verify or the daemon. Main thread.
#pragma once

namespace vedette::app {

// Returns the process exit code (Naemon's: 0 ok, 1 on configuration errors or bad usage).
int run_cli(int argc, char** argv);

}  // namespace vedette::app
