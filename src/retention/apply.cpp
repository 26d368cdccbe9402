#include "retention/apply.hpp"

#include "retention/parse_ahead.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <limits>
#include <span>

namespace vedette::retention {
namespace {

// --- Naemon's number conversions: atoi, strtoul and strtod on the value, leading junk giving 0 ----------

std::string_view skip_space(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  return v;
}

// An optional sign and digits; stops at the first other character. The magnitude saturates instead of
// overflowing.
struct Integer {
  bool negative = false;
  unsigned long long magnitude = 0;
};

Integer parse_integer(std::string_view v) {
  v = skip_space(v);
  Integer n;
  if (!v.empty() && (v.front() == '-' || v.front() == '+')) {
    n.negative = v.front() == '-';
    v.remove_prefix(1);
  }
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n.magnitude);
  (void)ptr;
  if (ec == std::errc::result_out_of_range) n.magnitude = std::numeric_limits<unsigned long long>::max();
  if (ec == std::errc::invalid_argument) n.magnitude = 0;
  return n;
}

// atoi, without its undefined overflow.
int to_int(std::string_view v) {
  const Integer n = parse_integer(v);
  if (n.negative)
    return n.magnitude > 0x80000000ull ? INT_MIN : static_cast<int>(-static_cast<long long>(n.magnitude));
  return n.magnitude > static_cast<unsigned long long>(INT_MAX) ? INT_MAX : static_cast<int>(n.magnitude);
}

bool to_bool(std::string_view v) {
  return to_int(v) > 0;
}

// strtoul: a negative number wraps around, as in C.
unsigned long to_ulong(std::string_view v) {
  const Integer n = parse_integer(v);
  const auto magnitude = static_cast<unsigned long>(n.magnitude);
  return n.negative ? 0ul - magnitude : magnitude;
}

// Naemon reads a time with strtoul into a time_t and writes it with %lu, so -1 travels as 2^64-1.
Time to_time(std::string_view v) {
  return static_cast<Time>(to_ulong(v));
}

double to_double(std::string_view v) {
  v = skip_space(v);
  if (!v.empty() && v.front() == '+') v.remove_prefix(1);
  double d = 0;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
  (void)ptr;
  return ec == std::errc() ? d : 0.0;
}

// "sec.usec" (str2timeval; ',' is accepted as well).
Timeval to_timeval(std::string_view v) {
  Timeval tv;
  tv.sec = to_time(v);
  const std::size_t dot = v.find_first_of(".,");
  if (dot != std::string_view::npos) tv.usec = static_cast<std::int32_t>(to_int(v.substr(dot + 1)));
  return tv;
}

std::string_view command_name(std::string_view call) {
  return call.substr(0, call.find('!'));
}

CheckableKey key_at(CheckableKey base, std::size_t offset) {
  return static_cast<CheckableKey>(static_cast<std::size_t>(base) + offset);
}

class Applier {
 public:
  Applier(Target target, Time now) : t_(target), now_(now) {}

  void apply(const Block& b) {
    switch (b.kind) {
      case BlockKind::info:
        apply_info(b);
        break;
      case BlockKind::program:
        apply_program(b);
        break;
      case BlockKind::host:
      case BlockKind::service:
        apply_checkable(b);
        break;
      case BlockKind::contact:
        apply_contact(b);
        break;
      case BlockKind::host_comment:
      case BlockKind::service_comment:
        apply_comment(b);
        break;
      case BlockKind::host_downtime:
      case BlockKind::service_downtime:
        apply_downtime(b);
        break;
    }
  }

  ApplyResult finish() { return std::move(result_); }

 private:
  void warn(const Block& b, std::string message) { result_.warnings.push_back({b.line, std::move(message)}); }

  void apply_info(const Block& b) {
    if (!b.has(InfoKey::created)) return;
    const Time created = to_time(b.get(InfoKey::created));
    scheduling_info_ok_ =
        created + static_cast<Time>(t_.main.retention_scheduling_horizon) > now_ && created <= now_;
    result_.scheduling_info_ok = scheduling_info_ok_ && t_.main.use_retained_scheduling_info;
    result_.last_program_stop = created;
  }

