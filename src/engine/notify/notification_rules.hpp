// Naemon's notification decisions (notifications.c) as pure functions: whether a host or service notification
// may go out, which escalations apply, who gets it, which number it carries, when the next one may follow,
// and the log lines Naemon writes about it. No I/O, no clock, no core: engine::Core fills the inputs from its
// hot state, runs the returned contacts' commands and stores the outcome with record_notification().
// Core thread only (the Evaluator's day cache); everything returned is owned by the caller.
//
//   NotificationPlan plan = plan_service_notification(ctx, id, view, NotificationType::normal, 0);
//   if (plan.suppressed != SuppressionReason::ok) { /* log it (SuppressionLogFilter) */ }
//   for (model::ContactId c : plan.contacts) { /* log format_service_notification_line(), run commands */ }
//   record_notification(hot.notification, plan, notified);  // always, also when suppressed
//
// Follows Naemon 1.5 (service_notification, host_notification, check_*_notification_viability,
// check_contact_*_notification_viability, is_valid_escalation_for_*_notification,
// create_notification_list_from_*, get_next_*_notification_time) including its order of checks.
// Implemented by section: notification_texts.cpp (names, texts, log lines), notification_viability.cpp
// (inputs, viability), notification_plans.cpp (numbers, escalations, plans).
#pragma once

#include "engine/state/check_state.hpp"
#include "model/model.hpp"
#include "state/contact_state.hpp"
#include "timeperiod/evaluator.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::engine {

// ---- What is being notified -------------------------------------------------------------------------------

// Naemon's NotificationReason, with its numbers (the broker's notification_type/reason_type).
enum class NotificationType : std::uint8_t {
  normal = 0,  // a problem or a recovery, decided by the state
  acknowledgement = 1,
  flapping_start = 2,
  flapping_stop = 3,
  flapping_disabled = 4,
  downtime_start = 5,
  downtime_end = 6,
  downtime_cancelled = 7,
  custom = 8,
};

// Naemon's notification_reason_name(): "NORMAL", "ACKNOWLEDGEMENT", "FLAPPINGSTART", … "CUSTOM".
[[nodiscard]] std::string_view notification_type_name(NotificationType type);
// $NOTIFICATIONTYPE$: "PROBLEM" or "RECOVERY" (state 0, OK/UP) for a normal notification, else the name.
[[nodiscard]] std::string_view notification_type_macro(NotificationType type, int current_state);

// Naemon's NOTIFICATION_OPTION_* bits (SEND_CUSTOM_*_NOTIFICATION's options field).
using NotificationOptions = std::uint32_t;
inline constexpr NotificationOptions k_notification_option_none = 0;
inline constexpr NotificationOptions k_notification_option_broadcast = 1;  // escalated and normal contacts
inline constexpr NotificationOptions k_notification_option_forced = 2;     // skips every viability check
inline constexpr NotificationOptions k_notification_option_increment = 4;  // counts like a normal one

// ---- Why a notification was not sent ----------------------------------------------------------------------

// Naemon's NotificationSuppressionReason, in its order.
enum class SuppressionReason : std::uint8_t {
  ok,
  disabled,
  timeperiod_blocked,
  disabled_object,
  no_contacts,
  custom_sched_downtime,
  ack_object_ok,
  no_flapping,
  sched_downtime_flapping,
  no_downtime,
  sched_downtime_downtime,
  soft_state,
  acknowledged,
  dependency_failure,
  state_disabled,
  no_recovery,
  recovery_unnotified_problem,
  delay,
  is_flapping,
  is_scheduled_downtime,
  re_no_more,
  re_not_yet,
  neb_blocked,
  bad_parents,
  service_host_down_unreachable,
  service_host_scheduled_downtime,
  insufficient_importance,
};

