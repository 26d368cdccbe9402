#include "engine/notify/notification_rules.hpp"
#include "engine/notify/notification_rules_internal.hpp"

#include <algorithm>

namespace vedette::engine {

namespace {

using internal::is_valid_at;
using internal::state_bit;

// Members of a contact group in the order of Naemon's member list (objects.cache order).
const std::vector<model::ContactId>& members_in_naemon_order(const model::Contactgroup& group) {
  return group.listed_members.empty() ? group.members : group.listed_members;
}

// Naemon's create_notification_list_from_*: escalation contacts, normal contacts or both (broadcast), each
// checked by `contact_viability`, added once in the order met. Naemon's own contact and group lists are
// built by prepending, so they run in the reverse of the model's (directive) order.
template <typename ContactViability>
void collect_contacts(const NotificationContext& ctx, const model::Checkable& object,
                      std::span<const model::EscalationRule* const> escalations, NotificationPlan& plan,
                      ContactViability&& contact_viability) {
  std::vector<model::ContactId> added;
  auto consider = [&](model::ContactId contact) {
    const SuppressionReason reason = contact_viability(contact);
    if (reason != SuppressionReason::ok) {
      plan.skipped_contacts.push_back({contact, reason});
      return;
    }
    if (std::find(added.begin(), added.end(), contact) == added.end()) added.push_back(contact);
  };
  auto consider_all = [&](const std::vector<model::ContactId>& contacts,
                          const std::vector<model::ContactgroupId>& groups) {
    for (auto it = contacts.rbegin(); it != contacts.rend(); ++it) consider(*it);
    for (auto it = groups.rbegin(); it != groups.rend(); ++it)
      for (model::ContactId member : members_in_naemon_order(ctx.model.contactgroups[model::index(*it)]))
        consider(member);
  };

  const bool broadcast = (plan.options & k_notification_option_broadcast) != 0;
  if (plan.escalated || broadcast) {
    for (const model::EscalationRule* rule : escalations) {
      if (!is_escalation_valid(*rule, plan.current_state, plan.notification_number, plan.options,
                               ctx.timeperiods, ctx.now))
        continue;
      consider_all(rule->contacts, rule->contact_groups);
    }
  }
  if (!plan.escalated || broadcast) consider_all(object.contacts, object.contact_groups);
  plan.contacts.assign(added.rbegin(), added.rend());
}

// The part of service_notification / host_notification after the viability test.
template <typename ContactViability>
void plan_recipients(const NotificationContext& ctx, const model::Checkable& object, bool is_volatile,
                     std::span<const model::EscalationRule* const> escalations, const NotifiableView& view,
                     bool has_global_handler, NotificationPlan& plan, ContactViability&& contact_viability) {
  plan.increments = increments_notification_number(plan.type, plan.options);
  plan.notification_number = view.notification.current_notification_number + (plan.increments ? 1 : 0);
  plan.escalated =
      should_escalate(escalations, plan.current_state, plan.notification_number, ctx.timeperiods, ctx.now);
  collect_contacts(ctx, object, escalations, plan, contact_viability);
  if (plan.contacts.empty() && !has_global_handler) {
    plan.suppressed = SuppressionReason::no_contacts;
    return;
  }
  if (plan.type == NotificationType::normal)
    plan.next_if_sent = next_notification_time(escalations, object.notification_interval, is_volatile,
                                               plan.current_state, plan.notification_number,
                                               ctx.settings.interval_length, ctx.timeperiods, ctx.now);
}

}  // namespace

// ---- Numbers and escalations ------------------------------------------------------------------------------

bool increments_notification_number(NotificationType type, NotificationOptions options) {
  return type == NotificationType::normal || (options & k_notification_option_increment) != 0;
}

bool is_escalation_valid(const model::EscalationRule& rule, int current_state, int notification_number,
                         NotificationOptions options, const timeperiod::Evaluator& timeperiods, Time now) {
  // A recovery goes to whoever was escalated to for the problem notification before it.
  const int number = current_state == 0 ? notification_number - 1 : notification_number;
  if ((options & k_notification_option_broadcast) != 0) return true;
  if (rule.first_notification > number) return false;
  if (rule.last_notification != 0 && rule.last_notification < number) return false;
  if ((rule.options & state_bit(current_state)) == 0) return false;
  if (!is_valid_at(timeperiods, rule.period, now)) return false;
  return true;
}

bool should_escalate(std::span<const model::EscalationRule* const> escalations, int current_state,
                     int notification_number, const timeperiod::Evaluator& timeperiods, Time now) {
  return std::any_of(escalations.begin(), escalations.end(), [&](const model::EscalationRule* rule) {
    return is_escalation_valid(*rule, current_state, notification_number, k_notification_option_none,
                               timeperiods, now);
  });
}

NextNotification next_notification_time(std::span<const model::EscalationRule* const> escalations,
                                        double object_interval, bool is_volatile, int current_state,
                                        int notification_number, int interval_length,
                                        const timeperiod::Evaluator& timeperiods, Time sent_at) {
  double interval = object_interval;
  bool have_escalated_interval = false;
  for (const model::EscalationRule* rule : escalations) {
    if (rule->notification_interval < 0) continue;  // the escalation keeps the object's interval
    if (!is_escalation_valid(*rule, current_state, notification_number, k_notification_option_none,
                             timeperiods, sent_at))
      continue;
    if (!have_escalated_interval || rule->notification_interval < interval)
      interval = rule->notification_interval;
    have_escalated_interval = true;
  }
  NextNotification next;
  next.interval = interval;
  next.no_more_notifications = interval == 0.0 && !is_volatile;
  next.at = static_cast<Time>(static_cast<double>(sent_at) + interval * interval_length);
  return next;
}

// ---- Plans ------------------------------------------------------------------------------------------------

namespace {

NotificationPlan new_plan(const NotificationContext& ctx, const NotifiableView& view, NotificationType type,
                          NotificationOptions options) {
  NotificationPlan plan;
  plan.type = type;
  plan.options = options;
  plan.current_state = view.current_state;
  plan.now = ctx.now;
  plan.notification_number = view.notification.current_notification_number;
  return plan;
}

// A plan ends at a failed viability test with its reason (and the period's next valid time).
bool stopped_by(const Viability& viability, NotificationPlan& plan) {
  if (viability.allowed()) return false;
  plan.suppressed = viability.reason;
  plan.blocked_next_notification = viability.next_notification;
  return true;
}

}  // namespace

NotificationPlan plan_service_notification(const NotificationContext& ctx, model::ServiceId id,
                                           const ServiceNotificationView& view, NotificationType type,
                                           NotificationOptions options) {
  NotificationPlan plan = new_plan(ctx, view, type, options);
  if (stopped_by(check_service_notification_viability(ctx, id, view, type, options), plan)) return plan;
  const model::Service& svc = ctx.model.service(id);
  plan_recipients(ctx, svc, svc.is_volatile, ctx.index.service_escalations(id), view,
                  ctx.settings.has_global_service_handler, plan, [&](model::ContactId contact) {
                    return check_contact_service_notification_viability(
                        ctx, contact, id, view.current_state, view.notification.notified_on, type, options);
                  });
  return plan;
}

NotificationPlan plan_host_notification(const NotificationContext& ctx, model::HostId id,
                                        const HostNotificationView& view, NotificationType type,
                                        NotificationOptions options) {
  NotificationPlan plan = new_plan(ctx, view, type, options);
  if (stopped_by(check_host_notification_viability(ctx, id, view, type, options), plan)) return plan;
  // Hosts have no is_volatile: an interval of 0 always ends re-notification.
  plan_recipients(ctx, ctx.model.host(id), /*is_volatile=*/false, ctx.index.host_escalations(id), view,
                  ctx.settings.has_global_host_handler, plan, [&](model::ContactId contact) {
                    return check_contact_host_notification_viability(
                        ctx, contact, id, view.current_state, view.notification.notified_on, type, options);
                  });
  return plan;
}

std::string notification_recipients(const model::Model& model, const NotificationPlan& plan) {
  std::string names;
  for (auto it = plan.contacts.rbegin(); it != plan.contacts.rend(); ++it) {
    if (!names.empty()) names.push_back(',');
    names.append(model.contacts[model::index(*it)].name);
  }
  return names;
}

void record_notification(NotificationState& state, const NotificationPlan& plan, int contacts_notified) {
  if (plan.suppressed != SuppressionReason::ok) {
    if (plan.blocked_next_notification) state.next_notification = *plan.blocked_next_notification;
    return;
  }
  if (plan.type != NotificationType::normal) {
    // Naemon keeps an incremented number even when no one was reached (it only undoes it for normal ones).
    if (plan.increments) state.current_notification_number = plan.notification_number;
    return;
  }
  if (contacts_notified <= 0) return;  // the number goes back to what it was
  state.current_notification_number = plan.notification_number;
  state.next_notification = plan.next_if_sent.at;
  state.no_more_notifications = plan.next_if_sent.no_more_notifications;
  state.last_notification = plan.now;
  state.notified_on |= state_bit(plan.current_state);
}

void reset_notifications_on_state_change(NotificationState& state) {
  state.last_notification = 0;
  state.next_notification = 0;
  state.no_more_notifications = false;
}

void reset_service_notifications_when_ok(NotificationState& state) {
  state.last_notification = 0;
  state.next_notification = 0;
  state.current_notification_number = 0;
  state.notified_on = 0;
}

void reset_host_notifications_on_recovery(NotificationState& state) {
  state.current_notification_number = 0;
  state.notified_on = 0;
}

}  // namespace vedette::engine
