// What the whole loader refuses or warns about in object definitions (unknown references, duplicates,
// circular parents, dependencies and exclusions, missing attributes), every problem in one run, and
// timeperiod exceptions and inheritance.
#include "object_loader_fixture.hpp"

#include <gtest/gtest.h>

namespace vedette::config::test {
namespace {

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
  // std::string: on `"\n" + std::string` g++ 12 -O3 reports a false -Wrestrict (GCC bug 105329).
  load(std::string("\n") + host_def("web01") + host_def("web01"));
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
}  // namespace vedette::config::test
