// The run-time state of a contact: what ENABLE/DISABLE_CONTACT_*, CHANGE_CONTACT_* and
// CHANGE_CUSTOM_CONTACT_VAR changed (with Naemon's modified-attribute bits), and when it was last
// notified. Indexed like model.contacts; the core owns it (core thread), retention.dat restores it, and
// the status and retention snapshots share an immutable copy taken when it changes.
#pragma once

#include "model/model.hpp"
#include "state/attributes.hpp"

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace vedette::state {

struct ContactState {
  bool host_notifications_enabled = true;
  bool service_notifications_enabled = true;
  model::TimeperiodId host_notification_period = model::no_id<model::TimeperiodId>();
  model::TimeperiodId service_notification_period = model::no_id<model::TimeperiodId>();
  unsigned long modified_attributes = 0;  // Naemon has three sets for contacts
  unsigned long modified_host_attributes = 0;
  unsigned long modified_service_attributes = 0;
  std::int64_t last_host_notification = 0;
  std::int64_t last_service_notification = 0;
  // The custom variables CHANGE_CUSTOM_CONTACT_VAR changed (their other ones are as configured); shared,
  // replaced on change.
  std::shared_ptr<const std::vector<ChangedVariable>> custom_variables;

  [[nodiscard]] static ContactState from(const model::Contact& contact) {
    ContactState s;
    s.host_notifications_enabled = contact.host_notifications_enabled;
    s.service_notifications_enabled = contact.service_notifications_enabled;
    s.host_notification_period = contact.host_notification_period;
    s.service_notification_period = contact.service_notification_period;
    return s;
  }
  // The changed value of custom variable `name` (upper case, no '_'), or null.
  [[nodiscard]] const std::string* custom_variable(std::string_view name) const {
    if (custom_variables == nullptr) return nullptr;
    for (const ChangedVariable& v : *custom_variables)
      if (v.name == name) return &v.value;
    return nullptr;
  }
};

// Every contact as configured.
[[nodiscard]] inline std::vector<ContactState> initial_contact_states(const model::Model& model) {
  std::vector<ContactState> out;
  out.reserve(model.contacts.size());
  for (const model::Contact& c : model.contacts) out.push_back(ContactState::from(c));
  return out;
}

}  // namespace vedette::state
