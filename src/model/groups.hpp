// Host, service and contact groups with their resolved members (sorted by id, no duplicates). Service and
// contact groups also keep their members in the order Naemon lists them (objects.cache), which is the
// order its configuration code added them (config/naemon_order.cpp); host groups list theirs by name.
// Built by config/ on one thread; read-only, and read from any thread, once the model is published.
#pragma once

#include "model/ids.hpp"

#include <string_view>
#include <vector>

namespace vedette::model {

struct Hostgroup {
  std::string_view name, alias, notes, notes_url, action_url;
  std::vector<HostId> members;
};

struct Servicegroup {
  std::string_view name, alias, notes, notes_url, action_url;
  std::vector<ServiceId> members;
  std::vector<ServiceId> listed_members;  // the same members in Naemon's order
};

struct Contactgroup {
  std::string_view name, alias;
  std::vector<ContactId> members;
  std::vector<ContactId> listed_members;  // the same members in Naemon's order
};

}  // namespace vedette::model
