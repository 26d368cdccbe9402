// A service's configuration (cold data, read-only after load). Run-time state lives elsewhere.
// Built by config/ on one thread; read-only, and read from any thread, once the model is published.
#pragma once

#include "model/checkable.hpp"
#include "model/ids.hpp"

#include <string_view>
#include <vector>

namespace vedette::model {

struct Service : Checkable {
  HostId host = no_id<HostId>();
  std::string_view host_name;
  std::string_view description;
  std::string_view display_name;  // the description when not set
  bool display_name_set = false;  // set in the definition or a template (objects.cache lists it then)
  std::vector<ServiceId> parents;
  std::vector<ServiceId> children;
  std::vector<ServicegroupId> servicegroups;
  bool is_volatile = false;
};

}  // namespace vedette::model
