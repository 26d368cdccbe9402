#include "engine/checks/timing_out.hpp"

namespace vedette::engine {

void TimingOutChecks::resize(std::size_t checks, std::size_t commands) {
  last_run_.resize(checks, LastRun::none);
  command_timeouts_.resize(commands, 0.0f);
}

void TimingOutChecks::remap(const ByCheck<CheckId>& old_of_new, std::size_t commands) {
  ByCheck<LastRun> last_run(old_of_new.size(), LastRun::none);
  for (std::uint32_t c = 0; c < old_of_new.size(); ++c) {
    const CheckId old = old_of_new[CheckId{c}];
    if (last_run_.contains(old)) last_run[CheckId{c}] = last_run_[old];
  }
  last_run_ = std::move(last_run);
  command_timeouts_.assign(commands, 0.0f);
}

bool TimingOutChecks::expects_timeout(CheckId check, std::uint32_t command) const {
  const LastRun last = last_run_.contains(check) ? last_run_[check] : LastRun::none;
  if (last != LastRun::none) return last == LastRun::timed_out;
  return command < command_timeouts_.size() && command_timeouts_[command] > k_mostly;
}

void TimingOutChecks::record(CheckId check, std::uint32_t command, bool timed_out) {
  if (last_run_.contains(check)) last_run_[check] = timed_out ? LastRun::timed_out : LastRun::ended;
  if (command >= command_timeouts_.size()) return;
  float& share = command_timeouts_[command];
  share += ((timed_out ? 1.0f : 0.0f) - share) * k_weight;
}

}  // namespace vedette::engine
