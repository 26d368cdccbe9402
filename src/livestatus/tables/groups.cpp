// The hostgroups, servicegroups and contactgroups tables, and the group columns of hostsbygroup,
// servicesbygroup and servicesbyhostgroup.
#include "livestatus/tables/tables_internal.hpp"

#include <cctype>

namespace vedette::livestatus::tables {
namespace {

using T = ColumnType;

const model::Hostgroup& hostgroup_of(const View& v, Row r) {
  return v.model().hostgroups[r.index];
}
const model::Servicegroup& servicegroup_of(const View& v, Row r) {
  return v.model().servicegroups[r.index];
}
const model::Contactgroup& contactgroup_of(const View& v, Row r) {
  return v.model().contactgroups[r.index];
}

template <auto Field>
void hostgroup_string(const View& v, Row r, Cell& out) {
  out.set_string(hostgroup_of(v, r).*Field);
}
template <auto Field>
void servicegroup_string(const View& v, Row r, Cell& out) {
  out.set_string(servicegroup_of(v, r).*Field);
}
template <auto Field>
void contactgroup_string(const View& v, Row r, Cell& out) {
  out.set_string(contactgroup_of(v, r).*Field);
}

void hostgroup_id(const View& v, Row r, Cell& out) {
  out.set_int(model_index(v).hostgroup_rank[r.index]);
}
// The module reads this one from the wrong field (the name's address); Naemon's id is what it means.
void servicegroup_id(const View& v, Row r, Cell& out) {
  out.set_int(model_index(v).servicegroup_rank[r.index]);
}
void contactgroup_id(const View& v, Row r, Cell& out) {
  out.set_int(model_index(v).contactgroup_rank[r.index]);
}

template <bool WithState>
void hostgroup_members(const View& v, Row r, Cell& out) {
  out.start_list();
  for (std::uint32_t h : model_index(v).hostgroup_members.of(r.index)) {
    if (h >= v.status->hosts.size() || !shows_host(v, h)) continue;
    if (!WithState) {
      out.add(v.model().hosts[h].name);
      continue;
    }
    const files::StatusState& st = v.status->hosts[h];
    out.start_tuple();
    out.add(v.model().hosts[h].name);
    out.add(st.current_state);
    out.add(st.has_been_checked ? 1 : 0);
    out.end_tuple();
  }
}

enum class HostStat : std::uint8_t { num, pending, up, down, unreachable, worst };

template <HostStat Stat>
void hostgroup_host_stat(const View& v, Row r, Cell& out) {
  std::int64_t result = 0;
  for (std::uint32_t h : model_index(v).hostgroup_members.of(r.index)) {
    if (h >= v.status->hosts.size() || !shows_host(v, h)) continue;
    const files::StatusState& st = v.status->hosts[h];
    switch (Stat) {
      case HostStat::num:
        ++result;
        break;
      case HostStat::pending:
        if (!st.has_been_checked) ++result;
        break;
      case HostStat::up:
      case HostStat::down:
      case HostStat::unreachable:
        if (st.has_been_checked &&
            st.current_state == static_cast<int>(Stat) - static_cast<int>(HostStat::up))
          ++result;
        break;
      case HostStat::worst:
        if (host_state_worse(st.current_state, result)) result = st.current_state;
        break;
    }
  }
  out.set_int(result);
}

// Over the services of the group's hosts. The module's hard counters of host groups always read 0 (a case
// its code does not handle); these count what they say.
template <ServiceStat Stat>
void hostgroup_service_stat(const View& v, Row r, Cell& out) {
  const ModelIndex& mi = model_index(v);
  const bool worst = Stat == ServiceStat::worst || Stat == ServiceStat::worst_hard;
  std::int64_t result = 0;
  for (std::uint32_t h : mi.hostgroup_members.of(r.index)) {
    if (h >= v.status->hosts.size() || !shows_host(v, h)) continue;
    const std::int64_t value = service_stat(v, mi.host_services.of(h), Stat);
    if (!worst) {
      result += value;
    } else if (service_state_worse(value, result)) {
      result = value;
    }
  }
  out.set_int(result);
}

template <bool WithState>
void servicegroup_members(const View& v, Row r, Cell& out) {
  out.start_list();
  for (model::ServiceId id : servicegroup_of(v, r).listed_members) {
    const std::uint32_t s = model::index(id);
    if (s >= v.status->services.size() || !shows_service(v, s)) continue;
    const model::Service& service = v.model().services[s];
    out.start_tuple();
    out.add(service.host_name);
    out.add(service.description);
    if (WithState) {
      out.add(v.status->services[s].current_state);
      out.add(v.status->services[s].has_been_checked ? 1 : 0);
    }
    out.end_tuple();
  }
}

template <ServiceStat Stat>
void servicegroup_stat(const View& v, Row r, Cell& out) {
  out.set_int(service_stat(v, servicegroup_of(v, r).listed_members, Stat));
}

void contactgroup_members(const View& v, Row r, Cell& out) {
  out.start_list();
  for (std::uint32_t c : model_index(v).contactgroup_members.of(r.index)) out.add(v.model().contacts[c].name);
}

void hostgroup_rows(const View& v, std::vector<Row>& out) {
  if (v.status == nullptr || v.status->model == nullptr) return;
  const model::Model& m = v.model();
  for (std::size_t n = 0; n < m.hostgroups.size(); ++n)
    out.push_back(Row{nth(m, m.by_name.hostgroups, n), 0});
}
void servicegroup_rows(const View& v, std::vector<Row>& out) {
  if (v.status == nullptr || v.status->model == nullptr) return;
  const model::Model& m = v.model();
  for (std::size_t n = 0; n < m.servicegroups.size(); ++n)
    out.push_back(Row{nth(m, m.by_name.servicegroups, n), 0});
}
void contactgroup_rows(const View& v, std::vector<Row>& out) {
  if (v.status == nullptr || v.status->model == nullptr) return;
  const model::Model& m = v.model();
  for (std::size_t n = 0; n < m.contactgroups.size(); ++n)
    out.push_back(Row{nth(m, m.by_name.contactgroups, n), 0});
}

// group_authorization: loose, the contact sees a group when it sees one member; strict, when it sees them
// all. Nobody sees an empty group.
template <typename Ids, typename Sees>
bool group_visible(const View& v, const Ids& members, std::uint32_t contact, Sees&& sees) {
  if (contact == k_no_auth_user) return true;
  if (contact >= v.model().contacts.size() || members.empty()) return false;
  const bool loose = settings_of(v).group_authorization == Authorization::loose;
  for (const auto id : members) {
    if (sees(to_index(id), contact) == loose) return loose;
  }
  return !loose;
}

bool hostgroup_visible(const View& v, Row r, std::uint32_t contact) {
  return group_visible(v, hostgroup_of(v, r).members, contact,
                       [&](std::uint32_t h, std::uint32_t c) { return host_visible(v, h, c); });
}
bool servicegroup_visible(const View& v, Row r, std::uint32_t contact) {
  return group_visible(v, servicegroup_of(v, r).listed_members, contact,
                       [&](std::uint32_t s, std::uint32_t c) { return service_visible(v, s, c); });
}

std::string_view key_of(std::string_view key) {
  while (!key.empty() && std::isspace(static_cast<unsigned char>(key.front())) != 0) key.remove_prefix(1);
  return key;
}

template <typename Map>
bool find_in(const Map& by_name, std::string_view key, Row& out) {
  const auto it = by_name.find(key_of(key));
  if (it == by_name.end()) return false;
  out = Row{model::index(it->second), 0};
  return true;
}

bool find_hostgroup(const View& v, std::string_view key, Row& out) {
  return find_in(v.model().hostgroup_by_name, key, out);
}
bool find_servicegroup(const View& v, std::string_view key, Row& out) {
  return find_in(v.model().servicegroup_by_name, key, out);
}
bool find_contactgroup(const View& v, std::string_view key, Row& out) {
  return find_in(v.model().contactgroup_by_name, key, out);
}

}  // namespace

void add_hostgroup_columns(ColumnAdder& add) {
  using model::Hostgroup;
  add("id", T::integer, hostgroup_id, "Hostgroup id");
  add("name", T::string, hostgroup_string<&Hostgroup::name>, "Name of the hostgroup");
  add("alias", T::string, hostgroup_string<&Hostgroup::alias>, "An alias of the hostgroup");
  add("notes", T::string, hostgroup_string<&Hostgroup::notes>, "Optional notes to the hostgroup");
  add("notes_url", T::string, hostgroup_string<&Hostgroup::notes_url>,
      "An optional URL with further information about the hostgroup");
  add("action_url", T::string, hostgroup_string<&Hostgroup::action_url>,
      "An optional URL to custom actions or information about the hostgroup");
  add("members", T::list, hostgroup_members<false>,
      "A list of all host names that are members of the hostgroup");
  add("members_with_state", T::list, hostgroup_members<true>,
      "A list of all host names that are members of the hostgroup together with state and has_been_checked");
  add("worst_host_state", T::integer, hostgroup_host_stat<HostStat::worst>,
      "The worst state of all of the groups' hosts (UP <= UNREACHABLE <= DOWN)");
  add("num_hosts", T::integer, hostgroup_host_stat<HostStat::num>, "The total number of hosts in the group");
  add("num_hosts_pending", T::integer, hostgroup_host_stat<HostStat::pending>,
      "The number of hosts in the group that are pending");
  add("num_hosts_up", T::integer, hostgroup_host_stat<HostStat::up>,
      "The number of hosts in the group that are up");
  add("num_hosts_down", T::integer, hostgroup_host_stat<HostStat::down>,
      "The number of hosts in the group that are down");
  add("num_hosts_unreach", T::integer, hostgroup_host_stat<HostStat::unreachable>,
      "The number of hosts in the group that are unreachable");
  add("num_services", T::integer, hostgroup_service_stat<ServiceStat::num>,
      "The total number of services of hosts in this group");
  add("worst_service_state", T::integer, hostgroup_service_stat<ServiceStat::worst>,
      "The worst state of all services that belong to a host of this group (OK <= WARN <= UNKNOWN <= CRIT)");
  add("num_services_pending", T::integer, hostgroup_service_stat<ServiceStat::pending>,
      "The total number of services with the state Pending of hosts in this group");
  add("num_services_ok", T::integer, hostgroup_service_stat<ServiceStat::ok>,
      "The total number of services with the state OK of hosts in this group");
  add("num_services_warn", T::integer, hostgroup_service_stat<ServiceStat::warn>,
      "The total number of services with the state WARN of hosts in this group");
  add("num_services_crit", T::integer, hostgroup_service_stat<ServiceStat::crit>,
      "The total number of services with the state CRIT of hosts in this group");
  add("num_services_unknown", T::integer, hostgroup_service_stat<ServiceStat::unknown>,
      "The total number of services with the state UNKNOWN of hosts in this group");
  add("worst_service_hard_state", T::integer, hostgroup_service_stat<ServiceStat::worst_hard>,
      "The worst state of all services that belong to a host of this group (OK <= WARN <= UNKNOWN <= CRIT)");
  add("num_services_hard_ok", T::integer, hostgroup_service_stat<ServiceStat::hard_ok>,
      "The total number of services with the state OK of hosts in this group");
  add("num_services_hard_warn", T::integer, hostgroup_service_stat<ServiceStat::hard_warn>,
      "The total number of services with the state WARN of hosts in this group");
  add("num_services_hard_crit", T::integer, hostgroup_service_stat<ServiceStat::hard_crit>,
      "The total number of services with the state CRIT of hosts in this group");
  add("num_services_hard_unknown", T::integer, hostgroup_service_stat<ServiceStat::hard_unknown>,
      "The total number of services with the state UNKNOWN of hosts in this group");
}

void add_servicegroup_columns(ColumnAdder& add) {
  using model::Servicegroup;
  add("id", T::integer, servicegroup_id, "Servicegroup id");
  add("name", T::string, servicegroup_string<&Servicegroup::name>, "The name of the service group");
  add("alias", T::string, servicegroup_string<&Servicegroup::alias>, "An alias of the service group");
  add("notes", T::string, servicegroup_string<&Servicegroup::notes>,
      "Optional additional notes about the service group");
  add("notes_url", T::string, servicegroup_string<&Servicegroup::notes_url>,
      "An optional URL to further notes on the service group");
  add("action_url", T::string, servicegroup_string<&Servicegroup::action_url>,
      "An optional URL to custom notes or actions on the service group");
  add("members", T::list, servicegroup_members<false>,
      "A list of all members of the service group as host/service pairs");
  add.match(Match::host_service);
  add("members_with_state", T::list, servicegroup_members<true>,
      "A list of all members of the service group with state and has_been_checked");
  add.match(Match::host_service);
  add("worst_service_state", T::integer, servicegroup_stat<ServiceStat::worst>,
      "The worst soft state of all of the groups services (OK <= WARN <= UNKNOWN <= CRIT)");
  add("num_services", T::integer, servicegroup_stat<ServiceStat::num>,
      "The total number of services in the group");
  add("num_services_ok", T::integer, servicegroup_stat<ServiceStat::ok>,
      "The number of services in the group that are OK");
  add("num_services_warn", T::integer, servicegroup_stat<ServiceStat::warn>,
      "The number of services in the group that are WARN");
  add("num_services_crit", T::integer, servicegroup_stat<ServiceStat::crit>,
      "The number of services in the group that are CRIT");
  add("num_services_unknown", T::integer, servicegroup_stat<ServiceStat::unknown>,
      "The number of services in the group that are UNKNOWN");
  add("num_services_pending", T::integer, servicegroup_stat<ServiceStat::pending>,
      "The number of services in the group that are PENDING");
  add("num_services_hard_ok", T::integer, servicegroup_stat<ServiceStat::hard_ok>,
      "The number of services in the group that are OK");
  add("num_services_hard_warn", T::integer, servicegroup_stat<ServiceStat::hard_warn>,
      "The number of services in the group that are WARN");
  add("num_services_hard_crit", T::integer, servicegroup_stat<ServiceStat::hard_crit>,
      "The number of services in the group that are CRIT");
  add("num_services_hard_unknown", T::integer, servicegroup_stat<ServiceStat::hard_unknown>,
      "The number of services in the group that are UNKNOWN");
}

const Table& hostgroups_table() {
  static const Table table = [] {
    Table t;
    t.name = "hostgroups";
    t.prefix = "hostgroup_";
    t.natural_sort = {"name"};
    ColumnAdder add(t.columns);
    add_hostgroup_columns(add);
    sort_columns(t.columns);
    t.rows = hostgroup_rows;
    t.visible = hostgroup_visible;
    t.find_row = find_hostgroup;
    return t;
  }();
  return table;
}

const Table& servicegroups_table() {
  static const Table table = [] {
    Table t;
    t.name = "servicegroups";
    t.prefix = "servicegroup_";
    t.natural_sort = {"name"};
    ColumnAdder add(t.columns);
    add_servicegroup_columns(add);
    sort_columns(t.columns);
    t.rows = servicegroup_rows;
    t.visible = servicegroup_visible;
    t.find_row = find_servicegroup;
    return t;
  }();
  return table;
}

// Every contact sees every contact group, as in the module.
const Table& contactgroups_table() {
  static const Table table = [] {
    Table t;
    t.name = "contactgroups";
    t.prefix = "contactgroup_";
    ColumnAdder add(t.columns);
    using model::Contactgroup;
    add("id", T::integer, contactgroup_id, "Contactgroup id");
    add("name", T::string, contactgroup_string<&Contactgroup::name>, "The name of the contactgroup");
    add("alias", T::string, contactgroup_string<&Contactgroup::alias>, "The alias of the contactgroup");
    add("members", T::list, contactgroup_members, "A list of all members of this contactgroup");
    sort_columns(t.columns);
    t.rows = contactgroup_rows;
    t.find_row = find_contactgroup;
    return t;
  }();
  return table;
}

}  // namespace vedette::livestatus::tables
