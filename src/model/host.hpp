// A host's configuration (cold data, read-only after load). Run-time state lives elsewhere.
// Built by config/ on one thread; read-only, and read from any thread, once the model is published.
#pragma once

#include "model/checkable.hpp"
#include "model/ids.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace vedette::model {

struct Host : Checkable {
  std::string_view name;
  std::string_view display_name;  // the name when not set
  bool display_name_set = false;  // set in the definition or a template (objects.cache lists it then)
  std::string_view alias;
  std::string_view address;
  std::vector<HostId> parents;
  std::vector<HostId> children;
  std::vector<HostgroupId> hostgroups;
  std::vector<ServiceId> services;
  // The same services sorted by description: Model::find_service's index, filled by Model::index_services().
  // Each entry carries its description, so a search reads this array and not a Service per step.
  struct DescribedService {
    const char* description;
    std::uint32_t size;
    ServiceId id;
    [[nodiscard]] std::string_view text() const { return {description, size}; }
  };
  std::vector<DescribedService> services_by_description;
  std::string_view vrml_image, statusmap_image;
  bool have_2d_coords = false;
  bool have_3d_coords = false;
  int x_2d = -1, y_2d = -1;
  double x_3d = 0, y_3d = 0, z_3d = 0;
};

}  // namespace vedette::model
