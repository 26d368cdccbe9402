#include "engine/timing_out.hpp"

namespace vedette::engine {

void TimingOutChecks::resize(std::size_t checks, std::size_t commands) {
  last_run_.resize(checks, LastRun::none);
  command_timeouts_.resize(commands, 0.0f);
}

void TimingOutChecks::remap(std::span<const std::uint32_t> old_of_new, std::size_t commands) {
  std::vector<LastRun> last_run(old_of_new.size(), LastRun::none);
  for (std::size_t c = 0; c < old_of_new.size(); ++c) {
    const std::uint32_t old = old_of_new[c];
    if (old != k_new_check && old < last_run_.size()) last_run[c] = last_run_[old];
  }
  last_run_ = std::move(last_run);
  command_timeouts_.assign(commands, 0.0f);
}

bool TimingOutChecks::expects_timeout(std::uint32_t check, std::uint32_t command) const {
  const LastRun last = check < last_run_.size() ? last_run_[check] : LastRun::none;
  if (last != LastRun::none) return last == LastRun::timed_out;
  return command < command_timeouts_.size() && command_timeouts_[command] > k_mostly;
}

void TimingOutChecks::record(std::uint32_t check, std::uint32_t command, bool timed_out) {
  if (check < last_run_.size()) last_run_[check] = timed_out ? LastRun::timed_out : LastRun::ended;
  if (command >= command_timeouts_.size()) return;
  float& share = command_timeouts_[command];
  share += ((timed_out ? 1.0f : 0.0f) - share) * k_weight;
}

}  // namespace vedette::engine
