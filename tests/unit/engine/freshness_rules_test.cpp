// Naemon's freshness rules (is_service_result_fresh): thresholds, where the clock starts, and the warning.
#include "engine/checks/freshness_rules.hpp"

#include <gtest/gtest.h>

namespace vedette::engine {
namespace {

constexpr Time k_start = 1'700'000'000;

class FreshnessTest : public ::testing::Test {
 protected:
  FreshnessInput input() {
    return {.freshness_threshold = 0,
            .check_interval_s = 300,
            .retry_interval_s = 60,
            .additional_freshness_latency = 15,
            .state = &st_,
            .program_start = k_start,
            .last_program_stop = k_start - 10};
  }
  state::ServiceState st_;

  void SetUp() override {
    st_.flags = state::flag_bit(state::Flag::active_checks) | state::flag_bit(state::Flag::passive_checks);
    st_.has_been_checked = true;
    st_.last_check = k_start + 100;
    st_.latency = 2.7;
  }
};

TEST_F(FreshnessTest, AutomaticThresholdIsTheIntervalPlusLatencies) {
  Staleness s = staleness(input());
  EXPECT_EQ(s.threshold, 317);  // 300 + 2.7 + 15, truncated
  EXPECT_EQ(s.expires_at, k_start + 100 + 317);
  st_.current_state = 2;
  st_.state_type = state::StateType::soft;  // a soft problem: the retry interval
  EXPECT_EQ(staleness(input()).threshold, 77);
}

TEST_F(FreshnessTest, ConfiguredThresholdCountsFromTheLastCheck) {
  FreshnessInput in = input();
  in.freshness_threshold = 30;
  st_.last_check = k_start - 1000;  // before this run: still counted from it with a configured threshold
  EXPECT_EQ(staleness(in).expires_at, k_start - 1000 + 30);
  in.freshness_threshold = 0;  // the automatic one counts from the start of the run
  EXPECT_EQ(staleness(in).expires_at, k_start + 317);
}

TEST_F(FreshnessTest, NeverCheckedCountsFromTheStart) {
  st_.has_been_checked = false;
  FreshnessInput in = input();
  in.freshness_threshold = 30;
  EXPECT_EQ(staleness(in).expires_at, k_start + 30);
}

TEST_F(FreshnessTest, PassiveResultsAfterALongStopCountFromTheStart) {
  FreshnessInput in = input();
  in.freshness_threshold = 100;
  st_.check_type = state::CheckType::passive;
  st_.last_check = k_start - 500;
  in.last_program_stop = k_start - 50;  // stopped 50 s: less than 61.8 s, no grace
  EXPECT_EQ(staleness(in).expires_at, k_start - 400);
  in.last_program_stop = k_start - 70;  // stopped 70 s: the run's start counts
  EXPECT_EQ(staleness(in).expires_at, k_start + 100);
}

TEST(FreshnessWarning, IsNaemonsText) {
  const Staleness s{.threshold = 300, .expires_at = k_start};
  EXPECT_EQ(
      stale_warning("web01", "DISK", s, k_start + 3725),
      "Warning: The results of service 'DISK' on host 'web01' are stale by 0d 1h 2m 5s (threshold=0d 0h 5m "
      "0s).  I'm forcing an immediate check of the service.");
  EXPECT_EQ(stale_warning("web01", "", s, k_start + 90061),
            "Warning: The results of host 'web01' are stale by 1d 1h 1m 1s (threshold=0d 0h 5m 0s).  I'm "
            "forcing an "
            "immediate check of the host.");
}

}  // namespace
}  // namespace vedette::engine
