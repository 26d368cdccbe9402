#include "config/model_builder_internal.hpp"

namespace vedette::config::internal {

template <typename Dep, typename Id>
void ModelBuilder::add_dependencies(std::vector<Dep>& out, const RawObject& obj, Id master, Id dependent,
                                    const OptionTable& table) {
  model::TimeperiodId period = model::no_id<model::TimeperiodId>();
  if (obj.has_value("dependency_period")) {
    period = find_timeperiod(obj.get("dependency_period"));
    if (!model::is_set(period))
      diags_.error(fmt::format("Unable to locate dependency_period '{}'", obj.get("dependency_period")),
                   obj.at);
  }
  const bool inherits = bool_attr(obj, "inherits_parent", false);
  if (obj.find("execution_failure_criteria") != nullptr)
    out.push_back({model::DependencyKind::execution, master, dependent, period,
                   options_attr(obj, "execution_failure_criteria", table, model::k_opt_nothing), inherits});
  if (obj.find("notification_failure_criteria") != nullptr)
    out.push_back({model::DependencyKind::notification, master, dependent, period,
                   options_attr(obj, "notification_failure_criteria", table, model::k_opt_nothing),
                   inherits});
}

void ModelBuilder::build_host_dependencies() {
  expand_each(
      ObjectType::hostdependency, model_->host_dependencies, host_dependency_defs_,
      [&](const RawObject& obj) {
        std::string_view masters = obj.get("host_name"), master_groups = obj.get("hostgroup_name");
        std::string_view dependents = obj.get("dependent_host_name"),
                         dependent_groups = obj.get("dependent_hostgroup_name");
        if (masters.empty() && master_groups.empty() && dependents.empty() && dependent_groups.empty()) {
          if (obj.template_name.empty()) diags_.error("Host dependency has no hosts", obj.at);
          return;
        }
        bool ok = true;
        auto master_set = host_set(masters, master_groups, obj, ok);
        auto dependent_set = host_set(dependents, dependent_groups, obj, ok);
        if (!ok) return;
        if (master_set.empty() || dependent_set.empty()) {
          diags_.error("Could not expand master and/or dependent hosts in host dependency", obj.at);
          return;
        }
        for (model::HostId m : master_set)
          for (model::HostId d : dependent_set)
            add_dependencies(model_->host_dependencies, obj, m, d, k_host_dependency_options);
      });
}

void ModelBuilder::build_service_dependencies() {
  expand_each(
      ObjectType::servicedependency, model_->service_dependencies, service_dependency_defs_,
      [&](const RawObject& obj) {
        std::string_view mh = obj.get("host_name"), mhg = obj.get("hostgroup_name"),
                         msg = obj.get("servicegroup_name"), md = obj.get("service_description");
        std::string_view dh = obj.get("dependent_host_name"), dhg = obj.get("dependent_hostgroup_name"),
                         dsg = obj.get("dependent_servicegroup_name"),
                         dd = obj.get("dependent_service_description");
        if (mh.empty() && mhg.empty() && msg.empty() && dh.empty() && dhg.empty() && dsg.empty()) {
          if (obj.template_name.empty()) diags_.error("Service dependency has no hosts or services", obj.at);
          return;
        }
        bool ok = true;
        const bool master_by_description_only = mh.empty() && mhg.empty() && msg.empty();
        const bool same_host = dh.empty() && dhg.empty() && dsg.empty();
        if ((master_by_description_only && same_host) || (same_host && dd.empty())) {
          diags_.error("Impossible service dependency definition", obj.at);
          return;
        }
        if (master_by_description_only) {
          // The master is named by description only: it lives on each dependent service's host.
          for (model::ServiceId d : service_set(dh, dhg, dsg, dd, obj, ok))
            for (model::ServiceId m : services_on(model_->services[model::index(d)].host, md, obj, ok))
              add_dependencies(model_->service_dependencies, obj, m, d, k_service_dependency_options);
          return;
        }
        std::vector<model::ServiceId> masters = service_set(mh, mhg, msg, md, obj, ok);
        std::vector<model::ServiceId> dependents;
        if (!same_host) dependents = service_set(dh, dhg, dsg, dd, obj, ok);
        if (!ok) return;
        for (model::ServiceId m : masters) {
          if (same_host) dependents = services_on(model_->services[model::index(m)].host, dd, obj, ok);
          for (model::ServiceId d : dependents)
            add_dependencies(model_->service_dependencies, obj, m, d, k_service_dependency_options);
        }
      });
}
}  // namespace vedette::config::internal
