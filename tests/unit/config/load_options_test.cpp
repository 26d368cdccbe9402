// What a caller of load_configuration() can ask for: to hear of the main config before the object files are
// read, and to leave the definitions allocated when it exits right after. Neither changes what is loaded.
#include "config/loader.hpp"
#include "loaded_config.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

namespace vedette::config {
namespace {

using test::TempDir;

constexpr std::string_view k_objects =
    "define command {\n  command_name c\n  command_line /bin/true\n}\n"
    "define host {\n  name tmpl\n  register 0\n  check_command c\n  max_check_attempts 3\n}\n"
    "define host {\n  use tmpl\n  host_name h1\n}\n"
    "define host {\n  use tmpl\n  host_name h2\n  parents nowhere\n}\n"
    "define service {\n  host_name h1,h2\n  service_description s\n  check_command c\n"
    "  max_check_attempts 2\n}\n";

std::vector<std::string> formatted(const Diagnostics& diags) {
  std::vector<std::string> out;
  for (const Diagnostic& d : diags.all()) out.push_back(Diagnostics::format(d));
  return out;
}

TEST(LoadOptions, TheMainConfigIsHandedOverOnceBeforeTheObjectFilesAreRead) {
  TempDir dir;
  dir.write("objects.cfg", k_objects);
  const std::string main =
      dir.write("naemon.cfg", "cfg_file=objects.cfg\nstate_retention_file=/x/retention.dat\n");
  SourceFiles files;
  Diagnostics diags;
  int calls = 0;
  std::string retention_file;
  LoadOptions options;
  options.main_config_read = [&](const MainConfig& m) {
    ++calls;
    retention_file = m.state_retention_file;
    // The object files are not read yet: no position points into them.
    for (const Diagnostic& d : diags.all()) EXPECT_EQ(d.at.file, nullptr);
  };
  const Configuration cfg = load_configuration(main, files, diags, options);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(retention_file, "/x/retention.dat");
  ASSERT_NE(cfg.model, nullptr);
  EXPECT_EQ(cfg.model->hosts.size(), 2u);
}

TEST(LoadOptions, AMainConfigWithErrorsIsNotHandedOver) {
  TempDir dir;
  const std::string main = dir.write("naemon.cfg", "cfg_file=objects.cfg\ninterval_length=abc\n");
  SourceFiles files;
  Diagnostics diags;
  int calls = 0;
  LoadOptions options;
  options.main_config_read = [&](const MainConfig&) { ++calls; };
  const Configuration cfg = load_configuration(main, files, diags, options);
  EXPECT_TRUE(diags.has_errors());
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(cfg.model, nullptr);
}

TEST(LoadOptions, KeepingTheDefinitionsLoadsTheSameModelAndDiagnostics) {
  TempDir dir;
  dir.write("objects.cfg", k_objects);
  const std::string main = dir.write("naemon.cfg", "cfg_file=objects.cfg\n");
  SourceFiles freed_files, kept_files;
  Diagnostics freed_diags, kept_diags;
  const Configuration freed = load_configuration(main, freed_files, freed_diags);
  LoadOptions keep;
  keep.free_definitions = false;
  Configuration kept;
  {
#if defined(__SANITIZE_ADDRESS__)
    const __lsan::ScopedDisabler left_allocated_on_purpose;
#endif
    kept = load_configuration(main, kept_files, kept_diags, keep);
  }
  EXPECT_EQ(formatted(kept_diags), formatted(freed_diags));
  EXPECT_FALSE(formatted(kept_diags).empty());  // the parent that does not exist
  ASSERT_EQ(kept.model == nullptr, freed.model == nullptr);
  if (kept.model != nullptr) {
    EXPECT_EQ(kept.model->hosts.size(), freed.model->hosts.size());
    EXPECT_EQ(kept.model->services.size(), freed.model->services.size());
  }
}

}  // namespace
}  // namespace vedette::config
