#include "engine/notify/notifier.hpp"

#include "engine/books/downtime_book.hpp"
#include "engine/state/dependencies.hpp"
#include "metrics/core_metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace vedette::engine {
namespace {

// Naemon's find_contact_by_name_or_alias, for $NOTIFICATIONAUTHORNAME$/$NOTIFICATIONAUTHORALIAS$.
const model::Contact* find_author(const model::Model& model, std::string_view author) {
  if (author.empty()) return nullptr;
  if (const auto it = model.contact_by_name.find(author); it != model.contact_by_name.end())
    return &model.contacts[model::index(it->second)];
  const auto it = std::find_if(model.contacts.begin(), model.contacts.end(),
                               [&](const model::Contact& c) { return c.alias == author; });
  return it != model.contacts.end() ? &*it : nullptr;
}

bool changed_by_command(const CheckState& st) {
  return (st.modified_attributes & state::k_modattr_notifications_enabled) != 0;
}

// The notification_period CHANGE_*_NOTIFICATION_TIMEPERIOD set (looked up by name: rare), if any.
std::optional<model::TimeperiodId> changed_notification_period(const model::Model& model,
                                                               const CheckState& st) {
  if (st.overrides == nullptr || !st.overrides->notification_period) return std::nullopt;
  const auto it = model.timeperiod_by_name.find(*st.overrides->notification_period);
  if (it == model.timeperiod_by_name.end()) return std::nullopt;
  return it->second;
}

void fill_view(NotifiableView& v, const CheckState& st, bool is_flapping, int downtime_depth) {
  v.current_state = st.current_state;
  v.state_type = st.state_type;
  v.last_hard_state_change = st.last_hard_state_change;
  v.notifications_enabled = st.enabled(state::Flag::notifications);
  v.notifications_enabled_by_command = changed_by_command(st);
  v.flap_detection_enabled = st.enabled(state::Flag::flap_detection);
  v.is_flapping = is_flapping;
  v.scheduled_downtime_depth = downtime_depth;
  v.problem_has_been_acknowledged = st.problem_has_been_acknowledged;
  v.notification = st.notification;
}

}  // namespace

Notifier::Notifier(const model::Model& model, SideCommandSink& commands)
    : commands_(&commands), index_(model) {}

NotificationContext Notifier::context(const NotifierWorld& w) const {
  NotificationSettings settings;
  settings.enable_notifications = w.main.enable_notifications;
  settings.enable_flap_detection = w.main.enable_flap_detection;
  settings.interval_length = w.main.interval_length;
  settings.program_start = w.program_start;
  settings.soft_state_dependencies = w.main.soft_state_dependencies;
  settings.has_global_host_handler = !w.main.global_host_notification_handler.empty();
  settings.has_global_service_handler = !w.main.global_service_notification_handler.empty();
  return {.model = w.model,
          .index = index_,
          .timeperiods = w.timeperiods,
          .settings = settings,
          .contacts = w.contacts,
          .now = w.now};
}

void Notifier::notify(const NotifierWorld& w, model::ServiceId id, NotificationType type,
                      NotificationNote note, NotificationOptions options) {
  const model::Service& cfg = w.model.service(id);
  ServiceState& st = w.services[model::index(id)];
  const HostState& host = w.hosts[model::index(cfg.host)];
  const NotificationContext ctx = context(w);
  ServiceNotificationView view;
  fill_view(view, st, st.flap.is_flapping,
            note.downtime_depth >= 0 ? note.downtime_depth : w.downtimes.depth(id));
  view.notification_period = changed_notification_period(w.model, st);
  view.host_notification_period = changed_notification_period(w.model, host);
  view.host_state = host.current_state;
  view.host_scheduled_downtime_depth =
      note.host_downtime_depth >= 0 ? note.host_downtime_depth : w.downtimes.depth(cfg.host);
  view.all_parents_failing = all_service_parents_failing(cfg, w.services);
  if (type == NotificationType::normal)  // the service's own, then its host's
    view.dependencies_failed = service_notification_dependencies_failed(ctx, id, w.services) ||
                               host_notification_dependencies_failed(ctx, cfg.host, w.hosts);

  deliver(w, plan_service_notification(ctx, id, view, type, options), cfg.host, id, note);
}

