#include "engine/world/reload.hpp"

#include "world_fixture.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace vedette::engine {
namespace {

std::string host(const char* name, int attempts = 3) {
  return std::string("define host {\n  host_name ") + name + "\n  max_check_attempts " +
         std::to_string(attempts) + "\n}\n";
}
std::string service(const char* host_name, const char* description) {
  return std::string("define command {\n  command_name ok_") + description +
         "\n  command_line /bin/true\n}\ndefine service {\n  host_name " + host_name +
         "\n  service_description " + description + "\n  check_command ok_" + description +
         "\n  max_check_attempts 3\n}\n";
}

// Before: web01 (HTTP, DISK) and db01. After: web01 (DISK, SSH) and cache01, web01 down to 2 attempts.
class Reload : public ::testing::Test {
 protected:
  testing::WorldFixture before{
      host("web01") + host("db01") + service("web01", "HTTP") + service("web01", "DISK"), ""};
  testing::WorldFixture after{
      host("web01", 2) + host("cache01") + service("web01", "DISK") + service("web01", "SSH"), ""};
  const model::Model& old_model() { return *before.world().model; }
  const model::Model& new_model() { return *after.world().model; }
  CheckId old_check(const char* h, const char* s) {
    return before.world().check_of(old_model().find_service(h, s));
  }
  CheckId new_check(const char* h, const char* s) {
    return after.world().check_of(new_model().find_service(h, s));
  }
};

TEST_F(Reload, ChecksAreMatchedByNameAndTheRestAreNewOrRemoved) {
  const CheckMapping m = map_checks(old_model(), new_model());
  EXPECT_EQ(m.kept, 2u);  // DISK and web01
  EXPECT_EQ(m.old_of_new[new_check("web01", "DISK")], old_check("web01", "DISK"));
  EXPECT_EQ(m.old_of_new[new_check("web01", "SSH")], k_no_check);
  EXPECT_EQ(m.new_of_old[old_check("web01", "HTTP")], k_no_check);
  const CheckId old_web = before.world().check_of(old_model().host_by_name.at("web01"));
  const CheckId new_web = after.world().check_of(new_model().host_by_name.at("web01"));
  EXPECT_EQ(m.old_of_new[new_web], old_web);
  EXPECT_EQ(m.new_of_old[old_web], new_web);
  EXPECT_EQ(m.new_of_old[before.world().check_of(old_model().host_by_name.at("db01"))], k_no_check);
}

TEST_F(Reload, KeptObjectsKeepTheirCurrentStateAndAHardProblemItsLastAttempt) {
  World& w = before.world();
  ServiceState& disk = w.services[model::index(old_model().find_service("web01", "DISK"))];
  disk.current_state = k_state_critical;
  disk.plugin_output = "DISK CRITICAL";
  HostState& web = w.hosts[model::index(old_model().host_by_name.at("web01"))];
  web.current_state = k_host_down;
  web.state_type = StateType::hard;
  web.current_attempt = 3;

  PreparedConfig p;
  p.hosts = after.world().hosts.all();
  p.services = after.world().services.all();
  p.contacts = after.world().contacts;
  p.services[model::index(new_model().find_service("web01", "DISK"))].modified_attributes = 2;  // retained
  keep_current_state(p, map_checks(old_model(), new_model()), old_model(), new_model(), w.hosts.vector(),
                     w.services.vector(), w.contacts);

  const ServiceState& kept = p.services[model::index(new_model().find_service("web01", "DISK"))];
  EXPECT_EQ(kept.current_state, k_state_critical);
  EXPECT_EQ(kept.plugin_output, "DISK CRITICAL");
  EXPECT_EQ(kept.modified_attributes, 2u);  // what the retention rules prepared
  const HostState& kept_web = p.hosts[model::index(new_model().host_by_name.at("web01"))];
  EXPECT_EQ(kept_web.current_state, k_host_down);
  EXPECT_EQ(kept_web.current_attempt, 2);  // the new max_check_attempts
  EXPECT_EQ(p.services[model::index(new_model().find_service("web01", "SSH"))].plugin_output,
            after.world().services[model::index(new_model().find_service("web01", "SSH"))].plugin_output);
}

}  // namespace
}  // namespace vedette::engine
