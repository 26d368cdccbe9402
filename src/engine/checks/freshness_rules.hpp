// Naemon's freshness checking (is_service_result_fresh / is_host_result_fresh): when the last result of an
// object with check_freshness goes stale, and the warning logged before the core forces a check. Pure
// functions over values the core passes; core thread only.
//
//   const Staleness s = staleness(input);
//   if (s.expires_at < now) { log(stale_warning(...)); force a check; }
#pragma once

#include "state/check_state.hpp"

#include <string>
#include <string_view>

namespace vedette::engine {

using state::Time;

struct FreshnessInput {
  int freshness_threshold = 0;  // seconds, as configured; 0: Naemon's automatic threshold
  double check_interval_s = 0;  // the intervals in effect, in seconds
  double retry_interval_s = 0;
  int additional_freshness_latency = 0;
  const state::CheckState* state = nullptr;
  Time program_start = 0;      // Naemon's event_start: when this run (or reload) began
  Time last_program_stop = 0;  // retention.dat's info.created; 0 when none was read
};

struct Staleness {
  int threshold = 0;    // seconds the result stays fresh (the configured or the automatic one)
  Time expires_at = 0;  // stale once the time is past this
};

// Naemon's rules: the automatic threshold is the check interval (the retry interval for a soft problem)
// plus the last latency plus additional_freshness_latency, truncated to seconds; an object not checked yet,
// or one with active checks whose last check predates this run, counts from the run's start (the latter only
// with the automatic threshold); a passive result from before a long stop (more than 61.8% of the threshold
// since the last stop) also counts from the start, so a restart after a long stop does not force every
// passive check at once.
[[nodiscard]] Staleness staleness(const FreshnessInput& in);

// "Warning: The results of service 'X' on host 'Y' are stale by 0d 0h 1m 5s (threshold=0d 0h 5m 0s).  I'm
// forcing an immediate check of the service." (the host form without the service), as Naemon logs it.
[[nodiscard]] std::string stale_warning(std::string_view host_name, std::string_view service_description,
                                        const Staleness& s, Time now);

}  // namespace vedette::engine
