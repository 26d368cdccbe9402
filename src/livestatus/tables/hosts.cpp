// The hosts and hostsbygroup tables, and the host columns other tables borrow (host_* of services,
// comments and downtimes).
#include "livestatus/tables/checkable_internal.hpp"
#include "livestatus/tables/tables_internal.hpp"

#include <cctype>
#include <optional>

namespace vedette::livestatus::tables {
namespace {

using T = ColumnType;

const model::Host& host_of(const View& v, Row r) {
  return v.model().hosts[r.index];
}

template <auto Field>
void host_double(const View& v, Row r, Cell& out) {
  out.set_float(host_of(v, r).*Field);
}

void total_services(const View& v, Row r, Cell& out) {
  out.set_int(static_cast<std::int64_t>(host_of(v, r).services.size()));
}

// The module's hard_state: UP, the current state once it is hard, else the last hard state.
void hard_state(const View& v, Row r, Cell& out) {
  const files::StatusState& st = state_of<H>(v, r);
  if (st.current_state == 0) return out.set_int(0);
  out.set_int(st.state_type == 1 ? st.current_state : st.last_hard_state);
}

void pnpgraph_present(const View& v, Row r, Cell& out) {
  out.set_int(pnp_graph_present(v, host_of(v, r).name, std::nullopt));
}

// How many check intervals ago the host was last checked.
void staleness(const View& v, Row r, Cell& out) {
  const double interval = check_interval_of<H>(v, r);
  const double age = static_cast<double>(v.now - state_of<H>(v, r).last_check);
  out.set_float(age / ((interval == 0 ? 1 : interval) * settings_of(v).interval_length));
}

void filename(const View& v, Row r, Cell& out) {
  const state::Overrides* ov = overrides_of<H>(v, r);
  for (const model::CustomVariable& var : host_of(v, r).custom_variables) {
    if (var.name != "FILENAME") continue;
    const std::string* changed = ov != nullptr ? ov->custom_variable(var.name) : nullptr;
    return out.set_string(changed != nullptr ? std::string_view(*changed) : var.value);
  }
  out.set_string({});
}

template <bool Children>
void relatives(const View& v, Row r, Cell& out) {
  const ModelIndex& mi = model_index(v);
  out.start_list();
  for (std::uint32_t h : (Children ? mi.host_children : mi.host_parents).of(r.index))
    if (shows_host(v, h)) out.add(v.model().hosts[h].name);
}

template <bool Exec, bool Info>
void depends(const View& v, Row r, Cell& out) {
  const ModelIndex& mi = model_index(v);
  const model::Model& m = v.model();
  out.start_list();
  for (std::uint32_t at : (Exec ? mi.host_exec_deps : mi.host_notify_deps).of(r.index)) {
    const model::HostDependency& d = m.host_dependencies[at];
    const std::uint32_t master = model::index(d.master);
    if (!shows_host(v, master)) continue;
    if (!Info) {
      out.add(m.hosts[master].name);
      continue;
    }
    out.start_tuple();
    out.add(m.hosts[master].name);
    out.add(static_cast<std::int64_t>(static_cast<std::int32_t>(d.failure_options)));
    out.add(period_name(v, d.period));
    out.add(d.inherits_parent ? 1 : 0);
    out.end_tuple();
  }
}

template <ServiceStat Stat>
void services_stat(const View& v, Row r, Cell& out) {
  out.set_int(service_stat(v, model_index(v).host_services.of(r.index), Stat));
}

void groups(const View& v, Row r, Cell& out) {
  const ModelIndex& mi = model_index(v);
  out.start_list();
  for (std::uint32_t g : mi.host_groups.of(r.index)) out.add(v.model().hostgroups[g].name);
}

// 0: descriptions; 1: with state and has_been_checked; 2: and plugin output.
template <int Depth>
void services(const View& v, Row r, Cell& out) {
  const ModelIndex& mi = model_index(v);
  out.start_list();
  for (std::uint32_t s : mi.host_services.of(r.index)) {
    if (s >= v.status->services.size() || !shows_service(v, s)) continue;
    const std::string_view description = v.model().services[s].description;
    if (Depth == 0) {
      out.add(description);
      continue;
    }
    const files::StatusState& st = v.status->services[s];
    out.start_tuple();
    out.add(description);
    out.add(st.current_state);
    out.add(st.has_been_checked ? 1 : 0);
    if (Depth == 2) out.add(v.status->text_at(st.text_offset, st.output_size));
    out.end_tuple();
  }
}

void host_rows(const View& v, std::vector<Row>& out) {
  if (v.status == nullptr || v.status->model == nullptr) return;
  const model::Model& m = v.model();
  for (std::size_t n = 0; n < m.hosts.size(); ++n) {
    const std::uint32_t i = nth(m, m.by_name.hosts, n);
    if (i < v.status->hosts.size()) out.push_back(Row{i, 0});
  }
}

// Host groups in Naemon's order, each group's hosts by name.
void host_by_group_rows(const View& v, std::vector<Row>& out) {
  if (v.status == nullptr || v.status->model == nullptr) return;
  const ModelIndex& mi = model_index(v);
  for (std::uint32_t g : mi.hostgroup_order)
    for (std::uint32_t h : mi.hostgroup_members.of(g))
      if (h < v.status->hosts.size()) out.push_back(Row{h, g});
}

bool host_row_visible(const View& v, Row r, std::uint32_t contact) {
  return host_visible(v, r.index, contact);
}

bool find_host(const View& v, std::string_view key, Row& out) {
  while (!key.empty() && std::isspace(static_cast<unsigned char>(key.front())) != 0) key.remove_prefix(1);
  const auto it = v.model().host_by_name.find(key);
  if (it == v.model().host_by_name.end() || model::index(it->second) >= v.status->hosts.size()) return false;
  out = Row{model::index(it->second), 0};
  return true;
}

Row group_of_row(const View&, Row r) {
  return Row{r.group, 0};
}

}  // namespace

void add_host_columns(ColumnAdder& add) {
  using files::StatusState;
  using model::Checkable;
  using model::Host;
  using state::Flag;
  add("id", T::integer, id<H>, "Host id");
  add("name", T::string, own_string<H, &Host::name>, "Host name");
  add("display_name", T::string, own_string<H, &Host::display_name>, "Optional display name of the host");
  add("alias", T::string, own_string<H, &Host::alias>, "An alias name for the host");
  add("address", T::string, own_string<H, &Host::address>, "IP address");
  add("check_command", T::string, check_command<H>, "Naemon command for active host check of this host");
  add("check_timeout", T::integer, config_int<H, &Checkable::check_timeout>, "Host check timeout");
  add("event_handler", T::string, event_handler<H>, "Naemon command used as event handler");
  add("notification_period", T::string, notification_period<H>,
      "Time period in which problems of this host will be notified. If empty then notification will be "
      "always");
  add("check_period", T::string, check_period<H>,
      "Time period in which this host will be checked. If empty then the host will always be checked.");
  add("notes", T::string, config_string<H, &Checkable::notes>, "Optional notes for this host");
  add("notes_expanded", T::string, expanded<H, &Checkable::notes>,
      "The same as notes, but with the most important macros expanded");
  add("notes_url", T::string, config_string<H, &Checkable::notes_url>,
      "An optional URL with further information about the host");
  add("notes_url_expanded", T::string, expanded<H, &Checkable::notes_url>,
      "Same as notes_url, but with the most important macros expanded");
  add("action_url", T::string, config_string<H, &Checkable::action_url>,
      "An optional URL to custom actions or information about this host");
  add("action_url_expanded", T::string, expanded<H, &Checkable::action_url>,
      "The same as action_url, but with the most important macros expanded");
  add("plugin_output", T::string, plugin_output<H>, "Output of the last host check");
  add("perf_data", T::string, perf_data<H>, "Optional performance data of the last host check");
  add("icon_image", T::string, config_string<H, &Checkable::icon_image>,
      "The name of an image file to be used in the web pages");
  add("icon_image_expanded", T::string, expanded<H, &Checkable::icon_image>,
      "The same as icon_image, but with the most important macros expanded");
  add("icon_image_alt", T::string, config_string<H, &Checkable::icon_image_alt>,
      "Alternative text for the icon_image");
  add("statusmap_image", T::string, own_string<H, &Host::statusmap_image>,
      "The name of in image file for the status map");
  add("long_plugin_output", T::string, long_plugin_output<H>, "Complete output from check plugin");
  add("notified_on", T::integer, notified_on<H>, "Flags determining which states have been notified on");
  add("initial_state", T::integer, config_int<H, &Checkable::initial_state>, "Initial host state");
  add("max_check_attempts", T::integer, max_check_attempts<H>, "Max check attempts for active host checks");
  add("flap_detection_enabled", T::integer, flag<H, Flag::flap_detection>,
      "Whether flap detection is enabled (0/1)");
  add("check_freshness", T::integer, config_int<H, &Checkable::check_freshness>,
      "Whether freshness checks are activated (0/1)");
  add("process_performance_data", T::integer, flag<H, Flag::process_perf_data>,
      "Whether processing of performance data is enabled (0/1)");
  add("accept_passive_checks", T::integer, flag<H, Flag::passive_checks>,
      "Whether passive host checks are accepted (0/1)");
  add("event_handler_enabled", T::integer, flag<H, Flag::event_handler>,
      "Whether event handling is enabled (0/1)");
  add("acknowledgement_type", T::integer, state_int<H, &StatusState::acknowledgement_type>,
      "Type of acknowledgement (0: none, 1: normal, 2: stick)");
  add("check_type", T::integer, state_int<H, &StatusState::check_type>,
      "Type of check (0: active, 1: passive)");
  add("last_state", T::integer, state_int<H, &StatusState::last_state>, "State before last state change");
  add("last_hard_state", T::integer, state_int<H, &StatusState::last_hard_state>, "Last hard state");
  add("current_attempt", T::integer, state_int<H, &StatusState::current_attempt>,
      "Number of the current check attempts");
  add("last_notification", T::time, last_notification<H>, "Time of the last notification (Unix timestamp)");
  add("next_notification", T::time, next_notification<H>, "Time of the next notification (Unix timestamp)");
  add("next_check", T::time, state_int<H, &StatusState::next_check>,
      "Scheduled time for the next check (Unix timestamp)");
  add("last_hard_state_change", T::time, state_int<H, &StatusState::last_hard_state_change>,
      "Time of the last hard state change (Unix timestamp)");
  add("last_update", T::time, last_update<H>,
      "Time of the last update of this host (Unix timestamp Microsecond Precision)");
  add("has_been_checked", T::integer, state_int<H, &StatusState::has_been_checked>,
      "Whether the host has already been checked (0/1)");
  add("hourly_value", T::integer, config_int<H, &Checkable::hourly_value>, "Hourly Value");
  add("current_notification_number", T::integer, current_notification_number<H>,
      "Number of the current notification");
  add("pending_flex_downtime", T::integer, zero, "Whether a flex downtime is pending (0/1)");
  add("total_services", T::integer, total_services, "The total number of services of the host");
  add("checks_enabled", T::integer, flag<H, Flag::active_checks>,
      "Whether checks of the host are enabled (0/1)");
  add("check_source", T::string, check_source<H>, "The source of the check");
  add("notifications_enabled", T::integer, flag<H, Flag::notifications>,
      "Whether notifications of the host are enabled (0/1)");
  add("acknowledged", T::integer, state_int<H, &StatusState::problem_has_been_acknowledged>,
      "Whether the current host problem has been acknowledged (0/1)");
  add("state", T::integer, state_int<H, &StatusState::current_state>,
      "The current state of the host (0: up, 1: down, 2: unreachable)");
  add("state_type", T::integer, state_int<H, &StatusState::state_type>,
      "Type of the current state (0: soft, 1: hard)");
  add("no_more_notifications", T::integer, no_more_notifications<H>,
      "Whether to stop sending notifications (0/1)");
  add("check_flapping_recovery_notification", T::integer, check_flapping_recovery_notification<H>,
      "Whether to check to send a recovery notification when flapping stops (0/1)");
  add("last_check", T::time, state_int<H, &StatusState::last_check>,
      "Time of the last check (Unix timestamp)");
  add("last_state_change", T::time, state_int<H, &StatusState::last_state_change>,
      "Time of the last state change - soft or hard (Unix timestamp)");
  add("should_be_scheduled", T::integer, should_be_scheduled<H>,
      "Whether naemon still tries to run checks on this host (0/1)");
  add("last_time_up", T::time, last_time<H, 0>, "The last time the host was UP (Unix timestamp)");
  add("last_time_down", T::time, last_time<H, 1>, "The last time the host was DOWN (Unix timestamp)");
  add("last_time_unreachable", T::time, last_time<H, 2>,
      "The last time the host was UNREACHABLE (Unix timestamp)");
  add("is_flapping", T::integer, is_flapping<H>, "Whether the host state is flapping (0/1)");
  add("scheduled_downtime_depth", T::integer, scheduled_downtime_depth<H>,
      "The number of downtimes this host is currently in");
  add("is_executing", T::integer, state_int<H, &StatusState::is_executing>,
      "is there a host check currently running... (0/1)");
  add("active_checks_enabled", T::integer, flag<H, Flag::active_checks>,
      "Whether active checks are enabled for the host (0/1)");
  add("check_options", T::integer, state_int<H, &StatusState::check_options>,
      "The current check option, forced, normal, freshness... (0-2)");
  add("obsess_over_host", T::integer, flag<H, Flag::obsess>, "The current obsess setting... (0/1)");
  add("obsess", T::integer, flag<H, Flag::obsess>, "The current obsess setting... (0/1)");
  add("modified_attributes", T::integer, modified_attributes<H>,
      "A bitmask specifying which attributes have been modified");
  add.match(Match::attributes);
  add("modified_attributes_list", T::list, modified_attributes_names<H>, "A list of all modified attributes");
  add.match(Match::attributes);
  add("check_interval", T::floating, check_interval<H>,
      "Number of basic interval lengths between two scheduled checks of the host");
  add("retry_interval", T::floating, retry_interval<H>,
      "Number of basic interval lengths between checks when retrying after a soft error");
  add("notification_interval", T::floating, config_double<H, &Checkable::notification_interval>,
      "Interval of periodic notification or 0 if its off");
  add("first_notification_delay", T::floating, config_double<H, &Checkable::first_notification_delay>,
      "Delay before the first notification");
  add("low_flap_threshold", T::floating, config_double<H, &Checkable::low_flap_threshold>,
      "Low threshold of flap detection");
  add("high_flap_threshold", T::floating, config_double<H, &Checkable::high_flap_threshold>,
      "High threshold of flap detection");
  add("x_3d", T::floating, host_double<&Host::x_3d>, "3D-Coordinates: X");
  add("y_3d", T::floating, host_double<&Host::y_3d>, "3D-Coordinates: Y");
  add("z_3d", T::floating, host_double<&Host::z_3d>, "3D-Coordinates: Z");
  add("latency", T::floating, state_double<H, &StatusState::latency>,
      "Time difference between scheduled check time and actual check time");
  add("execution_time", T::floating, state_double<H, &StatusState::execution_time>,
      "Time the host check needed for execution");
  add("percent_state_change", T::floating, percent_state_change<H>, "Percent state change");
  add("in_notification_period", T::integer, in_notification_period<H>,
      "Whether this host is currently in its notification period (0/1)");
  add("in_check_period", T::integer, in_check_period<H>,
      "Whether this host is currently in its check period (0/1)");
  add("contacts", T::list, contacts<H>,
      "A list of all contacts of this host, either direct or via a contact group");
  add("downtimes", T::list, downtimes<H, false>, "A list of the ids of all scheduled downtimes of this host");
  add("downtimes_with_info", T::list, downtimes<H, true>,
      "A list of all downtimes of the host with id, author, comment, start_time, end_time, fixed, duration "
      "and "
      "triggered_by");
  add("comments", T::list, comments<H, false>, "A list of the ids of all comments of this host");
  add("comments_with_info", T::list, comments<H, true>,
      "A list of all comments of the host with id, author, comment, entry_type, expires and expire_time");
  add("custom_variable_names", T::list, custom<H, CustomPart::names>,
      "A list of the names of all custom variables");
  add("custom_variable_values", T::list, custom<H, CustomPart::values>,
      "A list of the values of the custom variables");
  add("custom_variables", T::dict, custom<H, CustomPart::dict>, "A dictionary of the custom variables");
  add("filename", T::string, filename, "The value of the custom variable FILENAME");
  add("parents", T::list, relatives<false>, "A list of all direct parents of the host");
  add("childs", T::list, relatives<true>, "A list of all direct children of the host");
  add("depends_exec", T::list, depends<true, false>, "A list of all hosts this hosts depends on to execute");
  add("depends_exec_with_info", T::list, depends<true, true>,
      "A list of all hosts this hosts depends on to execute including information: host_name, "
      "failure_options, "
      "dependency_period and inherits_parent");
  add("depends_notify", T::list, depends<false, false>,
      "A list of all hosts this hosts depends on to notify");
  add("depends_notify_with_info", T::list, depends<false, true>,
      "A list of all hosts this hosts depends on to notify including information: host_name, "
      "failure_options, "
      "dependency_period and inherits_parent");
  add("num_services", T::integer, services_stat<ServiceStat::num>,
      "The total number of services of the host");
  add("worst_service_state", T::integer, services_stat<ServiceStat::worst>,
      "The worst soft state of all of the host's services (OK <= WARN <= UNKNOWN <= CRIT)");
  add("num_services_ok", T::integer, services_stat<ServiceStat::ok>,
      "The number of the host's services with the soft state OK");
  add("num_services_warn", T::integer, services_stat<ServiceStat::warn>,
      "The number of the host's services with the soft state WARN");
  add("num_services_crit", T::integer, services_stat<ServiceStat::crit>,
      "The number of the host's services with the soft state CRIT");
  add("num_services_unknown", T::integer, services_stat<ServiceStat::unknown>,
      "The number of the host's services with the soft state UNKNOWN");
  add("num_services_pending", T::integer, services_stat<ServiceStat::pending>,
      "The number of the host's services which have not been checked yet (pending)");
  add("worst_service_hard_state", T::integer, services_stat<ServiceStat::worst_hard>,
      "The worst hard state of all of the host's services (OK <= WARN <= UNKNOWN <= CRIT)");
  add("num_services_hard_ok", T::integer, services_stat<ServiceStat::hard_ok>,
      "The number of the host's services with the hard state OK");
  add("num_services_hard_warn", T::integer, services_stat<ServiceStat::hard_warn>,
      "The number of the host's services with the hard state WARN");
  add("num_services_hard_crit", T::integer, services_stat<ServiceStat::hard_crit>,
      "The number of the host's services with the hard state CRIT");
  add("num_services_hard_unknown", T::integer, services_stat<ServiceStat::hard_unknown>,
      "The number of the host's services with the hard state UNKNOWN");
  add("hard_state", T::integer, hard_state,
      "The effective hard state of the host (eliminates a problem in hard_state)");
  add("pnpgraph_present", T::integer, pnpgraph_present,
      "Whether there is a PNP4Nagios graph present for this host (0/1)");
  add("staleness", T::floating, staleness, "Staleness indicator for this host");
  add("groups", T::list, groups, "A list of all host groups this host is in");
  add("contact_groups", T::list, contact_groups<H>, "A list of all contact groups this host is in");
  add("services", T::list, services<0>, "A list of all services of the host");
  add("services_with_state", T::list, services<1>,
      "A list of all services of the host together with state and has_been_checked");
  add("services_with_info", T::list, services<2>,
      "A list of all services including detailed information about each service");
}

const Table& hosts_table() {
  static const Table table = [] {
    Table t;
    t.name = "hosts";
    t.prefix = "host_";
    t.natural_sort = {"name"};
    ColumnAdder add(t.columns);
    add_host_columns(add);
    sort_columns(t.columns);
    t.rows = host_rows;
    t.visible = host_row_visible;
    t.find_row = find_host;
    return t;
  }();
  return table;
}

// The module's findObject for hostsbygroup hands out a host where the table's rows are (group, host)
// pairs, so it has no usable wait objects; neither has this one.
const Table& hostsbygroup_table() {
  static const Table table = [] {
    Table t;
    t.name = "hostsbygroup";
    t.prefix = "host_";
    t.natural_sort = {"hostgroup_name"};
    ColumnAdder add(t.columns);
    add_host_columns(add);
    ColumnAdder group(t.columns, "hostgroup_", group_of_row);
    add_hostgroup_columns(group);
    sort_columns(t.columns);
    t.rows = host_by_group_rows;
    t.visible = host_row_visible;
    return t;
  }();
  return table;
}

}  // namespace vedette::livestatus::tables
