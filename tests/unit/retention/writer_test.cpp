// Writing retention.dat: temp file in the same directory, fsync, rename (never a torn file, no temp file
// left behind), Naemon's 0600 mode, errors reported once per episode.
#include "retention/writer.hpp"

#include "retention_test_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace vedette::retention {
namespace {

using namespace std::chrono_literals;
using test::Loaded;
using test::TempDir;

const std::string k_objects = R"(define command {
  command_name  check_a
  command_line  /bin/true
}
define host {
  host_name           web
  address             10.0.0.1
  check_command       check_a
  max_check_attempts  3
}
define service {
  host_name            web
  service_description  HTTP
  check_command        check_a
  max_check_attempts   3
}
)";

std::shared_ptr<const files::StatusSnapshot> snapshot_of(Loaded& l, Time now) {
  return test::snapshot_of(l, {}, now);
}

std::vector<std::string> directory_entries(const TempDir& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) names.push_back(e.path().filename());
  return names;
}

TEST(RetentionWriter, WritesTheFileAtomicallyWithNaemonsMode) {
  Loaded l = Loaded::from_text(k_objects);
  TempDir out;
  const std::string path = out.file("retention.dat");
  {
    Writer writer({.path = path});
    l.host("web").plugin_output = "first";
    writer.publish(snapshot_of(l, 100));
    ASSERT_TRUE(writer.wait_idle(10s));
    EXPECT_EQ(writer.stats().writes, 1u);
    l.host("web").plugin_output = "second";
    const auto snap = snapshot_of(l, 200);
    writer.publish(snap);
    ASSERT_TRUE(writer.wait_idle(10s));
    const WriterStats stats = writer.stats();
    EXPECT_EQ(stats.writes, 2u);
    EXPECT_EQ(stats.failures, 0u);
    std::string expected;
    format_retention(*snap, expected);
    EXPECT_EQ(stats.last_bytes, expected.size());
    EXPECT_EQ(test::read_text(path), expected);
  }
  EXPECT_EQ(directory_entries(out), std::vector<std::string>{"retention.dat"});
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(RetentionWriter, TheLastSnapshotIsWrittenBeforeTheWriterGoes) {
  Loaded l = Loaded::from_text(k_objects);
  TempDir out;
  const std::string path = out.file("retention.dat");
  {
    Writer writer({.path = path, .fsync = false});
    for (Time t = 1; t <= 20; ++t) writer.publish(snapshot_of(l, t));
  }  // the destructor finishes the queue: what shutdown relies on
  EXPECT_NE(test::read_text(path).find("created=20\n"), std::string::npos);
}

TEST(RetentionWriter, FailuresAreReportedOncePerEpisode) {
  Loaded l = Loaded::from_text(k_objects);
  TempDir out;
  std::mutex mutex;
  std::vector<std::string> errors;
  Writer writer({.path = out.file("missing-dir/retention.dat"), .on_error = [&](std::string_view m) {
                   std::lock_guard lock(mutex);
                   errors.emplace_back(m);
                 }});
  for (int i = 0; i < 3; ++i) {
    writer.publish(snapshot_of(l, i));
    ASSERT_TRUE(writer.wait_idle(10s));
  }
  EXPECT_EQ(writer.stats().failures, 3u);
  EXPECT_EQ(writer.stats().writes, 0u);
  std::lock_guard lock(mutex);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("Unable to create temp file"), std::string::npos) << errors[0];
}

TEST(RetentionWriter, WriteFileOnTheCallingThread) {
  Loaded l = Loaded::from_text(k_objects);
  TempDir out;
  const base::Status written = write_file(*snapshot_of(l, 5), {.path = out.file("retention.dat")});
  ASSERT_TRUE(written) << written.error();
  EXPECT_NE(test::read_text(out.file("retention.dat")).find("created=5\n"), std::string::npos);
  const base::Status missing_dir = write_file(*snapshot_of(l, 5), {.path = out.file("nope/retention.dat")});
  ASSERT_FALSE(missing_dir);
  EXPECT_FALSE(missing_dir.error().empty());
  EXPECT_TRUE(write_file(*snapshot_of(l, 5), {.path = ""}));  // retention disabled: nothing to do
}

// last_update: the later of the last check and the stamp the hot state holds from the last read, else the
// snapshot's time.
TEST(RetentionWriter, LastUpdateIsTheStampElseTheLastCheck) {
  Loaded l = Loaded::from_text(k_objects);
  auto last_update = [&] {
    std::string text;
    format_retention(*snapshot_of(l, 5), text);
    const std::size_t at = text.find("last_update=");
    return text.substr(at, text.find('\n', at) - at);
  };
  EXPECT_EQ(last_update(), "last_update=5.000000");
  state::HostState& web = l.host("web");
  web.last_update = {.sec = 100, .usec = 42};
  EXPECT_EQ(last_update(), "last_update=100.000042");
  web.has_been_checked = true;
  web.last_check = 200;
  EXPECT_EQ(last_update(), "last_update=100.000042");
  web.last_update = {};
  EXPECT_EQ(last_update(), "last_update=200.000000");
}

TEST(RetentionWriter, BuilderReusesTheMemoryOfTheLastSnapshot) {
  Loaded l = Loaded::from_text(k_objects);
  const engine::ProgramStatus program{.now = 1};
  engine::StatusSnapshotBuilder builder;
  const engine::SnapshotSource source{.model = *l.cfg.model,
                                      .main = l.cfg.main,
                                      .hosts = l.hosts,
                                      .services = l.services,
                                      .program = program};
  const files::StatusSnapshot* first = nullptr;
  {
    const auto a = builder.build(source);
    first = a.get();
  }
  const auto b = builder.build(source);
  EXPECT_EQ(b.get(), first);
  EXPECT_EQ(b->hosts.size(), 1u);
  EXPECT_EQ(b->services.size(), 1u);
}

}  // namespace
}  // namespace vedette::retention
