// The external commands that change a setting rather than a state: the program-wide switches
// (ENABLE_NOTIFICATIONS, STOP_EXECUTING_SVC_CHECKS, …), a host's or service's run-time flags and CHANGE_*
// attributes, contacts' switches and attributes, custom and delayed notifications. Each marks the
// modified_attributes bits Naemon marks, so retention.dat keeps the change. What a change asks of the
// scheduler comes back as a Reschedule for the core to carry out; flapping that a switch ends goes through
// FlapAlerts. No state or timer of its own. Core thread only.
//
//   ObjectCommands objects(world, flap_alerts, notifier);
//   objects.set_program_switch(ProgramSwitch::notifications, false);
//   if (objects.set_flag(check, state::Flag::active_checks, true) == Reschedule::within_interval) …
#pragma once

#include "engine/checks/flap_alerts.hpp"
#include "engine/state/check_id.hpp"
#include "engine/state/core_requests.hpp"
#include "engine/world/world.hpp"
#include "model/ids.hpp"
#include "state/attributes.hpp"

#include <cstdint>
#include <string_view>

namespace vedette::engine {

class Notifier;

// What a changed setting asks of the check's schedule.
enum class Reschedule : std::uint8_t {
  no,
  within_interval,  // Naemon's schedule_next_*_check(check_window): a random point within the interval
};

class ObjectCommands {
 public:
  ObjectCommands(World& world, FlapAlerts& flap_alerts, Notifier& notifier)
      : w_(world), flap_alerts_(flap_alerts), notifier_(notifier) {}

  // Turning flap detection off ends all flapping (hosts first); turning it on lets hosts record their state.
  void set_program_switch(ProgramSwitch which, bool on);
  // ENABLE_/DISABLE_* for one object: active checks turned on reschedule it within its interval.
  [[nodiscard]] Reschedule set_flag(CheckId check, state::Flag flag, bool on);
  // CHANGE_*: a new positive check interval reschedules the object within it.
  [[nodiscard]] Reschedule change_attribute(CheckId check, const AttributeChange& change);

  // ENABLE_/DISABLE_CONTACT_HOST_NOTIFICATIONS (`hosts`) or _SVC_.
  void set_contact_notifications(model::ContactId contact, bool hosts, bool on);
  void change_contact(model::ContactId contact, const ContactChange& change);

  // SEND_CUSTOM_*_NOTIFICATION.
  void send_custom_notification(CheckId check, unsigned options, std::string_view author,
                                std::string_view comment);
  // DELAY_*_NOTIFICATION: the next notification waits until `when`.
  void delay_notification(CheckId check, Time when) {
    w_.state_of(check).notification.next_notification = when;
  }

 private:
  World& w_;
  FlapAlerts& flap_alerts_;
  Notifier& notifier_;
};

}  // namespace vedette::engine
