// A temporary directory per test, removed afterwards, and files written into it: what the config tests
// load their main configs and object files from.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdlib.h>
#include <string>

namespace vedette::config::test {

class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/vedette_config_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  [[nodiscard]] std::string path(const std::string& rel) const { return dir_ + "/" + rel; }
  // Writes `content` to `rel` below the directory, creating what lies between; returns the full path.
  std::string write(const std::string& rel, const std::string& content) {
    const std::filesystem::path p = std::filesystem::path(dir_) / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << content;
    return p.string();
  }

  std::string dir_;
};

}  // namespace vedette::config::test
