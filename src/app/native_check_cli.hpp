// `vedette --native-check PROGRAM [ARG...]`: runs one command line through an executor thread as the daemon
// would run a check, and prints what the plugin would print. For the differential tests and for trying a
// command by hand. Main thread.
#pragma once

namespace vedette::app {

// argv[0] is the program path. Writes the output to stdout and returns the exit code the plugin would
// return; 125 (and a note on stderr) if the command does not run natively, when nothing ran at all.
int run_native_check(int argc, char** argv);

}  // namespace vedette::app
