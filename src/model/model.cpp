#include "model/model.hpp"

#include <algorithm>

namespace vedette::model {

ServiceId Model::find_service(std::string_view host_name, std::string_view description) const {
  auto it = host_by_name.find(host_name);
  if (it == host_by_name.end()) return no_id<ServiceId>();
  return find_service(it->second, description);
}

ServiceId Model::find_service(HostId host, std::string_view description) const {
  const Host& h = hosts[index(host)];
  if (h.services_by_description.size() != h.services.size()) {
    for (ServiceId id : h.services)
      if (services[index(id)].description == description) return id;
    return no_id<ServiceId>();
  }
  auto it = std::lower_bound(
      h.services_by_description.begin(), h.services_by_description.end(), description,
      [&](ServiceId id, std::string_view wanted) { return services[index(id)].description < wanted; });
  if (it == h.services_by_description.end() || services[index(*it)].description != description)
    return no_id<ServiceId>();
  return *it;
}

void Model::index_services() {
  for (Host& h : hosts) {
    h.services_by_description = h.services;
    // Ties by id, so a description given twice (only in a model put together by hand) finds the first.
    std::sort(h.services_by_description.begin(), h.services_by_description.end(),
              [&](ServiceId a, ServiceId b) {
                const std::string_view x = services[index(a)].description, y = services[index(b)].description;
                return x != y ? x < y : a < b;
              });
  }
}

}  // namespace vedette::model
