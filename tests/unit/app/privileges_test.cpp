#include "app/privileges.hpp"

#include <gtest/gtest.h>

#include <pwd.h>
#include <string>

namespace vedette::app {
namespace {

// Every Debian system has "nobody"; the numeric ids below are chosen to have no passwd/group entry.
constexpr const char* k_unprivileged = "nobody";
constexpr const char* k_unused_id = "54321";

config::MainConfig with_user(std::string user, std::string group = "") {
  config::MainConfig main;
  main.naemon_user = std::move(user);
  main.naemon_group = std::move(group);
  return main;
}

TEST(PlanPrivileges, NotRootKeepsTheCurrentUserWhateverIsConfigured) {
  for (const bool allow_root : {false, true}) {
    const PrivilegePlan plan = plan_privileges(with_user("no-such-user-here"), allow_root, false);
    EXPECT_FALSE(plan.switch_to);
    EXPECT_EQ(plan.error, "");
    EXPECT_EQ(plan.warning, "");
  }
}

TEST(PlanPrivileges, RootWithoutUserIsRefusedUnlessAllowRoot) {
  const PrivilegePlan refused = plan_privileges(config::MainConfig{}, false, true);
  EXPECT_FALSE(refused.switch_to);
  EXPECT_NE(refused.error.find("ERROR: do not start vedette as root user."), std::string::npos);
  EXPECT_NE(refused.error.find("--allow-root"), std::string::npos);

  const PrivilegePlan allowed = plan_privileges(config::MainConfig{}, true, true);
  EXPECT_FALSE(allowed.switch_to);
  EXPECT_EQ(allowed.error, "");
  EXPECT_EQ(allowed.warning, "WARNING: you are running as root which is not recommended.");
}

TEST(PlanPrivileges, ConfiguredRootCountsAsNoUser) {
  for (const char* root : {"root", "0"}) {
    const PrivilegePlan refused = plan_privileges(with_user(root), false, true);
    EXPECT_FALSE(refused.switch_to);
    EXPECT_NE(refused.error.find("do not start vedette as root user"), std::string::npos) << root;
    EXPECT_NE(refused.error.find(std::string("naemon_user '") + root + "' is root"), std::string::npos);

    const PrivilegePlan allowed = plan_privileges(with_user(root), true, true);
    EXPECT_FALSE(allowed.switch_to);
    EXPECT_EQ(allowed.error, "");
    EXPECT_NE(allowed.warning, "");
  }
}

TEST(PlanPrivileges, UserByNameTakesItsPrimaryGroup) {
  const passwd* pw = ::getpwnam(k_unprivileged);
  ASSERT_NE(pw, nullptr);
  const uid_t uid = pw->pw_uid;
  const gid_t gid = pw->pw_gid;
  // With or without --allow-root: a configured user is always switched to.
  for (const bool allow_root : {false, true}) {
    const PrivilegePlan plan = plan_privileges(with_user(k_unprivileged), allow_root, true);
    ASSERT_TRUE(plan.switch_to) << plan.error;
    EXPECT_EQ(plan.switch_to->name, k_unprivileged);
    EXPECT_EQ(plan.switch_to->uid, uid);
    EXPECT_EQ(plan.switch_to->gid, gid);
    EXPECT_EQ(plan.error, "");
    EXPECT_EQ(plan.warning, "");
  }
}

TEST(PlanPrivileges, GroupByNameOrNumber) {
  const PrivilegePlan by_name = plan_privileges(with_user(k_unprivileged, "root"), false, true);
  ASSERT_TRUE(by_name.switch_to) << by_name.error;
  EXPECT_EQ(by_name.switch_to->gid, 0u);

  const PrivilegePlan by_number = plan_privileges(with_user(k_unprivileged, k_unused_id), false, true);
  ASSERT_TRUE(by_number.switch_to) << by_number.error;
  EXPECT_EQ(by_number.switch_to->gid, 54321u);
}

TEST(PlanPrivileges, NumericUserWithoutPasswdEntryNeedsAGroup) {
  const PrivilegePlan no_group = plan_privileges(with_user(k_unused_id), false, true);
  EXPECT_FALSE(no_group.switch_to);
  EXPECT_NE(no_group.error.find("naemon_user '54321' has no passwd entry"), std::string::npos)
      << no_group.error;

  const PrivilegePlan with_group = plan_privileges(with_user(k_unused_id, "4321"), false, true);
  ASSERT_TRUE(with_group.switch_to) << with_group.error;
  EXPECT_EQ(with_group.switch_to->name, "");
  EXPECT_EQ(with_group.switch_to->uid, 54321u);
  EXPECT_EQ(with_group.switch_to->gid, 4321u);
}

TEST(PlanPrivileges, UnknownUserOrGroupIsAnErrorNamingIt) {
  const PrivilegePlan user = plan_privileges(with_user("no-such-user-here"), true, true);
  EXPECT_FALSE(user.switch_to);
  EXPECT_EQ(user.error,
            "Error: Could not get passwd entry for naemon_user 'no-such-user-here': no such user. Aborting.");

  const PrivilegePlan group = plan_privileges(with_user(k_unprivileged, "no-such-group-here"), true, true);
  EXPECT_FALSE(group.switch_to);
  EXPECT_EQ(
      group.error,
      "Error: Could not get group entry for naemon_group 'no-such-group-here': no such group. Aborting.");
}

TEST(PlanPrivileges, NagiosNamesAreReadWhenNaemonNamesAreUnset) {
  config::MainConfig main;
  main.nagios_user = "no-such-user-here";
  const PrivilegePlan nagios = plan_privileges(main, false, true);
  EXPECT_NE(nagios.error.find("nagios_user 'no-such-user-here'"), std::string::npos) << nagios.error;

  main.naemon_user = k_unprivileged;
  main.nagios_group = "no-such-group-here";
  const PrivilegePlan mixed = plan_privileges(main, false, true);
  EXPECT_NE(mixed.error.find("nagios_group 'no-such-group-here'"), std::string::npos) << mixed.error;

  main.naemon_group = "root";
  const PrivilegePlan naemon = plan_privileges(main, false, true);
  ASSERT_TRUE(naemon.switch_to) << naemon.error;
  EXPECT_EQ(naemon.switch_to->name, k_unprivileged);
  EXPECT_EQ(naemon.switch_to->gid, 0u);
}

}  // namespace
}  // namespace vedette::app