  void apply_program(const Block& b) {
    config::MainConfig& m = t_.main;
    ProgramCounters& p = result_.program;
    using K = ProgramKey;
    if (b.has(K::modified_host_attributes)) {
      p.modified_host_attributes =
          to_ulong(b.get(K::modified_host_attributes)) & ~m.retained_process_host_attribute_mask;
    }
    if (b.has(K::modified_service_attributes)) {
      p.modified_service_attributes =
          to_ulong(b.get(K::modified_service_attributes)) & ~m.retained_process_service_attribute_mask;
    }
    if (!m.use_retained_program_state) {
      p.modified_host_attributes = p.modified_service_attributes = 0;
      return;
    }
    const unsigned long host = p.modified_host_attributes;
    const unsigned long service = p.modified_service_attributes;
    auto flag = [&](K key, unsigned long attrs, unsigned long bit, bool& value) {
      if (b.has(key) && (attrs & bit) != 0) value = to_bool(b.get(key));
    };
    flag(K::enable_notifications, host, k_modattr_notifications_enabled, m.enable_notifications);
    flag(K::active_service_checks_enabled, service, k_modattr_active_checks_enabled,
         m.execute_service_checks);
    flag(K::passive_service_checks_enabled, service, k_modattr_passive_checks_enabled,
         m.accept_passive_service_checks);
    flag(K::active_host_checks_enabled, host, k_modattr_active_checks_enabled, m.execute_host_checks);
    flag(K::passive_host_checks_enabled, host, k_modattr_passive_checks_enabled,
         m.accept_passive_host_checks);
    flag(K::enable_event_handlers, host, k_modattr_event_handler_enabled, m.enable_event_handlers);
    flag(K::obsess_over_services, service, k_modattr_obsessive_handler_enabled, m.obsess_over_services);
    flag(K::obsess_over_hosts, host, k_modattr_obsessive_handler_enabled, m.obsess_over_hosts);
    flag(K::check_service_freshness, service, k_modattr_freshness_checks_enabled, m.check_service_freshness);
    flag(K::check_host_freshness, host, k_modattr_freshness_checks_enabled, m.check_host_freshness);
    flag(K::enable_flap_detection, host, k_modattr_flap_detection_enabled, m.enable_flap_detection);
    flag(K::process_performance_data, host, k_modattr_performance_data_enabled, m.process_performance_data);
    // A handler is taken only while its command is still defined.
    auto handler = [&](K key, unsigned long attrs, unsigned long bit, std::string& value) {
      if (!b.has(key) || (attrs & bit) == 0) return;
      const std::string_view v = b.get(key);
      if (t_.model.command_by_name.contains(command_name(v))) value.assign(v);
    };
    handler(K::global_host_event_handler, host, k_modattr_event_handler_command, m.global_host_event_handler);
    handler(K::global_service_event_handler, service, k_modattr_event_handler_command,
            m.global_service_event_handler);
    handler(K::global_host_notification_handler, host, k_modattr_notification_handler_command,
            m.global_host_notification_handler);
    handler(K::global_service_notification_handler, service, k_modattr_notification_handler_command,
            m.global_service_notification_handler);
    if (b.has(K::next_comment_id)) p.next_comment_id = to_ulong(b.get(K::next_comment_id));
    if (b.has(K::next_downtime_id)) p.next_downtime_id = to_ulong(b.get(K::next_downtime_id));
    if (b.has(K::next_event_id)) p.next_event_id = to_ulong(b.get(K::next_event_id));
  }

