// Object templates through the whole loader: use, register 0, additive and null values, custom variables,
// old directive names, and the implied inheritance of services and escalations, as in Naemon's xodtemplate.c.
#include "object_loader_fixture.hpp"

#include <gtest/gtest.h>

namespace vedette::config::test {
namespace {

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

// Objects that set none of the shared settings take them from one reading per template list
// (ModelBuilder::checkable_values); one that sets any of them reads its own.
TEST_F(ObjectLoaderTest, ObjectsOnTheSameTemplatesShareTheirSettingsUnlessTheySetOne) {
  auto def = [](const std::string& name, const std::string& extra) {
    return "define host {\n  host_name " + name + "\n" + extra + "}\n";
  };
  load(
      "define host {\n  name t\n  max_check_attempts 3\n  check_interval 2\n  notes tnotes\n"
      "  flap_detection_options d\n  obsess 0\n  register 0\n}\n"
      "define host {\n  name u\n  max_check_attempts 9\n  register 0\n}\n" +
      def("web01", "  use t\n") + def("web02", "  use t\n  notes own\n") + def("web03", "  use t\n") +
      def("web04", "  use u,t\n") + def("web05", "  use t,u\n"));
  expect_no_errors();
  for (const char* name : {"web01", "web03"}) {
    EXPECT_DOUBLE_EQ(host(name).check_interval, 2.0) << name;
    EXPECT_EQ(host(name).notes, "tnotes") << name;
    EXPECT_EQ(host(name).flap_detection_options, model::k_opt_down) << name;
    EXPECT_FALSE(host(name).obsess) << name;
    EXPECT_EQ(host(name).max_check_attempts, 3) << name;
  }
  EXPECT_EQ(host("web02").notes, "own");
  EXPECT_DOUBLE_EQ(host("web02").check_interval, 2.0);
  EXPECT_EQ(host("web04").max_check_attempts, 9);
  EXPECT_EQ(host("web04").notes, "tnotes");
  EXPECT_EQ(host("web05").max_check_attempts, 3);
  EXPECT_EQ(host("web05").notes, "tnotes");
}

// A bad value in a template is reported once, for the first object that reads it, as before the sharing.
TEST_F(ObjectLoaderTest, ABadTemplateValueIsReportedOnceForTheFirstObjectUsingIt) {
  load(
      "define host {\n  name t\n  max_check_attempts 3\n  check_interval often\n  register 0\n}\n"  // 1
      "define host {\n  host_name web01\n  use t\n}\n"                                              // 7
      "define host {\n  host_name web02\n  use t\n}\n");
  std::size_t reports = 0;
  for (const Diagnostic& d : errors())
    if (d.message.find("Invalid numeric value 'often' for check_interval") != std::string::npos) {
      ++reports;
      EXPECT_EQ(d.at.line, 7u);
    }
  EXPECT_EQ(reports, 1u) << all_text();
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

// Naemon's additive '+' is for list directives only: a custom variable keeps it as written.
TEST_F(ObjectLoaderTest, APlusInACustomVariableIsKept) {
  load("define host {\n  name t\n  _TAGS base\n  register 0\n}\n" +
       host_def("web01", "  use t\n  _TAGS +extra\n  _PLAIN +x\n"));
  expect_no_errors();
  EXPECT_EQ(custom(host("web01").custom_variables, "TAGS"), "+extra");
  EXPECT_EQ(custom(host("web01").custom_variables, "PLAIN"), "+x");
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

}  // namespace
}  // namespace vedette::config::test
