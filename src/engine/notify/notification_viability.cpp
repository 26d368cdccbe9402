#include "engine/notify/notification_rules.hpp"
#include "engine/notify/notification_rules_internal.hpp"
#include "engine/state/dependencies.hpp"

namespace vedette::engine {

namespace {

using internal::is_valid_at;
using internal::period_of;
using internal::state_bit;
using model::OptionSet;

// Naemon's get_next_valid_time gives "now + one year" when it finds no valid time at all.
constexpr Time k_one_year = 60 * 60 * 24 * 365;

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

}  // namespace

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

}  // namespace vedette::engine
