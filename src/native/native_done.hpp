// One finished native check, as the executor takes it back. Plain value; executor thread.
#pragma once

#include "native/plugin_run.hpp"

#include <cstdint>

namespace vedette::native {

struct NativeDone {
  std::uint64_t ticket = 0;
  PluginRun run;
  bool killed = false;  // the job's own timeout came first: no output, as for a process killed at its timeout
  std::int64_t start_us = 0, end_us = 0;  // wall clock, as CheckResult's
};

}  // namespace vedette::native
