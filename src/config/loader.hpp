// Loads a whole configuration: the main config file, resource files and every object file, templates
// applied, compiled into the runtime model. Loader thread (the main thread at start, a worker on reload).
//
//   SourceFiles files; Diagnostics diags;
//   Configuration cfg = load_configuration("/etc/naemon/naemon.cfg", files, diags);
//   if (diags.has_errors()) { /* report diags.all(); keep the running model */ }
#pragma once

#include "config/diagnostics.hpp"
#include "config/main_config.hpp"
#include "model/model.hpp"

#include <functional>
#include <memory>
#include <string>

namespace vedette::config {

struct Configuration {
  MainConfig main;
  bool main_config_ok = false;          // false: the object files were not read at all
  std::unique_ptr<model::Model> model;  // null when the object files could not be read
};

struct LoadOptions {
  // Called once the main config file has been read without errors, before the object files are: the
  // daemon has the kernel read retention.dat ahead then (retention/prefetch.hpp).
  std::function<void(const MainConfig&)> main_config_read;
  // The definitions as read (~0.5 GB at a million services) are freed once the model is built, unless the
  // process exits right after (vedette -v): freeing them piece by piece took ~95 ms there, for nothing.
  bool free_definitions = true;
};

[[nodiscard]] Configuration load_configuration(const std::string& main_config_path, SourceFiles& files,
                                               Diagnostics& diags, const LoadOptions& options = {});

}  // namespace vedette::config
