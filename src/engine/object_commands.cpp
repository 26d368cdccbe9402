#include "engine/object_commands.hpp"

#include "engine/notify/notifier.hpp"
#include "state/attributes.hpp"

#include <memory>
#include <utility>
#include <vector>

namespace vedette::engine {

void ObjectCommands::set_program_switch(ProgramSwitch which, bool on) {
  struct Switch {
    bool config::MainConfig::*flag;
    unsigned long attribute;  // Naemon's MODATTR_* bit
    bool hosts;               // which of the program's modified attributes it marks
    bool services;
  };
  static constexpr Switch k_switches[] = {
      {&config::MainConfig::enable_notifications, state::k_modattr_notifications_enabled, true, true},
      {&config::MainConfig::execute_service_checks, state::k_modattr_active_checks_enabled, false, true},
      {&config::MainConfig::accept_passive_service_checks, state::k_modattr_passive_checks_enabled, false,
       true},
      {&config::MainConfig::execute_host_checks, state::k_modattr_active_checks_enabled, true, false},
      {&config::MainConfig::accept_passive_host_checks, state::k_modattr_passive_checks_enabled, true, false},
      {&config::MainConfig::enable_event_handlers, state::k_modattr_event_handler_enabled, true, true},
      {&config::MainConfig::enable_flap_detection, state::k_modattr_flap_detection_enabled, true, true},
      {&config::MainConfig::obsess_over_services, state::k_modattr_obsessive_handler_enabled, false, true},
      {&config::MainConfig::obsess_over_hosts, state::k_modattr_obsessive_handler_enabled, true, false},
      {&config::MainConfig::check_service_freshness, state::k_modattr_freshness_checks_enabled, false, true},
      {&config::MainConfig::check_host_freshness, state::k_modattr_freshness_checks_enabled, true, false},
      {&config::MainConfig::process_performance_data, state::k_modattr_performance_data_enabled, true, true},
  };
  const Switch& s = k_switches[static_cast<std::size_t>(which)];
  bool& flag = w_.cfg.main.*s.flag;
  ++w_.events.program_changes;
  if (flag == on) return;
  flag = on;
  if (s.hosts) w_.modified_host_attributes |= s.attribute;
  if (s.services) w_.modified_service_attributes |= s.attribute;
  w_.apply_main_settings();
  if (which != ProgramSwitch::flap_detection) return;
  // Naemon: turned off, every flapping host and then service stops; turned on, hosts may record their state
  // again (services wait for their next result).
  const Time now = w_.now_epoch();
  for (std::uint32_t h = 0; h < w_.hosts.size(); ++h) {
    if (on) {
      flap_alerts_.host_result(model::HostId{h}, now, FlapRecord::when_due);
    } else {
      flap_alerts_.detection_disabled(w_.check_of(model::HostId{h}), now);
    }
  }
  if (on) return;
  for (std::uint32_t sv = 0; sv < w_.services.size(); ++sv)
    flap_alerts_.detection_disabled(w_.check_of(model::ServiceId{sv}), now);
}

Reschedule ObjectCommands::set_flag(CheckId check, state::Flag flag, bool on) {
  CheckState& st = w_.state_of(check);
  if (st.enabled(flag) == on) return Reschedule::no;
  st.set_enabled(flag, on);
  st.modified_attributes |= state::flag_info(flag).modattr;
  if (flag == state::Flag::flap_detection) {
    if (!on) {
      flap_alerts_.detection_disabled(check, w_.now_epoch());
    } else if (!w_.is_service(check)) {
      flap_alerts_.host_result(w_.host_of(check), w_.now_epoch(), FlapRecord::when_due);
    }
  }
  // Naemon's enable_*_checks: the next check falls within one check window from now.
  return flag == state::Flag::active_checks && on ? Reschedule::within_interval : Reschedule::no;
}

Reschedule ObjectCommands::change_attribute(CheckId check, const AttributeChange& c) {
  using K = AttributeChange::Kind;
  CheckState& st = w_.state_of(check);
  const model::Checkable& cfg = w_.checkable_of(check);
  // Overrides are shared with snapshots: a change makes a new record.
  auto changed = [&](auto&& edit) {
    auto next = st.overrides != nullptr ? std::make_shared<state::Overrides>(*st.overrides)
                                        : std::make_shared<state::Overrides>();
    edit(*next);
    st.overrides = std::move(next);
  };
  switch (c.kind) {
    case K::check_interval:
      // As Naemon: no change, nothing happens; a positive interval puts the next check within it.
      if (state::check_interval_of(cfg, st) == c.number) return Reschedule::no;
      changed([&](state::Overrides& o) { o.check_interval = c.number; });
      st.modified_attributes |= state::k_modattr_normal_check_interval;
      return c.number > 0 ? Reschedule::within_interval : Reschedule::no;
    case K::retry_interval:
      changed([&](state::Overrides& o) { o.retry_interval = c.number; });
      st.modified_attributes |= state::k_modattr_retry_check_interval;
      return Reschedule::no;
    case K::max_check_attempts: {
      const int attempts = static_cast<int>(c.number);
      changed([&](state::Overrides& o) { o.max_check_attempts = attempts; });
      st.modified_attributes |= state::k_modattr_max_check_attempts;
      if (st.state_type == StateType::hard && st.current_state != 0 && st.current_attempt > 1)
        st.current_attempt = attempts;
      return Reschedule::no;
    }
    case K::check_period:
      changed([&](state::Overrides& o) { o.check_period.emplace(c.name); });
      st.modified_attributes |= state::k_modattr_check_timeperiod;
      return Reschedule::no;
    case K::notification_period:
      changed([&](state::Overrides& o) { o.notification_period.emplace(c.name); });
      st.modified_attributes |= state::k_modattr_notification_timeperiod;
      return Reschedule::no;
    case K::custom_variable: {
      // Only a variable the object has changes; the bit is set anyway, as in Naemon.
      std::vector<state::ChangedVariable> vars =
          st.overrides != nullptr ? st.overrides->custom_variables : std::vector<state::ChangedVariable>{};
      if (state::change_variable(vars, cfg.custom_variables, c.name, c.value))
        changed([&](state::Overrides& o) { o.custom_variables = std::move(vars); });
      st.modified_attributes |= state::k_modattr_custom_variable;
      return Reschedule::no;
    }
    case K::modified_attributes:
      st.modified_attributes = c.bits;
      return Reschedule::no;
  }
  return Reschedule::no;
}

void ObjectCommands::set_contact_notifications(model::ContactId id, bool hosts, bool on) {
  state::ContactState& c = w_.contacts[model::index(id)];
  bool& enabled = hosts ? c.host_notifications_enabled : c.service_notifications_enabled;
  if (enabled == on) return;
  enabled = on;
  (hosts ? c.modified_host_attributes : c.modified_service_attributes) |=
      state::k_modattr_notifications_enabled;
  w_.contacts_changed();
}

void ObjectCommands::change_contact(model::ContactId id, const ContactChange& change) {
  using K = ContactChange::Kind;
  state::ContactState& c = w_.contacts[model::index(id)];
  switch (change.kind) {
    case K::host_notification_period:
    case K::service_notification_period: {
      const auto it = w_.model->timeperiod_by_name.find(change.name);
      if (it == w_.model->timeperiod_by_name.end()) return;  // validated by the command reader
      const bool hosts = change.kind == K::host_notification_period;
      (hosts ? c.host_notification_period : c.service_notification_period) = it->second;
      (hosts ? c.modified_host_attributes : c.modified_service_attributes) |=
          state::k_modattr_notification_timeperiod;
      break;
    }
    case K::custom_variable: {
      std::vector<state::ChangedVariable> vars =
          c.custom_variables != nullptr ? *c.custom_variables : std::vector<state::ChangedVariable>{};
      if (state::change_variable(vars, w_.model->contacts[model::index(id)].custom_variables, change.name,
                                 change.value))
        c.custom_variables = std::make_shared<const std::vector<state::ChangedVariable>>(std::move(vars));
      c.modified_attributes |= state::k_modattr_custom_variable;
      break;
    }
    case K::modified_attributes:
      c.modified_attributes = change.bits;
      break;
    case K::modified_host_attributes:
      c.modified_host_attributes = change.bits;
      break;
    case K::modified_service_attributes:
      c.modified_service_attributes = change.bits;
      break;
  }
  w_.contacts_changed();
}

void ObjectCommands::send_custom_notification(CheckId check, unsigned options, std::string_view author,
                                              std::string_view comment) {
  w_.with_object(check, [&](auto id) {
    notifier_.notify(w_.notifier_world(w_.now_epoch()), id, NotificationType::custom, {author, comment},
                     options);
  });
}

}  // namespace vedette::engine
