#include "engine/notification_rules.hpp"

#include "engine/dependencies.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace vedette::engine {

namespace {

using model::OptionSet;

// Naemon's get_next_valid_time gives "now + one year" when it finds no valid time at all.
constexpr Time k_one_year = 60 * 60 * 24 * 365;

// 1 << state, as Naemon's option bits; nothing for a state no option names.
OptionSet state_bit(int state) {
  return state >= 0 && state < 32 ? OptionSet{1} << state : OptionSet{0};
}

timeperiod::PeriodIndex period_of(model::TimeperiodId id) {
  return model::is_set(id) ? timeperiod::PeriodIndex{model::index(id)} : timeperiod::k_no_period;
}

bool is_valid_at(const timeperiod::Evaluator& timeperiods, model::TimeperiodId period, Time t) {
  return timeperiods.is_time_valid(period_of(period), static_cast<std::time_t>(t));
}

DependencyRules dependency_rules(const NotificationContext& ctx) {
  return {.timeperiods = ctx.timeperiods,
          .soft_state_dependencies = ctx.settings.soft_state_dependencies,
          .now = ctx.now};
}

bool is_flapping_type(NotificationType type) {
  return type == NotificationType::flapping_start || type == NotificationType::flapping_stop ||
         type == NotificationType::flapping_disabled;
}

bool is_downtime_type(NotificationType type) {
  return type == NotificationType::downtime_start || type == NotificationType::downtime_end ||
         type == NotificationType::downtime_cancelled;
}

// Naemon's timeperiod block of a normal notification: next_notification waits for the period.
Viability blocked_by_period(const NotificationContext& ctx, model::TimeperiodId own_period,
                            NotificationType type) {
  Viability v(SuppressionReason::timeperiod_blocked);
  if (type != NotificationType::normal) return v;
  const std::time_t start = ctx.timeperiods.next_valid_time(
      period_of(own_period), static_cast<std::time_t>(ctx.now), static_cast<std::time_t>(ctx.now));
  v.next_notification = start == 0 ? ctx.now + k_one_year : static_cast<Time>(start);
  return v;
}

// Naemon's first_notification_delay: counted from the last hard state change (program start if none), for
// the first notification of a problem only.
bool is_delayed(const NotificationContext& ctx, const NotifiableView& view, double first_notification_delay) {
  if (view.notification.current_notification_number != 0 || first_notification_delay <= 0 ||
      view.current_state == 0)
    return false;
  const Time first_problem_time =
      view.last_hard_state_change > 0 ? view.last_hard_state_change : ctx.settings.program_start;
  return ctx.now <
         first_problem_time + static_cast<Time>(first_notification_delay * ctx.settings.interval_length);
}

bool is_flapping_now(const NotificationContext& ctx, const NotifiableView& view) {
  return ctx.settings.enable_flap_detection && view.flap_detection_enabled && view.is_flapping;
}

ContactNotificationState contact_state(const NotificationContext& ctx, model::ContactId id) {
  const std::uint32_t i = model::index(id);
  if (i < ctx.contacts.size()) return ctx.contacts[i];
  return ContactNotificationState::from(ctx.model.contacts[i]);
}

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

// ---- Inputs -----------------------------------------------------------------------------------------------

NotificationIndex::NotificationIndex(const model::Model& model) {
  auto all = [](const auto&) { return true; };
  auto notification_kind = [](const auto& d) { return d.kind == model::DependencyKind::notification; };
  auto execution_kind = [](const auto& d) { return d.kind == model::DependencyKind::execution; };
  auto escalation_rule = [](const auto& e) { return &e.rule; };
  auto dependency = [](const auto& d) { return &d; };

  // Groups the entries by the object `owner_of` names, keeping their order within each object.
  auto group = [](std::size_t objects, const auto& entries, auto&& owner_of, auto&& keep, auto&& item,
                  auto& lists) {
    lists.offsets.assign(objects + 1, 0);
    for (const auto& entry : entries)
      if (keep(entry) && owner_of(entry) < objects) ++lists.offsets[owner_of(entry) + 1];
    for (std::size_t i = 0; i < objects; ++i) lists.offsets[i + 1] += lists.offsets[i];
    lists.items.assign(lists.offsets[objects], nullptr);
    std::vector<std::uint32_t> next(lists.offsets.begin(), lists.offsets.end() - 1);
    for (const auto& entry : entries)
      if (keep(entry) && owner_of(entry) < objects) lists.items[next[owner_of(entry)]++] = item(entry);
  };

  const std::size_t hosts = model.hosts.size();
  const std::size_t services = model.services.size();
  group(
      hosts, model.host_escalations, [](const auto& e) { return model::index(e.host); }, all, escalation_rule,
      host_escalations_);
  group(
      services, model.service_escalations, [](const auto& e) { return model::index(e.service); }, all,
      escalation_rule, service_escalations_);
  group(
      hosts, model.host_dependencies, [](const auto& d) { return model::index(d.dependent); },
      notification_kind, dependency, host_dependencies_);
  group(
      services, model.service_dependencies, [](const auto& d) { return model::index(d.dependent); },
      notification_kind, dependency, service_dependencies_);
  group(
      hosts, model.host_dependencies, [](const auto& d) { return model::index(d.dependent); }, execution_kind,
      dependency, host_execution_dependencies_);
  group(
      services, model.service_dependencies, [](const auto& d) { return model::index(d.dependent); },
      execution_kind, dependency, service_execution_dependencies_);

  host_services_value_.assign(hosts, 0);
  for (std::size_t h = 0; h < hosts; ++h)
    for (model::ServiceId s : model.hosts[h].services)
      host_services_value_[h] += static_cast<std::uint32_t>(model.service(s).hourly_value);
}

namespace {

template <typename T>
std::span<const T> list_of(const std::vector<std::uint32_t>& offsets, const std::vector<T>& items,
                           std::uint32_t i) {
  if (i + 1 >= offsets.size()) return {};
  return std::span<const T>(items).subspan(offsets[i], offsets[i + 1] - offsets[i]);
}

}  // namespace

std::span<const model::EscalationRule* const> NotificationIndex::host_escalations(model::HostId host) const {
  return list_of(host_escalations_.offsets, host_escalations_.items, model::index(host));
}
std::span<const model::EscalationRule* const> NotificationIndex::service_escalations(
    model::ServiceId svc) const {
  return list_of(service_escalations_.offsets, service_escalations_.items, model::index(svc));
}
std::span<const model::HostDependency* const> NotificationIndex::host_dependencies(model::HostId host) const {
  return list_of(host_dependencies_.offsets, host_dependencies_.items, model::index(host));
}
std::span<const model::ServiceDependency* const> NotificationIndex::service_dependencies(
    model::ServiceId svc) const {
  return list_of(service_dependencies_.offsets, service_dependencies_.items, model::index(svc));
}
std::span<const model::HostDependency* const> NotificationIndex::host_execution_dependencies(
    model::HostId host) const {
  return list_of(host_execution_dependencies_.offsets, host_execution_dependencies_.items,
                 model::index(host));
}
std::span<const model::ServiceDependency* const> NotificationIndex::service_execution_dependencies(
    model::ServiceId svc) const {
  return list_of(service_execution_dependencies_.offsets, service_execution_dependencies_.items,
                 model::index(svc));
}
std::uint32_t NotificationIndex::host_services_value(model::HostId host) const {
  const std::uint32_t i = model::index(host);
  return i < host_services_value_.size() ? host_services_value_[i] : 0;
}

bool service_notification_dependencies_failed(const NotificationContext& ctx, model::ServiceId svc,
                                              std::span<const ServiceState> services) {
  auto of = [&](model::ServiceId s) { return ctx.index.service_dependencies(s); };
  return dependencies_failed(dependency_rules(ctx), of(svc), services, of);
}

bool host_notification_dependencies_failed(const NotificationContext& ctx, model::HostId host,
                                           std::span<const HostState> hosts) {
  auto of = [&](model::HostId h) { return ctx.index.host_dependencies(h); };
  return dependencies_failed(dependency_rules(ctx), of(host), hosts, of);
}

bool all_service_parents_failing(const model::Service& svc, std::span<const ServiceState> services) {
  if (svc.parents.empty()) return false;
  return std::none_of(svc.parents.begin(), svc.parents.end(), [&](model::ServiceId parent) {
    const std::uint32_t i = model::index(parent);
    return i < services.size() && services[i].current_state == k_state_ok;
  });
}

// ---- Viability --------------------------------------------------------------------------------------------

Viability check_service_notification_viability(const NotificationContext& ctx, model::ServiceId id,
                                               const ServiceNotificationView& view, NotificationType type,
                                               NotificationOptions options) {
  using R = SuppressionReason;
  if ((options & k_notification_option_forced) != 0) return {};
  if (!ctx.settings.enable_notifications) return R::disabled;

  const model::Service& svc = ctx.model.service(id);
  // Without a period of its own the service uses its host's, but the next notification time follows the
  // service's own (none: now) as Naemon computes it. A period changed by command replaces the configured
  // one in both roles.
  const model::TimeperiodId own = view.notification_period.value_or(svc.notification_period);
  const model::TimeperiodId period =
      model::is_set(own)
          ? own
          : view.host_notification_period.value_or(ctx.model.host(svc.host).notification_period);
  if (!is_valid_at(ctx.timeperiods, period, ctx.now)) return blocked_by_period(ctx, own, type);
  if (!view.notifications_enabled) return R::disabled_object;

  const bool in_downtime = view.scheduled_downtime_depth > 0;
  const bool host_in_downtime = view.host_scheduled_downtime_depth > 0;
  if (type == NotificationType::custom) {
    if (in_downtime || host_in_downtime) return R::custom_sched_downtime;
    return {};
  }
  if (type == NotificationType::acknowledgement) {
    if (view.current_state == k_state_ok) return R::ack_object_ok;
    return {};
  }
  if (is_flapping_type(type)) {
    if ((svc.notification_options & model::k_opt_flapping) == 0) return R::no_flapping;
    if (in_downtime || host_in_downtime) return R::sched_downtime_flapping;
    return {};
  }
  if (is_downtime_type(type)) {
    if ((svc.notification_options & model::k_opt_downtime) == 0) return R::no_downtime;
    if (in_downtime) return R::sched_downtime_downtime;  // the service's own downtime only
    return {};
  }

  // Normal notifications: problems and recoveries.
  if (view.current_state != k_state_ok && view.all_parents_failing) return R::bad_parents;
  if (view.state_type == StateType::soft) return R::soft_state;
  if (view.problem_has_been_acknowledged) return R::acknowledged;
  if (view.dependencies_failed) return R::dependency_failure;
  if ((svc.notification_options & state_bit(view.current_state)) == 0) return R::state_disabled;
  if (view.current_state == k_state_ok && view.notification.notified_on == 0)
    return R::recovery_unnotified_problem;
  if (is_delayed(ctx, view, svc.first_notification_delay)) return R::delay;
  if (is_flapping_now(ctx, view)) return R::is_flapping;
  if (view.current_state == k_state_ok) return {};  // recoveries go out from here

  if (view.notification.no_more_notifications) return R::re_no_more;
  if (view.host_state != k_host_up) return R::service_host_down_unreachable;
  if (ctx.now < view.notification.next_notification && !svc.is_volatile) return R::re_not_yet;
  if (in_downtime) return R::is_scheduled_downtime;
  if (host_in_downtime) return R::service_host_scheduled_downtime;
  return {};
}

Viability check_host_notification_viability(const NotificationContext& ctx, model::HostId id,
                                            const HostNotificationView& view, NotificationType type,
                                            NotificationOptions options) {
  using R = SuppressionReason;
  if ((options & k_notification_option_forced) != 0) return {};
  if (!ctx.settings.enable_notifications) return R::disabled;

  const model::Host& host = ctx.model.host(id);
  const model::TimeperiodId period = view.notification_period.value_or(host.notification_period);
  if (!is_valid_at(ctx.timeperiods, period, ctx.now)) return blocked_by_period(ctx, period, type);
  if (!view.notifications_enabled) return R::disabled_object;

  const bool in_downtime = view.scheduled_downtime_depth > 0;
  if (type == NotificationType::custom) {
    if (in_downtime) return R::custom_sched_downtime;
    return {};
  }
  if (type == NotificationType::acknowledgement) {
    if (view.current_state == k_host_up) return R::ack_object_ok;
    return {};
  }
  if (is_flapping_type(type)) {
    if ((host.notification_options & model::k_opt_flapping) == 0) return R::no_flapping;
    if (in_downtime) return R::sched_downtime_flapping;
    return {};
  }
  if (is_downtime_type(type)) {
    if ((host.notification_options & model::k_opt_downtime) == 0) return R::no_downtime;
    if (in_downtime) return R::sched_downtime_downtime;
    return {};
  }

  // Normal notifications. Unlike services: the recovery option is tested on its own (after the state's bit,
  // which is the same bit), and downtime comes before the re-notification tests.
  if (view.state_type == StateType::soft) return R::soft_state;
  if (view.problem_has_been_acknowledged) return R::acknowledged;
  if (view.dependencies_failed) return R::dependency_failure;
  if ((host.notification_options & state_bit(view.current_state)) == 0) return R::state_disabled;
  if (view.current_state == k_host_up) {
    if ((host.notification_options & model::k_opt_recovery) == 0) return R::no_recovery;
    if (view.notification.notified_on == 0) return R::recovery_unnotified_problem;
  }
  if (is_delayed(ctx, view, host.first_notification_delay)) return R::delay;
  if (is_flapping_now(ctx, view)) return R::is_flapping;
  if (view.current_state == k_host_up) return {};

  if (in_downtime) return R::is_scheduled_downtime;
  if (view.notification.no_more_notifications) return R::re_no_more;
  if (ctx.now < view.notification.next_notification) return R::re_not_yet;
  return {};
}

SuppressionReason check_contact_service_notification_viability(
    const NotificationContext& ctx, model::ContactId contact_id, model::ServiceId svc, int current_state,
    model::OptionSet notified_on, NotificationType type, NotificationOptions options) {
  using R = SuppressionReason;
  if ((options & k_notification_option_forced) != 0) return R::ok;
  const model::Contact& contact = ctx.model.contacts[model::index(contact_id)];
  const ContactNotificationState now = contact_state(ctx, contact_id);
  // Naemon compares unsigned values.
  if (static_cast<std::uint32_t>(contact.minimum_value) >
      static_cast<std::uint32_t>(ctx.model.service(svc).hourly_value))
    return R::insufficient_importance;
  if (!now.service_notifications_enabled) return R::disabled_object;
  if (!is_valid_at(ctx.timeperiods, now.service_notification_period, ctx.now)) return R::timeperiod_blocked;

  const OptionSet wanted = contact.service_notification_options;
  if (type == NotificationType::custom) return R::ok;
  if (is_flapping_type(type)) return (wanted & model::k_opt_flapping) != 0 ? R::ok : R::no_flapping;
  if (is_downtime_type(type)) return (wanted & model::k_opt_downtime) != 0 ? R::ok : R::no_downtime;

  // Acknowledgements and normal notifications.
  if ((wanted & state_bit(current_state)) == 0) return R::state_disabled;
  if (current_state == k_state_ok) {
    if ((wanted & model::k_opt_recovery) == 0) return R::no_recovery;
    // A recovery goes only to contacts who wanted one of the states notified.
    if ((notified_on & wanted) == 0) return R::recovery_unnotified_problem;
  }
  return R::ok;
}

SuppressionReason check_contact_host_notification_viability(const NotificationContext& ctx,
                                                            model::ContactId contact_id, model::HostId host,
                                                            int current_state, model::OptionSet notified_on,
                                                            NotificationType type,
                                                            NotificationOptions options) {
  using R = SuppressionReason;
  if ((options & k_notification_option_forced) != 0) return R::ok;
  const model::Contact& contact = ctx.model.contacts[model::index(contact_id)];
  const ContactNotificationState now = contact_state(ctx, contact_id);
  if (!now.host_notifications_enabled) return R::disabled_object;
  const auto minimum = static_cast<std::uint32_t>(contact.minimum_value);
  const auto hourly = static_cast<std::uint32_t>(ctx.model.host(host).hourly_value);
  if (minimum > hourly && minimum > hourly + ctx.index.host_services_value(host))
    return R::insufficient_importance;
  if (!is_valid_at(ctx.timeperiods, now.host_notification_period, ctx.now)) return R::timeperiod_blocked;

  const OptionSet wanted = contact.host_notification_options;
  if (type == NotificationType::custom) return R::ok;
  if (is_flapping_type(type)) return (wanted & model::k_opt_flapping) != 0 ? R::ok : R::no_flapping;
  if (is_downtime_type(type)) return (wanted & model::k_opt_downtime) != 0 ? R::ok : R::no_downtime;

  if ((wanted & state_bit(current_state)) == 0) return R::state_disabled;
  // Unlike services, any notified problem will do, whether this contact wanted it or not.
  if (current_state == k_host_up && notified_on == 0) return R::recovery_unnotified_problem;
  return R::ok;
}

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

}  // namespace

NotificationPlan plan_service_notification(const NotificationContext& ctx, model::ServiceId id,
                                           const ServiceNotificationView& view, NotificationType type,
                                           NotificationOptions options) {
  NotificationPlan plan = new_plan(ctx, view, type, options);
  const Viability viability = check_service_notification_viability(ctx, id, view, type, options);
  if (!viability.allowed()) {
    plan.suppressed = viability.reason;
    plan.blocked_next_notification = viability.next_notification;
    return plan;
  }
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
  const Viability viability = check_host_notification_viability(ctx, id, view, type, options);
  if (!viability.allowed()) {
    plan.suppressed = viability.reason;
    plan.blocked_next_notification = viability.next_notification;
    return plan;
  }
  // Hosts have no is_volatile: an interval of 0 always ends re-notification.
  plan_recipients(ctx, ctx.model.host(id), false, ctx.index.host_escalations(id), view,
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
