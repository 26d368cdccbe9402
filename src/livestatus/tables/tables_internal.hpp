// What the table files share: the lookup structures behind TableIndex, the helpers every column getter
// uses (visibility, timeperiods, custom variables, macros) and the column builders one table borrows from
// another (the host_* columns of services, the hostgroup_* columns of hostsbygroup). Private to tables/;
// the query threads read them, and the index is built once per snapshot and then read-only.
#pragma once

#include "files/status_file.hpp"
#include "livestatus/table.hpp"
#include "livestatus/tables.hpp"
#include "livestatus/view.hpp"
#include "model/model.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::livestatus {
namespace tables {

inline constexpr std::uint32_t k_none = 0xFFFF'FFFFu;

// One list of numbers per object, laid end to end: no allocation per object, one lookup per list.
class FlatLists {
 public:
  // Empty for an object the lists were not built for.
  [[nodiscard]] std::span<const std::uint32_t> of(std::size_t i) const {
    if (i + 1 >= offsets_.size()) return {};
    return std::span<const std::uint32_t>(items_).subspan(offsets_[i], offsets_[i + 1] - offsets_[i]);
  }
  void add(std::uint32_t item) { items_.push_back(item); }
  void end_list() { offsets_.push_back(static_cast<std::uint32_t>(items_.size())); }

 private:
  std::vector<std::uint32_t> offsets_{0};
  std::vector<std::uint32_t> items_;
};

// What follows from the model alone. Naemon registers every object type sorted by name, so an object's id
// is its rank in that order, and the lists it builds by prepending come out in reverse name order.
struct ModelIndex {
  const model::Model* model = nullptr;
  std::shared_ptr<const void> keep_alive;  // the model's owner, when the snapshot named one

  // Model indexes in Naemon's object order (the model's by_name, or definition order for a model made by
  // hand without it, as status.dat does), and each object's position in it (Naemon's id).
  std::vector<std::uint32_t> host_order, service_order, contact_order, hostgroup_order, servicegroup_order,
      contactgroup_order, command_order, timeperiod_order;
  std::vector<std::uint32_t> host_rank, service_rank, contact_rank, hostgroup_rank, servicegroup_rank,
      contactgroup_rank, command_rank, timeperiod_rank;

  FlatLists host_services;   // per host: its services, last description first (Naemon's host->services)
  FlatLists host_groups;     // per host: its host groups, last name first (hostgroups_ptr)
  FlatLists service_groups;  // per service: its service groups, last name first
  FlatLists contact_groups;  // per contact: its contact groups, last name first
  FlatLists host_parents;    // per host, by name (Naemon keeps them in a tree)
  FlatLists host_children;
  FlatLists hostgroup_members;     // per host group: hosts by name (a tree too)
  FlatLists contactgroup_members;  // per contact group: contacts by name (the module walks contact_list)
  // Per host and service: contact ranks, ascending and unique: the direct contacts and the members of the
  // contact groups (the `contacts` column), and those of the object's escalations (only for AuthUser).
  FlatLists host_contacts, service_contacts;
  FlatLists host_escalated, service_escalated;
  // Per host and service: indexes into the model's dependency vectors where it is the dependent, in the
  // order of Naemon's exec_deps / notify_deps lists.
  FlatLists host_exec_deps, host_notify_deps, service_exec_deps, service_notify_deps;
};

// Comments and downtimes by id and by object, for the snapshot's comment and downtime lists (held here, so
// another list cannot take their address while the index lives).
struct ExtrasIndex {
  std::shared_ptr<const std::vector<files::StatusComment>> comment_list;  // null when the snapshot has none
  std::shared_ptr<const std::vector<files::StatusDowntime>> downtime_list;
  std::span<const files::StatusComment> comments;
  std::span<const files::StatusDowntime> downtimes;
  std::vector<std::uint32_t> comment_order, downtime_order;  // positions, by id (the module's std::map)
  // Per comment and downtime: the model index of its host and service, or k_none.
  std::vector<std::uint32_t> comment_host, comment_service, downtime_host, downtime_service;
  // Per host and service: positions by id. An entry whose service is gone belongs to its host, as in the
  // module (it matches "no service, this host").
  FlatLists host_comments, service_comments, host_downtimes, service_downtimes;
};

}  // namespace tables

