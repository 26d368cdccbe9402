#include "engine/checks/check_gate.hpp"

#include "world_fixture.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>

namespace vedette::engine {
namespace {

using namespace std::chrono_literals;
using Action = CheckGate::Action;

// A host without check_command, two services (DB is checked only while APP is not CRITICAL) and a
// weekend-only service, at interval_length 1: intervals are in seconds.
constexpr const char* k_objects =
    "define command {\n  command_name ok\n  command_line /bin/true\n}\n"
    "define timeperiod {\n  timeperiod_name weekends\n  alias Weekends\n  saturday 00:00-24:00\n  sunday "
    "00:00-24:00\n}\n"
    "define host {\n  host_name web01\n  address 127.0.0.1\n  max_check_attempts 1\n}\n"
    "define service {\n  host_name web01\n  service_description APP\n  check_command ok\n"
    "  max_check_attempts 1\n  check_interval 300\n  retry_interval 60\n}\n"
    "define service {\n  host_name web01\n  service_description DB\n  check_command ok\n"
    "  max_check_attempts 1\n  check_interval 120\n  retry_interval 30\n}\n"
    "define service {\n  host_name web01\n  service_description BACKUP\n  check_command ok\n"
    "  max_check_attempts 1\n  check_interval 600\n  check_period weekends\n}\n"
    "define servicedependency {\n  host_name web01\n  service_description APP\n"
    "  dependent_host_name web01\n  dependent_service_description DB\n"
    "  execution_failure_criteria c\n}\n";

class Gate {
 public:
  explicit Gate(const std::string& main = "") : f(k_objects, "interval_length=1\n" + main) {}
  CheckId service(const char* description) {
    return f.world().check_of(f.world().model->find_service("web01", description));
  }
  CheckGate::Decision decide(CheckId check, bool forced = false, bool at_limit = false) {
    return gate.decide(check, f.world().now_instant(), forced, at_limit);
  }

  testing::WorldFixture f;
  CheckGate gate{f.world(), f.notifier()};
};

TEST(CheckGateTest, ADueCheckRunsAndIsDueAgainOneIntervalLater) {
  Gate t;
  const CheckGate::Decision d = t.decide(t.service("APP"));
  EXPECT_EQ(d.action, Action::run);
  EXPECT_EQ(d.next_in, std::optional<loop::Duration>(300s));
}

TEST(CheckGateTest, ACheckStillRunningNeitherRunsNorMoves) {
  Gate t;
  t.f.world().state_of(t.service("APP")).is_executing = true;
  const CheckGate::Decision d = t.decide(t.service("APP"), /*forced=*/true);
  EXPECT_EQ(d.action, Action::skip);
  EXPECT_FALSE(d.next_in);
}

TEST(CheckGateTest, DisabledChecksStayOnTheirScheduleAndAForcedOneRunsAnyway) {
  Gate t("execute_service_checks=0\n");
  const CheckGate::Decision skipped = t.decide(t.service("APP"));
  EXPECT_EQ(skipped.action, Action::skip);
  EXPECT_EQ(skipped.next_in, std::optional<loop::Duration>(300s));
  EXPECT_EQ(t.decide(t.service("APP"), /*forced=*/true).action, Action::run);
}

TEST(CheckGateTest, AtTheConcurrencyLimitAServiceWaitsOneRetryInterval) {
  Gate t;
  const CheckGate::Decision d = t.decide(t.service("APP"), false, /*at_limit=*/true);
  EXPECT_EQ(d.action, Action::skip);
  EXPECT_EQ(d.next_in, std::optional<loop::Duration>(60s));
}

TEST(CheckGateTest, OutsideItsCheckPeriodACheckWaitsForThePeriodPlusAShareOfItsInterval) {
  Gate t;  // the ManualClock starts on Monday 2024-01-01: the weekend is 5 days away (TZ=UTC) or so
  const CheckGate::Decision d = t.decide(t.service("BACKUP"));
  EXPECT_EQ(d.action, Action::skip);
  ASSERT_TRUE(d.next_in);
  EXPECT_GE(*d.next_in, 4 * 24h);
  EXPECT_LT(*d.next_in, 6 * 24h + 600s);
  EXPECT_EQ(d.check_options, state::k_check_option_allow_postpone);  // Naemon's, until that check
  EXPECT_EQ(t.decide(t.service("APP")).check_options, 0) << "a check that runs is rescheduled plainly";
}

TEST(CheckGateTest, AFailedExecutionDependencySkipsTheCheck) {
  Gate t;
  EXPECT_EQ(t.decide(t.service("DB")).action, Action::run);
  ServiceState& app = t.f.world().services[model::index(t.f.world().model->find_service("web01", "APP"))];
  app.current_state = k_state_critical;
  app.state_type = StateType::hard;
  app.has_been_checked = true;
  const CheckGate::Decision d = t.decide(t.service("DB"));
  EXPECT_EQ(d.action, Action::skip);
  EXPECT_EQ(d.next_in, std::optional<loop::Duration>(120s));
  EXPECT_EQ(t.decide(t.service("DB"), /*forced=*/true).action, Action::run);
}

TEST(CheckGateTest, AHostWithoutCheckCommandIsAssumedUp) {
  Gate t;
  EXPECT_EQ(t.decide(t.f.world().check_of(model::HostId{0})).action, Action::assume_up);
}

}  // namespace
}  // namespace vedette::engine