  // Host and service blocks: status information, then non-status information, then Naemon's fix-ups.
  void apply_checkable(const Block& b) {
    using K = CheckableKey;
    const bool is_host = b.kind == BlockKind::host;
    const model::Checkable* cfg = nullptr;
    state::CheckState* st = nullptr;
    Time* last_time[4] = {};
    state::FlapHistory* flap = nullptr;
    if (is_host) {
      const auto it = t_.model.host_by_name.find(b.get(K::host_name));
      if (it == t_.model.host_by_name.end() || model::index(it->second) >= t_.hosts.size()) {
        ++result_.counts.hosts_dropped;
        return;
      }
      const std::uint32_t i = model::index(it->second);
      state::HostState& h = t_.hosts[i];
      cfg = &t_.model.hosts[i];
      st = &h;
      last_time[0] = &h.last_time_up;
      last_time[1] = &h.last_time_down;
      last_time[2] = &h.last_time_unreachable;
      flap = &h.flap;
      ++result_.counts.hosts;
    } else {
      const model::ServiceId id = t_.model.find_service(b.get(K::host_name), b.get(K::service_description));
      if (!model::is_set(id) || model::index(id) >= t_.services.size()) {
        ++result_.counts.services_dropped;
        return;
      }
      const std::uint32_t i = model::index(id);
      state::ServiceState& s = t_.services[i];
      cfg = &t_.model.services[i];
      st = &s;
      last_time[0] = &s.last_time_ok;
      last_time[1] = &s.last_time_warning;
      last_time[2] = &s.last_time_unknown;
      last_time[3] = &s.last_time_critical;
      flap = &s.flap;
      ++result_.counts.services;
    }
    const int max_state = is_host ? state::k_host_unreachable : state::k_state_unknown;
    const std::string_view what = is_host ? "host" : "service";

    unsigned long modattr = st->modified_attributes;
    if (b.has(K::modified_attributes)) {
      const unsigned long mask =
          is_host ? t_.main.retained_host_attribute_mask : t_.main.retained_service_attribute_mask;
      modattr = to_ulong(b.get(K::modified_attributes)) & ~mask;
    }

    if (cfg->retain_status_information) {
      auto state = [&](K key, std::string_view name, int& out) {
        if (!b.has(key)) return;
        const int v = to_int(b.get(key));
        if (v < 0 || v > max_state) {
          warn(b,
               fmt::format("{} '{}': {}={} is not a {} state; ignored", what, object_name(b), name, v, what));
          return;
        }
        out = v;
      };
      auto time = [&](K key, Time& out) {
        if (b.has(key)) out = to_time(b.get(key));
      };
      auto text = [&](K key, std::string& out) {
        if (b.has(key)) out.assign(b.get(key));
      };
      if (b.has(K::has_been_checked)) st->has_been_checked = to_bool(b.get(K::has_been_checked));
      if (b.has(K::check_execution_time)) st->execution_time = to_double(b.get(K::check_execution_time));
      if (b.has(K::check_latency)) st->latency = to_double(b.get(K::check_latency));
      if (b.has(K::check_type)) {
        st->check_type =
            to_int(b.get(K::check_type)) == 1 ? state::CheckType::passive : state::CheckType::active;
      }
      state(K::current_state, "current_state", st->current_state);
      state(K::last_state, "last_state", st->last_state);
      state(K::last_hard_state, "last_hard_state", st->last_hard_state);
      text(K::plugin_output, st->plugin_output);
      text(K::long_plugin_output, st->long_plugin_output);
      text(K::performance_data, st->perf_data);
      time(K::last_check, st->last_check);
      if (t_.main.use_retained_scheduling_info && scheduling_info_ok_) time(K::next_check, st->next_check);
      // Naemon reads a host's attempt as a boolean (a soft DOWN at attempt 2 comes back at 1); the number
      // written is kept here, for hosts and services alike (docs/compatibility.md).
      if (b.has(K::current_attempt)) st->current_attempt = std::max(1, to_int(b.get(K::current_attempt)));
      if (b.has(K::state_type)) {
        st->state_type = to_int(b.get(K::state_type)) == 0 ? state::StateType::soft : state::StateType::hard;
      }
      time(K::last_state_change, st->last_state_change);
      time(K::last_hard_state_change, st->last_hard_state_change);
      for (std::size_t i = 0; i < 4; ++i) {
        if (last_time[i] != nullptr) time(key_at(K::last_time_0, i), *last_time[i]);
      }

      state::EventIds& events = st->events;
      if (b.has(K::last_event_id)) events.last_event_id = to_ulong(b.get(K::last_event_id));
      if (b.has(K::current_event_id)) events.current_event_id = to_ulong(b.get(K::current_event_id));
      if (b.has(K::current_problem_id)) read_id(b.get(K::current_problem_id), events.current_problem_id);
      if (b.has(K::last_problem_id)) read_id(b.get(K::last_problem_id), events.last_problem_id);
      time(K::problem_start, events.problem_start);
      time(K::problem_end, events.problem_end);
      if (b.has(K::last_update)) st->last_update = to_timeval(b.get(K::last_update));
      // notified_on_<state> in the file's order: hosts down, unreachable; services unknown, warning,
      // critical.
      state::NotificationState& n = st->notification;
      static constexpr int k_host_order[] = {state::k_host_down, state::k_host_unreachable};
      static constexpr int k_service_order[] = {state::k_state_unknown, state::k_state_warning,
                                                state::k_state_critical};
      const std::span<const int> order = is_host ? std::span<const int>(k_host_order) : k_service_order;
      for (std::size_t i = 0; i < order.size(); ++i) {
        const K key = key_at(K::notified_on_0, i);
        if (b.has(key) && to_bool(b.get(key))) n.notified_on |= 1u << order[i];
      }
      time(K::last_notification, n.last_notification);
      if (b.has(K::current_notification_number))
        n.current_notification_number = to_int(b.get(K::current_notification_number));
      if (b.has(K::current_notification_id))
        read_id(b.get(K::current_notification_id), n.current_notification_id);
      if (b.has(K::is_flapping)) flap->is_flapping = to_bool(b.get(K::is_flapping));
      if (b.has(K::percent_state_change))
        flap->percent_state_change = to_double(b.get(K::percent_state_change));
      if (b.has(K::check_flapping_recovery_notification)) {
        flap->check_flapping_recovery_notification = to_bool(b.get(K::check_flapping_recovery_notification));
      }
      if (b.has(K::state_history)) {
        read_state_history(b.get(K::state_history), flap->states);
        flap->index = 0;  // the file lists the oldest first
      }
    }

    state::Overrides mod;
    if (cfg->retain_nonstatus_information) {
      if (b.has(K::problem_has_been_acknowledged)) {
        st->problem_has_been_acknowledged = to_bool(b.get(K::problem_has_been_acknowledged));
      }
      if (b.has(K::acknowledgement_type)) {
        st->acknowledgement_type =
            static_cast<std::uint8_t>(std::clamp(to_int(b.get(K::acknowledgement_type)), 0, 2));
      }
      if (b.has(K::acknowledgement_end_time))
        st->acknowledgement_end_time = to_time(b.get(K::acknowledgement_end_time));

      // A retained flag wins unless the configuration changed it since the file was written: the file's
      // config:<flag> then differs from what is configured now, and the new configuration is kept.
      for (std::size_t i = 0; i < k_flag_count; ++i) {
        const Flag f = static_cast<Flag>(i);
        const K key = key_at(K::flag_0, i);
        const K config_key = key_at(K::config_flag_0, i);
        if (!b.has(key) || (modattr & flag_info(f).modattr) == 0) continue;
        if (b.has(config_key) && to_bool(b.get(config_key)) != configured_flag(*cfg, f)) continue;
        st->set_enabled(f, to_bool(b.get(key)));
      }
      // Commands and timeperiods only while they are still defined; otherwise the attribute is no longer
      // modified.
      auto command = [&](K key, unsigned long bit, std::optional<std::string>& out) {
        if (!b.has(key) || (modattr & bit) == 0) return;
        const std::string_view v = b.get(key);
        if (t_.model.command_by_name.contains(command_name(v))) {
          out.emplace(v);
        } else {
          modattr &= ~bit;
        }
      };
      auto period = [&](K key, unsigned long bit, std::optional<std::string>& out) {
        if (!b.has(key) || (modattr & bit) == 0) return;
        const std::string_view v = b.get(key);
        if (t_.model.timeperiod_by_name.contains(v)) {
          out.emplace(v);
        } else {
          modattr &= ~bit;
        }
      };
      command(K::check_command, k_modattr_check_command, mod.check_command);
      period(K::check_period, k_modattr_check_timeperiod, mod.check_period);
      period(K::notification_period, k_modattr_notification_timeperiod, mod.notification_period);
      command(K::event_handler, k_modattr_event_handler_command, mod.event_handler);
      if (b.has(K::normal_check_interval) && (modattr & k_modattr_normal_check_interval) != 0) {
        const double v = to_double(b.get(K::normal_check_interval));
        if (v >= 0) mod.check_interval = v;
      }
      if (b.has(K::retry_check_interval) && (modattr & k_modattr_retry_check_interval) != 0) {
        const double v = to_double(b.get(K::retry_check_interval));
        if (v >= 0) mod.retry_interval = v;
      }
      if (b.has(K::max_attempts) && (modattr & k_modattr_max_check_attempts) != 0) {
        const int v = to_int(b.get(K::max_attempts));
        if (v >= 1) mod.max_check_attempts = v;
      }
      if ((modattr & k_modattr_custom_variable) != 0)
        read_custom_variables(b, cfg->custom_variables, mod.custom_variables);
    } else {
      modattr = 0;
    }

    // Naemon's fix-ups at the end of the block.
    if ((modattr & k_modattr_custom_variable) != 0 && mod.custom_variables.empty())
      modattr &= ~k_modattr_custom_variable;
    if (!is_host && !st->has_been_checked && st->state_type == state::StateType::soft) {
      st->state_type = state::StateType::hard;
    }
    // max_check_attempts may have changed since: a hard problem is at the last attempt.
    if (st->current_state != 0 && st->state_type == state::StateType::hard) {
      st->current_attempt = std::max(1, mod.max_check_attempts.value_or(cfg->max_check_attempts));
    }
    if (st->last_hard_state_change == 0) st->last_hard_state_change = st->last_state_change;
    if (st->problem_has_been_acknowledged && st->acknowledgement_end_time > 0 &&
        st->acknowledgement_end_time <= now_)
      st->clear_acknowledgement();
    st->modified_attributes = modattr;
    st->overrides = mod.empty() ? nullptr : std::make_shared<const state::Overrides>(std::move(mod));
  }