// The text Naemon logs for a reason (enable_notification_suppression_reason_logging). disabled_object has
// two: "…temporarily disabled … by an external command" when the notified host's or service's
// modified_attributes has MODATTR_NOTIFICATIONS_ENABLED (also for contact reasons: Naemon looks at the
// object, not the contact), else "…by its configuration". neb_blocked is followed by the module's detail
// in the log line; ok has no text.
[[nodiscard]] std::string_view suppression_reason_text(SuppressionReason reason, bool disabled_by_command);

// Naemon's NotificationSuppressionType: whose suppression a log line is about.
enum class SuppressionSubject : std::uint8_t { host, service, host_contact, service_contact };

// "HOST NOTIFICATION SUPPRESSED: web01;<text>",
// "SERVICE NOTIFICATION SUPPRESSED: web01;HTTP;<text>",
// "HOST CONTACT NOTIFICATION SUPPRESSED: alice;web01;<text>",
// "SERVICE CONTACT NOTIFICATION SUPPRESSED: alice;web01;HTTP;<text>".
// `neb_detail` is appended to neb_blocked's text ("Module 'x' cancelled notification: 'why'").
[[nodiscard]] std::string format_host_suppression(std::string_view host, SuppressionReason reason,
                                                  bool disabled_by_command, std::string_view neb_detail = {});
[[nodiscard]] std::string format_service_suppression(std::string_view host, std::string_view service,
                                                     SuppressionReason reason, bool disabled_by_command,
                                                     std::string_view neb_detail = {});
[[nodiscard]] std::string format_host_contact_suppression(std::string_view contact, std::string_view host,
                                                          SuppressionReason reason, bool disabled_by_command);
[[nodiscard]] std::string format_service_contact_suppression(std::string_view contact, std::string_view host,
                                                             std::string_view service,
                                                             SuppressionReason reason,
                                                             bool disabled_by_command);

// Naemon logs a suppression only when the reason differs from the last one it logged for the same subject
// kind and object (contacts by contact id alone, whatever host or service it was about), and never forgets
// one because a notification went out in between. This keeps that memory; the core owns one.
class SuppressionLogFilter {
 public:
  // True, and remembered, when `reason` is new for (subject, id): log it. False: Naemon logs it only to the
  // debug log. Call only with enable_notification_suppression_reason_logging on and a reason other than ok.
  [[nodiscard]] bool should_log(SuppressionSubject subject, std::uint32_t id, SuppressionReason reason);
  void clear() {
    for (auto& reasons : last_) reasons.clear();
  }

 private:
  std::vector<SuppressionReason> last_[4];
};

// ---- The notified object ----------------------------------------------------------------------------------

using state::NotificationState;

// The run-time view of the host or service, filled by the caller from its hot state.
struct NotifiableView {
  int current_state = 0;  // 0 is OK/UP: a normal notification in state 0 is a recovery
  StateType state_type = StateType::hard;
  Time last_hard_state_change = 0;    // start of the problem for first_notification_delay; 0: program_start
  bool notifications_enabled = true;  // as now (configuration or ENABLE/DISABLE_*_NOTIFICATIONS)
  bool notifications_enabled_by_command = false;  // modified_attributes has MODATTR_NOTIFICATIONS_ENABLED
  bool flap_detection_enabled = true;             // as now
  bool is_flapping = false;
  int scheduled_downtime_depth = 0;
  bool problem_has_been_acknowledged = false;
  // Notification dependencies failed (notification_dependencies_failed(); for a service, its own or its
  // host's). Naemon evaluates them only for normal notifications that got that far; the answer is the same.
  bool dependencies_failed = false;
  NotificationState notification;
  // CHANGE_*_NOTIFICATION_TIMEPERIOD's period, which replaces the configured one as in Naemon; none: the
  // configured notification_period.
  std::optional<model::TimeperiodId> notification_period;
};

