// A small configuration for the fuzz targets that need a model (external commands, Livestatus,
// retention.dat): written once into a private temporary directory and loaded with the real loader.
// Single-threaded; the configuration lives until the process ends.
#pragma once

#include "config/loader.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace vedette::fuzz {

inline constexpr const char* k_objects = R"(define command {
  command_name  check_dummy
  command_line  /bin/true $ARG1$ $HOSTNAME$
}
define timeperiod {
  timeperiod_name  24x7
  alias            always
  monday           00:00-24:00
  tuesday          00:00-24:00
}
define contact {
  contact_name                   admin
  alias                          Administrator
  host_notification_commands     check_dummy
  service_notification_commands  check_dummy
  host_notification_period       24x7
  service_notification_period    24x7
  _PAGER                         555
}
define contactgroup {
  contactgroup_name  ops
  members            admin
}
define host {
  host_name              web
  address                10.0.0.1
  check_command          check_dummy!1
  check_period           24x7
  max_check_attempts     3
  contact_groups         ops
  hostgroups             webs
  _OS                    linux
}
define host {
  host_name              db
  address                10.0.0.2
  check_command          check_dummy!2
  max_check_attempts     3
  parents                web
}
define hostgroup {
  hostgroup_name  webs
}
define service {
  host_name              web,db
  service_description    HTTP
  check_command          check_dummy!80
  max_check_attempts     4
  contacts               admin
  servicegroups          sg
}
define servicegroup {
  servicegroup_name  sg
}
)";

// A fresh directory under /tmp for this process, removed by no one: fuzz runs are short-lived.
inline std::filesystem::path private_dir(const char* what) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / (std::string("vedette-fuzz-") + what + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

// The configuration above with `main_extra` appended to its main config. Aborts if it does not load: the
// fuzz target would test nothing.
inline config::Configuration load_small_config(const std::filesystem::path& dir, const std::string& main_extra) {
  std::ofstream(dir / "objects.cfg") << k_objects;
  std::ofstream(dir / "naemon.cfg") << "cfg_file=" << (dir / "objects.cfg").string() << "\n" << main_extra;
  static config::SourceFiles files;  // the SourcePos values in the result point into it
  config::Diagnostics diags;
  config::Configuration cfg = config::load_configuration((dir / "naemon.cfg").string(), files, diags);
  if (diags.has_errors() || cfg.model == nullptr) std::abort();
  return cfg;
}

}  // namespace vedette::fuzz
