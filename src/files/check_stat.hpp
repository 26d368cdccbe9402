// The check statistics lines of status.dat's programstatus block, in the order Naemon writes them: the
// status writer writes them and vedettestats (src/stats) reads them back. Plain values: any thread.
#pragma once
#include <cstdint>

namespace vedette::files {

enum class CheckStat : std::uint8_t {
  active_scheduled_host,
  active_ondemand_host,
  passive_host,
  active_scheduled_service,
  active_ondemand_service,
  passive_service,
  cached_host,
  cached_service,
  external_command,
  parallel_host,
  serial_host,
  count
};

}  // namespace vedette::files
