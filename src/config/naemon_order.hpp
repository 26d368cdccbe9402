// Puts what objects.cache lists inside an object into the order Naemon lists it: the members of service and
// contact groups, and each host's and service's escalations and dependencies. Naemon's configuration code
// keeps these in linked lists it builds by prepending, starting from lists of definitions it also builds by
// prepending while it reads the files, so the order it ends with follows from the files' reading order and
// from those steps alone. order_like_naemon() replays the steps on Vedette's definitions. It only orders what
// build_model() found: it never adds or drops a member, an escalation or a dependency. Loader thread, called
// by build_model() once the model is complete.
#pragma once

#include "config/model_builder.hpp"
#include "config/raw_object.hpp"
#include "model/model.hpp"

#include <cstdint>
#include <vector>

namespace vedette::config {

// Where build_model() took each model object from. Views; they must outlive the call.
struct BuiltFrom {
  // The definition each model object was built from, indexed like the model's vectors.
  const std::vector<const RawObject*>& hosts;
  const std::vector<const RawObject*>& services;
  const std::vector<const RawObject*>& contacts;
  const std::vector<const RawObject*>& hostgroups;
  const std::vector<const RawObject*>& servicegroups;
  const std::vector<const RawObject*>& contactgroups;
  // The store index of the definition each escalation and dependency was expanded from, parallel to the
  // model's vectors.
  const std::vector<std::uint32_t>& host_escalations;
  const std::vector<std::uint32_t>& service_escalations;
  const std::vector<std::uint32_t>& host_dependencies;
  const std::vector<std::uint32_t>& service_dependencies;
};

// Fills Servicegroup::listed_members and Contactgroup::listed_members, and sorts the model's escalation and
// dependency vectors into objects.cache order: by host (service) name, then each object's escalations, its
// execution dependencies and its notification dependencies in the order of Naemon's lists.
void order_like_naemon(const ObjectStore& store, const BuildOptions& options, const BuiltFrom& from,
                       model::Model& model);

}  // namespace vedette::config
