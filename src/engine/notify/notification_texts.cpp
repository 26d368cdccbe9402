#include "engine/notify/notification_rules.hpp"

#include <fmt/format.h>

namespace vedette::engine {

namespace {

std::string_view suppression_subject_name(SuppressionSubject subject) {
  switch (subject) {
    case SuppressionSubject::host:
      return "HOST";
    case SuppressionSubject::service:
      return "SERVICE";
    case SuppressionSubject::host_contact:
      return "HOST CONTACT";
    case SuppressionSubject::service_contact:
      return "SERVICE CONTACT";
  }
  return "";
}

std::string format_suppression(SuppressionSubject subject, std::string_view object_name,
                               SuppressionReason reason, bool disabled_by_command,
                               std::string_view neb_detail) {
  std::string line = fmt::format("{} NOTIFICATION SUPPRESSED: {};{}", suppression_subject_name(subject),
                                 object_name, suppression_reason_text(reason, disabled_by_command));
  if (reason == SuppressionReason::neb_blocked) line.append(neb_detail);
  return line;
}

// The name part of a notification command as Naemon's strtok(command, "!") finds it: leading '!' skipped,
// up to the next '!'. glibc prints a null token as "(null)".
std::string_view command_name(std::string_view command) {
  const std::size_t start = command.find_first_not_of('!');
  if (start == std::string_view::npos) return "(null)";
  command.remove_prefix(start);
  return command.substr(0, command.find('!'));
}

}  // namespace

// ---- Names and texts --------------------------------------------------------------------------------------

std::string_view notification_type_name(NotificationType type) {
  switch (type) {
    case NotificationType::normal:
      return "NORMAL";
    case NotificationType::acknowledgement:
      return "ACKNOWLEDGEMENT";
    case NotificationType::flapping_start:
      return "FLAPPINGSTART";
    case NotificationType::flapping_stop:
      return "FLAPPINGSTOP";
    case NotificationType::flapping_disabled:
      return "FLAPPINGDISABLED";
    case NotificationType::downtime_start:
      return "DOWNTIMESTART";
    case NotificationType::downtime_end:
      return "DOWNTIMEEND";
    case NotificationType::downtime_cancelled:
      return "DOWNTIMECANCELLED";
    case NotificationType::custom:
      return "CUSTOM";
  }
  return "";
}

std::string_view notification_type_macro(NotificationType type, int current_state) {
  if (type != NotificationType::normal) return notification_type_name(type);
  return current_state == 0 ? "RECOVERY" : "PROBLEM";
}

std::string_view suppression_reason_text(SuppressionReason reason, bool disabled_by_command) {
  switch (reason) {
    case SuppressionReason::ok:
      return "";
    case SuppressionReason::disabled:
      return "Notifications are disabled globally.";
    case SuppressionReason::timeperiod_blocked:
      return "Notification blocked by timeperiod; notifications should not be sent out at this time.";
    case SuppressionReason::disabled_object:
      return disabled_by_command
                 ? "Notifications are temporarily disabled for this object by an external command."
                 : "Notifications are disabled for this object by its configuration.";
    case SuppressionReason::no_contacts:
      return "No notification sent, because no contacts were found for notification purposes.";
    case SuppressionReason::custom_sched_downtime:
      return "Custom notifications blocked during scheduled downtime.";
    case SuppressionReason::ack_object_ok:
      return "Acknowledgement notification blocked for UP/OK object.";
    case SuppressionReason::no_flapping:
      return "Notifications about FLAPPING events blocked for this object.";
    case SuppressionReason::sched_downtime_flapping:
      return "Notifications about FLAPPING events blocked during scheduled downtime.";
    case SuppressionReason::no_downtime:
      return "Notifications about SCHEDULED DOWNTIME events blocked for this object.";
    case SuppressionReason::sched_downtime_downtime:
      return "Notifications about SCHEDULED DOWNTIME events blocked during scheduled downtime.";
    case SuppressionReason::soft_state:
      return "Notifications blocked for object in a soft state.";
    case SuppressionReason::acknowledged:
      return "Notification for problem blocked because it has already been acknowledged.";
    case SuppressionReason::dependency_failure:
      return "Notification blocked due to dependency of another object.";
    case SuppressionReason::state_disabled:
      return "Notifications disabled for current object state.";
    case SuppressionReason::no_recovery:
      return "Notifications about RECOVERY events blocked for this object.";
    case SuppressionReason::recovery_unnotified_problem:
      return "Notification blocked for RECOVERY because no notification was sent out for the original "
             "problem.";
    case SuppressionReason::delay:
      return "Notification blocked because first_notification_delay is configured and not enough time has "
             "elapsed since the object changed to a non-UP/non-OK state (or since program start).";
    case SuppressionReason::is_flapping:
      return "Notification blocked because the object is currently flapping.";
    case SuppressionReason::is_scheduled_downtime:
      return "Notification blocked for object currently in a scheduled downtime.";
    case SuppressionReason::re_no_more:
      return "Re-notification blocked for this problem.";
    case SuppressionReason::re_not_yet:
      return "Re-notification blocked for this problem because not enough time has passed since last "
             "notification.";
    case SuppressionReason::neb_blocked:
      return "Notification was blocked by a NEB module. ";
    case SuppressionReason::bad_parents:
      return "Notification blocked because this object is unreachable - its parents are down.";
    case SuppressionReason::service_host_down_unreachable:
      return "Notification blocked for service because its associated host is either down or unreachable.";
    case SuppressionReason::service_host_scheduled_downtime:
      return "Notification blocked for service because its associated host is currently in a scheduled "
             "downtime.";
    case SuppressionReason::insufficient_importance:
      return "Notification blocked for contact because it is not important enough (according to "
             "minimum_value).";
  }
  return "";
}

std::string format_host_suppression(std::string_view host, SuppressionReason reason, bool disabled_by_command,
                                    std::string_view neb_detail) {
  return format_suppression(SuppressionSubject::host, host, reason, disabled_by_command, neb_detail);
}

std::string format_service_suppression(std::string_view host, std::string_view service,
                                       SuppressionReason reason, bool disabled_by_command,
                                       std::string_view neb_detail) {
  return format_suppression(SuppressionSubject::service, fmt::format("{};{}", host, service), reason,
                            disabled_by_command, neb_detail);
}

std::string format_host_contact_suppression(std::string_view contact, std::string_view host,
                                            SuppressionReason reason, bool disabled_by_command) {
  return format_suppression(SuppressionSubject::host_contact, fmt::format("{};{}", contact, host), reason,
                            disabled_by_command, {});
}

std::string format_service_contact_suppression(std::string_view contact, std::string_view host,
                                               std::string_view service, SuppressionReason reason,
                                               bool disabled_by_command) {
  return format_suppression(SuppressionSubject::service_contact,
                            fmt::format("{};{};{}", contact, host, service), reason, disabled_by_command, {});
}

bool SuppressionLogFilter::should_log(SuppressionSubject subject, std::uint32_t id,
                                      SuppressionReason reason) {
  std::vector<SuppressionReason>& last = last_[static_cast<std::size_t>(subject)];
  if (id >= last.size()) last.resize(std::size_t{id} + 1, SuppressionReason::ok);
  if (last[id] == reason) return false;
  last[id] = reason;
  return true;
}

// ---- Log lines --------------------------------------------------------------------------------------------

std::string format_service_notification_line(std::string_view contact, std::string_view host,
                                             std::string_view service, NotificationType type,
                                             int service_state, std::string_view command,
                                             std::string_view output, std::string_view author,
                                             std::string_view comment) {
  const char* state = service_state_name(service_state);
  if (type == NotificationType::normal)
    return fmt::format("SERVICE NOTIFICATION: {};{};{};{};{};{}", contact, host, service, state,
                       command_name(command), output);
  return fmt::format("SERVICE NOTIFICATION: {};{};{};{} ({});{};{};{};{}", contact, host, service,
                     notification_type_name(type), state, command_name(command), output, author, comment);
}

std::string format_host_notification_line(std::string_view contact, std::string_view host,
                                          NotificationType type, int host_state, std::string_view command,
                                          std::string_view output, std::string_view author,
                                          std::string_view comment) {
  const char* state = host_state_name(host_state);
  if (type == NotificationType::normal)
    return fmt::format("HOST NOTIFICATION: {};{};{};{};{}", contact, host, state, command_name(command),
                       output);
  return fmt::format("HOST NOTIFICATION: {};{};{} ({});{};{};{};{}", contact, host,
                     notification_type_name(type), state, command_name(command), output, author, comment);
}

}  // namespace vedette::engine
