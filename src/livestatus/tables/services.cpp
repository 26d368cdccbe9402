// The services, servicesbygroup and servicesbyhostgroup tables, and the service columns the comments and
// downtimes tables borrow (service_*).
#include "livestatus/tables/checkable_internal.hpp"
#include "livestatus/tables/tables_internal.hpp"

#include <cctype>

namespace vedette::livestatus::tables {
namespace {

using T = ColumnType;

const model::Service& service_of(const View& v, Row r) {
  return v.model().services[r.index];
}

// The name of the check command in effect ("check_ping" of "check_ping!100!20%").
std::string_view command_name_of(const View& v, Row r) {
  const state::Overrides* ov = overrides_of<S>(v, r);
  if (ov != nullptr && ov->check_command) {
    const std::string_view raw = *ov->check_command;
    return raw.substr(0, raw.find('!'));
  }
  const model::CommandCall& call = service_of(v, r).check_command;
  return call.is_set() ? v.model().commands[model::index(call.command)].name : std::string_view{};
}

void pnpgraph_present(const View& v, Row r, Cell& out) {
  const model::Service& s = service_of(v, r);
  out.set_int(pnp_graph_present(v, s.host_name, s.description));
}

// How many check intervals ago the service was last checked. A passive Check_MK service ("check_mk-*")
// is measured against the interval of its host's "check-mk" service, as the module does.
void staleness(const View& v, Row r, Cell& out) {
  const double age = static_cast<double>(v.now - state_of<S>(v, r).last_check);
  const int interval_length = settings_of(v).interval_length;
  const auto stale = [&](Row of) {
    const double interval = check_interval_of<S>(v, of);
    return age / ((interval == 0 ? 1 : interval) * interval_length);
  };
  if (!command_name_of(v, r).starts_with("check_mk-")) return out.set_float(stale(r));
  const std::uint32_t host = model::index(service_of(v, r).host);
  for (std::uint32_t s : model_index(v).host_services.of(host)) {
    if (s < v.status->services.size() && command_name_of(v, Row{s, 0}) == "check-mk")
      return out.set_float(stale(Row{s, 0}));
  }
  out.set_float(1);
}

template <bool Exec, bool Info>
void depends(const View& v, Row r, Cell& out) {
  const ModelIndex& mi = model_index(v);
  const model::Model& m = v.model();
  out.start_list();
  for (std::uint32_t at : (Exec ? mi.service_exec_deps : mi.service_notify_deps).of(r.index)) {
    const model::ServiceDependency& d = m.service_dependencies[at];
    const std::uint32_t master = model::index(d.master);
    if (!shows_service(v, master)) continue;
    out.start_tuple();
    out.add(m.services[master].host_name);
    out.add(m.services[master].description);
    if (Info) {
      out.add(static_cast<std::int64_t>(static_cast<std::int32_t>(d.failure_options)));
      out.add(period_name(v, d.period));
      out.add(d.inherits_parent ? 1 : 0);
    }
    out.end_tuple();
  }
}

void parents(const View& v, Row r, Cell& out) {
  out.start_list();
  for (model::ServiceId id : service_of(v, r).parents) {
    const std::uint32_t p = model::index(id);
    if (!shows_service(v, p)) continue;
    out.start_tuple();
    out.add(v.model().services[p].host_name);
    out.add(v.model().services[p].description);
    out.end_tuple();
  }
}

void groups(const View& v, Row r, Cell& out) {
  const ModelIndex& mi = model_index(v);
  out.start_list();
  for (std::uint32_t g : mi.service_groups.of(r.index)) out.add(v.model().servicegroups[g].name);
}

void service_rows(const View& v, std::vector<Row>& out) {
  if (v.status == nullptr || v.status->model == nullptr) return;
  const model::Model& m = v.model();
  out.reserve(out.size() + m.services.size());
  for (std::size_t n = 0; n < m.services.size(); ++n) {
    const std::uint32_t i = nth(m, m.by_name.services, n);
    if (i < v.status->services.size()) out.push_back(Row{i, 0});
  }
}

// The module's index for services: the first `host_name =` filter walks that host's services; else the
// first `groups >=` of a group that exists walks its members; else the first `host_groups >=` of a group
// that exists walks its hosts by name and each one's services.
bool service_indexed_rows(const View& v, const RowHints& hints, std::vector<Row>& out) {
  if (v.status == nullptr || v.status->model == nullptr || hints.index_keys.empty()) return false;
  const model::Model& m = v.model();
  const ModelIndex& mi = model_index(v);
  const std::size_t known = v.status->services.size();
  auto add_host = [&](std::uint32_t h) {
    for (std::uint32_t s : mi.host_services.of(h))
      if (s < known) out.push_back(Row{s, 0});
  };
  for (const RowHints::IndexKey& key : hints.index_keys) {
    if (key.contains || key.column->name != "host_name") continue;
    const auto host = m.host_by_name.find(key.value);
    if (host != m.host_by_name.end() && model::index(host->second) < v.status->hosts.size())
      add_host(model::index(host->second));
    return true;
  }
  for (const RowHints::IndexKey& key : hints.index_keys) {
    if (!key.contains || key.column->name != "groups") continue;
    const auto group = m.servicegroup_by_name.find(key.value);
    if (group == m.servicegroup_by_name.end()) continue;
    for (model::ServiceId s : m.servicegroups[model::index(group->second)].listed_members)
      if (model::index(s) < known) out.push_back(Row{model::index(s), 0});
    return true;
  }
  for (const RowHints::IndexKey& key : hints.index_keys) {
    if (!key.contains || key.column->name != "host_groups") continue;
    const auto group = m.hostgroup_by_name.find(key.value);
    if (group == m.hostgroup_by_name.end()) continue;
    for (std::uint32_t h : mi.hostgroup_members.of(model::index(group->second))) add_host(h);
    return true;
  }
  return false;
}

// Service groups in Naemon's order, each with its members as Naemon lists them.
void service_by_group_rows(const View& v, std::vector<Row>& out) {
  if (v.status == nullptr || v.status->model == nullptr) return;
  const ModelIndex& mi = model_index(v);
  for (std::uint32_t g : mi.servicegroup_order)
    for (model::ServiceId s : v.model().servicegroups[g].listed_members)
      if (model::index(s) < v.status->services.size()) out.push_back(Row{model::index(s), g});
}

// Host groups in Naemon's order, their hosts by name, each host's services as Naemon lists them.
void service_by_hostgroup_rows(const View& v, std::vector<Row>& out) {
  if (v.status == nullptr || v.status->model == nullptr) return;
  const ModelIndex& mi = model_index(v);
  for (std::uint32_t g : mi.hostgroup_order)
    for (std::uint32_t h : mi.hostgroup_members.of(g))
      for (std::uint32_t s : mi.host_services.of(h))
        if (s < v.status->services.size()) out.push_back(Row{s, g});
}

bool service_row_visible(const View& v, Row r, std::uint32_t contact) {
  return service_visible(v, r.index, contact);
}

bool is_space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}
std::string_view lstrip(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return s;
}
std::string_view rstrip(std::string_view s) {
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// The module's keys: "host;description" (each with trailing blanks removed), or the first blank-separated
// word as the host and the rest after the one blank that ends it as the description.
bool find_service(const View& v, std::string_view key, Row& out) {
  key = lstrip(key);
  std::string_view host;
  std::string_view description;
  if (const std::size_t semicolon = key.find(';'); semicolon != std::string_view::npos) {
    host = rstrip(key.substr(0, semicolon));
    description = rstrip(key.substr(semicolon + 1));
  } else {
    std::size_t end = 0;
    while (end < key.size() && !is_space(key[end])) ++end;
    host = key.substr(0, end);
    description = end < key.size() ? key.substr(end + 1) : std::string_view{};
  }
  if (host.empty()) return false;
  const model::ServiceId id = v.model().find_service(host, description);
  if (!model::is_set(id) || model::index(id) >= v.status->services.size()) return false;
  out = Row{model::index(id), 0};
  return true;
}

Row group_of_row(const View&, Row r) {
  return Row{r.group, 0};
}

}  // namespace

void add_service_columns(ColumnAdder& add) {
  using files::StatusState;
  using model::Checkable;
  using model::Service;
  using state::Flag;
  add("id", T::integer, id<S>, "Service id");
  add("description", T::string, own_string<S, &Service::description>,
      "Description of the service (also used as key)");
  add("display_name", T::string, own_string<S, &Service::display_name>, "An optional display name");
  add("check_command", T::string, check_command<S>, "Naemon command used for active checks");
  add("check_timeout", T::integer, config_int<S, &Checkable::check_timeout>, "Service check timeout");
  add("event_handler", T::string, event_handler<S>, "Naemon command used as event handler");
  add("plugin_output", T::string, plugin_output<S>, "Output of the last check plugin");
  add("long_plugin_output", T::string, long_plugin_output<S>,
      "Unabbreviated output of the last check plugin");
  add("perf_data", T::string, perf_data<S>, "Performance data of the last check plugin");
  add("notification_period", T::string, notification_period<S>,
      "The name of the notification period of the service. It this is empty, service problems are always "
      "notified.");
  add("check_period", T::string, check_period<S>,
      "The name of the check period of the service. It this is empty, the service is always checked.");
  add("notes", T::string, config_string<S, &Checkable::notes>, "Optional notes about the service");
  add("notes_expanded", T::string, expanded<S, &Checkable::notes>,
      "The notes with (the most important) macros expanded");
  add("notes_url", T::string, config_string<S, &Checkable::notes_url>,
      "An optional URL for additional notes about the service");
  add("notes_url_expanded", T::string, expanded<S, &Checkable::notes_url>,
      "The notes_url with (the most important) macros expanded");
  add("action_url", T::string, config_string<S, &Checkable::action_url>,
      "An optional URL for actions or custom information about the service");
  add("action_url_expanded", T::string, expanded<S, &Checkable::action_url>,
      "The action_url with (the most important) macros expanded");
  add("icon_image", T::string, config_string<S, &Checkable::icon_image>,
      "The name of an image to be used as icon in the web interface");
  add("icon_image_expanded", T::string, expanded<S, &Checkable::icon_image>,
      "The icon_image with (the most important) macros expanded");
  add("icon_image_alt", T::string, config_string<S, &Checkable::icon_image_alt>,
      "An alternative text for the icon_image for browsers not displaying icons");
  add("notified_on", T::integer, notified_on<S>, "Flags determining which states have been notified on");
  add("initial_state", T::integer, config_int<S, &Checkable::initial_state>,
      "The initial state of the service");
  add("max_check_attempts", T::integer, max_check_attempts<S>, "The maximum number of check attempts");
  add("current_attempt", T::integer, state_int<S, &StatusState::current_attempt>,
      "The number of the current check attempt");
  add("state", T::integer, state_int<S, &StatusState::current_state>,
      "The current state of the service (0: OK, 1: WARN, 2: CRITICAL, 3: UNKNOWN)");
  add("has_been_checked", T::integer, state_int<S, &StatusState::has_been_checked>,
      "Whether the service already has been checked (0/1)");
  add("last_state", T::integer, state_int<S, &StatusState::last_state>, "The last state of the service");
  add("last_hard_state", T::integer, state_int<S, &StatusState::last_hard_state>,
      "The last hard state of the service");
  add("state_type", T::integer, state_int<S, &StatusState::state_type>,
      "The type of the current state (0: soft, 1: hard)");
  add("check_type", T::integer, state_int<S, &StatusState::check_type>,
      "The type of the last check (0: active, 1: passive)");
  add("acknowledged", T::integer, state_int<S, &StatusState::problem_has_been_acknowledged>,
      "Whether the current service problem has been acknowledged (0/1)");
  add("acknowledgement_type", T::integer, state_int<S, &StatusState::acknowledgement_type>,
      "The type of the acknowledgement (0: none, 1: normal, 2: sticky)");
  add("no_more_notifications", T::integer, no_more_notifications<S>,
      "Whether to stop sending notifications (0/1)");
  add("last_state_change", T::time, state_int<S, &StatusState::last_state_change>,
      "The time of the last state change (Unix timestamp)");
  add("last_time_ok", T::time, last_time<S, 0>, "The last time the service was OK (Unix timestamp)");
  add("last_time_warning", T::time, last_time<S, 1>,
      "The last time the service was in WARNING state (Unix timestamp)");
  add("last_time_critical", T::time, last_time<S, 3>,
      "The last time the service was CRITICAL (Unix timestamp)");
  add("last_time_unknown", T::time, last_time<S, 2>,
      "The last time the service was UNKNOWN (Unix timestamp)");
  add("hourly_value", T::integer, config_int<S, &Checkable::hourly_value>, "Hourly Value");
  add("should_be_scheduled", T::integer, should_be_scheduled<S>,
      "Whether naemon still tries to run checks on this service (0/1)");
  add("last_check", T::time, state_int<S, &StatusState::last_check>,
      "The time of the last check (Unix timestamp)");
  add("next_check", T::time, state_int<S, &StatusState::next_check>,
      "The scheduled time of the next check (Unix timestamp)");
  add("last_notification", T::time, last_notification<S>,
      "The time of the last notification (Unix timestamp)");
  add("next_notification", T::time, next_notification<S>,
      "The time of the next notification (Unix timestamp)");
  add("current_notification_number", T::integer, current_notification_number<S>,
      "The number of the current notification");
  add("last_hard_state_change", T::time, state_int<S, &StatusState::last_hard_state_change>,
      "The time of the last hard state change (Unix timestamp)");
  add("last_update", T::time, last_update<S>,
      "Time of the last update of this service (Unix timestamp Microsecond Precision)");
  add("scheduled_downtime_depth", T::integer, scheduled_downtime_depth<S>,
      "The number of scheduled downtimes the service is currently in");
  add("is_flapping", T::integer, is_flapping<S>, "Whether the service is flapping (0/1)");
  add("checks_enabled", T::integer, flag<S, Flag::active_checks>,
      "Whether active checks are enabled for the service (0/1)");
  add("check_source", T::string, check_source<S>, "The source of the check");
  add("accept_passive_checks", T::integer, flag<S, Flag::passive_checks>,
      "Whether the service accepts passive checks (0/1)");
  add("event_handler_enabled", T::integer, flag<S, Flag::event_handler>,
      "Whether and event handler is activated for the service (0/1)");
  add("notifications_enabled", T::integer, flag<S, Flag::notifications>,
      "Whether notifications are enabled for the service (0/1)");
  add("process_performance_data", T::integer, flag<S, Flag::process_perf_data>,
      "Whether processing of performance data is enabled for the service (0/1)");
  add("is_executing", T::integer, state_int<S, &StatusState::is_executing>,
      "is there a service check currently running... (0/1)");
  add("active_checks_enabled", T::integer, flag<S, Flag::active_checks>,
      "Whether active checks are enabled for the service (0/1)");
  add("check_options", T::integer, state_int<S, &StatusState::check_options>,
      "The current check option, forced, normal, freshness... (0/1)");
  add("flap_detection_enabled", T::integer, flag<S, Flag::flap_detection>,
      "Whether flap detection is enabled for the service (0/1)");
  add("check_freshness", T::integer, config_int<S, &Checkable::check_freshness>,
      "Whether freshness checks are activated (0/1)");
  add("obsess_over_service", T::integer, flag<S, Flag::obsess>,
      "Whether 'obsess' is enabled for the service (0/1)");
  add("obsess", T::integer, flag<S, Flag::obsess>, "Whether 'obsess' is enabled for the service (0/1)");
  add("modified_attributes", T::integer, modified_attributes<S>,
      "A bitmask specifying which attributes have been modified");
  add.match(Match::attributes);
  add("modified_attributes_list", T::list, modified_attributes_names<S>, "A list of all modified attributes");
  add.match(Match::attributes);
  add("pnpgraph_present", T::integer, pnpgraph_present,
      "Whether there is a PNP4Nagios graph present for this service (0/1)");
  add("staleness", T::floating, staleness, "The staleness indicator for this service");
  add("check_interval", T::floating, check_interval<S>,
      "Number of basic interval lengths between two scheduled checks of the service");
  add("retry_interval", T::floating, retry_interval<S>,
      "Number of basic interval lengths between checks when retrying after a soft error");
  add("notification_interval", T::floating, config_double<S, &Checkable::notification_interval>,
      "Interval of periodic notification or 0 if its off");
  add("first_notification_delay", T::floating, config_double<S, &Checkable::first_notification_delay>,
      "Delay before the first notification");
  add("low_flap_threshold", T::floating, config_double<S, &Checkable::low_flap_threshold>,
      "Low threshold of flap detection");
  add("high_flap_threshold", T::floating, config_double<S, &Checkable::high_flap_threshold>,
      "High threshold of flap detection");
  add("latency", T::floating, state_double<S, &StatusState::latency>,
      "Time difference between scheduled check time and actual check time");
  add("execution_time", T::floating, state_double<S, &StatusState::execution_time>,
      "Time the service check needed for execution");
  add("percent_state_change", T::floating, percent_state_change<S>, "Percent state change");
  add("in_check_period", T::integer, in_check_period<S>,
      "Whether the service is currently in its check period (0/1)");
  add("in_notification_period", T::integer, in_notification_period<S>,
      "Whether the service is currently in its notification period (0/1)");
  add("depends_exec", T::list, depends<true, false>,
      "A list of all services this service depends on to execute");
  add("depends_exec_with_info", T::list, depends<true, true>,
      "A list of all services this service depends on to execute including information: host_name, "
      "service_description, failure_options, dependency_period and inherits_parent");
  add("depends_notify", T::list, depends<false, false>,
      "A list of all services this service depends on to notify");
  add("depends_notify_with_info", T::list, depends<false, true>,
      "A list of all services this service depends on to notify including information: host_name, "
      "service_description, failure_options, dependency_period and inherits_parent");
  add("parents", T::list, parents, "A list of all parent services");
  add.match(Match::host_service);
  add("contacts", T::list, contacts<S>,
      "A list of all contacts of the service, either direct or via a contact group");
  add("downtimes", T::list, downtimes<S, false>, "A list of all downtime ids of the service");
  add("downtimes_with_info", T::list, downtimes<S, true>,
      "A list of all downtimes of the service with id, author, comment, start_time, end_time, fixed, "
      "duration "
      "and triggered_by");
  add("comments", T::list, comments<S, false>, "A list of all comment ids of the service");
  add("comments_with_info", T::list, comments<S, true>,
      "A list of all comments of the service with id, author, comment, entry_type, expires and expire_time");
  add("custom_variable_names", T::list, custom<S, CustomPart::names>,
      "A list of the names of all custom variables of the service");
  add("custom_variable_values", T::list, custom<S, CustomPart::values>,
      "A list of the values of all custom variable of the service");
  add("custom_variables", T::dict, custom<S, CustomPart::dict>, "A dictionary of the custom variables");
  add("groups", T::list, groups, "A list of all service groups the service is in");
  add("contact_groups", T::list, contact_groups<S>, "A list of all contact groups this service is in");
}

const Table& services_table() {
  static const Table table = [] {
    Table t;
    t.name = "services";
    t.prefix = "service_";
    t.natural_sort = {"host_name", "description"};
    ColumnAdder add(t.columns);
    add_service_columns(add);
    ColumnAdder host(t.columns, "host_", host_of_service);
    add_host_columns(host);
    sort_columns(t.columns);
    t.rows = service_rows;
    t.indexed_rows = service_indexed_rows;
    t.visible = service_row_visible;
    t.find_row = find_service;
    return t;
  }();
  return table;
}

// As for hostsbygroup, the module's wait objects do not fit these tables' rows: none here.
const Table& servicesbygroup_table() {
  static const Table table = [] {
    Table t;
    t.name = "servicesbygroup";
    t.prefix = "service_";
    t.natural_sort = {"servicegroup_name"};
    ColumnAdder add(t.columns);
    add_service_columns(add);
    ColumnAdder host(t.columns, "host_", host_of_service);
    add_host_columns(host);
    ColumnAdder group(t.columns, "servicegroup_", group_of_row);
    add_servicegroup_columns(group);
    sort_columns(t.columns);
    t.rows = service_by_group_rows;
    t.visible = service_row_visible;
    return t;
  }();
  return table;
}

const Table& servicesbyhostgroup_table() {
  static const Table table = [] {
    Table t;
    t.name = "servicesbyhostgroup";
    t.prefix = "service_";
    t.natural_sort = {"hostgroup_name"};
    ColumnAdder add(t.columns);
    add_service_columns(add);
    ColumnAdder host(t.columns, "host_", host_of_service);
    add_host_columns(host);
    ColumnAdder group(t.columns, "hostgroup_", group_of_row);
    add_hostgroup_columns(group);
    sort_columns(t.columns);
    t.rows = service_by_hostgroup_rows;
    t.visible = service_row_visible;
    return t;
  }();
  return table;
}

}  // namespace vedette::livestatus::tables