void Notifier::notify(const NotifierWorld& w, model::HostId id, NotificationType type, NotificationNote note,
                      NotificationOptions options) {
  HostState& st = w.hosts[model::index(id)];
  const NotificationContext ctx = context(w);
  HostNotificationView view;
  fill_view(view, st, st.flap.is_flapping,
            note.downtime_depth >= 0 ? note.downtime_depth : w.downtimes.depth(id));
  view.notification_period = changed_notification_period(w.model, st);
  if (type == NotificationType::normal)
    view.dependencies_failed = host_notification_dependencies_failed(ctx, id, w.hosts);

  deliver(w, plan_host_notification(ctx, id, view, type, options), id, model::no_id<model::ServiceId>(),
          note);
}

// What follows a plan, for hosts and services alike: the suppression lines (once per reason), a new
// notification id when it is viable, the commands, and the outcome in the object's NotificationState.
void Notifier::deliver(const NotifierWorld& w, const NotificationPlan& plan, model::HostId host,
                       model::ServiceId service, NotificationNote note) {
  const bool is_service = model::is_set(service);
  CheckState& st = is_service ? static_cast<CheckState&>(w.services[model::index(service)])
                              : static_cast<CheckState&>(w.hosts[model::index(host)]);
  const std::string_view host_name = w.model.host(host).name;
  const std::string_view description = is_service ? w.model.service(service).description : std::string_view{};
  const bool by_command = changed_by_command(st);
  auto should_log = [&](SuppressionSubject subject, std::uint32_t id, SuppressionReason reason) {
    return w.main.enable_notification_suppression_reason_logging &&
           suppression_log_.should_log(subject, id, reason);
  };
  auto log_object = [&](SuppressionReason reason) {
    const std::uint32_t id = is_service ? model::index(service) : model::index(host);
    if (!should_log(is_service ? SuppressionSubject::service : SuppressionSubject::host, id, reason)) return;
    commands_->log(is_service ? format_service_suppression(host_name, description, reason, by_command)
                              : format_host_suppression(host_name, reason, by_command));
  };
  if (plan.suppressed != SuppressionReason::ok && plan.suppressed != SuppressionReason::no_contacts) {
    log_object(plan.suppressed);
    record_notification(st.notification, plan, 0);
    return;
  }
  st.notification.current_notification_id = uuids_.next();  // viable: a new id, contacts or not
  for (const SkippedContact& skipped : plan.skipped_contacts) {
    const std::uint32_t contact = model::index(skipped.contact);
    if (!should_log(is_service ? SuppressionSubject::service_contact : SuppressionSubject::host_contact,
                    contact, skipped.reason))
      continue;
    const std::string_view name = w.model.contacts[contact].name;
    commands_->log(is_service ? format_service_contact_suppression(name, host_name, description,
                                                                   skipped.reason, by_command)
                              : format_host_contact_suppression(name, host_name, skipped.reason, by_command));
  }
  if (plan.suppressed == SuppressionReason::no_contacts) {
    log_object(plan.suppressed);
    record_notification(st.notification, plan, 0);
    return;
  }
  int notified = 0;
  run_commands(w, plan, host, service, note, notified);
  record_notification(st.notification, plan, notified);
}