struct ServiceNotificationView : NotifiableView {
  int host_state = k_host_up;  // the host's current_state
  int host_scheduled_downtime_depth = 0;
  bool all_parents_failing = false;  // all_service_parents_failing() (dependencies.hpp)
  // The host's period changed by CHANGE_HOST_NOTIFICATION_TIMEPERIOD: what a service without a period of
  // its own uses. None: the host's configured one.
  std::optional<model::TimeperiodId> host_notification_period;
};

using HostNotificationView = NotifiableView;

// ---- The world around it ----------------------------------------------------------------------------------

struct NotificationSettings {
  bool enable_notifications = true;
  bool enable_flap_detection = true;
  int interval_length = 60;  // seconds per interval unit (notification_interval, first_notification_delay)
  Time program_start = 0;
  bool soft_state_dependencies = false;
  // global_host_notification_handler / global_service_notification_handler is set: Naemon runs it (and
  // counts it as a notified contact) even when no contact is left.
  bool has_global_host_handler = false;
  bool has_global_service_handler = false;
};

// A contact's notification settings as they are now (external commands change them).
using ContactNotificationState = state::ContactState;

// Per-object lists the rules need, built once per model (after a load or reload): each host's and service's
// escalations in Naemon's escalation_list order, their notification (and, for the checks, execution)
// dependencies, and the sum of a host's services' hourly_value. Holds pointers into the model: rebuild it
// with the model.
class NotificationIndex {
 public:
  explicit NotificationIndex(const model::Model& model);

  [[nodiscard]] std::span<const model::EscalationRule* const> host_escalations(model::HostId host) const;
  [[nodiscard]] std::span<const model::EscalationRule* const> service_escalations(model::ServiceId svc) const;
  [[nodiscard]] std::span<const model::HostDependency* const> host_dependencies(model::HostId host) const;
  [[nodiscard]] std::span<const model::ServiceDependency* const> service_dependencies(
      model::ServiceId svc) const;
  // The execution dependencies, for the checks (engine/state/dependencies.hpp).
  [[nodiscard]] std::span<const model::HostDependency* const> host_execution_dependencies(
      model::HostId host) const;
  [[nodiscard]] std::span<const model::ServiceDependency* const> service_execution_dependencies(
      model::ServiceId svc) const;
  [[nodiscard]] std::uint32_t host_services_value(model::HostId host) const;

 private:
  // Compressed lists: entries of object i are items[offsets[i] .. offsets[i + 1]).
  template <typename T>
  struct Lists {
    std::vector<std::uint32_t> offsets;
    std::vector<T> items;
  };
  Lists<const model::EscalationRule*> host_escalations_, service_escalations_;
  Lists<const model::HostDependency*> host_dependencies_, host_execution_dependencies_;
  Lists<const model::ServiceDependency*> service_dependencies_, service_execution_dependencies_;
  std::vector<std::uint32_t> host_services_value_;
};

// Everything the rules read that is not the notified object. Views: they must outlive the call.
struct NotificationContext {
  const model::Model& model;
  const NotificationIndex& index;
  const timeperiod::Evaluator& timeperiods;
  NotificationSettings settings;
  // By ContactId; empty: every contact as configured.
  std::span<const ContactNotificationState> contacts = {};
  Time now = 0;
};

// Naemon's check_service_dependencies / check_host_dependencies (NOTIFICATION_DEPENDENCY): a dependency
// outside its dependency_period is skipped; the master's state (its last hard state while soft, unless
// soft_state_dependencies) failing the failure options, or the master never checked with 'p', fails;
// inherits_parent follows the master's own dependencies. A service's view takes its own result or its
// host's. Cycles (which Naemon's pre-flight check rejects) stop after a few levels instead of recursing.
[[nodiscard]] bool service_notification_dependencies_failed(const NotificationContext& ctx,
                                                            model::ServiceId svc,
                                                            std::span<const ServiceState> services);
[[nodiscard]] bool host_notification_dependencies_failed(const NotificationContext& ctx, model::HostId host,
                                                         std::span<const HostState> hosts);

// ---- Decisions --------------------------------------------------------------------------------------------

