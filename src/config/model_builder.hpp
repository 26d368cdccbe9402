// Turns resolved raw objects into the runtime model: expands host/group lists, services on hostgroups,
// group memberships, dependencies and escalations; applies implied inheritance; resolves and checks every
// reference the way Naemon's registration and pre-flight check do. Loader thread.
#pragma once

#include "config/diagnostics.hpp"
#include "config/raw_object.hpp"
#include "model/model.hpp"

#include <memory>
#include <string>
#include <vector>

namespace vedette::config {

// The main-config settings that change how objects are built.
struct BuildOptions {
  int host_check_timeout = 30;
  int service_check_timeout = 60;
  bool use_regexp_matches = false;
  bool use_true_regexp_matching = false;
  int allow_empty_hostgroup_assignment = 0;  // 0 error, 1 accept, 2 warn
  bool allow_circular_dependencies = false;  // skips the circular path checks, as Naemon does
  std::string illegal_object_name_chars;
  std::vector<std::string> user_macros;  // $USER1$ …
};

// Returns the model even when errors were found (so the caller can report all of them); it must not be
// used when diags.has_errors().
[[nodiscard]] std::unique_ptr<model::Model> build_model(ObjectStore& store, const BuildOptions& options,
                                                        Diagnostics& diags);

}  // namespace vedette::config
