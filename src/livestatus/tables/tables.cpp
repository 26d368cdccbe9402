#include "livestatus/tables.hpp"

#include "livestatus/tables/tables_internal.hpp"

#include <array>

namespace vedette::livestatus {

std::span<const Table* const> all_tables() {
  // By name, as the module's table map; built once, on first use from any thread (a static's guarded init).
  static const std::array<const Table*, 17> k_tables{
      &tables::columns_table(),         &tables::commands_table(),
      &tables::comments_table(),        &tables::contactgroups_table(),
      &tables::contacts_table(),        &tables::downtimes_table(),
      &tables::hostgroups_table(),      &tables::hosts_table(),
      &tables::hostsbygroup_table(),    &tables::log_table(),
      &tables::servicegroups_table(),   &tables::services_table(),
      &tables::servicesbygroup_table(), &tables::servicesbyhostgroup_table(),
      &tables::statehist_table(),       &tables::status_table(),
      &tables::timeperiods_table(),
  };
  return k_tables;
}

const Table* find_table(std::string_view name) {
  for (const Table* t : all_tables())
    if (t->name == name) return t;
  return nullptr;
}

}  // namespace vedette::livestatus