  void apply_contact(const Block& b) {
    using K = ContactKey;
    const auto it = t_.model.contact_by_name.find(b.get(K::contact_name));
    if (it == t_.model.contact_by_name.end() || model::index(it->second) >= t_.contacts.size()) {
      ++result_.counts.contacts_dropped;
      return;
    }
    ++result_.counts.contacts;
    const model::Contact& cfg = t_.model.contacts[model::index(it->second)];
    state::ContactState& st = t_.contacts[model::index(it->second)];
    // Naemon has no option for the contact-wide mask: modified_attributes is kept whole.
    if (b.has(K::modified_attributes)) st.modified_attributes = to_ulong(b.get(K::modified_attributes));
    if (b.has(K::modified_host_attributes)) {
      st.modified_host_attributes =
          to_ulong(b.get(K::modified_host_attributes)) & ~t_.main.retained_contact_host_attribute_mask;
    }
    if (b.has(K::modified_service_attributes)) {
      st.modified_service_attributes =
          to_ulong(b.get(K::modified_service_attributes)) & ~t_.main.retained_contact_service_attribute_mask;
    }
    if (cfg.retain_status_information) {
      if (b.has(K::last_host_notification))
        st.last_host_notification = to_time(b.get(K::last_host_notification));
      if (b.has(K::last_service_notification)) {
        st.last_service_notification = to_time(b.get(K::last_service_notification));
      }
    }
    if (cfg.retain_nonstatus_information) {
      auto period = [&](K key, unsigned long& attrs, model::TimeperiodId& out) {
        if (!b.has(key) || (attrs & k_modattr_notification_timeperiod) == 0) return;
        const auto found = t_.model.timeperiod_by_name.find(b.get(key));
        if (found != t_.model.timeperiod_by_name.end()) {
          out = found->second;
        } else {
          attrs &= ~k_modattr_notification_timeperiod;
        }
      };
      period(K::host_notification_period, st.modified_host_attributes, st.host_notification_period);
      period(K::service_notification_period, st.modified_service_attributes, st.service_notification_period);
      // Unlike hosts and services, Naemon takes a contact's flag when it was modified *or* when the
      // configuration still has the value the file recorded as configured.
      auto flag = [&](K key, K config_key, unsigned long attrs, bool configured, bool& out) {
        if (!b.has(key)) return;
        const bool config_unchanged = b.has(config_key) && to_bool(b.get(config_key)) == configured;
        if ((attrs & k_modattr_notifications_enabled) != 0 || config_unchanged) out = to_bool(b.get(key));
      };
      flag(K::host_notifications_enabled, K::config_host_notifications_enabled, st.modified_host_attributes,
           cfg.host_notifications_enabled, st.host_notifications_enabled);
      flag(K::service_notifications_enabled, K::config_service_notifications_enabled,
           st.modified_service_attributes, cfg.service_notifications_enabled,
           st.service_notifications_enabled);
      if ((st.modified_attributes & k_modattr_custom_variable) != 0) {
        std::vector<ChangedVariable> changed;
        read_custom_variables(b, cfg.custom_variables, changed);
        if (!changed.empty())
          st.custom_variables = std::make_shared<const std::vector<ChangedVariable>>(std::move(changed));
      }
    } else {
      st.modified_attributes = 0;
    }
    if ((st.modified_attributes & k_modattr_custom_variable) != 0 && st.custom_variables == nullptr) {
      st.modified_attributes &= ~k_modattr_custom_variable;
    }
  }

