// A temporary directory (the one every folder's tests use) and whole-file reads for the files tests.
#pragma once

#include "loaded_config.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdlib.h>
#include <string>
#include <string_view>
#include <system_error>

namespace vedette::files::test {

using vedette::test::TempDir;  // loaded_config.hpp

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace vedette::files::test
