// A temporary directory per test, removed afterwards, and files written into it: what the config tests
// load their main configs and object files from (and check the loader's diagnostics of, which is why they
// load with load_configuration itself rather than loaded_config.hpp's load_config).
#pragma once

#include "loaded_config.hpp"

#include <gtest/gtest.h>

#include <string>

namespace vedette::config::test {

class TempDirTest : public ::testing::Test {
 protected:
  [[nodiscard]] std::string path(const std::string& rel) const { return temp_.file(rel); }
  // Writes `content` to `rel` below the directory, creating what lies between; returns the full path.
  std::string write(const std::string& rel, const std::string& content) { return temp_.write(rel, content); }

  vedette::test::TempDir temp_{"vedette_config"};
  std::string dir_ = temp_.path().string();
};

}  // namespace vedette::config::test
