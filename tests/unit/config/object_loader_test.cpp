// Object configuration through the whole loader (load_configuration): syntax, templates, implied
// inheritance, membership, expansion and validation, each checked against what Naemon's xodtemplate.c does.
#include "config/loader.hpp"
#include "config/mapped_file.hpp"
#include "config_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace vedette::config {
namespace {

namespace fs = std::filesystem;

// Objects most tests need: a command, a timeperiod, a contact and a contactgroup.
constexpr const char* k_base = R"(define command {
  command_name  check_dummy
  command_line  /bin/true
}
define timeperiod {
  timeperiod_name  24x7
  alias            always
  monday           00:00-24:00
}
define timeperiod {
  timeperiod_name  work
  alias            work hours
  monday           09:00-17:00
}
define contact {
  contact_name                   admin
  host_notification_commands     check_dummy
  service_notification_commands  check_dummy
  host_notification_period       24x7
  service_notification_period    24x7
}
define contact {
  contact_name                   oncall
  host_notification_commands     check_dummy
  service_notification_commands  check_dummy
  host_notification_period       24x7
  service_notification_period    24x7
}
define contactgroup {
  contactgroup_name  admins
  alias              admins
  members            admin
}
define contactgroup {
  contactgroup_name  ops
  alias              ops
}
)";

std::string host_def(const std::string& name, const std::string& extra = "") {
  return "define host {\n  host_name " + name + "\n  max_check_attempts 3\n" + extra + "}\n";
}

std::string service_def(const std::string& host, const std::string& desc, const std::string& extra = "") {
  return "define service {\n  host_name " + host + "\n  service_description " + desc +
         "\n  check_command check_dummy\n  max_check_attempts 3\n" + extra + "}\n";
}

class ObjectLoaderTest : public test::TempDirTest {
 protected:
  // Writes base.cfg (k_base), objects.cfg (`objects`) and a main config naming both; loads it.
  const model::Model& load(const std::string& objects, const std::string& main_extra = "") {
    write("base.cfg", k_base);
    write("objects.cfg", objects);
    return load_main("cfg_file=" + path("base.cfg") + "\ncfg_file=" + path("objects.cfg") + "\n" +
                     main_extra);
  }

  // Loads a main config with the given text, no base objects.
  const model::Model& load_main(const std::string& main_text) {
    cfg_ = load_configuration(write("naemon.cfg", main_text), files_, diags_);
    if (!cfg_.model) cfg_.model = std::make_unique<model::Model>();
    return *cfg_.model;
  }

  std::vector<Diagnostic> errors() const {
    std::vector<Diagnostic> out;
    for (const Diagnostic& d : diags_.all())
      if (d.severity == Severity::error) out.push_back(d);
    return out;
  }
  std::string all_text() const {
    std::string out;
    for (const Diagnostic& d : diags_.all()) out += Diagnostics::format(d) + "\n";
    return out;
  }
  // The diagnostic with exactly this message, or null.
  const Diagnostic* find(const std::string& message) const {
    for (const Diagnostic& d : diags_.all())
      if (d.message == message) return &d;
    return nullptr;
  }
  // Asserts an error with this exact message at file:line.
  void expect_error(const std::string& message, const std::string& file, std::uint32_t line) const {
    const Diagnostic* d = find(message);
    ASSERT_NE(d, nullptr) << "missing: " << message << "\ngot:\n" << all_text();
    EXPECT_EQ(d->severity, Severity::error) << message;
    ASSERT_NE(d->at.file, nullptr) << message;
    EXPECT_EQ(*d->at.file, path(file)) << message;
    EXPECT_EQ(d->at.line, line) << message;
  }
  void expect_no_errors() const { EXPECT_FALSE(diags_.has_errors()) << all_text(); }

