// The runtime object model: dense arrays indexed by 32-bit ids, strings interned in one pool, name
// indexes for the few lookups by name (external commands, Livestatus). Built once per load by config/;
// read-only afterwards, owned by the core thread.
#pragma once

#include "model/command.hpp"
#include "model/contact.hpp"
#include "model/dependency.hpp"
#include "model/escalation.hpp"
#include "model/groups.hpp"
#include "model/host.hpp"
#include "model/name_order.hpp"
#include "model/service.hpp"
#include "model/string_pool.hpp"
#include "model/timeperiod.hpp"

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace vedette::model {

struct Model {
  StringPool strings;

  std::vector<Host> hosts;  // definition order, as every vector here: ids are dense check ids
  std::vector<Service> services;
  std::vector<Command> commands;
  std::vector<Timeperiod> timeperiods;
  std::vector<Contact> contacts;
  std::vector<Hostgroup> hostgroups;
  std::vector<Servicegroup> servicegroups;
  std::vector<Contactgroup> contactgroups;
  // Escalations and dependencies in the order objects.cache lists them: by host (service) name, then in
  // the order of Naemon's per-object lists (config/naemon_order.hpp).
  std::vector<HostDependency> host_dependencies;
  std::vector<ServiceDependency> service_dependencies;
  std::vector<HostEscalation> host_escalations;
  std::vector<ServiceEscalation> service_escalations;

  // Naemon's object order (by name), in which objects.cache and status.dat list objects. Filled when the
  // model is built; a model put together by hand (tests, benchmarks) may leave it empty, see has_by_name().
  NameOrder by_name;
  [[nodiscard]] bool has_by_name() const {
    return by_name.hosts.size() == hosts.size() && by_name.services.size() == services.size() &&
           by_name.contacts.size() == contacts.size() && by_name.timeperiods.size() == timeperiods.size() &&
           by_name.commands.size() == commands.size() && by_name.hostgroups.size() == hostgroups.size() &&
           by_name.servicegroups.size() == servicegroups.size() &&
           by_name.contactgroups.size() == contactgroups.size();
  }

  std::unordered_map<std::string_view, HostId> host_by_name;
  std::unordered_map<std::string_view, CommandId> command_by_name;
  std::unordered_map<std::string_view, TimeperiodId> timeperiod_by_name;
  std::unordered_map<std::string_view, ContactId> contact_by_name;
  std::unordered_map<std::string_view, HostgroupId> hostgroup_by_name;
  std::unordered_map<std::string_view, ServicegroupId> servicegroup_by_name;
  std::unordered_map<std::string_view, ContactgroupId> contactgroup_by_name;

  // $ARGn$ values of command calls, shared by every call with the same text; [0] is the empty list.
  std::vector<std::vector<std::string_view>> command_args{1};
  [[nodiscard]] const std::vector<std::string_view>& args_of(const CommandCall& call) const {
    return command_args[call.args];
  }

  // `$USERn$` values from the resource files (index 0 = $USER1$).
  std::vector<std::string_view> user_macros;

  [[nodiscard]] const Host& host(HostId id) const { return hosts[index(id)]; }
  [[nodiscard]] const Service& service(ServiceId id) const { return services[index(id)]; }
  // Finds a service by host and description: a binary search once index_services() has run (a linear scan
  // made loading one host with 100k services quadratic, bench/config/load_bench.py --sizes 1host-100k);
  // otherwise, or for a host given services since, a scan of the host's services.
  [[nodiscard]] ServiceId find_service(std::string_view host_name, std::string_view description) const;
  [[nodiscard]] ServiceId find_service(HostId host, std::string_view description) const;
  // Fills each host's services_by_description; config/ calls it once the services are built.
  void index_services();
};

}  // namespace vedette::model
