// Prints the result of loading a configuration in the layout of `naemon -v`, so scripts that parse
// Naemon's output keep working. Main thread.
#pragma once

#include "config/diagnostics.hpp"
#include "config/loader.hpp"

#include <cstdio>

namespace vedette::app {

// Writes the report to `out`; returns Naemon's exit code for it (0 valid, 1 errors).
int print_verify_report(const config::Configuration& cfg, const config::Diagnostics& diags, std::FILE* out);

}  // namespace vedette::app
