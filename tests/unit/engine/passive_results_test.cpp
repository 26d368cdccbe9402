#include "engine/checks/passive_results.hpp"

#include "world_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace vedette::engine {
namespace {

using ::testing::Contains;

constexpr const char* k_objects =
    "define command {\n  command_name ok\n  command_line /bin/true\n}\n"
    "define host {\n  host_name web01\n  max_check_attempts 1\n}\n"
    "define service {\n  host_name web01\n  service_description APP\n  check_command ok\n"
    "  max_check_attempts 1\n}\n";

class Passive {
 public:
  explicit Passive(const std::string& main = "") : f(k_objects, main) {}
  // The result, or nothing when refused.
  std::optional<FinishedCheck> accept(const PassiveResult& p) {
    FinishedCheck out;
    if (!passive.accept(p, out)) return std::nullopt;
    return out;
  }
  testing::WorldFixture f;
  PassiveResults passive{f.world()};
};

TEST(PassiveResultsTest, AServiceResultBecomesAPassiveOutcomeOfItsCheck) {
  Passive t;
  const std::optional<FinishedCheck> r = t.accept({.host_name = "web01",
                                                   .service_description = "APP",
                                                   .return_code = 1,
                                                   .output = "slow; very|t=3s",
                                                   .check_time = t.f.world().now_epoch() - 5,
                                                   .source = "nsca"});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->check, t.f.world().check_of(t.f.world().model->find_service("web01", "APP")));
  EXPECT_EQ(r->outcome.type, CheckType::passive);
  EXPECT_EQ(r->outcome.state, 1);
  EXPECT_EQ(r->outcome.output, "slow: very");  // ';' cannot stand in the log's fields
  EXPECT_EQ(r->outcome.perf_data, "t=3s");
  EXPECT_EQ(r->outcome.latency, 5);
  EXPECT_EQ(t.f.world().check_sources.names()->at(r->source), "nsca");
}

// As Naemon: the latency is from the result's [timestamp] to its processing, with the fraction of the
// current second (a result stamped this second still has one).
TEST(PassiveResultsTest, TheLatencyCountsTheFractionOfTheSecond) {
  Passive t;
  const Time stamped = t.f.world().now_epoch();
  t.f.advance(std::chrono::milliseconds(1250));
  const std::optional<FinishedCheck> r = t.accept({.host_name = "web01",
                                                   .service_description = "APP",
                                                   .return_code = 0,
                                                   .output = "ok",
                                                   .check_time = stamped});
  ASSERT_TRUE(r);
  EXPECT_NEAR(r->outcome.latency, 1.25, 1e-3);
  const std::optional<FinishedCheck> future = t.accept({.host_name = "web01",
                                                        .service_description = "APP",
                                                        .return_code = 0,
                                                        .output = "ok",
                                                        .check_time = stamped + 60});
  ASSERT_TRUE(future);
  EXPECT_EQ(future->outcome.latency, 0.0);  // a timestamp ahead of the clock is no negative latency
}

TEST(PassiveResultsTest, OutOfRangeCodesAreUnknownForServicesAndRefusedForHosts) {
  Passive t;
  const std::optional<FinishedCheck> s =
      t.accept({.host_name = "web01", .service_description = "APP", .return_code = 7, .output = "x"});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->outcome.state, k_state_unknown);
  EXPECT_FALSE(t.accept({.host_name = "web01", .return_code = 3, .output = "x"}));
  EXPECT_TRUE(t.accept({.host_name = "web01", .return_code = 1, .output = "down"}));
}

TEST(PassiveResultsTest, UnknownObjectsAreLoggedAsNaemonDoesAndSwitchesRefuse) {
  Passive t("accept_passive_service_checks=0\n");
  EXPECT_FALSE(t.accept({.host_name = "nope", .return_code = 0, .output = "x"}));
  EXPECT_FALSE(
      t.accept({.host_name = "web01", .service_description = "NOPE", .return_code = 0, .output = "x"}));
  EXPECT_FALSE(
      t.accept({.host_name = "web01", .service_description = "APP", .return_code = 0, .output = "x"}));
  const std::vector<std::string> log = t.f.log_lines();
  EXPECT_THAT(log, Contains("Warning:  Passive check result was received for host 'nope', but the host could "
                            "not be found!"));
  EXPECT_THAT(log, Contains("Warning:  Passive check result was received for service 'NOPE' on host 'web01', "
                            "but the service could not be found!"));
}

}  // namespace
}  // namespace vedette::engine