  // Restored unless the object is gone; a non-persistent comment only survives as the comment of an
  // acknowledgement still in place, or as a downtime's comment (the downtime would add it back anyway).
  void apply_comment(const Block& b) {
    using K = CommentKey;
    Comment c;
    c.is_service = b.kind == BlockKind::service_comment;
    c.host_name.assign(b.get(K::host_name));
    c.service_description.assign(b.get(K::service_description));
    if (b.has(K::entry_type)) c.entry_type = to_int(b.get(K::entry_type));
    if (b.has(K::comment_id)) c.comment_id = to_ulong(b.get(K::comment_id));
    if (b.has(K::source)) c.source = to_int(b.get(K::source));
    if (b.has(K::persistent)) c.persistent = to_bool(b.get(K::persistent));
    if (b.has(K::entry_time)) c.entry_time = to_time(b.get(K::entry_time));
    if (b.has(K::expires)) c.expires = to_bool(b.get(K::expires));
    if (b.has(K::expire_time)) c.expire_time = to_time(b.get(K::expire_time));
    c.author.assign(b.get(K::author));
    c.comment_data.assign(b.get(K::comment_data));

    constexpr int k_downtime_comment = 2, k_acknowledgement_comment = 4;
    const state::CheckState* st = state_of(c.is_service, c.host_name, c.service_description);
    bool keep = st != nullptr;
    if (keep && c.entry_type == k_acknowledgement_comment) {
      keep = st->problem_has_been_acknowledged || c.persistent;
    } else if (keep && c.entry_type != k_downtime_comment) {
      keep = c.persistent;
    }
    if (!keep) {
      ++result_.counts.comments_dropped;
      return;
    }
    result_.comments.push_back(std::move(c));
  }