struct Viability {
  Viability() = default;
  // Implicit, so that the checks read `return SuppressionReason::soft_state;`.
  Viability(SuppressionReason why) : reason(why) {}  // NOLINT(google-explicit-constructor)

  SuppressionReason reason = SuppressionReason::ok;
  // Set when the notification_period blocks a normal notification: Naemon then moves the object's
  // next_notification to the period's next valid time (now + 1 year if none); record_notification() does.
  std::optional<Time> next_notification;

  [[nodiscard]] bool allowed() const { return reason == SuppressionReason::ok; }
};

// Naemon's check_service_notification_viability / check_host_notification_viability, checks in its order.
[[nodiscard]] Viability check_service_notification_viability(const NotificationContext& ctx,
                                                             model::ServiceId svc,
                                                             const ServiceNotificationView& view,
                                                             NotificationType type,
                                                             NotificationOptions options);
[[nodiscard]] Viability check_host_notification_viability(const NotificationContext& ctx, model::HostId host,
                                                          const HostNotificationView& view,
                                                          NotificationType type, NotificationOptions options);

// Naemon's check_contact_service_notification_viability / check_contact_host_notification_viability.
[[nodiscard]] SuppressionReason check_contact_service_notification_viability(
    const NotificationContext& ctx, model::ContactId contact, model::ServiceId svc, int current_state,
    model::OptionSet notified_on, NotificationType type, NotificationOptions options);
[[nodiscard]] SuppressionReason check_contact_host_notification_viability(
    const NotificationContext& ctx, model::ContactId contact, model::HostId host, int current_state,
    model::OptionSet notified_on, NotificationType type, NotificationOptions options);

// Whether a notification increments current_notification_number: normal ones, and others only with the
// increment option. Acknowledgement, flapping, downtime and custom notifications repeat the current number.
[[nodiscard]] bool increments_notification_number(NotificationType type, NotificationOptions options);

// Naemon's is_valid_escalation_for_*_notification. `notification_number` is the object's number with this
// notification counted (see increments_notification_number); in state 0 (a recovery) the escalation is
// judged by the number before it, the last problem notification. Broadcast makes every escalation valid.
[[nodiscard]] bool is_escalation_valid(const model::EscalationRule& rule, int current_state,
                                       int notification_number, NotificationOptions options,
                                       const timeperiod::Evaluator& timeperiods, Time now);
// Naemon's should_*_notification_be_escalated: one escalation valid without options.
[[nodiscard]] bool should_escalate(std::span<const model::EscalationRule* const> escalations,
                                   int current_state, int notification_number,
                                   const timeperiod::Evaluator& timeperiods, Time now);

// Naemon's get_next_*_notification_time: the smallest notification_interval of the valid escalations that
// set one (>= 0), else the object's, times interval_length after `sent_at`. An interval of 0 means no more
// problem notifications (services: unless volatile).
struct NextNotification {
  Time at = 0;
  double interval = 0;  // in interval_length units
  bool no_more_notifications = false;
};
[[nodiscard]] NextNotification next_notification_time(
    std::span<const model::EscalationRule* const> escalations, double object_interval, bool is_volatile,
    int current_state, int notification_number, int interval_length, const timeperiod::Evaluator& timeperiods,
    Time sent_at);

// A contact left out of a notification by its own filters, for the "… CONTACT NOTIFICATION SUPPRESSED" log.
struct SkippedContact {
  model::ContactId contact;
  SuppressionReason reason;
};

