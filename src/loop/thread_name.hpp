// Names the calling thread ("core", "exec-3", "writer", "livestatus-1") for top -H, /proc/PID/task/TID/comm
// and the benchmarks. Any thread, for itself.
#pragma once

#include <string>
#include <string_view>

namespace vedette::loop {

// The kernel keeps 15 bytes; longer names are cut to their first 15. Returns false if the kernel refused.
bool set_current_thread_name(std::string_view name);
std::string current_thread_name();

}  // namespace vedette::loop