  const model::Model& m() const { return *cfg_.model; }
  const model::Host& host(const std::string& name) const {
    auto it = m().host_by_name.find(name);
    EXPECT_NE(it, m().host_by_name.end()) << "no host " << name << "\n" << all_text();
    static const model::Host none{};
    return it == m().host_by_name.end() ? none : m().host(it->second);
  }
  const model::Service& service(const std::string& h, const std::string& desc) const {
    model::ServiceId id = m().find_service(h, desc);
    EXPECT_TRUE(model::is_set(id)) << "no service " << h << ";" << desc << "\n" << all_text();
    static const model::Service none{};
    return model::is_set(id) ? m().service(id) : none;
  }
  std::vector<std::string> host_names(const std::vector<model::HostId>& ids) const {
    std::vector<std::string> out;
    for (model::HostId id : ids) out.emplace_back(m().host(id).name);
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<std::string> service_names(const std::vector<model::ServiceId>& ids) const {
    std::vector<std::string> out;
    for (model::ServiceId id : ids)
      out.push_back(std::string(m().service(id).host_name) + ";" + std::string(m().service(id).description));
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<std::string> contact_names(const std::vector<model::ContactId>& ids) const {
    std::vector<std::string> out;
    for (model::ContactId id : ids) out.emplace_back(m().contacts[model::index(id)].name);
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<std::string> contactgroup_names(const std::vector<model::ContactgroupId>& ids) const {
    std::vector<std::string> out;
    for (model::ContactgroupId id : ids) out.emplace_back(m().contactgroups[model::index(id)].name);
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<std::string> hostgroup_names(const std::vector<model::HostgroupId>& ids) const {
    std::vector<std::string> out;
    for (model::HostgroupId id : ids) out.emplace_back(m().hostgroups[model::index(id)].name);
    std::sort(out.begin(), out.end());
    return out;
  }
  const model::Hostgroup& hostgroup(const std::string& name) const {
    return m().hostgroups[model::index(m().hostgroup_by_name.at(name))];
  }
  const model::Contactgroup& contactgroup(const std::string& name) const {
    return m().contactgroups[model::index(m().contactgroup_by_name.at(name))];
  }
  std::string_view period_name(model::TimeperiodId id) const {
    return model::is_set(id) ? m().timeperiods[model::index(id)].name : std::string_view{};
  }
  std::string_view custom(const std::vector<model::CustomVariable>& vars, std::string_view name) const {
    for (const model::CustomVariable& v : vars)
      if (v.name == name) return v.value;
    return "<unset>";
  }
  std::size_t services_on(const std::string& h) const { return host(h).services.size(); }

  SourceFiles files_;
  Diagnostics diags_;
  Configuration cfg_;
};

using Names = std::vector<std::string>;

// ---------------------------------------------------------------------------------------------- syntax

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
  write("loop/y.cfg", "\ninclude_dir=.\n");                               // line 2
  load(host_def("a") + "include_dir=loop\n");
  expect_error("include cycle: '" + path("loop/../objects.cfg") + "' is already being read (it includes itself)",
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
  expect_error("Cannot open config file '" + path("fifo.cfg") + "' for reading: is a FIFO, not a regular file",
               "objects.cfg", 1);
  expect_error("Cannot open config file '/dev/zero' for reading: is a character device, not a regular file",
               "objects.cfg", 2);
  expect_error("Cannot open config file '" + path("huge.cfg") + "' for reading: is 1073741825 bytes, more than "
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
  const Diagnostic* d =
      find("skipping '" + path("objs/proc") + "': a pseudo filesystem (such as /proc) holds no configuration");
  ASSERT_NE(d, nullptr) << all_text();
  EXPECT_EQ(d->severity, Severity::warning);
  EXPECT_EQ(d->at.line, 2u);
}

TEST_F(ObjectLoaderTest, CfgDirOnProcIsAnError) {
  write("base.cfg", k_base);
  load_main("cfg_file=" + path("base.cfg") + "\ncfg_dir=/proc\n");
  expect_error("config directory '/proc' is on a pseudo filesystem (such as /proc), which holds no "
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

// ------------------------------------------------------------------------------------------- templates

TEST_F(ObjectLoaderTest, TemplateNameUseAndRegisterZeroIsNotAnObject) {
  load(
      "define host {\n  name base-host\n  max_check_attempts 7\n  check_interval 2\n  register 0\n}\n"
      "define host {\n  name tmpl-but-registered\n  host_name real-from-template\n  max_check_attempts 1\n}\n"
      "define host {\n  host_name web01\n  use base-host\n}\n");
  expect_no_errors();
  EXPECT_EQ(m().hosts.size(), 2u);
  EXPECT_FALSE(m().host_by_name.contains("base-host"));
  EXPECT_EQ(host("web01").max_check_attempts, 7);
  EXPECT_DOUBLE_EQ(host("web01").check_interval, 2.0);
}

TEST_F(ObjectLoaderTest, MultipleUseFirstListedTemplateWins) {
  load(
      "define host {\n  name t1\n  notes from-t1\n  max_check_attempts 1\n  register 0\n}\n"
      "define host {\n  name t2\n  notes from-t2\n  alias alias-t2\n  max_check_attempts 2\n  register 0\n}\n"
      "define host {\n  host_name web01\n  use t1,t2\n}\n"
      "define host {\n  host_name web02\n  use t2, t1\n}\n");
  expect_no_errors();
  EXPECT_EQ(host("web01").notes, "from-t1");
  EXPECT_EQ(host("web01").alias, "alias-t2");
  EXPECT_EQ(host("web01").max_check_attempts, 1);
  EXPECT_EQ(host("web02").notes, "from-t2");
  EXPECT_EQ(host("web02").max_check_attempts, 2);
}

TEST_F(ObjectLoaderTest, DeepTemplateChains) {
  std::string text = "define host {\n  name t0\n  notes deep\n  max_check_attempts 4\n  register 0\n}\n";
  for (int i = 1; i <= 20; ++i)
    text += "define host {\n  name t" + std::to_string(i) + "\n  use t" + std::to_string(i - 1) +
            "\n  register 0\n}\n";
  text += "define host {\n  name t21\n  use t20\n  alias mid\n  register 0\n}\n";
  text += "define host {\n  host_name web01\n  use t21\n}\n";
  load(text);
  expect_no_errors();
  EXPECT_EQ(host("web01").notes, "deep");
  EXPECT_EQ(host("web01").alias, "mid");
  EXPECT_EQ(host("web01").max_check_attempts, 4);
}

// Naemon's xodtemplate_resolve_host stops silently at a loop (has_been_resolved); Vedette reports it on
// purpose (docs/compatibility.md).
TEST_F(ObjectLoaderTest, TemplateCycleIsAnError) {
  load(
      "define host {\n  name a\n  use b\n  register 0\n}\n"  // 1
      "define host {\n  name b\n  use a\n  register 0\n}\n"  // 6
      "define host {\n  host_name web01\n  use a\n  max_check_attempts 3\n}\n");
  ASSERT_TRUE(diags_.has_errors());
  bool found = false;
  for (const Diagnostic& d : errors())
    found |= d.message.find("circular chain of templates") != std::string::npos;
  EXPECT_TRUE(found) << all_text();
}

TEST_F(ObjectLoaderTest, MissingTemplateExactMessage) {
  load("\n\n" + host_def("web01", "  use nosuch\n"));
  expect_error("Template 'nosuch' specified in host definition could not be found", "objects.cfg", 3);
  EXPECT_EQ(Diagnostics::format(*find("Template 'nosuch' specified in host definition could not be found")),
            "Error: Template 'nosuch' specified in host definition could not be found (config file '" +
                path("objects.cfg") + "', starting on line 3)");
}

TEST_F(ObjectLoaderTest, AdditiveInheritanceOfHostgroupsAndContactGroups) {
  load(
      "define hostgroup {\n  hostgroup_name g1\n}\ndefine hostgroup {\n  hostgroup_name g2\n}\n"
      "define host {\n  name t\n  hostgroups g1\n  contact_groups admins\n  register 0\n}\n" +
      host_def("web01", "  use t\n  hostgroups +g2\n  contact_groups +ops\n") +
      host_def("web02", "  use t\n  hostgroups g2\n  contact_groups ops\n"));
  expect_no_errors();
  EXPECT_EQ(hostgroup_names(host("web01").hostgroups), (Names{"g1", "g2"}));
  EXPECT_EQ(contactgroup_names(host("web01").contact_groups), (Names{"admins", "ops"}));
  EXPECT_EQ(hostgroup_names(host("web02").hostgroups), (Names{"g2"}));
  EXPECT_EQ(contactgroup_names(host("web02").contact_groups), (Names{"ops"}));
  EXPECT_EQ(host_names(hostgroup("g1").members), (Names{"web01"}));
}

TEST_F(ObjectLoaderTest, AdditiveInheritanceOfGroupMembersAcrossTwoLevels) {
  load(host_def("a") + host_def("b") + host_def("c") +
       "define hostgroup {\n  name gt0\n  members a\n  register 0\n}\n"
       "define hostgroup {\n  name gt1\n  use gt0\n  members +b\n  register 0\n}\n"
       "define hostgroup {\n  hostgroup_name g\n  use gt1\n  members +c\n}\n");
  expect_no_errors();
  EXPECT_EQ(host_names(hostgroup("g").members), (Names{"a", "b", "c"}));
}

TEST_F(ObjectLoaderTest, PlusWithNothingToInheritIsStripped) {
  load("define hostgroup {\n  hostgroup_name g1\n}\n" + host_def("web01", "  hostgroups +g1\n") +
       host_def("web02", "  contact_groups +admins\n"));
  expect_no_errors();
  EXPECT_EQ(hostgroup_names(host("web01").hostgroups), (Names{"g1"}));
  EXPECT_EQ(contactgroup_names(host("web02").contact_groups), (Names{"admins"}));
}

TEST_F(ObjectLoaderTest, NullBlocksInheritance) {
  load(
      "define host {\n  name t\n  check_command check_dummy\n  notes tnotes\n  contact_groups admins\n"
      "  register 0\n}\n" +
      host_def("web01", "  use t\n  check_command null\n  notes null\n  contact_groups null\n") +
      host_def("web02", "  use t\n"));
  expect_no_errors();
  EXPECT_FALSE(host("web01").check_command.is_set());
  EXPECT_EQ(host("web01").notes, "");
  EXPECT_TRUE(host("web01").contact_groups.empty());
  EXPECT_TRUE(host("web02").check_command.is_set());
  EXPECT_EQ(host("web02").notes, "tnotes");
}

TEST_F(ObjectLoaderTest, CustomVariablesUpperCasedInheritedOwnWins) {
  load("define host {\n  name t\n  _Rack r1\n  _snmp_community public\n  register 0\n}\n" +
       host_def("web01", "  use t\n  _snmp_community secret\n  _os linux\n") +
       "define service {\n  name st\n  _Proto tcp\n  register 0\n}\n" +
       service_def("web01", "s", "  use st\n"));
  expect_no_errors();
  const auto& vars = host("web01").custom_variables;
  EXPECT_EQ(vars.size(), 3u);
  // Stored upper-cased without the leading '_' (Naemon: customvarname = variable + 1, then toupper).
  EXPECT_EQ(custom(vars, "RACK"), "r1");
  EXPECT_EQ(custom(vars, "SNMP_COMMUNITY"), "secret");
  EXPECT_EQ(custom(vars, "OS"), "linux");
  EXPECT_EQ(custom(service("web01", "s").custom_variables, "PROTO"), "tcp");
}

TEST_F(ObjectLoaderTest, OldDirectiveAliases) {
  load(
      "define hostgroup {\n  hostgroup_name g1\n}\n"
      "define servicegroup {\n  servicegroup_name sg1\n}\n" +
      host_def("web01",
               "  normal_check_interval 7\n  retry_check_interval 3\n  host_groups g1\n"
               "  checks_enabled 0\n  obsess_over_host 0\n") +
      "define service {\n  hosts web01\n  description old-style\n  check_command check_dummy\n"
      "  max_check_attempts 2\n  normal_check_interval 9\n  retry_check_interval 4\n"
      "  service_groups sg1\n  obsess_over_service 0\n}\n");
  expect_no_errors();
  const model::Host& h = host("web01");
  EXPECT_DOUBLE_EQ(h.check_interval, 7.0);
  EXPECT_DOUBLE_EQ(h.retry_interval, 3.0);
  EXPECT_EQ(hostgroup_names(h.hostgroups), (Names{"g1"}));
  EXPECT_FALSE(h.active_checks_enabled);
  EXPECT_FALSE(h.obsess);
  const model::Service& s = service("web01", "old-style");
  EXPECT_DOUBLE_EQ(s.check_interval, 9.0);
  EXPECT_DOUBLE_EQ(s.retry_interval, 4.0);
  EXPECT_EQ(s.servicegroups.size(), 1u);
  EXPECT_FALSE(s.obsess);
}

// --------------------------------------------------------------------------------- implied inheritance

TEST_F(ObjectLoaderTest, ServiceTakesContactsAndPeriodsAndIntervalFromItsHost) {
  load(host_def("web01",
                "  contacts oncall\n  contact_groups admins\n  notification_interval 17\n"
                "  notification_period work\n  check_period work\n") +
       service_def("web01", "inherits") +
       service_def("web01", "own-group", "  contact_groups ops\n  notification_interval 5\n") +
       service_def("web01", "own-contact", "  contacts admin\n  check_period 24x7\n"));
  expect_no_errors();
  const model::Service& s = service("web01", "inherits");
  EXPECT_EQ(contact_names(s.contacts), (Names{"oncall"}));
  EXPECT_EQ(contactgroup_names(s.contact_groups), (Names{"admins"}));
  EXPECT_DOUBLE_EQ(s.notification_interval, 17.0);
  EXPECT_EQ(period_name(s.notification_period), "work");
  EXPECT_EQ(period_name(s.check_period), "work");
  // Having either contacts or contact_groups stops both from being inherited.
  const model::Service& g = service("web01", "own-group");
  EXPECT_TRUE(g.contacts.empty());
  EXPECT_EQ(contactgroup_names(g.contact_groups), (Names{"ops"}));
  EXPECT_DOUBLE_EQ(g.notification_interval, 5.0);
  const model::Service& c = service("web01", "own-contact");
  EXPECT_EQ(contact_names(c.contacts), (Names{"admin"}));
  EXPECT_TRUE(c.contact_groups.empty());
  EXPECT_EQ(period_name(c.check_period), "24x7");
}

TEST_F(ObjectLoaderTest, EscalationsTakeContactsIntervalAndPeriodFromTheirObject) {
  load(
      host_def("web01", "  contact_groups admins\n  notification_interval 11\n  notification_period work\n") +
      service_def("web01", "s",
                  "  contacts oncall\n  notification_interval 13\n  notification_period 24x7\n") +
      "define hostescalation {\n  host_name web01\n  first_notification 2\n  last_notification 4\n}\n"
      "define serviceescalation {\n  host_name web01\n  service_description s\n  first_notification 1\n"
      "  last_notification 0\n}\n");
  expect_no_errors();
  ASSERT_EQ(m().host_escalations.size(), 1u);
  const model::EscalationRule& hr = m().host_escalations[0].rule;
  EXPECT_EQ(contactgroup_names(hr.contact_groups), (Names{"admins"}));
  EXPECT_DOUBLE_EQ(hr.notification_interval, 11.0);
  EXPECT_EQ(period_name(hr.period), "work");
  EXPECT_EQ(hr.first_notification, 2);
  EXPECT_EQ(hr.last_notification, 4);
  ASSERT_EQ(m().service_escalations.size(), 1u);
  const model::EscalationRule& sr = m().service_escalations[0].rule;
  EXPECT_EQ(contact_names(sr.contacts), (Names{"oncall"}));
  EXPECT_DOUBLE_EQ(sr.notification_interval, 13.0);
  EXPECT_EQ(period_name(sr.period), "24x7");
}

TEST_F(ObjectLoaderTest, EscalationPlusContactsAddToTheObjectsContacts) {
  load(host_def("web01", "  contacts admin\n  contact_groups admins\n") +
       "define hostescalation {\n  host_name web01\n  contacts +oncall\n  first_notification 1\n"
       "  last_notification 0\n}\n");
  expect_no_errors();
  ASSERT_EQ(m().host_escalations.size(), 1u);
  const model::EscalationRule& r = m().host_escalations[0].rule;
  EXPECT_EQ(contact_names(r.contacts), (Names{"admin", "oncall"}));
  // contacts were given, so contact_groups are not inherited
  EXPECT_TRUE(r.contact_groups.empty());
}

// ------------------------------------------------------------------------------------------ membership

TEST_F(ObjectLoaderTest, HostgroupsFromHostsMembersAndNestedGroups) {
  load(host_def("a", "  hostgroups inner\n") + host_def("b") + host_def("c") +
       "define hostgroup {\n  hostgroup_name inner\n  members b\n}\n"
       "define hostgroup {\n  hostgroup_name outer\n  members c\n  hostgroup_members inner\n}\n"
       "define hostgroup {\n  hostgroup_name top\n  hostgroup_members outer\n}\n");
  expect_no_errors();
  EXPECT_EQ(host_names(hostgroup("inner").members), (Names{"a", "b"}));
  EXPECT_EQ(host_names(hostgroup("outer").members), (Names{"a", "b", "c"}));
  EXPECT_EQ(host_names(hostgroup("top").members), (Names{"a", "b", "c"}));
  EXPECT_EQ(hostgroup_names(host("a").hostgroups), (Names{"inner", "outer", "top"}));
}

// g26 includes g25 includes ... g0, each with a host of its own: a group is expanded once, after the ones it
// includes, so each list is as long as its members (appending already expanded lists again doubled them
// per level: 600 MB at this depth).
TEST_F(ObjectLoaderTest, DeepHostgroupAndServicegroupChainsExpandOnce) {
  constexpr int k_depth = 27;
  std::string objects;
  for (int i = 0; i < k_depth; ++i) {
    const std::string n = std::to_string(i);
    const std::string below = std::to_string(i - 1);
    objects += host_def("h" + n) + service_def("h" + n, "s");
    objects += "define hostgroup {\n  hostgroup_name g" + n + "\n  members h" + n +
               (i > 0 ? "\n  hostgroup_members g" + below : "") + "\n}\n";
    objects += "define servicegroup {\n  servicegroup_name sg" + n + "\n  members h" + n + ",s" +
               (i > 0 ? "\n  servicegroup_members sg" + below : "") + "\n}\n";
  }
  load(objects);
  expect_no_errors();
  for (int i = 0; i < k_depth; ++i) {
    const std::string n = std::to_string(i);
    EXPECT_EQ(hostgroup("g" + n).members.size(), static_cast<std::size_t>(i + 1)) << n;
    const auto& sg = m().servicegroups[model::index(m().servicegroup_by_name.at("sg" + n))];
    EXPECT_EQ(sg.members.size(), static_cast<std::size_t>(i + 1)) << n;
    EXPECT_EQ(sg.listed_members.size(), sg.members.size()) << n;
    EXPECT_EQ(host("h" + n).hostgroups.size(), static_cast<std::size_t>(k_depth - i)) << n;
  }
}

// As Naemon: a *group_members loop is an error (Naemon's "part of a hostgroup_members include loop"), named
// at the definition that closes it; a load that took it as harmless grew to 0.9 GB at 23 groups.
TEST_F(ObjectLoaderTest, HostgroupMembersLoopIsAnError) {
  constexpr int k_groups = 23;
  std::string objects = host_def("a");  // lines 1-4
  for (int i = 0; i < k_groups; ++i)    // each definition is 5 lines
    objects += "define hostgroup {\n  hostgroup_name g" + std::to_string(i) + "\n  members a\n" +
               "  hostgroup_members g" + std::to_string((i + 1) % k_groups) + "\n}\n";
  load(objects);
  expect_error("hostgroups 'g22' and 'g0' are part of a hostgroup_members include loop", "objects.cfg",
               5 + 5 * 22);
  EXPECT_EQ(errors().size(), 1u) << all_text();
}

TEST_F(ObjectLoaderTest, GroupIncludingItselfIsAnError) {
  load(host_def("a") + service_def("a", "s") +  // lines 1-10
       "define servicegroup {\n  servicegroup_name sg\n  servicegroup_members sg\n}\n"
       "define contactgroup {\n  contactgroup_name cg\n  members admin\n  contactgroup_members cg\n}\n");
  expect_error("servicegroups 'sg' and 'sg' are part of a servicegroup_members include loop", "objects.cfg",
               11);
  expect_error("contactgroups 'cg' and 'cg' are part of a contactgroup_members include loop", "objects.cfg",
               15);
}

TEST_F(ObjectLoaderTest, WildcardAndExclusionsInGroupMembers) {
  load(host_def("a") + host_def("b") + host_def("c") +
       "define hostgroup {\n  hostgroup_name all\n  members *\n}\n"
       "define hostgroup {\n  hostgroup_name notb\n  members *,!b\n}\n"
       "define hostgroup {\n  hostgroup_name notc\n  members a,b,c,!c\n}\n");
  expect_no_errors();
  EXPECT_EQ(host_names(hostgroup("all").members), (Names{"a", "b", "c"}));
  EXPECT_EQ(host_names(hostgroup("notb").members), (Names{"a", "c"}));
  EXPECT_EQ(host_names(hostgroup("notc").members), (Names{"a", "b"}));
}

TEST_F(ObjectLoaderTest, ServicesOnHostgroupWithExcludedHost) {
  load(host_def("a") + host_def("b") + host_def("c") +
       "define hostgroup {\n  hostgroup_name g\n  members a,b,c\n}\n"
       "define service {\n  hostgroup_name g\n  host_name !b\n  service_description PING\n"
       "  check_command check_dummy\n  max_check_attempts 3\n}\n"
       "define service {\n  host_name *,!a\n  service_description DISK\n"
       "  check_command check_dummy\n  max_check_attempts 3\n}\n");
  expect_no_errors();
  EXPECT_EQ(services_on("a"), 1u);
  EXPECT_EQ(services_on("b"), 1u);
  EXPECT_EQ(services_on("c"), 2u);
  EXPECT_FALSE(model::is_set(m().find_service("b", "PING")));
  EXPECT_FALSE(model::is_set(m().find_service("a", "DISK")));
  EXPECT_EQ(m().services.size(), 4u);
}

TEST_F(ObjectLoaderTest, HostServiceBeatsHostgroupServiceWithoutWarning) {
  load(host_def("a") + host_def("b") + "define hostgroup {\n  hostgroup_name g\n  members a,b\n}\n" +
       "define service {\n  hostgroup_name g\n  service_description PING\n  check_command check_dummy\n"
       "  max_check_attempts 3\n  notes from-group\n}\n" +
       service_def("a", "PING", "  notes from-host\n"));
  expect_no_errors();
  EXPECT_EQ(m().services.size(), 2u);
  EXPECT_EQ(service("a", "PING").notes, "from-host");
  EXPECT_EQ(service("b", "PING").notes, "from-group");
  for (const Diagnostic& d : diags_.all())
    EXPECT_EQ(d.message.find("Duplicate definition"), std::string::npos) << d.message;
}

TEST_F(ObjectLoaderTest, TwoHostServicesWithSameDescriptionWarnAndKeepTheFirst) {
  load(host_def("a") +                                 // lines 1-4
       service_def("a", "PING", "  notes first\n") +   // 5-11
       service_def("a", "PING", "  notes second\n"));  // 12-18
  expect_no_errors();
  EXPECT_EQ(services_on("a"), 1u);
  EXPECT_EQ(service("a", "PING").notes, "first");
  const Diagnostic* d = find("Duplicate definition found for service 'PING' on host 'a'");
  ASSERT_NE(d, nullptr) << all_text();
  EXPECT_EQ(d->severity, Severity::warning);
  EXPECT_EQ(d->at.line, 12u);
  const Diagnostic* first =
      find("Already defined in config file '" + path("objects.cfg") + "', starting on line 5");
  EXPECT_NE(first, nullptr) << all_text();
}

TEST_F(ObjectLoaderTest, ServicegroupMembersAreHostServicePairs) {
  load(host_def("a") + host_def("b") + service_def("a", "x") + service_def("a", "y") + service_def("b", "x") +
       "define servicegroup {\n  servicegroup_name sg\n  members a,x,b,x\n}\n"
       "define servicegroup {\n  servicegroup_name sg2\n  servicegroup_members sg\n  members a,y\n}\n");
  expect_no_errors();
  const auto& sg = m().servicegroups[model::index(m().servicegroup_by_name.at("sg"))];
  EXPECT_EQ(service_names(sg.members), (Names{"a;x", "b;x"}));
  const auto& sg2 = m().servicegroups[model::index(m().servicegroup_by_name.at("sg2"))];
  EXPECT_EQ(service_names(sg2.members), (Names{"a;x", "a;y", "b;x"}));
  EXPECT_EQ(service("a", "x").servicegroups.size(), 2u);
}

TEST_F(ObjectLoaderTest, ContactgroupMembersNestingAndContactsContactGroups) {
  load(
      "define contact {\n  contact_name c3\n  contact_groups team\n  host_notifications_enabled 0\n"
      "  service_notifications_enabled 0\n  host_notification_commands check_dummy\n"
      "  service_notification_commands check_dummy\n}\n"
      "define contactgroup {\n  contactgroup_name team\n  members oncall\n}\n"
      "define contactgroup {\n  contactgroup_name everyone\n  contactgroup_members team,admins\n}\n");
  expect_no_errors();
  EXPECT_EQ(contact_names(contactgroup("team").members), (Names{"c3", "oncall"}));
  EXPECT_EQ(contact_names(contactgroup("everyone").members), (Names{"admin", "c3", "oncall"}));
  const model::Contact& c3 = m().contacts[model::index(m().contact_by_name.at("c3"))];
  EXPECT_EQ(contactgroup_names(c3.contactgroups), (Names{"everyone", "team"}));
}

// ----------------------------------------------------------------- extinfo, dependencies, escalations

TEST_F(ObjectLoaderTest, ExtinfoMergesIntoHostsAndServicesWithoutOverriding) {
  load(host_def("web01", "  icon_image own.png\n") + service_def("web01", "s") +
       "define hostextinfo {\n  host_name web01\n  notes_url http://x/\n  icon_image ext.png\n"
       "  2d_coords 10,20\n}\n"
       "define serviceextinfo {\n  host_name web01\n  service_description s\n  action_url http://a/\n}\n");
  expect_no_errors();
  const model::Host& h = host("web01");
  EXPECT_EQ(h.notes_url, "http://x/");
  EXPECT_EQ(h.icon_image, "own.png");
  EXPECT_TRUE(h.have_2d_coords);
  EXPECT_EQ(h.x_2d, 10);
  EXPECT_EQ(h.y_2d, 20);
  EXPECT_EQ(service("web01", "s").action_url, "http://a/");
}

TEST_F(ObjectLoaderTest, DependencyWithBothCriteriaBecomesTwoObjects) {
  load(host_def("a") + host_def("b") + service_def("a", "db") + service_def("b", "web") +
       service_def("a", "web") +
       "define hostdependency {\n  host_name a\n  dependent_host_name b\n"
       "  execution_failure_criteria d\n  notification_failure_criteria d,u\n}\n"
       "define servicedependency {\n  host_name a\n  service_description db\n  dependent_host_name b\n"
       "  dependent_service_description web\n  execution_failure_criteria c\n"
       "  notification_failure_criteria w,c\n}\n"
       "define servicedependency {\n  host_name a\n  service_description db\n"
       "  dependent_service_description web\n  notification_failure_criteria c\n}\n");
  expect_no_errors();
  ASSERT_EQ(m().host_dependencies.size(), 2u);
  int exec = 0, notif = 0;
  for (const auto& d : m().host_dependencies) {
    (d.kind == model::DependencyKind::execution ? exec : notif)++;
    EXPECT_EQ(m().host(d.master).name, "a");
    EXPECT_EQ(m().host(d.dependent).name, "b");
  }
  EXPECT_EQ(exec, 1);
  EXPECT_EQ(notif, 1);
  ASSERT_EQ(m().service_dependencies.size(), 3u);
  // The one without dependent_host_name depends on the same host.
  bool same_host = false;
  for (const auto& d : m().service_dependencies) {
    const model::Service& dep = m().service(d.dependent);
    if (dep.host_name == "a" && dep.description == "web" && m().service(d.master).description == "db")
      same_host = true;
  }
  EXPECT_TRUE(same_host);
}

TEST_F(ObjectLoaderTest, EscalationCountPerHostAndService) {
  load(
      host_def("a") + host_def("b") + host_def("c") +
      "define hostgroup {\n  hostgroup_name g\n  members a,b\n}\n" + service_def("a", "s") +
      service_def("b", "s") + service_def("c", "s") +
      "define hostescalation {\n  hostgroup_name g\n  host_name c\n  contacts admin\n  first_notification 1\n"
      "  last_notification 0\n}\n"
      "define serviceescalation {\n  host_name a,b\n  service_description s\n  contacts admin\n"
      "  first_notification 1\n  last_notification 0\n}\n"
      "define serviceescalation {\n  hostgroup_name g\n  service_description s\n  contacts admin\n"
      "  first_notification 3\n  last_notification 0\n}\n");
  expect_no_errors();
  EXPECT_EQ(m().host_escalations.size(), 3u);
  EXPECT_EQ(m().service_escalations.size(), 4u);
}

// ------------------------------------------------------------------------------------------ validation

TEST_F(ObjectLoaderTest, UnknownReferencesEachWithMessageAndPosition) {
  load(host_def("web01", "  check_command nocmd\n  check_period noperiod\n") +  // 1-6
       service_def("web01", "s", "  contacts nobody\n") +                       // 7-13
       service_def("ghost", "t") +                                              // 14-19
       host_def("web02", "  hostgroups nogroup\n  contact_groups nocg\n"));     // 20-25
  expect_error("Host check command 'nocmd' specified for host 'web01' is not defined anywhere!",
               "objects.cfg", 1);
  expect_error("Failed to locate check_period 'noperiod' for host 'web01'!", "objects.cfg", 1);
  const std::vector<Diagnostic> errs = errors();
  const Diagnostic* contact = nullptr;
  for (const Diagnostic& d : errs)
    if (d.message.find("'nobody'") != std::string::npos) contact = &d;
  ASSERT_NE(contact, nullptr) << all_text();
  EXPECT_EQ(contact->at.line, 7u);
  expect_error("Could not find any host matching 'ghost'", "objects.cfg", 14);
  expect_error("Could not find hostgroup 'nogroup' specified in host 'web02' definition", "objects.cfg", 20);
  const Diagnostic* cg = nullptr;
  for (const Diagnostic& d : errs)
    if (d.message.find("'nocg'") != std::string::npos) cg = &d;
  ASSERT_NE(cg, nullptr) << all_text();
  EXPECT_EQ(cg->at.line, 20u);
}

TEST_F(ObjectLoaderTest, CheckCommandArgumentsAreSplitAndSharedPerText) {
  load(host_def("web01") + host_def("web02") +
       "define service {\n  name t\n  register 0\n  check_command check_dummy!1!two words\\!x\n"
       "  max_check_attempts 3\n}\n"
       "define service {\n  use t\n  host_name web01,web02\n  service_description s\n}\n"
       "define service {\n  use t\n  host_name web01\n  service_description u\n  check_command "
       "check_dummy\n}\n");
  expect_no_errors();
  const model::CommandCall& a = service("web01", "s").check_command;
  const model::CommandCall& b = service("web02", "s").check_command;
  ASSERT_TRUE(a.is_set());
  EXPECT_EQ(m().commands[model::index(a.command)].name, "check_dummy");
  EXPECT_EQ(m().args_of(a), (std::vector<std::string_view>{"1", "two words!x"}));
  EXPECT_EQ(a.args, b.args) << "the same text is resolved once";
  EXPECT_TRUE(m().args_of(service("web01", "u").check_command).empty());
}

TEST_F(ObjectLoaderTest, UnknownServiceCheckCommand) {
  load(host_def("web01") +
       "define service {\n  host_name web01\n  service_description s\n"
       "  check_command nosuch!1!2\n  max_check_attempts 3\n}\n");
  expect_error(
      "Service check command 'nosuch' specified in service 's' for host 'web01' not defined anywhere!",
      "objects.cfg", 5);
}

TEST_F(ObjectLoaderTest, DuplicateHostNamesBothLines) {
  load("\n" + host_def("web01") + host_def("web01"));
  expect_error("Duplicate definition found for host 'web01'", "objects.cfg", 6);
  EXPECT_NE(find("First occurrence in config file '" + path("objects.cfg") + "', starting on line 2"),
            nullptr)
      << all_text();
}

TEST_F(ObjectLoaderTest, CircularParents) {
  load(host_def("a", "  parents c\n") + host_def("b", "  parents a\n") + host_def("c", "  parents b\n") +
       host_def("d", "  parents a\n"));
  ASSERT_TRUE(diags_.has_errors());
  int circular = 0;
  for (const Diagnostic& d : errors())
    if (d.message.find("is part of a circular parent/child chain!") != std::string::npos) ++circular;
  EXPECT_GE(circular, 1) << all_text();
  EXPECT_EQ(find("The host 'd' is part of a circular parent/child chain!"), nullptr) << all_text();
  EXPECT_EQ(host_names(host("a").children), (Names{"b", "d"}));
}

TEST_F(ObjectLoaderTest, CircularDependency) {
  load(host_def("a") + host_def("b") +
       "define hostdependency {\n  host_name a\n  dependent_host_name b\n  notification_failure_criteria "
       "d\n}\n"
       "define hostdependency {\n  host_name b\n  dependent_host_name a\n  notification_failure_criteria "
       "d\n}\n");
  ASSERT_TRUE(diags_.has_errors());
  bool found = false;
  for (const Diagnostic& d : errors())
    found |= d.message.starts_with("Circular notification dependency detected between host '");
  EXPECT_TRUE(found) << all_text();
}

// configuration.c pre_flight_check: the whole circular check is skipped when allow_circular_dependencies is
// set; Vedette parses the option but never passes it to the model builder.
TEST_F(ObjectLoaderTest, CircularDependencyAllowedByMainConfigOption) {
  load(host_def("a") + host_def("b") +
           "define hostdependency {\n  host_name a\n  dependent_host_name b\n  notification_failure_criteria "
           "d\n}\n"
           "define hostdependency {\n  host_name b\n  dependent_host_name a\n  notification_failure_criteria "
           "d\n}\n",
       "allow_circular_dependencies=1\n");
  expect_no_errors();
}

TEST_F(ObjectLoaderTest, CircularTimeperiodExclusion) {
  load(
      "define timeperiod {\n  timeperiod_name p1\n  alias p1\n  exclude p2\n}\n"
      "define timeperiod {\n  timeperiod_name p2\n  alias p2\n  exclude p1\n}\n");
  bool found = false;
  for (const Diagnostic& d : errors())
    found |= d.message == "The timeperiod 'p1' is part of a circular exclusion chain!" ||
             d.message == "The timeperiod 'p2' is part of a circular exclusion chain!";
  EXPECT_TRUE(found) << all_text();
}

TEST_F(ObjectLoaderTest, MaxCheckAttemptsMissing) {
  load("define host {\n  host_name web01\n}\n" + host_def("ok") +
       "define service {\n  host_name ok\n  service_description s\n  check_command check_dummy\n}\n");
  expect_error("max_check_attempts must be a positive integer host 'web01'", "objects.cfg", 1);
  expect_error("max_check_attempts must be a positive integer for service 's' on host 'ok'", "objects.cfg",
               8);
}

TEST_F(ObjectLoaderTest, IllegalObjectNameChars) {
  load(host_def("web$01") + host_def("fine"), "illegal_object_name_chars=`~!$%^&*|'\"<>?,()=\n");
  expect_error("The name of host 'web$01' contains one or more illegal characters.", "objects.cfg", 1);
  EXPECT_EQ(errors().size(), 1u) << all_text();
}

TEST_F(ObjectLoaderTest, AllErrorsAreReportedInOneRun) {
  load(host_def("a", "  check_command nocmd1\n") + host_def("b", "  check_command nocmd2\n") +
       host_def("c", "  notification_period nope\n") + service_def("nohost", "x") +
       "define hostgroup {\n  hostgroup_name g\n  members nohost2\n}\n");
  EXPECT_NE(find("Host check command 'nocmd1' specified for host 'a' is not defined anywhere!"), nullptr);
  EXPECT_NE(find("Host check command 'nocmd2' specified for host 'b' is not defined anywhere!"), nullptr);
  EXPECT_NE(find("Failed to locate notification_period 'nope' for host 'c'!"), nullptr);
  EXPECT_NE(find("Could not find any host matching 'nohost'"), nullptr);
  EXPECT_NE(find("Could not find any host matching 'nohost2'"), nullptr);
  EXPECT_GE(diags_.error_count(), 5u) << all_text();
}

TEST_F(ObjectLoaderTest, InvalidDirectivesInTwoFilesAreBothReported) {
  write("base.cfg", k_base);
  write("one.cfg", "define host {\n  host_name a\n  bogus1 x\n}\n");
  write("two.cfg", "define host {\n  host_name b\n\n  bogus2 x\n}\n");
  load_main("cfg_file=" + path("base.cfg") + "\ncfg_file=" + path("one.cfg") +
            "\ncfg_file=" + path("two.cfg") + "\n");
  expect_error("Invalid host object directive 'bogus1'.", "one.cfg", 3);
  expect_error("Invalid host object directive 'bogus2'.", "two.cfg", 4);
}

// ---------------------------------------------------------------------------------------- timeperiods

// The template here is itself a registered timeperiod (as us-holidays in Naemon's sample config): Naemon
// (xodtemplate_resolve_timeperiod) inherits its weekdays and exceptions. Vedette moves the rules of a
// registered timeperiod into the model (build_timeperiods: tp.rules = std::move(rules[i])), so a timeperiod
// defined after it and using it inherits nothing.
TEST_F(ObjectLoaderTest, TimeperiodExceptionsExcludeAndWeekdayInheritance) {
  load(
      "define timeperiod {\n  name weekdays\n  timeperiod_name weekdays\n  alias wd\n"
      "  monday 08:00-12:00,13:00-17:00\n  tuesday 08:00-17:00\n  december 25 00:00-24:00\n}\n"
      "define timeperiod {\n  timeperiod_name holidays\n  alias h\n  2024-01-01 00:00-24:00\n"
      "  thursday 4 november 00:00-24:00\n}\n"
      "define timeperiod {\n  timeperiod_name office\n  alias o\n  use weekdays\n  tuesday 10:00-11:00\n"
      "  wednesday 09:00-10:00\n  exclude holidays\n}\n");
  expect_no_errors();
  const model::Timeperiod& office = m().timeperiods[model::index(m().timeperiod_by_name.at("office"))];
  using timeperiod::TimeRange;
  EXPECT_EQ(office.rules.weekdays[1],
            (std::vector<TimeRange>{{8 * 3600, 12 * 3600}, {13 * 3600, 17 * 3600}}));
  EXPECT_EQ(office.rules.weekdays[2], (std::vector<TimeRange>{{10 * 3600, 11 * 3600}}));
  EXPECT_EQ(office.rules.weekdays[3], (std::vector<TimeRange>{{9 * 3600, 10 * 3600}}));
  EXPECT_TRUE(office.rules.weekdays[0].empty());
  // december 25 inherited from the template
  const auto& month_dates =
      office.rules.exceptions[static_cast<std::size_t>(timeperiod::DateRangeType::month_date)];
  ASSERT_EQ(month_dates.size(), 1u);
  EXPECT_EQ(month_dates[0].smon, 11);
  EXPECT_EQ(month_dates[0].smday, 25);
  ASSERT_EQ(office.exclusions.size(), 1u);
  EXPECT_EQ(period_name(office.exclusions[0]), "holidays");
  const model::Timeperiod& holidays = m().timeperiods[model::index(m().timeperiod_by_name.at("holidays"))];
  EXPECT_EQ(
      holidays.rules.exceptions[static_cast<std::size_t>(timeperiod::DateRangeType::calendar_date)].size(),
      1u);
  EXPECT_EQ(
      holidays.rules.exceptions[static_cast<std::size_t>(timeperiod::DateRangeType::month_week_day)].size(),
      1u);
}

TEST_F(ObjectLoaderTest, TimeperiodWeekdaysFromAnUnregisteredTemplate) {
  load(
      "define timeperiod {\n  name wd\n  monday 08:00-12:00\n  register 0\n}\n"
      "define timeperiod {\n  timeperiod_name office\n  alias o\n  use wd\n}\n");
  expect_no_errors();
  const model::Timeperiod& office = m().timeperiods[model::index(m().timeperiod_by_name.at("office"))];
  EXPECT_EQ(office.rules.weekdays[1], (std::vector<timeperiod::TimeRange>{{8 * 3600, 12 * 3600}}));
}

TEST_F(ObjectLoaderTest, TimeperiodUnknownExclude) {
  load("\ndefine timeperiod {\n  timeperiod_name p1\n  alias p1\n  exclude nosuch\n}\n");
  expect_error("Excluded time period 'nosuch' specified in timeperiod 'p1' is not defined anywhere!",
               "objects.cfg", 2);
}

}  // namespace
}  // namespace vedette::config
