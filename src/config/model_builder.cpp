#include "config/model_builder.hpp"

#include "config/model_builder_internal.hpp"
#include "config/naemon_order.hpp"

namespace vedette::config {

namespace internal {

std::unique_ptr<model::Model> ModelBuilder::run() {
  for (const std::string& value : options_.user_macros) model_->user_macros.push_back(intern(value));
  build_timeperiods();
  build_commands();
  build_contacts();
  build_contactgroups();
  build_hosts();
  build_hostgroups();
  merge_hostextinfo();
  build_services();
  merge_serviceextinfo();
  build_servicegroups();
  build_host_dependencies();
  build_service_dependencies();
  build_host_escalations();
  build_service_escalations();
  preflight();
  model_->by_name = model::name_order(*model_);
  order_like_naemon(
      store_, options_,
      {host_raws_, service_raws_, contact_raws_, hostgroup_raws_, servicegroup_raws_, contactgroup_raws_,
       host_escalation_defs_, service_escalation_defs_, host_dependency_defs_, service_dependency_defs_},
      *model_);
  return std::move(model_);
}

bool ModelBuilder::named(const RawObject& obj, DirectiveKey name_key) {
  if (obj.has_value(name_key)) return true;
  if (obj.template_name.empty())
    diags_.error(fmt::format("{} definition has no {}", object_type_name(obj.type), name_key.name), obj.at);
  return false;
}
}  // namespace internal

std::unique_ptr<model::Model> build_model(ObjectStore& store, const BuildOptions& options,
                                          Diagnostics& diags) {
  return internal::ModelBuilder(store, options, diags).run();
}

}  // namespace vedette::config
