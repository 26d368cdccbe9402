// Where status.dat is, found as naemonstats finds it: only the main config file is read (no includes,
// no cfg_dir), and the last status_file, status_log or xsddefault_status_log line wins. A relative
// value is taken from the main config file's directory. vedettestats' one thread.
#pragma once

#include <optional>
#include <string>

namespace vedette::stats {

struct StatusFilePath {
  bool config_read = false;         // false: the main config file could not be opened
  std::optional<std::string> path;  // unset: the config names no status file
};

StatusFilePath status_file_from_main_config(const std::string& main_config);

}  // namespace vedette::stats
