// Sends Naemon's notifications for the core: fills the rules' inputs (notification_rules.hpp) from the hot
// state, logs the suppression and notification lines, expands each contact's commands with the
// notification macros, hands them to the executor (SideCommandSink) and stores the outcome in the object's
// NotificationState. Built per model (a reload builds a new one in its place, so a reference to it stays
// good); core thread only.
//
//   Notifier notifier(model, side_commands);
//   notifier.notify(world, service_id, NotificationType::normal);                 // after a hard result
//   notifier.notify(world, host_id, NotificationType::acknowledgement, {"alice", "on it"});
#pragma once

#include "config/main_config.hpp"
#include "engine/notify/notification_rules.hpp"
#include "engine/notify/side_command.hpp"
#include "engine/state/state_table.hpp"
#include "state/uuid.hpp"
#include "timeperiod/evaluator.hpp"

#include <functional>
#include <string_view>
#include <vector>

namespace vedette::engine {

class DowntimeBook;

// What the notifier reads and changes, lent by the core for one call.
struct NotifierWorld {
  const model::Model& model;
  const config::MainConfig& main;
  StateTable<HostState>& hosts;
  StateTable<ServiceState>& services;
  // Read for the contacts' settings; their last notification times are set here. `contacts_changed` is
  // called when they are.
  std::vector<state::ContactState>& contacts;
  const std::function<void()>& contacts_changed;
  const DowntimeBook& downtimes;
  const timeperiod::Evaluator& timeperiods;
  Time now = 0;
  Time program_start = 0;
};

// The author and comment of an acknowledgement, downtime or custom notification.
struct NotificationNote {
  std::string_view author{};
  std::string_view comment{};
  // Downtime notifications: the object's scheduled_downtime_depth when the downtime event happened (the
  // book may have moved on by the time the core notifies); -1: as the book says now.
  int downtime_depth = -1;
  int host_downtime_depth = -1;  // the host's, likewise (a service's notification shows it too)
};

class Notifier {
 public:
  // The notification commands, and the lines logged, go to `commands`.
  Notifier(const model::Model& model, SideCommandSink& commands);

  void notify(const NotifierWorld& w, model::ServiceId service, NotificationType type,
              NotificationNote note = {}, NotificationOptions options = k_notification_option_none);
  void notify(const NotifierWorld& w, model::HostId host, NotificationType type, NotificationNote note = {},
              NotificationOptions options = k_notification_option_none);

  // After retention.dat was read (start-up, reload): Naemon computes next_notification again for objects
  // in a problem state that were notified.
  void restore_next_notifications(const NotifierWorld& w);

  [[nodiscard]] const NotificationIndex& index() const { return index_; }

 private:
  [[nodiscard]] NotificationContext context(const NotifierWorld& w) const;
  void deliver(const NotifierWorld& w, const NotificationPlan& plan, model::HostId host,
               model::ServiceId service, NotificationNote note);
  void run_commands(const NotifierWorld& w, const NotificationPlan& plan, model::HostId host,
                    model::ServiceId service, NotificationNote note, int& notified);

  SideCommandSink* commands_;  // a pointer: a reload assigns a new Notifier to this one
  NotificationIndex index_;
  SuppressionLogFilter suppression_log_;
  state::UuidGenerator uuids_;
};

}  // namespace vedette::engine
