#include "state/attributes.hpp"

#include <algorithm>
#include <cctype>

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

bool change_variable(std::vector<ChangedVariable>& changed,
                     const std::vector<model::CustomVariable>& configured, std::string_view name,
                     std::string_view value) {
  std::string upper(name);
  for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  const bool known = std::any_of(configured.begin(), configured.end(),
                                 [&](const model::CustomVariable& v) { return v.name == upper; });
  if (!known) return false;
  for (ChangedVariable& v : changed) {
    if (v.name == upper) {
      v.value.assign(value);
      return true;
    }
  }
  changed.push_back({std::move(upper), std::string(value)});
  return true;
}

}  // namespace vedette::state
