// Which checks the core expects to time out, so that the executor keeps them to their few slots
// (exec::ExecutorOptions::timing_out_slots) and hanging plugins cannot starve the healthy checks: a check
// whose last run timed out; and one without a run of its own yet (since start-up or a reload) whose
// command's recent runs, over all the checks using it, mostly timed out. Core thread only.
//
//   TimingOutChecks t;  t.resize(checks, commands);
//   job.timing_out = t.expects_timeout(check, command);   // ... and when its result is in:
//   t.record(check, command, result.outcome == exec::Outcome::timed_out);
#pragma once

#include "engine/state/check_id.hpp"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace vedette::engine {

class TimingOutChecks {
 public:
  // For a check whose command is not a configured one (CHANGE_*_CHECK_COMMAND): its own runs only.
  static constexpr std::uint32_t k_no_command = std::numeric_limits<std::uint32_t>::max();
  // New checks and commands start without a history.
  void resize(std::size_t checks, std::size_t commands);
  // After a reload: check c takes over the history of check old_of_new[c] (k_no_check: none). Command ids
  // are not stable across a reload, so every command starts again without one.
  void remap(const ByCheck<CheckId>& old_of_new, std::size_t commands);

  [[nodiscard]] bool expects_timeout(CheckId check, std::uint32_t command) const;
  // A run that ended (exited, killed, failed to exec) or timed out.
  void record(CheckId check, std::uint32_t command, bool timed_out);

 private:
  enum class LastRun : std::uint8_t { none, ended, timed_out };
  // Each run moves its command's share of timeouts this fraction of the way towards 0 or 1: about the
  // last 16 runs count.
  static constexpr float k_weight = 1.0f / 16;
  static constexpr float k_mostly = 0.5f;

  ByCheck<LastRun> last_run_;
  std::vector<float> command_timeouts_;  // by command id: recent share of runs that timed out
};

}  // namespace vedette::engine