void Notifier::run_commands(const NotifierWorld& w, const NotificationPlan& plan, model::HostId host,
                            model::ServiceId service, NotificationNote note, int& notified) {
  const bool is_service = model::is_set(service);
  const model::Host& host_cfg = w.model.host(host);
  CheckState& st = is_service ? static_cast<CheckState&>(w.services[model::index(service)])
                              : static_cast<CheckState&>(w.hosts[model::index(host)]);
  // The macros see the number this notification carries; record_notification() decides what stays.
  const int number_before = st.notification.current_notification_number;
  st.notification.current_notification_number = plan.notification_number;

  const std::string recipients = notification_recipients(w.model, plan);
  const model::Contact* author = find_author(w.model, note.author);
  NotificationMacros macros{
      .type = notification_type_macro(plan.type, plan.current_state),
      .number = plan.notification_number,
      .recipients = recipients,
      .escalated = plan.escalated,
      .author = note.author,
      .author_name = author != nullptr ? author->name : std::string_view{},
      .author_alias = author != nullptr ? author->alias : std::string_view{},
      .comment = note.comment,
      .acknowledgement = plan.type == NotificationType::acknowledgement,
      .downtime_depth = note.downtime_depth,
      .host_downtime_depth = note.host_downtime_depth,
  };
  MacroContext ctx{.model = w.model,
                   .main = w.main,
                   .host = host,
                   .service = service,
                   .now = w.now,
                   .all_hosts = &w.hosts.all(),
                   .all_services = &w.services.all(),
                   .timeperiods = &w.timeperiods,
                   .program_start = w.program_start,
                   .downtime_depths = DowntimeDepths(w.downtimes),
                   .notification = &macros};
  const std::string_view service_description =
      is_service ? w.model.service(service).description : std::string_view{};
  const std::string object = is_service ? fmt::format("service '{};{}'", host_cfg.name, service_description)
                                        : fmt::format("host '{}'", host_cfg.name);
  // One command for one contact (or the global handler, contact_name "GLOBAL").
  auto send = [&](std::string_view contact_name, std::string_view call_text, ExpandedCommand command,
                  bool log_it) {
    if (log_it) {
      commands_->log(is_service
                         ? format_service_notification_line(contact_name, host_cfg.name, service_description,
                                                            plan.type, plan.current_state, call_text,
                                                            st.plugin_output, note.author, note.comment)
                         : format_host_notification_line(contact_name, host_cfg.name, plan.type,
                                                         plan.current_state, call_text, st.plugin_output,
                                                         note.author, note.comment));
    }
    SideCommand side;
    const std::string line = command_line_text(command);
    side.timeout_warning =
        is_service ? fmt::format(
                         "Warning: Timeout while notifying contact '{}' of service '{}' on host '{}' "
                         "by command '{}'",
                         contact_name, service_description, host_cfg.name, line)
                   : fmt::format("Warning: Timeout while notifying contact '{}' of host '{}' by command '{}'",
                                 contact_name, host_cfg.name, line);
    side.failure_subject = fmt::format("contact '{}' about {}", contact_name, object);
    side.command = std::move(command);
    side.timeout_s = w.main.notification_timeout;
    side.purpose = SideCommand::Purpose::notification;
    side.host = host;
    side.service = service;
    side.contact = std::string(contact_name);
    commands_->run_side_command(std::move(side));
  };

  const std::string& global =
      is_service ? w.main.global_service_notification_handler : w.main.global_host_notification_handler;
  if (!global.empty()) {
    if (std::optional<ExpandedCommand> command = expand_command_text(w.model, global, ctx)) {
      send("GLOBAL", global, std::move(*command), w.main.log_global_notifications);
      ++notified;
    }
  }
  for (model::ContactId contact : plan.contacts) {
    const model::Contact& c = w.model.contacts[model::index(contact)];
    ctx.contact = contact;
    for (const model::CommandCall& call :
         is_service ? c.service_notification_commands : c.host_notification_commands) {
      if (std::optional<ExpandedCommand> command = expand_call(w.model, call, ctx))
        send(c.name, call.raw, std::move(*command), w.main.log_notifications);
    }
    state::ContactState& cs = w.contacts[model::index(contact)];
    (is_service ? cs.last_service_notification : cs.last_host_notification) = w.now;
    ++notified;
    metrics::core_metrics()
        .notifications[static_cast<std::size_t>(is_service ? metrics::ObjectKind::service
                                                           : metrics::ObjectKind::host)]
        .add();
  }
  if (!plan.contacts.empty() && w.contacts_changed) w.contacts_changed();
  st.notification.current_notification_number = number_before;
}

void Notifier::restore_next_notifications(const NotifierWorld& w) {
  auto restore = [&](CheckState& st, std::span<const model::EscalationRule* const> escalations,
                     double interval, bool is_volatile) {
    if (st.current_state == 0 || st.notification.last_notification == 0) return;
    const NextNotification next = next_notification_time(
        escalations, interval, is_volatile, st.current_state, st.notification.current_notification_number,
        w.main.interval_length, w.timeperiods, st.notification.last_notification);
    st.notification.next_notification = next.at;
    st.notification.no_more_notifications = next.no_more_notifications;
  };
  for (std::size_t i = 0; i < w.hosts.size() && i < w.model.hosts.size(); ++i) {
    const model::HostId id{static_cast<std::uint32_t>(i)};
    restore(w.hosts[i], index_.host_escalations(id), w.model.hosts[i].notification_interval,
            /*is_volatile=*/false);
  }
  for (std::size_t i = 0; i < w.services.size() && i < w.model.services.size(); ++i) {
    const model::ServiceId id{static_cast<std::uint32_t>(i)};
    restore(w.services[i], index_.service_escalations(id), w.model.services[i].notification_interval,
            w.model.services[i].is_volatile);
  }
}

}  // namespace vedette::engine
