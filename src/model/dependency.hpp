// Host and service dependencies, one per master/dependent pair after expansion.
// Built by config/ on one thread; read-only, and read from any thread, once the model is published.
#pragma once

#include "model/ids.hpp"
#include "model/options.hpp"

namespace vedette::model {

enum class DependencyKind : std::uint8_t { notification, execution };

struct HostDependency {
  DependencyKind kind;
  HostId master;
  HostId dependent;
  TimeperiodId period = no_id<TimeperiodId>();
  OptionSet failure_options = k_opt_nothing;
  bool inherits_parent = false;
};

struct ServiceDependency {
  DependencyKind kind;
  ServiceId master;
  ServiceId dependent;
  TimeperiodId period = no_id<TimeperiodId>();
  OptionSet failure_options = k_opt_nothing;
  bool inherits_parent = false;
};

}  // namespace vedette::model
