#include "state/attributes.hpp"

namespace vedette::state {

bool configured_flag(const model::Checkable& c, Flag f) {
  switch (f) {
    case Flag::notifications:
      return c.notifications_enabled;
    case Flag::active_checks:
      return c.active_checks_enabled;
    case Flag::passive_checks:
      return c.passive_checks_enabled;
    case Flag::event_handler:
      return c.event_handler_enabled;
    case Flag::flap_detection:
      return c.flap_detection_enabled;
    case Flag::process_perf_data:
      return c.process_perf_data;
    case Flag::obsess:
      return c.obsess;
    case Flag::count:
      break;
  }
  return false;
}

std::uint8_t configured_flags(const model::Checkable& c) {
  std::uint8_t bits = 0;
  for (std::size_t i = 0; i < k_flag_count; ++i) {
    const Flag f = static_cast<Flag>(i);
    if (configured_flag(c, f)) bits |= flag_bit(f);
  }
  return bits;
}

}  // namespace vedette::state
