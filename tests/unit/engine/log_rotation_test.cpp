#include "engine/log_rotation.hpp"

#include "world_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

namespace vedette::engine {
namespace {

using namespace std::chrono_literals;
using ::testing::Contains;
using ::testing::Not;

constexpr const char* k_objects = "define host {\n  host_name web01\n  max_check_attempts 1\n}\n";

TEST(LogRotationTest, HourlyRotationHappensOnTheHourAndIsScheduledAgain) {
  testing::WorldFixture f(k_objects, "log_rotation_method=h\n");
  LogRotation rotation(f.world());
  rotation.schedule();
  const Time first = rotation.next();
  EXPECT_EQ(first % 3600, 0);
  EXPECT_GT(first, f.world().now_epoch());
  f.advance(std::chrono::seconds(first - f.world().now_epoch() - 1));
  EXPECT_THAT(f.log_lines(), Not(Contains("LOG ROTATION: HOURLY")));
  f.advance(1s);
  EXPECT_THAT(f.log_lines(), Contains("LOG ROTATION: HOURLY"));
  EXPECT_EQ(rotation.next(), first + 3600);
}

TEST(LogRotationTest, MethodNRotatesNothing) {
  testing::WorldFixture f(k_objects, "log_rotation_method=n\n");
  LogRotation rotation(f.world());
  rotation.schedule();
  EXPECT_EQ(rotation.next(), 0);
  f.advance(2h);
  EXPECT_THAT(f.log_lines(), Not(Contains(::testing::HasSubstr("LOG ROTATION"))));
}

}  // namespace
}  // namespace vedette::engine
