// Object files through the whole loader: their syntax (comments, continuations, defines, directives) and
// what they include (include_file, include_dir, cfg_dir), as Naemon's xodtemplate.c reads them.
#include "config/mapped_file.hpp"
#include "object_loader_fixture.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <sys/stat.h>

namespace vedette::config::test {
namespace {

namespace fs = std::filesystem;

TEST_F(ObjectLoaderTest, CommentsHashLinesSemicolonsAnywhereAndEscapedSemicolon) {
  load(
      "# a comment line\n"
      "  # an indented comment line\n"
      "; a semicolon comment line\n"
      "define host {\n"
      "  host_name  web01   ; trailing comment\n"
      "  alias      semi\\;colon ; comment after an escaped one\n"
      "  notes      a # is not a comment here\n"
      "  max_check_attempts 3\n"
      "}\n");
  expect_no_errors();
  EXPECT_EQ(host("web01").alias, "semi;colon");
  EXPECT_EQ(host("web01").notes, "a # is not a comment here");
}

TEST_F(ObjectLoaderTest, TrailingBackslashContinuesTheLine) {
  load(
      "define host {\n"
      "  host_name  web01\n"
      "  alias      first \\\n"
      "second\n"
      "  max_check_attempts \\\n"
      "3\n"
      "}\n");
  expect_no_errors();
  EXPECT_EQ(host("web01").alias, "first second");
  EXPECT_EQ(host("web01").max_check_attempts, 3);
}

// shared.c mmap_fgets_multiline: leading blanks of a continuation line are stripped before joining.
TEST_F(ObjectLoaderTest, ContinuationLineLeadingBlanksAreStripped) {
  load(
      "define host {\n"
      "  host_name  web01\n"
      "  alias      first \\\n"
      "             second\n"
      "  max_check_attempts 3\n"
      "}\n");
  expect_no_errors();
  EXPECT_EQ(host("web01").alias, "first second");
}

// shared.c mmap_fgets_multiline: a line ending in two backslashes ends with one backslash and does not
// continue.
TEST_F(ObjectLoaderTest, DoubleBackslashIsALiteralBackslashNotAContinuation) {
  load(
      "define host {\n"
      "  host_name  web01\n"
      "  alias      C:\\\\\n"
      "  max_check_attempts 3\n"
      "}\n");
  expect_no_errors();
  EXPECT_EQ(host("web01").alias, "C:\\");
  EXPECT_EQ(host("web01").max_check_attempts, 3);
}

TEST_F(ObjectLoaderTest, DefineWithAndWithoutSpaceBeforeBrace) {
  load(
      "define host{\n  host_name a\n  max_check_attempts 3\n}\n"
      "define host {\n  host_name b\n  max_check_attempts 3\n}\n"
      "define\thost\t{\n  host_name c\n  max_check_attempts 3\n}\n");
  expect_no_errors();
  EXPECT_EQ(m().hosts.size(), 3u);
  EXPECT_EQ(host("c").name, "c");
}

TEST_F(ObjectLoaderTest, MissingClosingBraceBeforeNextDefine) {
  load(
      "define host {\n"  // 1
      "  host_name a\n"  // 2
      "  max_check_attempts 3\n"
      "define host {\n"  // 4
      "  host_name b\n"
      "  max_check_attempts 3\n"
      "}\n");
  ASSERT_TRUE(diags_.has_errors());
  EXPECT_NE(find("Unexpected start of object definition in file '" + path("objects.cfg") +
                 "' on line 4.  Make sure you close preceding objects before starting a new one."),
            nullptr)
      << all_text();
}

TEST_F(ObjectLoaderTest, MissingClosingBraceAtEndOfFile) {
  load(
      "define host {\n"
      "  host_name a\n"
      "  max_check_attempts 3\n");
  EXPECT_NE(find("Unexpected EOF in file '" + path("objects.cfg") +
                 "' on line 3 - check for a missing closing bracket."),
            nullptr)
      << all_text();
}

TEST_F(ObjectLoaderTest, UnknownObjectType) {
  load("\ndefine hots {\n  host_name a\n}\n");
  EXPECT_NE(find("Invalid object definition type 'hots' in file '" + path("objects.cfg") + "' on line 2."),
            nullptr)
      << all_text();
  EXPECT_TRUE(m().hosts.empty());
}

TEST_F(ObjectLoaderTest, InvalidDirectiveNamesTypeDirectiveAndLine) {
  load(
      "define host {\n"
      "  host_name a\n"
      "  max_check_attempts 3\n"
      "  chek_command check_dummy\n"
      "}\n"
      "define service {\n"
      "  host_name a\n"
      "  service_description s\n"
      "  bogus 1\n"
      "}\n");
  expect_error("Invalid host object directive 'chek_command'.", "objects.cfg", 4);
  expect_error("Invalid service object directive 'bogus'.", "objects.cfg", 9);
}

TEST_F(ObjectLoaderTest, StrayTokenOutsideDefinition) {
  load("host_name a\n");
  EXPECT_NE(find("Unexpected token or statement in file '" + path("objects.cfg") + "' on line 1."), nullptr)
      << all_text();
}

TEST_F(ObjectLoaderTest, IncludeFileAndIncludeDirInsideObjectFile) {
  write("extra/one.cfg", host_def("inc1"));
  write("more/two.cfg", host_def("inc2"));
  write("more/sub/three.cfg", host_def("inc3"));
  load("include_file=" + path("extra/one.cfg") + "\ninclude_dir=" + path("more") + "\n" + host_def("main"));
  expect_no_errors();
  EXPECT_EQ(m().hosts.size(), 4u);
  EXPECT_EQ(host("inc3").name, "inc3");
}

TEST_F(ObjectLoaderTest, CfgDirRecursesAndReadsOnlyCfgFilesAndSkipsHiddenOnes) {
  write("base.cfg", k_base);
  write("objs/a.cfg", host_def("a"));
  write("objs/deep/er/b.cfg", host_def("b"));
  write("objs/c.cfg.bak", host_def("c_bak"));
  write("objs/d.txt", host_def("d_txt"));
  write("objs/.hidden.cfg", host_def("hidden"));
  write("objs/.hiddendir/e.cfg", host_def("in_hidden_dir"));
  write("objs/README", "this is not an object file\n");
  load_main("cfg_file=" + path("base.cfg") + "\ncfg_dir=" + path("objs") + "\n");
  expect_no_errors();
  Names names;
  for (const model::Host& h : m().hosts) names.emplace_back(h.name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (Names{"a", "b"}));
}

// Naemon recurses until its stack overflows (vedette -v died of SIGSEGV, a reload killed the daemon).
TEST_F(ObjectLoaderTest, IncludeFileOfItselfIsAnErrorAtTheIncludingLine) {
  load(host_def("a") + "include_file=objects.cfg\n");  // line 5
  expect_error("include cycle: '" + path("objects.cfg") + "' is already being read (it includes itself)",
               "objects.cfg", 5);
  EXPECT_EQ(errors().size(), 1u) << all_text();
}

TEST_F(ObjectLoaderTest, IncludeCycleThroughIncludeDirIsAnError) {
  write("loop/x.cfg", host_def("x") + "include_file=../objects.cfg\n");  // line 5
  write("loop/y.cfg", "\ninclude_dir=.\n");                              // line 2
  load(host_def("a") + "include_dir=loop\n");
  expect_error(
      "include cycle: '" + path("loop/../objects.cfg") + "' is already being read (it includes itself)",
      "loop/x.cfg", 5);
  expect_error("config directory '" + path("loop/.") + "' is already being read (it includes itself)",
               "loop/y.cfg", 2);
  EXPECT_EQ(errors().size(), 2u) << all_text();
}

TEST_F(ObjectLoaderTest, LinkLoopInCfgDirIsAnError) {
  write("base.cfg", k_base);
  write("objs/a.cfg", host_def("a"));
  fs::create_directory_symlink(".", path("objs/again"));
  load_main("cfg_file=" + path("base.cfg") + "\ncfg_dir=" + path("objs") + "\n");
  expect_error("config directory '" + path("objs/again") + "' is already being read (it includes itself)",
               "naemon.cfg", 2);
}

TEST_F(ObjectLoaderTest, IncludesNestDeeperThan32LevelsIsAnError) {
  for (int i = 0; i < 40; ++i)
    write("chain/" + std::to_string(i) + ".cfg", "include_file=" + std::to_string(i + 1) + ".cfg\n");
  write("chain/40.cfg", "");
  load("include_file=chain/0.cfg\n");
  // objects.cfg and chain/0 to chain/30 are open when chain/30 names chain/31.
  expect_error("includes nested deeper than 32 levels at '" + path("chain/31.cfg") + "'", "chain/30.cfg", 1);
}

// Each is refused on what open() gave, which never blocks: a FIFO hung Naemon and Vedette there, and
// /dev/zero never ends.
TEST_F(ObjectLoaderTest, IncludeOfAFifoADeviceOrAHugeFileIsAnErrorNotAHang) {
  ASSERT_EQ(::mkfifo(path("fifo.cfg").c_str(), 0600), 0);
  write("huge.cfg", "");
  fs::resize_file(path("huge.cfg"), MappedFile::k_max_size + 1);  // sparse: costs no disk
  load("include_file=fifo.cfg\ninclude_file=/dev/zero\ninclude_file=huge.cfg\ninclude_file=none.cfg\n");
  expect_error(
      "Cannot open config file '" + path("fifo.cfg") + "' for reading: is a FIFO, not a regular file",
      "objects.cfg", 1);
  expect_error("Cannot open config file '/dev/zero' for reading: is a character device, not a regular file",
               "objects.cfg", 2);
  expect_error("Cannot open config file '" + path("huge.cfg") +
                   "' for reading: is 1073741825 bytes, more than "
                   "the limit of 1073741824",
               "objects.cfg", 3);
  expect_error("Cannot open config file '" + path("none.cfg") + "' for reading: No such file or directory",
               "objects.cfg", 4);
}

// A FIFO in a cfg_dir is skipped, as Naemon skips what is not a regular file or a directory.
TEST_F(ObjectLoaderTest, CfgDirSkipsFifosAndNeverWalksProc) {
  write("base.cfg", k_base);
  write("objs/a.cfg", host_def("a"));
  ASSERT_EQ(::mkfifo(path("objs/fifo.cfg").c_str(), 0600), 0);
  fs::create_directory_symlink("/proc", path("objs/proc"));
  load_main("cfg_file=" + path("base.cfg") + "\ncfg_dir=" + path("objs") + "\n");
  expect_no_errors();
  EXPECT_TRUE(m().host_by_name.contains("a"));
  const Diagnostic* d = find("skipping '" + path("objs/proc") +
                             "': a pseudo filesystem (such as /proc) holds no configuration");
  ASSERT_NE(d, nullptr) << all_text();
  EXPECT_EQ(d->severity, Severity::warning);
  EXPECT_EQ(d->at.line, 2u);
}

TEST_F(ObjectLoaderTest, CfgDirOnProcIsAnError) {
  write("base.cfg", k_base);
  load_main("cfg_file=" + path("base.cfg") + "\ncfg_dir=/proc\n");
  expect_error(
      "config directory '/proc' is on a pseudo filesystem (such as /proc), which holds no "
      "configuration",
      "naemon.cfg", 2);
}

TEST_F(ObjectLoaderTest, RelativeIncludeFileIsResolvedAgainstTheIncludingFile) {
  // Naemon hands a relative include_file to fopen() as it is (relative to the working directory, which a
  // daemon changes); Vedette resolves it against the including file's directory (docs/compatibility.md).
  write("sub/extra.cfg", host_def("relative"));
  write("sub/objects.cfg", "include_file=extra.cfg\n");
  write("base.cfg", k_base);
  load_main("cfg_file=" + path("base.cfg") + "\ncfg_file=" + path("sub/objects.cfg") + "\n");
  expect_no_errors();
  EXPECT_TRUE(m().host_by_name.contains("relative"));
}

}  // namespace
}  // namespace vedette::config::test