struct TableIndex {
  const files::StatusSnapshot* built_for = nullptr;  // for the check that a View's index is its snapshot's
  const model::Model* model = nullptr;
  const std::vector<files::StatusComment>* comments = nullptr;  // the snapshot's lists it was built for
  const std::vector<files::StatusDowntime>* downtimes = nullptr;
  std::shared_ptr<const tables::ModelIndex> model_part;
  std::shared_ptr<const tables::ExtrasIndex> extras_part;
};

namespace tables {

// The View's index, built for it on first use when the server gave none (or one of another snapshot).
[[nodiscard]] const TableIndex& index_of(const View& v);
[[nodiscard]] inline const ModelIndex& model_index(const View& v) {
  return *index_of(v).model_part;
}
[[nodiscard]] inline const ExtrasIndex& extras_index(const View& v) {
  return *index_of(v).extras_part;
}

[[nodiscard]] const Settings& settings_of(const View& v);
// What the log and statehist tables read of the log for [since, until]: the reading an earlier cursor over
// this View made for that range (so that it reads the same lines), else a new one, kept in the View.
[[nodiscard]] LogReading& log_reading(const View& v, std::int64_t since, std::int64_t until);

// Naemon's object order as model indexes, without the index (rows of the plain tables).
template <typename Id>
[[nodiscard]] inline std::uint32_t nth(const model::Model& m, const std::vector<Id>& by_name, std::size_t n) {
  return m.has_by_name() ? model::index(by_name[n]) : static_cast<std::uint32_t>(n);
}

// AuthUser, as the module's is_authorized_for(): a host's contacts (direct, through a contact group, or of
// an escalation); for a service, loose: its own or its host's, strict: its own only.
[[nodiscard]] bool host_visible(const View& v, std::uint32_t host, std::uint32_t contact);
[[nodiscard]] bool service_visible(const View& v, std::uint32_t service, std::uint32_t contact);
// What the list and counter columns show of their members: everything without AuthUser.
[[nodiscard]] inline bool shows_host(const View& v, std::uint32_t host) {
  return v.auth_user == k_no_auth_user || host_visible(v, host, v.auth_user);
}
[[nodiscard]] inline bool shows_service(const View& v, std::uint32_t service) {
  return v.auth_user == k_no_auth_user || service_visible(v, service, v.auth_user);
}

// Whether `now` is inside the period (the module's in_*_period columns): 1 without a period or an
// evaluator, as Naemon treats a missing period as 24x7.
[[nodiscard]] bool in_period(const View& v, model::TimeperiodId period);
[[nodiscard]] model::TimeperiodId period_named(const View& v, std::string_view name);

// The module's *_expanded columns: $HOSTNAME$, $SERVICEDESC$, custom and $USERn$ macros and a few more
// replaced, an unknown one left as written. `service` is k_none for a host's column.
void expand_macros(const View& v, std::string_view raw, std::uint32_t host, std::uint32_t service, Cell& out);

// custom_variable_names, _values and custom_variables, with the values commands changed (`changed`
// returns the changed value of a name or null) and without the hidden_custom_var_prefix ones.
enum class CustomPart : std::uint8_t { names, values, dict };
template <typename Changed>
void custom_variables(const View& v, const std::vector<model::CustomVariable>& vars, Changed&& changed,
                      CustomPart part, Cell& out) {
  const std::string& hidden = settings_of(v).hidden_custom_var_prefix;
  if (part == CustomPart::dict) {
    out.start_dict();
  } else {
    out.start_list();
  }
  for (const model::CustomVariable& var : vars) {
    if (!hidden.empty() && var.name.starts_with(hidden)) continue;
    const std::string* now = changed(var.name);
    const std::string_view value = now != nullptr ? std::string_view(*now) : var.value;
    switch (part) {
      case CustomPart::names:
        out.add(var.name);
        break;
      case CustomPart::values:
        out.add(value);
        break;
      case CustomPart::dict:
        out.add_pair(var.name, value);
        break;
    }
  }
}

// Naemon's MODATTR names, for modified_attributes_list.
void modified_attributes_list(unsigned long mask, Cell& out);

// The module's order of badness: OK < WARNING < UNKNOWN < CRITICAL, and UP < UNREACHABLE < DOWN.
[[nodiscard]] constexpr bool service_state_worse(std::int64_t state, std::int64_t than) {
  if (state == 0) return false;
  if (than == 0) return true;
  if (than == 2) return false;
  if (state == 2) return true;
  return state > than;
}
[[nodiscard]] constexpr bool host_state_worse(std::int64_t state, std::int64_t than) {
  if (state == 0) return false;
  if (than == 0) return true;
  if (than == 1) return false;
  return state == 1;
}

[[nodiscard]] inline std::uint32_t to_index(std::uint32_t i) {
  return i;
}
template <typename Id>
[[nodiscard]] std::uint32_t to_index(Id id) {
  return model::index(id);
}

// The module's counters over a list of services (num_services_*, worst_service_*): soft ones read the current
// state, hard ones the last hard state; a state is counted only once checked. Only the services the
// AuthUser may see count.
enum class ServiceStat : std::uint8_t {
  num,
  pending,
  worst,
  ok,
  warn,
  crit,
  unknown,
  worst_hard,
  hard_ok,
  hard_warn,
  hard_crit,
  hard_unknown
};
template <typename Ids>
[[nodiscard]] std::int64_t service_stat(const View& v, const Ids& services, ServiceStat stat) {
  const bool hard = stat >= ServiceStat::worst_hard;
  const int wanted = hard ? static_cast<int>(stat) - static_cast<int>(ServiceStat::hard_ok)
                          : static_cast<int>(stat) - static_cast<int>(ServiceStat::ok);
  std::int64_t result = 0;
  for (const auto id : services) {
    const std::uint32_t s = to_index(id);
    if (s >= v.status->services.size() || !shows_service(v, s)) continue;
    const files::StatusState& st = v.status->services[s];
    const int state = hard ? st.last_hard_state : st.current_state;
    switch (stat) {
      case ServiceStat::num:
        ++result;
        break;
      case ServiceStat::pending:
        if (!st.has_been_checked) ++result;
        break;
      case ServiceStat::worst:
      case ServiceStat::worst_hard:
        if (service_state_worse(state, result)) result = state;
        break;
      default:
        if (st.has_been_checked && state == wanted) ++result;
        break;
    }
  }
  return result;
}

// Builds a table's columns: each is named prefix + name and reads its row through `map`.
class ColumnAdder {
 public:
  explicit ColumnAdder(std::vector<Column>& out, std::string_view prefix = {}, Column::RowMap map = nullptr)
      : out_(out), prefix_(prefix), map_(map) {}
  void operator()(std::string_view name, ColumnType type, Column::Getter get, std::string_view description) {
    out_.push_back(Column{.name = prefix_ + std::string(name),
                          .description = std::string(description),
                          .type = type,
                          .get = get,
                          .map = map_});
  }
  // The last column added departs from its type's filter rules (table.hpp, Match).
  void match(Match m) { out_.back().match = m; }