  void apply_downtime(const Block& b) {
    using K = DowntimeKey;
    Downtime d;
    d.is_service = b.kind == BlockKind::service_downtime;
    d.host_name.assign(b.get(K::host_name));
    d.service_description.assign(b.get(K::service_description));
    if (b.has(K::comment_id)) d.comment_id = to_ulong(b.get(K::comment_id));
    if (b.has(K::downtime_id)) d.downtime_id = to_ulong(b.get(K::downtime_id));
    if (b.has(K::entry_time)) d.entry_time = to_time(b.get(K::entry_time));
    if (b.has(K::start_time)) d.start_time = to_time(b.get(K::start_time));
    if (b.has(K::flex_downtime_start)) d.flex_downtime_start = to_time(b.get(K::flex_downtime_start));
    if (b.has(K::end_time)) d.end_time = to_time(b.get(K::end_time));
    if (b.has(K::triggered_by)) d.triggered_by = to_ulong(b.get(K::triggered_by));
    if (b.has(K::fixed)) d.fixed = to_bool(b.get(K::fixed));
    if (b.has(K::duration)) d.duration = to_ulong(b.get(K::duration));
    if (b.has(K::is_in_effect)) d.is_in_effect = to_bool(b.get(K::is_in_effect));
    if (b.has(K::start_notification_sent))
      d.start_notification_sent = to_bool(b.get(K::start_notification_sent));
    d.author.assign(b.get(K::author));
    d.comment.assign(b.get(K::comment));
    if (!b.has(K::host_name) || (d.is_service && !b.has(K::service_description)) ||
        state_of(d.is_service, d.host_name, d.service_description) == nullptr) {
      ++result_.counts.downtimes_dropped;
      return;
    }
    result_.downtimes.push_back(std::move(d));
  }

  // The object a comment or downtime belongs to (its state as applied so far), or null when it is gone.
  const state::CheckState* state_of(bool is_service, std::string_view host, std::string_view description) {
    if (!is_service) {
      const auto it = t_.model.host_by_name.find(host);
      if (it == t_.model.host_by_name.end() || model::index(it->second) >= t_.hosts.size()) return nullptr;
      return &t_.hosts[model::index(it->second)];
    }
    const model::ServiceId id = t_.model.find_service(host, description);
    if (!model::is_set(id) || model::index(id) >= t_.services.size()) return nullptr;
    return &t_.services[model::index(id)];
  }

