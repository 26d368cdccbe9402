// Group membership, service expansion over hostgroups, extinfo, dependencies and escalations through the
// whole loader, as Naemon's xodtemplate.c expands them.
#include "object_loader_fixture.hpp"

#include <gtest/gtest.h>

namespace vedette::config::test {
namespace {

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

// Service definitions one after another on the same host, then on others and on lists: each gets its own
// hosts (expand_hosts remembers the last single host name, and only that).
TEST_F(ObjectLoaderTest, ServicesInARowOnOneHostThenOnOthers) {
  load(host_def("web1") + host_def("web2") + host_def("web3") + service_def("web1", "a") +
       service_def("web1", "b") + service_def("web2", "a") + service_def("web1,web3", "c") +
       service_def("web1", "d") + service_def("*,!web1", "e") + service_def("web1", "f"));
  expect_no_errors();
  EXPECT_EQ(service_names(m().host(m().host_by_name.at("web1")).services),
            (Names{"web1;a", "web1;b", "web1;c", "web1;d", "web1;f"}));
  EXPECT_EQ(service_names(m().host(m().host_by_name.at("web2")).services), (Names{"web2;a", "web2;e"}));
  EXPECT_EQ(service_names(m().host(m().host_by_name.at("web3")).services), (Names{"web3;c", "web3;e"}));
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

}  // namespace
}  // namespace vedette::config::test
