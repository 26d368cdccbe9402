#include "config/model_builder_internal.hpp"

#include <type_traits>
#include <vector>

namespace vedette::config::internal {

namespace {

// The failure criteria a dependency has of one kind. Naemon reads `n` or `none` among them as "no
// dependency of this kind": unwritten, so the definition takes its templates' criteria, or has none of that
// kind (servicedependency's both kinds, hostdependency's notification criteria; a hostdependency's
// execution `n` is a dependency that never holds). So the first value along the definition and its
// templates, in `use` order, that names neither.
bool names_none(std::string_view value) {
  for (std::string_view item : split_list(value))
    if (item == "n" || item == "none") return true;
  return false;
}

const RawAttr* criteria(const RawObject& obj, DirectiveKey key, bool none_drops) {
  if (!none_drops) return obj.find(key);
  std::vector<const RawObject*> stack{&obj};  // templates nest as deep as the configuration makes them
  while (!stack.empty()) {
    const RawObject* at = stack.back();
    stack.pop_back();
    for (const RawAttr& a : at->attrs)
      if (a.id == key.id && !a.is_null && !names_none(a.value)) return &a;
    stack.insert(stack.end(), at->bases.rbegin(), at->bases.rend());
  }
  return nullptr;
}

}  // namespace

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
  constexpr bool is_service = std::is_same_v<Id, model::ServiceId>;
  const RawAttr* execution = criteria(obj, "execution_failure_criteria", /*none_drops=*/is_service);
  const RawAttr* notification = criteria(obj, "notification_failure_criteria", /*none_drops=*/true);
  if (is_service && execution == nullptr && notification == nullptr) {
    // Naemon warns once per master and dependent pair, as here.
    diags_.warning("Ignoring lame service dependency", obj.at, PosKind::line);
    return;
  }
  if (execution != nullptr)
    out.push_back({model::DependencyKind::execution, master, dependent, period,
                   parse_options(obj, *execution, "execution_failure_criteria", table), inherits});
  if (notification != nullptr)
    out.push_back({model::DependencyKind::notification, master, dependent, period,
                   parse_options(obj, *notification, "notification_failure_criteria", table), inherits});
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
