#include "retention/carried.hpp"

namespace vedette::retention {

// One per host and service, alive for the whole run: 16 MB at 110k objects.
static_assert(sizeof(CheckableExtras) <= 144);

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

bool Carried::flag(const model::Checkable& configured, const CheckableExtras* e, Flag f) const {
  if (e != nullptr) {
    if (const ModifiedAttributes* m = modified_of(*e)) {
      if (const std::optional<bool>& v = m->flags[static_cast<std::size_t>(f)]) return *v;
    }
  }
  return configured_flag(configured, f);
}

double Carried::check_interval(const model::Checkable& configured, const CheckableExtras* e) const {
  const ModifiedAttributes* m = e != nullptr ? modified_of(*e) : nullptr;
  return m != nullptr && m->check_interval ? *m->check_interval : configured.check_interval;
}

double Carried::retry_interval(const model::Checkable& configured, const CheckableExtras* e) const {
  const ModifiedAttributes* m = e != nullptr ? modified_of(*e) : nullptr;
  return m != nullptr && m->retry_interval ? *m->retry_interval : configured.retry_interval;
}

int Carried::max_check_attempts(const model::Checkable& configured, const CheckableExtras* e) const {
  const ModifiedAttributes* m = e != nullptr ? modified_of(*e) : nullptr;
  return m != nullptr && m->max_check_attempts ? *m->max_check_attempts : configured.max_check_attempts;
}

}  // namespace vedette::retention
