#include "model/model.hpp"

namespace vedette::model {

ServiceId Model::find_service(std::string_view host_name, std::string_view description) const {
  auto it = host_by_name.find(host_name);
  if (it == host_by_name.end()) return no_id<ServiceId>();
  for (ServiceId id : hosts[index(it->second)].services)
    if (services[index(id)].description == description) return id;
  return no_id<ServiceId>();
}

}  // namespace vedette::model
