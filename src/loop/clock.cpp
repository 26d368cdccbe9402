#include "loop/clock.hpp"

namespace vedette::loop {

MonoTime RealClock::now() const {
  return std::chrono::time_point_cast<Duration>(std::chrono::steady_clock::now());
}

WallTime RealClock::wall_now() const {
  return std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now());
}

ManualClock::ManualClock() : mono_(std::chrono::seconds(1000)), wall_(std::chrono::seconds(1704067200)) {}

}  // namespace vedette::loop
