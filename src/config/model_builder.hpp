// Turns resolved raw objects into the runtime model: expands host/group lists, services on hostgroups,
// group memberships, dependencies and escalations; applies implied inheritance; resolves and checks every
// reference the way Naemon's registration and pre-flight check do. Loader thread.
#pragma once

#include "config/diagnostics.hpp"
#include "config/raw_object.hpp"
#include "model/model.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace vedette::config {

// One cfg_file or cfg_dir of the main config: the store indices, per object type, of the definitions read
// from it (includes too) are [begin, end).
struct ObjectSourceSpan {
  bool is_dir = false;
  std::array<std::uint32_t, k_object_type_count> begin{};
  std::array<std::uint32_t, k_object_type_count> end{};
};

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
  bool native_checks = true;             // main config native_checks (docs/native-checks.md)
  // The object sources in main-config order. Naemon reads every cfg_file first, then every cfg_dir, each
  // kind last-named first; the lists objects.cache shows follow that order (config/naemon_order.hpp).
  // Empty: the store's order is taken as Naemon's.
  std::vector<ObjectSourceSpan> sources;
};

// Returns the model even when errors were found (so the caller can report all of them); it must not be
// used when diags.has_errors().
[[nodiscard]] std::unique_ptr<model::Model> build_model(ObjectStore& store, const BuildOptions& options,
                                                        Diagnostics& diags);

}  // namespace vedette::config
