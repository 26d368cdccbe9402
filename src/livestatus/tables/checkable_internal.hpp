// The column getters hosts and services share, as templates over which of the two a row is: they read the
// model's object and the snapshot's run-time state by index, and allocate nothing for a scalar. Private to
// tables/ (hosts.cpp, services.cpp); run on the query threads, read-only over an immutable snapshot.
#pragma once

#include "livestatus/tables/tables_internal.hpp"
#include "state/attributes.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

namespace vedette::livestatus::tables {

enum class Kind : std::uint8_t { host, service };
inline constexpr Kind H = Kind::host;
inline constexpr Kind S = Kind::service;

template <Kind K>
[[nodiscard]] const model::Checkable& config_of(const View& v, Row r) {
  if constexpr (K == Kind::host) {
    return v.model().hosts[r.index];
  } else {
    return v.model().services[r.index];
  }
}

template <Kind K>
[[nodiscard]] const files::StatusState& state_of(const View& v, Row r) {
  if constexpr (K == Kind::host) {
    return v.status->hosts[r.index];
  } else {
    return v.status->services[r.index];
  }
}

template <Kind K>
[[nodiscard]] const state::Overrides* overrides_of(const View& v, Row r) {
  return v.status->overrides_of(state_of<K>(v, r));
}

// Scalars of the run-time state and of the configuration, by member.
template <Kind K, auto Field>
void state_int(const View& v, Row r, Cell& out) {
  out.set_int(static_cast<std::int64_t>(state_of<K>(v, r).*Field));
}
template <Kind K, auto Field>
void state_double(const View& v, Row r, Cell& out) {
  out.set_float(static_cast<double>(state_of<K>(v, r).*Field));
}
template <Kind K, auto Field>
void config_int(const View& v, Row r, Cell& out) {
  out.set_int(static_cast<std::int64_t>(config_of<K>(v, r).*Field));
}
template <Kind K, auto Field>
void config_double(const View& v, Row r, Cell& out) {
  out.set_float(static_cast<double>(config_of<K>(v, r).*Field));
}
template <Kind K, auto Field>
void config_string(const View& v, Row r, Cell& out) {
  out.set_string(config_of<K>(v, r).*Field);
}
// The model's Host or Service field (not Checkable's).
template <Kind K, auto Field>
void own_string(const View& v, Row r, Cell& out) {
  if constexpr (K == Kind::host) {
    out.set_string(v.model().hosts[r.index].*Field);
  } else {
    out.set_string(v.model().services[r.index].*Field);
  }
}
template <Kind K, state::Flag F>
void flag(const View& v, Row r, Cell& out) {
  out.set_int((state_of<K>(v, r).flags & state::flag_bit(F)) != 0 ? 1 : 0);
}
template <Kind K, std::size_t I>
void last_time(const View& v, Row r, Cell& out) {
  out.set_int(state_of<K>(v, r).last_time[I]);
}

template <Kind K>
void notified_on(const View& v, Row r, Cell& out) {
  out.set_int(static_cast<std::int64_t>(state_of<K>(v, r).notification.notified_on));
}
template <Kind K>
void last_notification(const View& v, Row r, Cell& out) {
  out.set_int(state_of<K>(v, r).notification.last_notification);
}
template <Kind K>
void next_notification(const View& v, Row r, Cell& out) {
  out.set_int(state_of<K>(v, r).notification.next_notification);
}
template <Kind K>
void current_notification_number(const View& v, Row r, Cell& out) {
  out.set_int(state_of<K>(v, r).notification.current_notification_number);
}
template <Kind K>
void no_more_notifications(const View& v, Row r, Cell& out) {
  out.set_int(state_of<K>(v, r).notification.no_more_notifications ? 1 : 0);
}
template <Kind K>
void is_flapping(const View& v, Row r, Cell& out) {
  out.set_int(state_of<K>(v, r).flap.is_flapping ? 1 : 0);
}
template <Kind K>
void percent_state_change(const View& v, Row r, Cell& out) {
  out.set_float(state_of<K>(v, r).flap.percent_state_change);
}
template <Kind K>
void check_flapping_recovery_notification(const View& v, Row r, Cell& out) {
  out.set_int(state_of<K>(v, r).flap.check_flapping_recovery_notification ? 1 : 0);
}

template <Kind K>
void plugin_output(const View& v, Row r, Cell& out) {
  const files::StatusState& st = state_of<K>(v, r);
  out.set_string(v.status->text_at(st.text_offset, st.output_size));
}
// Its newlines escaped as "\n", as Naemon keeps it.
template <Kind K>
void long_plugin_output(const View& v, Row r, Cell& out) {
  const files::StatusState& st = state_of<K>(v, r);
  out.set_string(v.status->text_at(st.text_offset + st.output_size, st.long_output_size));
}
// Where the last result came from, as Naemon names it ("Core Worker 4711", "Mod-Gearman Worker @ host").
template <Kind K>
void check_source(const View& v, Row r, Cell& out) {
  const std::uint16_t at = state_of<K>(v, r).check_source;
  const auto& names = v.status->check_sources;
  out.set_string(names != nullptr && at < names->size() ? std::string_view((*names)[at])
                                                        : std::string_view());
}
template <Kind K>
void perf_data(const View& v, Row r, Cell& out) {
  const files::StatusState& st = state_of<K>(v, r);
  out.set_string(v.status->text_at(st.text_offset + st.output_size + st.long_output_size, st.perf_data_size));
}

// The values in effect: changed by a command, else configured.
template <Kind K>
[[nodiscard]] std::string_view check_command_of(const View& v, Row r) {
  const state::Overrides* ov = overrides_of<K>(v, r);
  return ov != nullptr && ov->check_command ? std::string_view(*ov->check_command)
                                            : config_of<K>(v, r).check_command.raw;
}
template <Kind K>
void check_command(const View& v, Row r, Cell& out) {
  out.set_string(check_command_of<K>(v, r));
}
template <Kind K>
void event_handler(const View& v, Row r, Cell& out) {
  const state::Overrides* ov = overrides_of<K>(v, r);
  out.set_string(ov != nullptr && ov->event_handler ? std::string_view(*ov->event_handler)
                                                    : config_of<K>(v, r).event_handler.raw);
}
template <Kind K>
[[nodiscard]] double check_interval_of(const View& v, Row r) {
  const state::Overrides* ov = overrides_of<K>(v, r);
  return ov != nullptr && ov->check_interval ? *ov->check_interval : config_of<K>(v, r).check_interval;
}
template <Kind K>
void check_interval(const View& v, Row r, Cell& out) {
  out.set_float(check_interval_of<K>(v, r));
}
template <Kind K>
void retry_interval(const View& v, Row r, Cell& out) {
  const state::Overrides* ov = overrides_of<K>(v, r);
  out.set_float(ov != nullptr && ov->retry_interval ? *ov->retry_interval
                                                    : config_of<K>(v, r).retry_interval);
}
template <Kind K>
void max_check_attempts(const View& v, Row r, Cell& out) {
  const state::Overrides* ov = overrides_of<K>(v, r);
  out.set_int(ov != nullptr && ov->max_check_attempts ? *ov->max_check_attempts
                                                      : config_of<K>(v, r).max_check_attempts);
}

[[nodiscard]] inline std::string_view period_name(const View& v, model::TimeperiodId id) {
  return model::is_set(id) ? v.model().timeperiods[model::index(id)].name : std::string_view{};
}
template <Kind K>
void check_period(const View& v, Row r, Cell& out) {
  const state::Overrides* ov = overrides_of<K>(v, r);
  out.set_string(ov != nullptr && ov->check_period ? std::string_view(*ov->check_period)
                                                   : period_name(v, config_of<K>(v, r).check_period));
}
template <Kind K>
void notification_period(const View& v, Row r, Cell& out) {
  const state::Overrides* ov = overrides_of<K>(v, r);
  out.set_string(ov != nullptr && ov->notification_period
                     ? std::string_view(*ov->notification_period)
                     : period_name(v, config_of<K>(v, r).notification_period));
}
template <Kind K>
void in_check_period(const View& v, Row r, Cell& out) {
  const state::Overrides* ov = overrides_of<K>(v, r);
  const model::TimeperiodId id = ov != nullptr && ov->check_period ? period_named(v, *ov->check_period)
                                                                   : config_of<K>(v, r).check_period;
  out.set_int(in_period(v, id) ? 1 : 0);
}
template <Kind K>
void in_notification_period(const View& v, Row r, Cell& out) {
  const state::Overrides* ov = overrides_of<K>(v, r);
  const model::TimeperiodId id = ov != nullptr && ov->notification_period
                                     ? period_named(v, *ov->notification_period)
                                     : config_of<K>(v, r).notification_period;
  out.set_int(in_period(v, id) ? 1 : 0);
}

// Naemon's last_update: when the object's status last changed, in µs (a timeval, printed as the module
// prints one). A snapshot made without the engine has no stamp: the last check, or the program start.
template <Kind K>
void last_update(const View& v, Row r, Cell& out) {
  const files::StatusState& st = state_of<K>(v, r);
  if (st.last_update.sec != 0)
    return out.set_float(static_cast<double>(st.last_update.sec) + st.last_update.usec / 1e6);
  out.set_int(st.has_been_checked ? st.last_check : v.status->program.program_start);
}
template <Kind K>
void should_be_scheduled(const View& v, Row r, Cell& out) {
  const bool active = (state_of<K>(v, r).flags & state::flag_bit(state::Flag::active_checks)) != 0;
  out.set_int(check_interval_of<K>(v, r) > 0 && active ? 1 : 0);
}
template <Kind K>
void scheduled_downtime_depth(const View& v, Row r, Cell& out) {
  out.set_int(state_of<K>(v, r).scheduled_downtime_depth);
}
template <Kind K>
void modified_attributes(const View& v, Row r, Cell& out) {
  out.set_int(static_cast<std::int64_t>(state_of<K>(v, r).modified_attributes));
}
template <Kind K>
void modified_attributes_names(const View& v, Row r, Cell& out) {
  modified_attributes_list(state_of<K>(v, r).modified_attributes, out);
}

// Values Vedette does not keep; what Naemon shows for an object none of it touched.
inline void zero(const View&, Row, Cell& out) {
  out.set_int(0);
}
inline void empty_string(const View&, Row, Cell& out) {
  out.set_string({});
}

template <Kind K>
void id(const View& v, Row r, Cell& out) {
  const ModelIndex& mi = model_index(v);
  out.set_int(K == Kind::host ? mi.host_rank[r.index] : mi.service_rank[r.index]);
}

// The raw text of a notes-like field with the module's macros expanded.
template <Kind K, auto Field>
void expanded(const View& v, Row r, Cell& out) {
  const std::string_view raw = config_of<K>(v, r).*Field;
  if (raw.find('$') == std::string_view::npos) return out.set_string(raw);
  if constexpr (K == Kind::host) {
    expand_macros(v, raw, r.index, k_none, out);
  } else {
    expand_macros(v, raw, model::index(v.model().services[r.index].host), r.index, out);
  }
}

template <Kind K>
void contacts(const View& v, Row r, Cell& out) {
  const ModelIndex& mi = model_index(v);
  out.start_list();
  for (std::uint32_t rank : (K == Kind::host ? mi.host_contacts : mi.service_contacts).of(r.index))
    out.add(v.model().contacts[mi.contact_order[rank]].name);
}
// Naemon prepends each group of the directive: the last named comes first.
template <Kind K>
void contact_groups(const View& v, Row r, Cell& out) {
  const std::vector<model::ContactgroupId>& groups = config_of<K>(v, r).contact_groups;
  out.start_list();
  for (auto it = groups.rbegin(); it != groups.rend(); ++it)
    out.add(v.model().contactgroups[model::index(*it)].name);
}

template <Kind K, bool Info>
void comments(const View& v, Row r, Cell& out) {
  const ExtrasIndex& ei = extras_index(v);
  out.start_list();
  for (std::uint32_t at : (K == Kind::host ? ei.host_comments : ei.service_comments).of(r.index)) {
    const files::StatusComment& c = ei.comments[at];
    if (!Info) {
      out.add(static_cast<std::int64_t>(c.comment_id));
      continue;
    }
    out.start_tuple();
    out.add(static_cast<std::int64_t>(c.comment_id));
    out.add(c.author);
    out.add(c.comment_data);
    out.add(c.entry_time);
    out.add(c.entry_type);
    out.add(c.expires ? 1 : 0);
    out.add(c.expire_time);
    out.end_tuple();
  }
}
template <Kind K, bool Info>
void downtimes(const View& v, Row r, Cell& out) {
  const ExtrasIndex& ei = extras_index(v);
  out.start_list();
  for (std::uint32_t at : (K == Kind::host ? ei.host_downtimes : ei.service_downtimes).of(r.index)) {
    const files::StatusDowntime& d = ei.downtimes[at];
    if (!Info) {
      out.add(static_cast<std::int64_t>(d.downtime_id));
      continue;
    }
    out.start_tuple();
    out.add(static_cast<std::int64_t>(d.downtime_id));
    out.add(d.author);
    out.add(d.comment);
    out.add(d.entry_time);
    out.add(d.start_time);
    out.add(d.end_time);
    out.add(d.fixed ? 1 : 0);
    out.add(static_cast<std::int64_t>(d.duration));
    out.add(static_cast<std::int64_t>(d.triggered_by));
    out.end_tuple();
  }
}

template <Kind K, CustomPart Part>
void custom(const View& v, Row r, Cell& out) {
  const state::Overrides* ov = overrides_of<K>(v, r);
  custom_variables(
      v, config_of<K>(v, r).custom_variables,
      [ov](std::string_view name) { return ov != nullptr ? ov->custom_variable(name) : nullptr; }, Part, out);
}

// pnpgraph_present: whether PNP4Nagios has an XML file for the object under pnp_path; -1 without pnp_path.
// `service`: nullopt for a host's graph.
[[nodiscard]] int pnp_graph_present(const View& v, std::string_view host,
                                    std::optional<std::string_view> service);

}  // namespace vedette::livestatus::tables
