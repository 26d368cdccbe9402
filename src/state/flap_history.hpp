// What a host or service keeps for flap detection (Naemon's state_history ring, percent_state_change,
// is_flapping, the flapping comment and check_flapping_recovery_notification). Part of every object's hot
// state, so kept to 40 bytes (48 for hosts). Changed only by engine/checks/flap_rules.hpp; core thread only.
#pragma once

#include <array>
#include <cstdint>

namespace vedette::state {

// Naemon's MAX_STATE_HISTORY_ENTRIES.
inline constexpr int k_state_history_entries = 21;

struct FlapHistory {
  // The last 21 recorded states as a ring: `index` is the slot written next, which holds the oldest state.
  // A new object starts with 21 zeros (OK/UP), as in Naemon. retention.dat lists the ring oldest first;
  // reading it back stores that list as is with index 0.
  std::array<std::uint8_t, k_state_history_entries> states{};
  std::uint8_t index = 0;
  bool is_flapping = false;
  // Set when flapping starts in a problem that was already notified: when flapping ends (or flap detection
  // is disabled) in OK/UP, a recovery notification follows, since the recovery itself was suppressed.
  bool check_flapping_recovery_notification = false;
  double percent_state_change = 0;
  // The comment added when flapping started; 0 when none (also after a restart: Naemon does not retain
  // flapping comments, which are not persistent, nor this id).
  unsigned long flapping_comment_id = 0;
};
static_assert(sizeof(FlapHistory) <= 40);

// Hosts also remember when they last recorded a state: without a check result, a host records its state
// again only once its notification interval has passed since then.
struct HostFlapHistory : FlapHistory {
  std::int64_t last_state_history_update = 0;  // seconds since the epoch; not retained
};

}  // namespace vedette::state
