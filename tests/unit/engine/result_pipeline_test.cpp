#include "engine/checks/result_pipeline.hpp"

#include "engine/annotations/annotations.hpp"
#include "engine/checks/flap_alerts.hpp"
#include "world_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace vedette::engine {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Not;
using Next = ScheduleFollowups::Next;

// web01 (UP) is the parent of db01; web01's HTTP retries every minute, checks every 5, three attempts.
constexpr const char* k_objects =
    "define command {\n  command_name ok\n  command_line /bin/true\n}\n"
    "define timeperiod {\n  timeperiod_name always\n  alias always\n  sunday 00:00-24:00\n"
    "  monday 00:00-24:00\n  tuesday 00:00-24:00\n  wednesday 00:00-24:00\n  thursday 00:00-24:00\n"
    "  friday 00:00-24:00\n  saturday 00:00-24:00\n}\n"
    "define contact {\n  contact_name alice\n  host_notification_commands ok\n"
    "  service_notification_commands ok\n  host_notification_period always\n"
    "  service_notification_period always\n  host_notification_options d,u,r\n"
    "  service_notification_options w,u,c,r\n}\n"
    "define host {\n  host_name web01\n  address 127.0.0.1\n  max_check_attempts 1\n  check_command ok\n"
    "  contacts alice\n  notification_period always\n}\n"
    "define host {\n  host_name db01\n  address 127.0.0.2\n  parents web01\n  max_check_attempts 1\n"
    "  check_command ok\n}\n"
    "define service {\n  host_name web01\n  service_description HTTP\n  check_command ok\n"
    "  max_check_attempts 3\n  check_interval 5\n  retry_interval 1\n  contacts alice\n"
    "  notification_period always\n}\n";

struct Perfdata final : PerfdataSink {
  std::vector<CheckId> results;
  void after_result(CheckId check, Time) override { results.push_back(check); }
};

class ResultPipelineTest : public ::testing::Test {
 protected:
  ResultPipelineTest()
      : f_(k_objects, "log_passive_checks=1\nlog_service_retries=1\nprocess_performance_data=1\n") {}

  CheckOutcome result(int state, std::string output, CheckType type = CheckType::active) {
    CheckOutcome r;
    r.type = type;
    r.state = state;
    r.start = r.finish = f_.world().now_epoch();
    r.output = std::move(output);
    return r;
  }
  ScheduleFollowups service(int state, std::string output, CheckType type = CheckType::active) {
    f_.clock().advance(std::chrono::seconds(10));
    return pipeline_.apply_service(model::ServiceId{0}, result(state, std::move(output), type),
                                   f_.world().now_epoch());
  }
  ScheduleFollowups host(std::uint32_t h, int state, std::string output) {
    f_.clock().advance(std::chrono::seconds(10));
    return pipeline_.apply_host(model::HostId{h}, result(state, std::move(output)), f_.world().now_epoch());
  }

  testing::WorldFixture f_;
  Annotations annotations_{f_.world(), f_.notifier()};
  FlapAlerts flap_{f_.world(), annotations_, f_.notifier()};
  Perfdata perfdata_;
  ResultPipeline pipeline_{f_.world(), annotations_, flap_, f_.notifier(), f_, perfdata_};
};

TEST_F(ResultPipelineTest, ASoftProblemRetriesAtTheRetryInterval) {
  const ScheduleFollowups next = service(2, "boom");
  EXPECT_EQ(next.next, Next::retry);
  EXPECT_EQ(next.interval_s, 60.0);
  EXPECT_EQ(f_.world().services[0].state_type, StateType::soft);
  EXPECT_THAT(f_.log_lines(), Contains("SERVICE ALERT: web01;HTTP;CRITICAL;SOFT;1;boom"));
  EXPECT_THAT(f_.side_commands(), IsEmpty());  // no notification for a soft state
}

TEST_F(ResultPipelineTest, TheHardProblemNotifiesTheContactOnce) {
  (void)service(2, "boom");
  (void)service(2, "boom");
  const ScheduleFollowups next = service(2, "boom");
  EXPECT_EQ(f_.world().services[0].state_type, StateType::hard);
  EXPECT_EQ(next.next, Next::regular_if_unset);
  EXPECT_EQ(next.interval_s, 300.0);
  EXPECT_EQ(f_.side_commands().size(), 1u);
  const std::vector<std::string> log = f_.log_lines();
  EXPECT_THAT(log, Contains("SERVICE ALERT: web01;HTTP;CRITICAL;HARD;3;boom"));
  EXPECT_THAT(log, Contains("SERVICE NOTIFICATION: alice;web01;HTTP;CRITICAL;ok;boom"));
}

TEST_F(ResultPipelineTest, EveryResultGoesToThePerfdataSinkOnce) {
  (void)service(0, "fine");
  (void)host(1, 0, "up");
  EXPECT_THAT(perfdata_.results,
              ElementsAre(f_.world().check_of(model::ServiceId{0}), f_.world().check_of(model::HostId{1})));
}

TEST_F(ResultPipelineTest, WithoutProcessPerformanceDataNoResultGoesToThePerfdataSink) {
  f_.world().cfg.main.process_performance_data = false;  // as DISABLE_PERFORMANCE_DATA does
  (void)service(0, "fine");
  (void)host(1, 0, "up");
  EXPECT_THAT(perfdata_.results, IsEmpty());
}

TEST_F(ResultPipelineTest, APassiveResultIsLoggedAsNaemonDoes) {
  (void)service(1, "slow", CheckType::passive);
  EXPECT_THAT(f_.log_lines(), Contains("PASSIVE SERVICE CHECK: web01;HTTP;1;slow"));
}

TEST_F(ResultPipelineTest, AHostGoingDownHasItsUpParentsAndReachableChildrenCheckedNow) {
  (void)host(0, 0, "up");
  (void)host(1, 0, "up");
  const ScheduleFollowups next = host(0, 2, "down");
  EXPECT_EQ(f_.world().hosts[0].current_state, k_host_down);
  EXPECT_THAT(next.check_now, ElementsAre(f_.world().check_of(model::HostId{1})));  // db01, its child
  EXPECT_THAT(f_.log_lines(), Contains("HOST ALERT: web01;DOWN;HARD;1;down"));
}

TEST_F(ResultPipelineTest, AnOkResultAfterAnOkOneLogsNothing) {
  (void)service(0, "fine");
  (void)service(0, "fine");
  EXPECT_THAT(f_.log_lines(), Not(Contains(::testing::HasSubstr("SERVICE ALERT"))));
}

}  // namespace
}  // namespace vedette::engine
