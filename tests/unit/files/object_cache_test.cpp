// objects.cache: every case under tests/fixtures/object_cache/ is loaded with the real loader and written;
// the result must be byte for byte the objects.cache Naemon wrote for the same configuration (README.md
// there says how), except the header's "Created:" line and the lines docs/compatibility.md lists as
// Naemon bugs Vedette does not copy (expected-differences.txt). Also: the header, atomic replacement,
// /dev/null and errors.
#include "files/object_cache.hpp"

#include "files_test_support.hpp"
#include "loaded_config.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace vedette::files {
namespace {

using test::read_file;
using test::TempDir;

namespace fs = std::filesystem;

const fs::path k_fixtures = fs::path(VEDETTE_SOURCE_DIR) / "tests/fixtures/object_cache";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The only line that depends on when the file was written.
std::string masked(std::string text) {
  const std::size_t at = text.find("# Created: ");
  if (at == std::string::npos) return text;
  const std::size_t end = text.find('\n', at);
  return text.replace(at, end - at, "# Created: <masked>");
}

// expected-differences.txt: the lines where Vedette deliberately writes something else than Naemon, one
// per line, tab-separated: object type, object name ("host;description" for a service), field, Naemon's
// value, Vedette's value. They are Naemon bugs Vedette does not copy (docs/compatibility.md). Each must
// apply to exactly one line of Naemon's file, so the list cannot go stale.
std::string apply_differences(const std::string& naemon, const fs::path& list) {
  std::vector<std::string> lines = lines_of(naemon);
  if (fs::exists(list)) {
    for (const std::string& edit : lines_of(read_file(list))) {
      if (edit.empty() || edit.front() == '#') continue;
      std::vector<std::string> f;
      std::istringstream in(edit);
      for (std::string part; std::getline(in, part, '\t');) f.push_back(part);
      if (f.size() != 5) {
        ADD_FAILURE() << list << ": not 5 tab-separated fields: " << edit;
        continue;
      }
      const std::string wanted = "\t" + f[2] + "\t" + f[3];
      int applied = 0;
      std::string type, name;
      bool service_named = false;
      for (std::string& line : lines) {
        if (line.starts_with("define ")) {
          type = line.substr(7, line.find(' ', 7) - 7);
          name.clear();
          service_named = false;
          continue;
        }
        const std::size_t tab = line.find('\t', 1);
        if (tab == std::string::npos) continue;
        const std::string key = line.substr(1, tab - 1);
        // The first field names the object; a service's description completes its name.
        if (name.empty()) {
          name = line.substr(tab + 1);
          continue;
        }
        if (type == "service" && !service_named && key == "service_description") {
          name.append(";");
          name.append(line, tab + 1);
          service_named = true;
          continue;
        }
        if (type == f[0] && name == f[1] && line == wanted) {
          line = "\t" + f[2] + "\t" + f[4];
          ++applied;
        }
      }
      if (applied != 1) ADD_FAILURE() << list << ": applies to " << applied << " lines, not 1: " << edit;
    }
  }
  std::string out;
  for (const std::string& line : lines) out += line + '\n';
  return out;
}

void expect_same(const std::string& expected, const std::string& actual, const std::string& what) {
  if (expected == actual) return;
  const std::vector<std::string> e = lines_of(expected), a = lines_of(actual);
  std::size_t i = 0;
  while (i < e.size() && i < a.size() && e[i] == a[i]) ++i;
  ADD_FAILURE() << what << ": first difference at line " << i + 1
                << "\n  naemon:  " << (i < e.size() ? e[i] : "<end of file>")
                << "\n  vedette: " << (i < a.size() ? a[i] : "<end of file>") << "\n  (" << e.size()
                << " lines against " << a.size() << ")";
}

std::vector<fs::path> cases() {
  std::vector<fs::path> out;
  for (const fs::directory_entry& entry : fs::directory_iterator(k_fixtures))
    if (fs::exists(entry.path() / "naemon.cfg") && fs::exists(entry.path() / "objects.cache"))
      out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ObjectCache, MatchesWhatNaemonWroteForEachFixture) {
  const std::vector<fs::path> dirs = cases();
  ASSERT_FALSE(dirs.empty()) << "no fixtures under " << k_fixtures;
  for (const fs::path& dir : dirs) {
    SCOPED_TRACE(dir.filename().string());
    config::SourceFiles files;
    config::Diagnostics diags;
    const config::Configuration cfg = vedette::test::load_config((dir / "naemon.cfg").string(), files, diags);
    ASSERT_NE(cfg.model, nullptr);
    std::string ours;
    format_object_cache(*cfg.model, 1700000000, ours);
    const std::string naemon =
        apply_differences(read_file(dir / "objects.cache"), dir / "expected-differences.txt");
    expect_same(masked(naemon), masked(ours), dir.filename().string());
    if (masked(naemon) != masked(ours)) {
      const fs::path saved = fs::temp_directory_path() / ("vedette-objects.cache." + dir.filename().string());
      std::ofstream(saved, std::ios::binary) << ours;
      ADD_FAILURE() << "Vedette's file is in " << saved << " (diff it against " << dir / "objects.cache"
                    << ")";
    }
  }
}

// Naemon's own sample configuration (tests/fixtures, as tests/integration/test_sample_config.py uses
// it): its object files with the placeholders filled in the way regenerate.sh fills them for Naemon.
TEST(ObjectCache, MatchesWhatNaemonWroteForItsSampleConfig) {
  const fs::path sample = fs::path(VEDETTE_SOURCE_DIR) / "tests/fixtures/naemon-sample-config";
  if (!fs::exists(sample / "conf.d")) GTEST_SKIP() << "Naemon sample config not found at " << sample;
  const fs::path dir = fs::temp_directory_path() / ("vedette-sample-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::vector<std::pair<std::string, std::string>> values = {
      {"@MAIL_PROG@", "/usr/bin/mail"}, {"@localstatedir@", "/var/lib/naemon"}, {"@naemon_user@", "naemon"}};
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(sample / "conf.d")) {
    const std::string name = entry.path().string();
    if (!entry.is_regular_file() || !name.ends_with(".cfg.in")) continue;
    std::string text;
    for (std::string line : lines_of(read_file(entry.path()))) {
      // Directive lines only, as regenerate.sh does: comments keep their placeholders.
      const std::size_t first = line.find_first_not_of(" \t");
      const bool comment = first == std::string::npos || line[first] == '#';
      for (const auto& [key, value] : values)
        for (std::size_t at = line.find(key); !comment && at != std::string::npos;
             at = line.find(key, at + value.size()))
          line.replace(at, key.size(), value);
      text += line + '\n';
    }
    const fs::path out = dir / fs::relative(entry.path(), sample).replace_extension("");
    fs::create_directories(out.parent_path());
    std::ofstream(out) << text;
  }
  std::ofstream(dir / "naemon.cfg") << "cfg_dir=conf.d\n";
  config::SourceFiles files;
  config::Diagnostics diags;
  const config::Configuration cfg = vedette::test::load_config((dir / "naemon.cfg").string(), files, diags);
  ASSERT_NE(cfg.model, nullptr);
  std::string ours;
  format_object_cache(*cfg.model, 1700000000, ours);
  fs::remove_all(dir);
  expect_same(masked(read_file(k_fixtures / "sample-config/objects.cache")), masked(ours), "sample-config");
}

