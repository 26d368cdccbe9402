#include "engine/checks/flap_alerts.hpp"

#include "engine/annotations/annotations.hpp"
#include "world_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

namespace vedette::engine {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* k_objects =
    "define command {\n  command_name ok\n  command_line /bin/true\n}\n"
    "define host {\n  host_name web01\n  address 127.0.0.1\n  max_check_attempts 1\n  check_command ok\n"
    "  flap_detection_enabled 1\n}\n"
    "define service {\n  host_name web01\n  service_description HTTP\n  check_command ok\n"
    "  max_check_attempts 1\n  flap_detection_enabled 1\n  low_flap_threshold 5\n  high_flap_threshold "
    "20\n}\n";

// Results alternating OK and CRITICAL (hard), one a second, each through the service's flap detection.
void alternate(testing::WorldFixture& f, FlapAlerts& flap, int results) {
  ServiceState& st = f.world().services[0];
  for (int i = 0; i < results; ++i) {
    st.current_state = i % 2 == 0 ? 2 : 0;
    st.state_type = StateType::hard;
    flap.service_result(model::ServiceId{0}, f.world().now_epoch());
    f.clock().advance(std::chrono::seconds(1));
  }
}

TEST(FlapAlertsTest, AServiceThatKeepsChangingStartsFlappingWithAComment) {
  testing::WorldFixture f(k_objects, "enable_flap_detection=1\n");
  Annotations annotations(f.world(), f.notifier());
  FlapAlerts flap(f.world(), annotations, f.notifier());
  alternate(f, flap, 30);
  const state::FlapHistory& history = f.world().services[0].flap;
  ASSERT_TRUE(history.is_flapping);
  const state::Comment* comment = f.world().comments->find(history.flapping_comment_id);
  ASSERT_NE(comment, nullptr);
  EXPECT_EQ(comment->author, "(Naemon Process)");
  EXPECT_THAT(comment->comment_data, HasSubstr("detected as having been flapping"));
  EXPECT_THAT(f.log_lines(),
              Contains(HasSubstr("SERVICE FLAPPING ALERT: web01;HTTP;STARTED; Service appears to have "
                                 "started flapping")));
}

TEST(FlapAlertsTest, DisablingDetectionEndsTheFlappingAndRemovesItsComment) {
  testing::WorldFixture f(k_objects, "enable_flap_detection=1\n");
  Annotations annotations(f.world(), f.notifier());
  FlapAlerts flap(f.world(), annotations, f.notifier());
  alternate(f, flap, 30);
  const unsigned long comment_id = f.world().services[0].flap.flapping_comment_id;
  ASSERT_NE(comment_id, 0u);
  flap.detection_disabled(f.world().check_of(model::ServiceId{0}), f.world().now_epoch());
  EXPECT_FALSE(f.world().services[0].flap.is_flapping);
  EXPECT_EQ(f.world().comments->find(comment_id), nullptr);
  EXPECT_THAT(f.log_lines(), Contains("SERVICE FLAPPING ALERT: web01;HTTP;DISABLED; Flap detection has been "
                                      "disabled"));
}

TEST(FlapAlertsTest, WithDetectionOffGloballyTheHistoryFillsButNothingStarts) {
  testing::WorldFixture f(k_objects, "enable_flap_detection=0\n");
  Annotations annotations(f.world(), f.notifier());
  FlapAlerts flap(f.world(), annotations, f.notifier());
  alternate(f, flap, 30);
  EXPECT_FALSE(f.world().services[0].flap.is_flapping);
  EXPECT_GT(f.world().services[0].flap.percent_state_change, 20.0);
  EXPECT_EQ(f.world().comments->size(), 0u);
  EXPECT_THAT(f.log_lines(), Not(Contains(HasSubstr("FLAPPING ALERT"))));
}

TEST(FlapAlertsTest, AHostRecordsWhenDueOnlyOnceItsNotificationIntervalHasPassed) {
  testing::WorldFixture f(k_objects, "enable_flap_detection=1\n");
  Annotations annotations(f.world(), f.notifier());
  FlapAlerts flap(f.world(), annotations, f.notifier());
  HostState& host = f.world().hosts[0];
  flap.host_result(model::HostId{0}, f.world().now_epoch(), FlapRecord::always);
  const Time recorded = host.flap.last_state_history_update;
  f.clock().advance(std::chrono::seconds(60));
  flap.host_result(model::HostId{0}, f.world().now_epoch(), FlapRecord::when_due);
  EXPECT_EQ(host.flap.last_state_history_update, recorded);  // 60 s < notification_interval 30 × 60 s
  f.clock().advance(std::chrono::minutes(30));
  flap.host_result(model::HostId{0}, f.world().now_epoch(), FlapRecord::when_due);
  EXPECT_GT(host.flap.last_state_history_update, recorded);
}

}  // namespace
}  // namespace vedette::engine
