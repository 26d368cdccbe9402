// The retention.dat reader: Naemon's block syntax, and tolerance with a warning (file and line) for what it
// cannot use: unknown keys and blocks, stray text, a block that never closes (a truncated file).
#include "retention/reader.hpp"

#include "retention_test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <sys/stat.h>

namespace vedette::retention {
namespace {

using test::TempDir;

TEST(RetentionReader, SplitsBlocksAndKeepsValuesVerbatim) {
  const Data data = parse_text(
      "# a comment\n"
      "info {\n"
      "created=1700000000\n"
      "version=1.5.2\n"
      "}\n"
      "service {\n"
      "host_name=web\n"
      "service_description=HTTP\n"
      "plugin_output=a=b {\n"
      "long_plugin_output=line 2\\nline 3\n"
      "performance_data=\n"
      "_OWNER=1;dba\n"
      "}\n");
  EXPECT_TRUE(data.warnings.empty());
  ASSERT_EQ(data.blocks.size(), 2u);
  EXPECT_EQ(data.blocks[0].kind, BlockKind::info);
  EXPECT_EQ(data.blocks[0].get(InfoKey::created), "1700000000");
  const Block& s = data.blocks[1];
  EXPECT_EQ(s.kind, BlockKind::service);
  EXPECT_EQ(s.line, 6u);
  EXPECT_EQ(s.get(CheckableKey::host_name), "web");
  // A value runs to the end of the line, '=' and a trailing '{' included.
  EXPECT_EQ(s.get(CheckableKey::plugin_output), "a=b {");
  EXPECT_EQ(s.get(CheckableKey::long_plugin_output), "line 2\\nline 3");
  EXPECT_TRUE(s.has(CheckableKey::performance_data));
  EXPECT_EQ(s.get(CheckableKey::performance_data), "");
  EXPECT_FALSE(s.has(CheckableKey::current_state));
  ASSERT_EQ(s.custom_variables.size(), 1u);
  EXPECT_EQ(s.custom_variables[0].name, "OWNER");
  EXPECT_EQ(s.custom_variables[0].value, "1;dba");
}

TEST(RetentionReader, HostAndServiceKeysMapToTheSameSlots) {
  const Data data = parse_text(
      "host {\nhost_name=a\nlast_time_down=5\nnotified_on_unreachable=1\nobsess_over_host=0\n}\n"
      "service {\nhost_name=a\nservice_description=b\nlast_time_warning=6\nnotified_on_warning=1\n}\n");
  ASSERT_EQ(data.blocks.size(), 2u);
  EXPECT_EQ(data.blocks[0].get(CheckableKey::last_time_1), "5");
  EXPECT_EQ(data.blocks[0].get(CheckableKey::notified_on_1), "1");
  EXPECT_EQ(data.blocks[0].get(CheckableKey::flag_6), "0");
  EXPECT_EQ(data.blocks[1].get(CheckableKey::last_time_1), "6");
  EXPECT_EQ(data.blocks[1].get(CheckableKey::notified_on_1), "1");
}

TEST(RetentionReader, UnknownKeysAreIgnoredWithTheirLine) {
  const Data data = parse_text(
      "host {\n"
      "host_name=a\n"
      "shoe_size=42\n"
      "last_time_ok=7\n"  // a service key in a host block
      "current_state=1\n"
      "}\n");
  ASSERT_EQ(data.blocks.size(), 1u);
  EXPECT_EQ(data.blocks[0].get(CheckableKey::current_state), "1");
  ASSERT_EQ(data.warnings.size(), 2u);
  EXPECT_EQ(data.warnings[0].line, 3u);
  EXPECT_EQ(data.warnings[0].message, "unknown variable 'shoe_size' in a host block; ignored");
  EXPECT_EQ(data.warnings[1].line, 4u);
  EXPECT_EQ(format_warning("/var/lib/naemon/retention.dat", data.warnings[0]),
            "/var/lib/naemon/retention.dat:3: unknown variable 'shoe_size' in a host block; ignored");
}

TEST(RetentionReader, UnknownBlocksAndStrayLinesAreSkipped) {
  const Data data = parse_text(
      "hoststatus {\n"
      "host_name=a\n"
      "}\n"
      "garbage\n"
      "}\n"
      "host {\n"
      "no equals sign here\n"
      "host_name=b\n"
      "}\n");
  ASSERT_EQ(data.blocks.size(), 1u);
  EXPECT_EQ(data.blocks[0].get(CheckableKey::host_name), "b");
  ASSERT_EQ(data.warnings.size(), 4u);
  EXPECT_EQ(data.warnings[0].line, 1u);
  EXPECT_EQ(data.warnings[0].message, "unknown block 'hoststatus'; ignored");
  EXPECT_EQ(data.warnings[1].line, 4u);
  EXPECT_EQ(data.warnings[1].message, "text outside a block; ignored");
  EXPECT_EQ(data.warnings[2].line, 5u);
  EXPECT_EQ(data.warnings[2].message, "'}' outside a block; ignored");
  EXPECT_EQ(data.warnings[3].line, 7u);
}

// A truncated file: the last block has no closing brace. It is dropped whole (never half-applied) and the
// blocks before it are kept.
TEST(RetentionReader, TornFileDropsTheUnfinishedBlock) {
  const Data data = parse_text(
      "host {\n"
      "host_name=a\n"
      "current_state=1\n"
      "}\n"
      "service {\n"
      "host_name=a\n"
      "service_description=b\n"
      "current_sta");
  ASSERT_EQ(data.blocks.size(), 1u);
  EXPECT_EQ(data.blocks[0].get(CheckableKey::host_name), "a");
  ASSERT_EQ(data.warnings.size(), 2u);
  EXPECT_EQ(data.warnings[0].line, 8u);  // "current_sta" has no '='
  EXPECT_EQ(data.warnings[1].line, 5u);
  EXPECT_EQ(data.warnings[1].message, "service block not closed at the end of the file; ignored");
}

TEST(RetentionReader, BlockOpenedBeforeTheLastOneClosedDropsTheLastOne) {
  const Data data = parse_text(
      "host {\n"
      "host_name=a\n"
      "host {\n"
      "host_name=b\n"
      "}\n");
  ASSERT_EQ(data.blocks.size(), 1u);
  EXPECT_EQ(data.blocks[0].get(CheckableKey::host_name), "b");
  ASSERT_EQ(data.warnings.size(), 1u);
  EXPECT_EQ(data.warnings[0].line, 1u);
  EXPECT_EQ(data.warnings[0].message, "host block not closed before line 3; ignored");
}

TEST(RetentionReader, EveryPrefixOfAFileParsesWithoutCrashing) {
  const std::string text = test::read_text(test::fixture_dir() + "/retention.dat");
  ASSERT_FALSE(text.empty());
  std::size_t complete = 0;
  for (std::size_t n = 0; n <= text.size(); n += 7) {
    const Data data = parse_text(text.substr(0, n));
    EXPECT_GE(data.blocks.size(), complete);
    complete = data.blocks.size();
  }
  EXPECT_TRUE(parse_text(text).warnings.empty());
}

TEST(RetentionReader, CrLfLineEndingsAndBlankLinesAreAccepted) {
  const Data data = parse_text("\r\nhost {\r\nhost_name=a\r\n\r\ncurrent_state=2\r\n}\r\n");
  EXPECT_TRUE(data.warnings.empty());
  ASSERT_EQ(data.blocks.size(), 1u);
  EXPECT_EQ(data.blocks[0].get(CheckableKey::current_state), "2");
}

TEST(RetentionReader, MissingAndUnreadableFiles) {
  TempDir dir;
  const Data missing = read_file(dir.file("retention.dat"));
  EXPECT_EQ(missing.status, Data::Status::missing);
  const Data is_dir = read_file(dir.path().string());
  EXPECT_EQ(is_dir.status, Data::Status::error);
  EXPECT_FALSE(is_dir.error.empty());
  dir.write("empty.dat", "");
  const Data empty = read_file(dir.file("empty.dat"));
  EXPECT_EQ(empty.status, Data::Status::ok);
  EXPECT_TRUE(empty.blocks.empty());
}

// A FIFO or a device in place of retention.dat is refused at once: open() would have waited for a writer,
// /dev/zero never ends.
TEST(RetentionReader, SpecialFilesAreRefusedNotWaitedOn) {
  TempDir dir;
  ASSERT_EQ(::mkfifo(dir.file("retention.dat").c_str(), 0600), 0);
  const Data fifo = read_file(dir.file("retention.dat"));
  EXPECT_EQ(fifo.status, Data::Status::error);
  EXPECT_EQ(fifo.error, "is a FIFO, not a regular file");
  const Data zero = read_file("/dev/zero");
  EXPECT_EQ(zero.status, Data::Status::error);
  EXPECT_EQ(zero.error, "is a character device, not a regular file");
}

}  // namespace
}  // namespace vedette::retention
