// A World on a small config written to a temp directory, on a ManualClock, its main log in that directory:
// what the core's components are unit-tested on, without a Core or a daemon.
//
//   WorldFixture f(objects, "check_service_freshness=1\n");
//   FreshnessChecker freshness(f.world(), ...);
//   f.advance(std::chrono::seconds(11));  // one loop iteration at the new time: due timers run
//   EXPECT_THAT(f.log_lines(), Contains(HasSubstr("stale")));
#pragma once

#include "engine/notify/notifier.hpp"
#include "engine/notify/side_command.hpp"
#include "engine/world/world.hpp"
#include "loaded_config.hpp"
#include "loop/clock.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::engine::testing {

class WorldFixture final : public SideCommandSink {
 public:
  // `objects` is the object config; `main` more naemon.cfg lines (after defaults that write nothing else).
  WorldFixture(std::string_view objects, std::string_view main) : loaded_("vedette_world") {
    loaded_.load(objects,
                 "log_file=" + loaded_.dir.file("naemon.log") +
                     "\nstatus_file=/dev/null\ncheck_external_commands=0\nretain_state_information=0\n" +
                     std::string(main));
    files::LogFileOptions log;
    log.path = loaded_.dir.file("naemon.log");
    world_ = std::make_unique<World>(std::move(loaded_.config), clock_, log, 1);  // the World's from here
    world_->program_start = world_->now_epoch();
    notifier_ = std::make_unique<Notifier>(*world_->model, *this);
  }
  ~WorldFixture() {
    notifier_.reset();
    world_.reset();  // before its log file's directory goes
  }
  WorldFixture(const WorldFixture&) = delete;
  WorldFixture& operator=(const WorldFixture&) = delete;

  World& world() { return *world_; }
  // The World's notifier, whose notifications go to side_commands().
  Notifier& notifier() { return *notifier_; }
  // The notifications and event handlers the World's parts asked for, in order.
  const std::vector<SideCommand>& side_commands() const { return side_commands_; }

  void run_side_command(SideCommand&& command) override { side_commands_.push_back(std::move(command)); }
  void log(std::string_view line) override { world_->log(line); }
  loop::ManualClock& clock() { return clock_; }

  // Moves the clock on and runs one loop iteration without waiting: the timers due by then run.
  void advance(loop::Duration d) {
    clock_.advance(d);
    world_->loop.run_once(loop::PollMode::no_wait);
  }

  // The main log's lines so far, without their "[epoch] " stamps.
  std::vector<std::string> log_lines() {
    world_->log_file.flush();
    EXPECT_TRUE(world_->log_file.wait_idle(std::chrono::seconds(10)));
    std::vector<std::string> lines;
    std::ifstream in(loaded_.dir.file("naemon.log"));
    for (std::string line; std::getline(in, line);) {
      const std::size_t stamp_end = line.find("] ");
      lines.push_back(stamp_end == std::string::npos ? line : line.substr(stamp_end + 2));
    }
    return lines;
  }

 private:
  test::LoadedConfig loaded_;
  loop::ManualClock clock_;
  std::unique_ptr<World> world_;
  std::unique_ptr<Notifier> notifier_;
  std::vector<SideCommand> side_commands_;
};

}  // namespace vedette::engine::testing
