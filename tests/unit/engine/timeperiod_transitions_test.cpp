#include "engine/timeperiod_transitions.hpp"

#include "world_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>

namespace vedette::engine {
namespace {

using ::testing::ElementsAre;
using namespace std::chrono_literals;

// The fixture's ManualClock starts on Monday 2024-01-01 00:00:00 UTC.
constexpr const char* k_objects =
    "define timeperiod {\n  timeperiod_name 24x7\n  alias always\n  monday 00:00-24:00\n"
    "  tuesday 00:00-24:00\n}\n"
    "define timeperiod {\n  timeperiod_name first_minutes\n  alias two minutes\n  monday 00:00-00:02\n}\n"
    "define timeperiod {\n  timeperiod_name never\n  alias never\n}\n";

class InUtc {
 public:
  InUtc() {
    if (const char* tz = std::getenv("TZ")) saved_ = tz;
    setenv("TZ", "UTC", 1);
    tzset();
  }
  ~InUtc() {
    if (saved_) {
      setenv("TZ", saved_->c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }

 private:
  std::optional<std::string> saved_;
};

TEST(TimeperiodTransitions, EveryPeriodFromMinusOneThenEachChangeAtItsMinute) {
  InUtc utc;
  testing::WorldFixture f(k_objects, "");
  TimeperiodTransitions transitions(f.world());
  transitions.start();
  EXPECT_THAT(f.log_lines(),
              ElementsAre("TIMEPERIOD TRANSITION: 24x7;-1;1", "TIMEPERIOD TRANSITION: first_minutes;-1;1",
                          "TIMEPERIOD TRANSITION: never;-1;0"));
  f.advance(60s);  // 00:01: nothing changed
  EXPECT_EQ(f.log_lines().size(), 3u);
  f.advance(59s);
  EXPECT_EQ(f.log_lines().size(), 3u);
  f.advance(1s);  // 00:02: first_minutes is over
  EXPECT_EQ(f.log_lines().back(), "TIMEPERIOD TRANSITION: first_minutes;1;0");
  f.advance(48h);  // Wednesday, which 24x7 has not here
  const auto lines = f.log_lines();
  EXPECT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines.back(), "TIMEPERIOD TRANSITION: 24x7;1;0");

  // A reload starts again from -1, as the module is loaded anew.
  transitions.start();
  EXPECT_EQ(f.log_lines().back(), "TIMEPERIOD TRANSITION: never;-1;0");
  EXPECT_EQ(f.log_lines().size(), 8u);
}

}  // namespace
}  // namespace vedette::engine
