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
      [](const Host::DescribedService& s, std::string_view wanted) { return s.text() < wanted; });
  if (it == h.services_by_description.end() || it->text() != description) return no_id<ServiceId>();
  return it->id;
}

void Model::index_services() {
  for (Host& h : hosts) {
    h.services_by_description.clear();
    h.services_by_description.reserve(h.services.size());
    for (ServiceId id : h.services) {
      const std::string_view d = services[index(id)].description;
      h.services_by_description.push_back({d.data(), static_cast<std::uint32_t>(d.size()), id});
    }
    // Ties by id, so a description given twice (only in a model put together by hand) finds the first.
    std::sort(h.services_by_description.begin(), h.services_by_description.end(),
              [](const Host::DescribedService& a, const Host::DescribedService& b) {
                return a.text() != b.text() ? a.text() < b.text() : a.id < b.id;
              });
  }
}

}  // namespace vedette::model
