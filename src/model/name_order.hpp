// Naemon's object order: it registers each object type sorted by name (byte order, as strcmp), services by
// the text "host;description", and writes objects.cache and status.dat in that order. The model keeps
// definition order (dense ids are check ids), so writers take this permutation. Any thread (pure function
// of a read-only model); the result is a plain value owned by the caller.
//
//   const model::NameOrder order = model::name_order(model);
//   for (model::HostId h : order.hosts) write_host(model.host(h));
#pragma once

#include "model/ids.hpp"

#include <string_view>
#include <vector>

namespace vedette::model {

struct Model;

struct NameOrder {
  std::vector<TimeperiodId> timeperiods;
  std::vector<CommandId> commands;
  std::vector<ContactgroupId> contactgroups;
  std::vector<HostgroupId> hostgroups;
  std::vector<ServicegroupId> servicegroups;
  std::vector<ContactId> contacts;
  std::vector<HostId> hosts;
  std::vector<ServiceId> services;
};

// Sorts every type; ~10 ms for 100k services (bench/files/object_cache_bench.cpp, BM_NameOrder).
[[nodiscard]] NameOrder name_order(const Model& model);

// Whether "host_a;description_a" sorts before "host_b;description_b", without building either text: a host
// name that is a prefix of the other compares its ';' with the other's next byte, as strcmp would.
[[nodiscard]] bool service_name_less(std::string_view host_a, std::string_view description_a,
                                     std::string_view host_b, std::string_view description_b);

// Naemon's host->services: the host's services, last description first (Naemon registers them in name
// order and prepends each). Its per-host commands (SCHEDULE_HOST_SVC_DOWNTIME, …) visit them so.
[[nodiscard]] std::vector<ServiceId> host_services_naemon_order(const Model& model, HostId host);

}  // namespace vedette::model
