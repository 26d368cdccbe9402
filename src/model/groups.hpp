// Host, service and contact groups with their resolved members (sorted by id, no duplicates).
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
};

struct Contactgroup {
  std::string_view name, alias;
  std::vector<ContactId> members;
};

}  // namespace vedette::model
