#include "engine/object_commands.hpp"

#include "engine/annotations/annotations.hpp"
#include "engine/checks/flap_alerts.hpp"
#include "state/attributes.hpp"
#include "world_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

namespace vedette::engine {
namespace {

using ::testing::Contains;

constexpr const char* k_objects =
    "define command {\n  command_name ok\n  command_line /bin/true\n}\n"
    "define timeperiod {\n  timeperiod_name always\n  alias always\n  monday 00:00-24:00\n}\n"
    "define contact {\n  contact_name alice\n  host_notification_commands ok\n"
    "  service_notification_commands ok\n  host_notification_period always\n"
    "  service_notification_period always\n  _PAGER 123\n}\n"
    "define host {\n  host_name web01\n  address 127.0.0.1\n  max_check_attempts 1\n  check_command ok\n}\n"
    "define service {\n  host_name web01\n  service_description HTTP\n  check_command ok\n"
    "  max_check_attempts 3\n  check_interval 5\n  flap_detection_enabled 1\n  contacts alice\n}\n";

struct Parts {
  explicit Parts(testing::WorldFixture& f)
      : annotations(f.world(), f.notifier()), flap(f.world(), annotations, f.notifier()) {}
  Annotations annotations;
  FlapAlerts flap;
};

TEST(ObjectCommandsTest, AProgramSwitchChangesTheMainConfigAndMarksTheProgramsAttributes) {
  testing::WorldFixture f(k_objects, "");
  Parts parts(f);
  ObjectCommands objects(f.world(), parts.flap, f.notifier());
  objects.set_program_switch(ProgramSwitch::service_checks, false);
  EXPECT_FALSE(f.world().main.execute_service_checks);
  EXPECT_EQ(f.world().modified_service_attributes, state::k_modattr_active_checks_enabled);
  EXPECT_EQ(f.world().modified_host_attributes, 0u);  // a service switch: the hosts' set is untouched
  EXPECT_EQ(f.world().events.program_changes, 1u);
  objects.set_program_switch(ProgramSwitch::service_checks, false);  // no change, still counted
  EXPECT_EQ(f.world().events.program_changes, 2u);
}

TEST(ObjectCommandsTest, TurningActiveChecksOnAsksForAReschedule) {
  testing::WorldFixture f(k_objects, "");
  Parts parts(f);
  ObjectCommands objects(f.world(), parts.flap, f.notifier());
  const CheckId service = f.world().check_of(model::ServiceId{0});
  EXPECT_EQ(objects.set_flag(service, state::Flag::active_checks, true), Reschedule::no);  // already on
  EXPECT_EQ(f.world().services[0].modified_attributes, 0u);
  EXPECT_EQ(objects.set_flag(service, state::Flag::active_checks, false), Reschedule::no);
  EXPECT_EQ(f.world().services[0].modified_attributes, state::k_modattr_active_checks_enabled);
  EXPECT_EQ(objects.set_flag(service, state::Flag::active_checks, true), Reschedule::within_interval);
}

TEST(ObjectCommandsTest, ANewPositiveCheckIntervalAsksForARescheduleAndIsKeptAsAnOverride) {
  testing::WorldFixture f(k_objects, "");
  Parts parts(f);
  ObjectCommands objects(f.world(), parts.flap, f.notifier());
  const CheckId service = f.world().check_of(model::ServiceId{0});
  using K = AttributeChange::Kind;
  EXPECT_EQ(objects.change_attribute(service, {.kind = K::check_interval, .number = 5}), Reschedule::no);
  EXPECT_EQ(f.world().services[0].overrides, nullptr);  // as configured: nothing happens
  EXPECT_EQ(objects.change_attribute(service, {.kind = K::check_interval, .number = 2}),
            Reschedule::within_interval);
  ASSERT_NE(f.world().services[0].overrides, nullptr);
  EXPECT_EQ(f.world().services[0].overrides->check_interval, 2.0);
  EXPECT_EQ(objects.change_attribute(service, {.kind = K::check_interval, .number = 0}), Reschedule::no);
  EXPECT_EQ(f.world().services[0].modified_attributes, state::k_modattr_normal_check_interval);
}

TEST(ObjectCommandsTest, FewerAttemptsMoveAHardProblemsAttemptToTheNewMaximum) {
  testing::WorldFixture f(k_objects, "");
  Parts parts(f);
  ObjectCommands objects(f.world(), parts.flap, f.notifier());
  ServiceState& st = f.world().services[0];
  st.current_state = 2;
  st.state_type = StateType::hard;
  st.current_attempt = 3;
  (void)objects.change_attribute(f.world().check_of(model::ServiceId{0}),
                                 {.kind = AttributeChange::Kind::max_check_attempts, .number = 2});
  EXPECT_EQ(st.current_attempt, 2);
  EXPECT_EQ(st.modified_attributes, state::k_modattr_max_check_attempts);
}

TEST(ObjectCommandsTest, OnlyAVariableTheContactHasChangesButTheBitIsSetAnyway) {
  testing::WorldFixture f(k_objects, "");
  Parts parts(f);
  ObjectCommands objects(f.world(), parts.flap, f.notifier());
  using K = ContactChange::Kind;
  objects.change_contact(model::ContactId{0}, {.kind = K::custom_variable, .name = "NOSUCH", .value = "x"});
  EXPECT_EQ(f.world().contacts[0].custom_variables, nullptr);
  EXPECT_EQ(f.world().contacts[0].modified_attributes, state::k_modattr_custom_variable);
  objects.change_contact(model::ContactId{0}, {.kind = K::custom_variable, .name = "pager", .value = "456"});
  ASSERT_NE(f.world().contacts[0].custom_variables, nullptr);
  ASSERT_EQ(f.world().contacts[0].custom_variables->size(), 1u);
  EXPECT_EQ(f.world().contacts[0].custom_variables->front().value, "456");
}

TEST(ObjectCommandsTest, TurningFlapDetectionOffEndsTheFlappingOfEveryObject) {
  testing::WorldFixture f(k_objects, "enable_flap_detection=1\n");
  Parts parts(f);
  ObjectCommands objects(f.world(), parts.flap, f.notifier());
  ServiceState& st = f.world().services[0];
  for (int i = 0; i < 30; ++i) {
    st.current_state = i % 2 == 0 ? 2 : 0;
    st.state_type = StateType::hard;
    parts.flap.service_result(model::ServiceId{0}, f.world().now_epoch());
  }
  ASSERT_TRUE(st.flap.is_flapping);
  objects.set_program_switch(ProgramSwitch::flap_detection, false);
  EXPECT_FALSE(st.flap.is_flapping);
  EXPECT_EQ(f.world().modified_host_attributes, state::k_modattr_flap_detection_enabled);
  EXPECT_EQ(f.world().modified_service_attributes, state::k_modattr_flap_detection_enabled);
  EXPECT_THAT(f.log_lines(), Contains("SERVICE FLAPPING ALERT: web01;HTTP;DISABLED; Flap detection has been "
                                      "disabled"));
}

TEST(ObjectCommandsTest, ACustomNotificationGoesToTheContactsAsACommand) {
  testing::WorldFixture f(k_objects, "");
  Parts parts(f);
  ObjectCommands objects(f.world(), parts.flap, f.notifier());
  objects.send_custom_notification(f.world().check_of(model::ServiceId{0}), 0, "bob", "test");
  EXPECT_EQ(f.side_commands().size(), 1u);
  EXPECT_THAT(f.log_lines(), Contains("SERVICE NOTIFICATION: alice;web01;HTTP;CUSTOM (OK);ok;;bob;test"));
}

}  // namespace
}  // namespace vedette::engine