  // `_NAME=<modified>;<value>` lines: a value marked modified replaces the configured one of the variable
  // with that name (Naemon: atoi(<modified>) > 0, and the value starts two characters in).
  static void read_custom_variables(const Block& b, const std::vector<model::CustomVariable>& configured,
                                    std::vector<ChangedVariable>& out) {
    for (const CustomValue& v : b.custom_variables) {
      if (to_int(v.value) <= 0 || v.value.size() < 2) continue;
      const bool known = std::any_of(configured.begin(), configured.end(),
                                     [&](const model::CustomVariable& c) { return c.name == v.name; });
      if (!known) continue;
      const std::string_view value = v.value.substr(2);
      auto same = [&](const ChangedVariable& m) { return m.name == v.name; };
      if (auto it = std::find_if(out.begin(), out.end(), same); it != out.end()) {
        it->value.assign(value);
      } else {
        out.push_back({std::string(v.name), std::string(value)});
      }
    }
  }

  // A problem or notification id; one that is not (hand-edited, from another program) is dropped.
  static void read_id(std::string_view v, state::Uuid& out) {
    if (const std::optional<state::Uuid> id = state::parse_uuid(v)) out = *id;
  }

  static void read_state_history(std::string_view v,
                                 std::array<std::uint8_t, state::k_state_history_entries>& out) {
    for (std::size_t i = 0; i < out.size(); ++i) {
      const std::size_t comma = v.find(',');
      out[i] = static_cast<std::uint8_t>(std::clamp(to_int(v.substr(0, comma)), 0, 255));
      if (comma == std::string_view::npos) break;
      v.remove_prefix(comma + 1);
    }
  }

  static std::string object_name(const Block& b) {
    if (b.kind == BlockKind::host) return std::string(b.get(CheckableKey::host_name));
    return fmt::format("{};{}", b.get(CheckableKey::host_name), b.get(CheckableKey::service_description));
  }

  Target t_;
  Time now_;
  bool scheduling_info_ok_ = false;
  ApplyResult result_;
};

}  // namespace

ApplyResult apply(const Data& data, Target target, Time now) {
  Applier applier(target, now);
  for (const Block& b : data.blocks) applier.apply(b);
  return applier.finish();
}

struct TextApplier::Impl {
  Impl(Target target, Time now) : applier(target, now) {}
  Applier applier;
  LoadResult out;
};

TextApplier::TextApplier(Target target, Time now) : impl_(std::make_unique<Impl>(target, now)) {}
TextApplier::~TextApplier() = default;

void TextApplier::feed(std::string_view blocks) {
  parse(
      blocks, [&](const Block& b) { impl_->applier.apply(b); }, impl_->out.warnings);
}

namespace {

// The reader's warnings, then apply()'s.
LoadResult finished(Applier& applier, LoadResult out) {
  out.applied = applier.finish();
  out.warnings.insert(out.warnings.end(), out.applied.warnings.begin(), out.applied.warnings.end());
  return out;
}

}  // namespace

LoadResult TextApplier::finish() {
  return finished(impl_->applier, std::move(impl_->out));
}

LoadResult apply_text(std::string_view text, Target target, Time now) {
  TextApplier applier(target, now);
  applier.feed(text);
  return applier.finish();
}

LoadResult load(const std::string& path, Target target, Time now) {
  config::MappedFile file;
  if (target.main.retain_state_information && !path.empty() && !file.open(path, k_max_file_size)) {
    const int error = errno;
    LoadResult out = apply_text({}, target, now);
    out.status = error == ENOENT ? Data::Status::missing : Data::Status::error;
    out.error = file.failure();
    return out;
  }
  Applier applier(target, now);
  LoadResult out;
  parse_ahead(
      file.text(), [&](const Block& b) { applier.apply(b); }, out.warnings);
  return finished(applier, std::move(out));
}

double initial_check_delay(Time retained_next_check, Time now, double interval_s, int randomize_window,
                           double random01) {
  const double next = static_cast<double>(retained_next_check);
  const double t = static_cast<double>(now);
  if (retained_next_check != 0 && next > t - interval_s && next <= t + interval_s) {
    if (next >= t) return next - t;
    return random01 * std::min(static_cast<double>(randomize_window), interval_s);
  }
  return random01 * interval_s;
}

}  // namespace vedette::retention
