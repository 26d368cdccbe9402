// A configuration loaded by the real loader from text, as the unit tests of every folder need one: a
// temporary directory (removed with the object) with the object file and naemon.cfg written into it, and
// the loader's diagnostics turned into test failures. Test thread only.
//
//   test::LoadedConfig loaded("vedette_x");
//   const model::Model& m = loaded.load(k_objects, "log_file=/dev/null\n");   // objects.cfg, naemon.cfg
//
//   test::TempDir dir("vedette_x");  dir.write("naemon.cfg", "cfg_dir=conf.d\n");   // any other layout
//   config::Configuration cfg = test::load_config(dir.file("naemon.cfg"), files, diags);
#pragma once

#include "config/diagnostics.hpp"
#include "config/loader.hpp"
#include "model/model.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <stdlib.h>
#include <string>
#include <string_view>

namespace vedette::test {

// A directory of its own under the system's temporary directory, removed with everything in it.
class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "vedette_test") {
    std::string pattern = (std::filesystem::temp_directory_path() / prefix).string() + "_XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp " << pattern;
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;  // a test may have taken a permission away: give the owner's back first
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add,
                                 ignored);
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] std::string file(std::string_view rel) const { return (path_ / rel).string(); }
  // Writes `text` to `rel`, creating the folders between; returns the file's full path.
  std::string write(std::string_view rel, std::string_view text) const {
    const std::filesystem::path p = path_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }

 private:
  std::filesystem::path path_;
};

// Which of the loader's diagnostics fail the test.
enum class Failing { errors, warnings_too };

// Loads `main_path` and reports each failing diagnostic as a test failure (the test goes on).
inline config::Configuration load_config(const std::string& main_path, config::SourceFiles& files,
                                         config::Diagnostics& diags, Failing failing = Failing::errors) {
  config::Configuration cfg = config::load_configuration(main_path, files, diags);
  for (const config::Diagnostic& d : diags.all())
    if (failing == Failing::warnings_too || d.severity == config::Severity::error)
      ADD_FAILURE() << config::Diagnostics::format(d);
  return cfg;
}

// A TempDir and the configuration load() wrote into it and loaded: objects.cfg (`objects`) and naemon.cfg
// ("cfg_file=objects.cfg", then the `main` lines). Other files the configuration names go into `dir` first.
class LoadedConfig {
 public:
  explicit LoadedConfig(std::string_view prefix = "vedette_config") : dir(prefix) {}

  // Where the objects could not be read, fails the test and leaves an empty model.
  const model::Model& load(std::string_view objects, std::string_view main = "",
                           Failing failing = Failing::errors) {
    dir.write("objects.cfg", objects);
    const std::string main_path = dir.write("naemon.cfg", "cfg_file=objects.cfg\n" + std::string(main));
    diags = config::Diagnostics{};
    config = load_config(main_path, files, diags, failing);
    if (config.model == nullptr) {
      ADD_FAILURE() << "no model loaded from " << main_path;
      config.model = std::make_unique<model::Model>();
    }
    return *config.model;
  }

  [[nodiscard]] const model::Model& model() const { return *config.model; }

  TempDir dir;
  config::SourceFiles files;  // what the positions in diags point into
  config::Diagnostics diags;
  config::Configuration config;
};

}  // namespace vedette::test