// Naemon's service_notification / host_notification up to the point of running commands.
struct NotificationPlan {
  NotificationType type = NotificationType::normal;
  NotificationOptions options = k_notification_option_none;
  int current_state = 0;
  Time now = 0;
  // ok: notify `contacts` (and the global handler, if any). Else the viability reason, or no_contacts when
  // no contact is left and there is no global handler.
  SuppressionReason suppressed = SuppressionReason::ok;
  std::optional<Time> blocked_next_notification;  // Viability::next_notification
  bool increments = false;                        // increments_notification_number()
  int notification_number = 0;  // $HOSTNOTIFICATIONNUMBER$ / $SERVICENOTIFICATIONNUMBER$ of this notification
  bool escalated = false;       // $NOTIFICATIONISESCALATED$
  // In the order Naemon notifies them (its list is built by prepending: the last contact added comes first),
  // each once. $NOTIFICATIONRECIPIENTS$ lists them in the opposite order (notification_recipients()).
  std::vector<model::ContactId> contacts;
  std::vector<SkippedContact> skipped_contacts;  // in the order checked; a contact may appear twice
  // What a normal notification that reached someone leaves behind (next re-notification).
  NextNotification next_if_sent;
};

[[nodiscard]] NotificationPlan plan_service_notification(const NotificationContext& ctx, model::ServiceId svc,
                                                         const ServiceNotificationView& view,
                                                         NotificationType type, NotificationOptions options);
[[nodiscard]] NotificationPlan plan_host_notification(const NotificationContext& ctx, model::HostId host,
                                                      const HostNotificationView& view, NotificationType type,
                                                      NotificationOptions options);

// $NOTIFICATIONRECIPIENTS$: the contacts' names in the order they were added, comma-separated.
[[nodiscard]] std::string notification_recipients(const model::Model& model, const NotificationPlan& plan);

// Stores a plan's outcome, as Naemon does after notifying. `contacts_notified` counts the contacts (and the
// global handler) actually notified; without broker modules that cancel, plan.contacts.size() plus one if
// the global handler ran. A normal notification that reached someone sets last_notification = now,
// next_notification, no_more_notifications and notified_on |= 1 << state; one that reached no one leaves
// the number as it was. Call it for every plan, suppressed ones included (timeperiod next_notification).
void record_notification(NotificationState& state, const NotificationPlan& plan, int contacts_notified);

// Naemon's resets around notifications, done by its check result handling:
// - any state change or hard state change of a host or service: last/next notification and
//   no_more_notifications cleared (the number is kept: hard changes between problem states keep escalating);
void reset_notifications_on_state_change(NotificationState& state);
// - every service result in state OK, after the recovery notification: number, notified_on and the
//   notification times back to 0;
void reset_service_notifications_when_ok(NotificationState& state);
// - a host state change to UP, after the recovery notification: number and notified_on back to 0.
void reset_host_notifications_on_recovery(NotificationState& state);

// ---- Log lines --------------------------------------------------------------------------------------------

// Naemon's notification lines (log_notifications; contact "GLOBAL" for the global handler):
//   SERVICE NOTIFICATION: alice;web01;HTTP;CRITICAL;notify-by-email;output
//   SERVICE NOTIFICATION: alice;web01;HTTP;ACKNOWLEDGEMENT (CRITICAL);notify-by-email;output;author;comment
//   HOST NOTIFICATION: alice;web01;DOWN;notify-by-email;output
//   HOST NOTIFICATION: alice;web01;DOWNTIMESTART (UP);notify-by-email;output;author;comment
// `command` is the notification command as written ("notify-by-email!arg"): the line shows its name, the
// text before the first '!'. Author and comment are those Naemon passes (ack, downtime start/end, custom;
// empty for flapping, downtime cancelled) and appear, possibly empty, on every non-normal line.
[[nodiscard]] std::string format_service_notification_line(std::string_view contact, std::string_view host,
                                                           std::string_view service, NotificationType type,
                                                           int service_state, std::string_view command,
                                                           std::string_view output, std::string_view author,
                                                           std::string_view comment);
[[nodiscard]] std::string format_host_notification_line(std::string_view contact, std::string_view host,
                                                        NotificationType type, int host_state,
                                                        std::string_view command, std::string_view output,
                                                        std::string_view author, std::string_view comment);

}  // namespace vedette::engine