 private:
  std::vector<Column>& out_;
  std::string prefix_;
  Column::RowMap map_;
};

// Drops a column whose name an earlier one has (the module keeps the first), then sorts them by name.
void sort_columns(std::vector<Column>& columns);

// The columns one table lends another.
void add_host_columns(ColumnAdder& add);
void add_service_columns(ColumnAdder& add);  // without the host_* ones
void add_hostgroup_columns(ColumnAdder& add);
void add_servicegroup_columns(ColumnAdder& add);
void add_contact_columns(ColumnAdder& add);
void add_command_columns(ColumnAdder& add);

// Rows of a host or service that lead elsewhere.
[[nodiscard]] Row host_of_service(const View& v, Row row);

// The tables, built on first use.
const Table& hosts_table();
const Table& hostsbygroup_table();
const Table& services_table();
const Table& servicesbygroup_table();
const Table& servicesbyhostgroup_table();
const Table& hostgroups_table();
const Table& servicegroups_table();
const Table& contactgroups_table();
const Table& contacts_table();
const Table& commands_table();
const Table& timeperiods_table();
const Table& comments_table();
const Table& downtimes_table();
const Table& status_table();
const Table& columns_table();
const Table& log_table();
const Table& statehist_table();

}  // namespace tables
}  // namespace vedette::livestatus
