// The contacts table: the configuration, with what commands changed at run time (the snapshot's contact
// state) in effect.
#include "livestatus/tables/tables_internal.hpp"
#include "state/contact_state.hpp"

#include <cctype>

namespace vedette::livestatus::tables {
namespace {

using T = ColumnType;

const model::Contact& contact_of(const View& v, Row r) {
  return v.model().contacts[r.index];
}

// What commands changed; null: as configured.
const state::ContactState* changed_state(const View& v, Row r) {
  return v.status->contact_state(r.index);
}

template <auto Field>
void contact_string(const View& v, Row r, Cell& out) {
  out.set_string(contact_of(v, r).*Field);
}
template <std::size_t I>
void address(const View& v, Row r, Cell& out) {
  out.set_string(contact_of(v, r).addresses[I]);
}

void id(const View& v, Row r, Cell& out) {
  out.set_int(model_index(v).contact_rank[r.index]);
}

void can_submit_commands(const View& v, Row r, Cell& out) {
  out.set_int(contact_of(v, r).can_submit_commands ? 1 : 0);
}

template <bool Host>
void notifications_enabled(const View& v, Row r, Cell& out) {
  const state::ContactState* st = changed_state(v, r);
  const model::Contact& c = contact_of(v, r);
  if (Host) {
    out.set_int((st != nullptr ? st->host_notifications_enabled : c.host_notifications_enabled) ? 1 : 0);
  } else {
    out.set_int((st != nullptr ? st->service_notifications_enabled : c.service_notifications_enabled) ? 1
                                                                                                      : 0);
  }
}

template <bool Host>
model::TimeperiodId notification_period_of(const View& v, Row r) {
  const state::ContactState* st = changed_state(v, r);
  const model::Contact& c = contact_of(v, r);
  if (Host) return st != nullptr ? st->host_notification_period : c.host_notification_period;
  return st != nullptr ? st->service_notification_period : c.service_notification_period;
}

template <bool Host>
void notification_period(const View& v, Row r, Cell& out) {
  const model::TimeperiodId id = notification_period_of<Host>(v, r);
  out.set_string(model::is_set(id) ? v.model().timeperiods[model::index(id)].name : std::string_view{});
}

template <bool Host>
void in_notification_period(const View& v, Row r, Cell& out) {
  out.set_int(in_period(v, notification_period_of<Host>(v, r)) ? 1 : 0);
}

template <CustomPart Part>
void custom(const View& v, Row r, Cell& out) {
  const state::ContactState* st = changed_state(v, r);
  custom_variables(
      v, contact_of(v, r).custom_variables,
      [st](std::string_view name) { return st != nullptr ? st->custom_variable(name) : nullptr; }, Part, out);
}

void modified_attributes(const View& v, Row r, Cell& out) {
  const state::ContactState* st = changed_state(v, r);
  out.set_int(st != nullptr ? static_cast<std::int64_t>(st->modified_attributes) : 0);
}
void modified_attributes_names(const View& v, Row r, Cell& out) {
  const state::ContactState* st = changed_state(v, r);
  modified_attributes_list(st != nullptr ? st->modified_attributes : 0, out);
}

void groups(const View& v, Row r, Cell& out) {
  out.start_list();
  for (std::uint32_t g : model_index(v).contact_groups.of(r.index)) out.add(v.model().contactgroups[g].name);
}

// Naemon prepends each command of the directive: the last named comes first.
template <bool Host>
void notification_commands(const View& v, Row r, Cell& out) {
  const model::Contact& c = contact_of(v, r);
  const std::vector<model::CommandCall>& calls =
      Host ? c.host_notification_commands : c.service_notification_commands;
  out.start_list();
  for (auto it = calls.rbegin(); it != calls.rend(); ++it)
    if (it->is_set()) out.add(v.model().commands[model::index(it->command)].name);
}

void contact_rows(const View& v, std::vector<Row>& out) {
  if (v.status == nullptr || v.status->model == nullptr) return;
  const model::Model& m = v.model();
  for (std::size_t n = 0; n < m.contacts.size(); ++n) out.push_back(Row{nth(m, m.by_name.contacts, n), 0});
}

bool find_contact(const View& v, std::string_view key, Row& out) {
  while (!key.empty() && std::isspace(static_cast<unsigned char>(key.front())) != 0) key.remove_prefix(1);
  const auto it = v.model().contact_by_name.find(key);
  if (it == v.model().contact_by_name.end()) return false;
  out = Row{model::index(it->second), 0};
  return true;
}

}  // namespace

void add_contact_columns(ColumnAdder& add) {
  using model::Contact;
  add("id", T::integer, id, "Contact id");
  add("name", T::string, contact_string<&Contact::name>, "The login name of the contact person");
  add("alias", T::string, contact_string<&Contact::alias>, "The full name of the contact");
  add("email", T::string, contact_string<&Contact::email>, "The email address of the contact");
  add("pager", T::string, contact_string<&Contact::pager>, "The pager address of the contact");
  add("host_notification_period", T::string, notification_period<true>,
      "The time period in which the contact will be notified about host problems");
  add("service_notification_period", T::string, notification_period<false>,
      "The time period in which the contact will be notified about service problems");
  add("address1", T::string, address<0>, "The additional field address1");
  add("address2", T::string, address<1>, "The additional field address2");
  add("address3", T::string, address<2>, "The additional field address3");
  add("address4", T::string, address<3>, "The additional field address4");
  add("address5", T::string, address<4>, "The additional field address5");
  add("address6", T::string, address<5>, "The additional field address6");
  add("can_submit_commands", T::integer, can_submit_commands,
      "Whether the contact is allowed to submit commands (0/1)");
  add("host_notifications_enabled", T::integer, notifications_enabled<true>,
      "Whether the contact will be notified about host problems in general (0/1)");
  add("service_notifications_enabled", T::integer, notifications_enabled<false>,
      "Whether the contact will be notified about service problems in general (0/1)");
  add("in_host_notification_period", T::integer, in_notification_period<true>,
      "Whether the contact is currently in his/her host notification period (0/1)");
  add("in_service_notification_period", T::integer, in_notification_period<false>,
      "Whether the contact is currently in his/her service notification period (0/1)");
  add("custom_variable_names", T::list, custom<CustomPart::names>,
      "A list of all custom variables of the contact");
  add("custom_variable_values", T::list, custom<CustomPart::values>,
      "A list of the values of all custom variables of the contact");
  add("custom_variables", T::dict, custom<CustomPart::dict>, "A dictionary of the custom variables");
  add("modified_attributes", T::integer, modified_attributes,
      "A bitmask specifying which attributes have been modified");
  add.match(Match::attributes);
  add("modified_attributes_list", T::list, modified_attributes_names, "A list of all modified attributes");
  add.match(Match::attributes);
  add("groups", T::list, groups, "A list of all contact groups this contact is in");
  add("host_notification_commands", T::list, notification_commands<true>,
      "A list of all host notifications commands for this contact");
  add("service_notification_commands", T::list, notification_commands<false>,
      "A list of all service notifications commands for this contact");
}

// Every contact sees every contact, as in the module.
const Table& contacts_table() {
  static const Table table = [] {
    Table t;
    t.name = "contacts";
    t.prefix = "contact_";
    t.natural_sort = {"name"};
    ColumnAdder add(t.columns);
    add_contact_columns(add);
    sort_columns(t.columns);
    t.rows = contact_rows;
    t.find_row = find_contact;
    return t;
  }();
  return table;
}

}  // namespace vedette::livestatus::tables
