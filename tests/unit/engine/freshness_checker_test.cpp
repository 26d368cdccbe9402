#include "engine/checks/freshness_checker.hpp"

#include "world_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string_view>
#include <vector>

namespace vedette::engine {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// A passive service whose results are fresh for 60 s, checked for freshness every 10 s.
constexpr const char* k_objects =
    "define command {\n  command_name ok\n  command_line /bin/true\n}\n"
    "define host {\n  host_name web01\n  address 127.0.0.1\n  max_check_attempts 1\n  check_command ok\n}\n"
    "define service {\n  host_name web01\n  service_description HTTP\n  check_command ok\n"
    "  max_check_attempts 1\n  active_checks_enabled 0\n  check_freshness 1\n  freshness_threshold 60\n}\n";
constexpr const char* k_main = "check_service_freshness=1\nservice_freshness_check_interval=10\n";

// A FreshnessChecker on the World, its forced checks recorded, its timers armed.
class Freshness {
 public:
  explicit Freshness(std::string_view main = k_main) : f(k_objects, main) {
    checker.resize(f.world().check_count());
    checker.schedule();
  }
  // Ten-second steps, one loop iteration each, as the timer would see them.
  void run_for(int seconds) {
    for (int i = 0; i < seconds / 10; ++i) f.advance(std::chrono::seconds(10));
  }
  [[nodiscard]] CheckId service() { return f.world().check_of(model::ServiceId{0}); }
  [[nodiscard]] Time now() { return f.world().now_epoch(); }

  testing::WorldFixture f;
  std::vector<CheckId> forced;
  FreshnessChecker checker{f.world(), [this](CheckId c, Time) { forced.push_back(c); }};
};

TEST(FreshnessCheckerTest, AStaleResultForcesOneCheckWithNaemonsWarning) {
  Freshness t;
  t.run_for(60);  // 60 s since the start: still fresh
  EXPECT_THAT(t.forced, IsEmpty());
  t.run_for(10);  // stale
  EXPECT_THAT(t.forced, ElementsAre(t.service()));
  t.run_for(10);  // the forced check is still on its way: not again
  EXPECT_THAT(t.forced, ElementsAre(t.service()));
  EXPECT_THAT(t.f.log_lines(),
              Contains("Warning: The results of service 'HTTP' on host 'web01' are stale by 0d 0h 0m 10s "
                       "(threshold=0d 0h 1m 0s).  I'm forcing an immediate check of the service."));
}

TEST(FreshnessCheckerTest, TheForcedResultIsDroppedWhenAPassiveOneMadeTheServiceFreshMeanwhile) {
  Freshness t;
  t.run_for(70);
  ASSERT_THAT(t.forced, ElementsAre(t.service()));
  ServiceState& st = t.f.world().services[0];
  st.has_been_checked = true;  // a passive result arrives
  st.check_type = state::CheckType::passive;
  st.last_check = t.now();
  EXPECT_TRUE(t.checker.drop_result(t.service(), t.now()));
  EXPECT_FALSE(t.checker.drop_result(t.service(), t.now()));  // the flag is cleared
}

TEST(FreshnessCheckerTest, TheForcedResultCountsWhenTheServiceIsStillStale) {
  Freshness t;
  t.run_for(70);
  ASSERT_THAT(t.forced, ElementsAre(t.service()));
  EXPECT_FALSE(t.checker.drop_result(t.service(), t.now()));
  t.run_for(10);  // the flag is gone: stale again, forced again
  EXPECT_THAT(t.forced, ElementsAre(t.service(), t.service()));
}

TEST(FreshnessCheckerTest, NothingIsForcedWithTheProgramSwitchOff) {
  Freshness t("check_service_freshness=0\nservice_freshness_check_interval=10\n");
  t.run_for(200);
  EXPECT_THAT(t.forced, IsEmpty());
}

}  // namespace
}  // namespace vedette::engine