// object_cache_format=nagios: the same file without the check_timeout lines Nagios 4's readers refuse.
TEST(ObjectCache, NagiosFormatLeavesOutOnlyCheckTimeout) {
  const fs::path dir = k_fixtures / "features";
  config::SourceFiles files;
  config::Diagnostics diags;
  const config::Configuration cfg = config::load_configuration((dir / "naemon.cfg").string(), files, diags);
  ASSERT_NE(cfg.model, nullptr);
  std::string naemon, nagios;
  format_object_cache(*cfg.model, 1700000000, naemon);
  format_object_cache(*cfg.model, 1700000000, nagios, ObjectCacheFormat::nagios);
  std::string expected;
  std::size_t dropped = 0;
  for (const std::string& line : lines_of(naemon)) {
    if (line.starts_with("\tcheck_timeout\t")) {
      ++dropped;
      continue;
    }
    expected += line + '\n';
  }
  EXPECT_EQ(dropped, cfg.model->hosts.size() + cfg.model->services.size());
  EXPECT_EQ(nagios, expected);
}

TEST(ObjectCache, HeaderIsNaemonsWithCtimeLine) {
  model::Model empty;
  std::string out;
  const char* old_tz = std::getenv("TZ");
  const std::string saved = old_tz != nullptr ? old_tz : "";
  ::setenv("TZ", "UTC", 1);
  ::tzset();
  format_object_cache(empty, 1700000000, out);
  if (old_tz != nullptr)
    ::setenv("TZ", saved.c_str(), 1);
  else
    ::unsetenv("TZ");
  ::tzset();
  EXPECT_EQ(out,
            "########################################\n"
            "#       NAGIOS OBJECT CACHE FILE\n"
            "#\n"
            "# THIS FILE IS AUTOMATICALLY GENERATED\n"
            "# BY NAGIOS.  DO NOT MODIFY THIS FILE!\n"
            "#\n"
            "# Created: Tue Nov 14 22:13:20 2023\n"
            "########################################\n\n");
}

TEST(ObjectCache, WritesAtomicallyWithNaemonsMode) {
  TempDir dir;
  const fs::path file = dir.path() / "objects.cache";
  { std::ofstream(file) << "old contents\n"; }
  model::Model empty;
  const ObjectCacheResult r = write_object_cache(file.string(), empty, 1700000000);
  ASSERT_TRUE(r.written) << r.error;
  EXPECT_TRUE(r.error.empty());
  std::string expected;
  format_object_cache(empty, 1700000000, expected);
  EXPECT_EQ(read_file(file), expected);
  EXPECT_EQ(r.bytes, expected.size());
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0664u);
  // No temp file is left behind.
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1u);
}

TEST(ObjectCache, DevNullAndEmptyPathWriteNothing) {
  model::Model empty;
  for (const char* path : {"", "/dev/null"}) {
    const ObjectCacheResult r = write_object_cache(path, empty, 0);
    EXPECT_FALSE(r.written) << path;
    EXPECT_TRUE(r.error.empty()) << path;
  }
}

TEST(ObjectCache, ReportsAnUnwritableDirectoryAndKeepsTheOldFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root can write anywhere";
  TempDir dir;
  const fs::path file = dir.path() / "objects.cache";
  { std::ofstream(file) << "old\n"; }
  fs::permissions(dir.path(), fs::perms::owner_read | fs::perms::owner_exec);
  model::Model empty;
  const ObjectCacheResult r = write_object_cache(file.string(), empty, 0);
  EXPECT_FALSE(r.written);
  EXPECT_NE(r.error.find("Unable to create temp file"), std::string::npos) << r.error;
  EXPECT_EQ(read_file(file), "old\n");
}

TEST(ObjectCache, ReportsAMissingDirectory) {
  model::Model empty;
  const ObjectCacheResult r = write_object_cache("/nonexistent-dir-for-vedette/objects.cache", empty, 0);
  EXPECT_FALSE(r.written);
  EXPECT_NE(r.error.find("/nonexistent-dir-for-vedette/objects.cacheXXXXXX"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace vedette::files
