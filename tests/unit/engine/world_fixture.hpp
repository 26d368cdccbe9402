// A World on a small config written to a temp directory, on a ManualClock, its main log in that directory:
// what the core's components are unit-tested on, without a Core or a daemon.
//
//   WorldFixture f(objects, "check_service_freshness=1\n");
//   FreshnessChecker freshness(f.world(), ...);
//   f.advance(std::chrono::seconds(11));  // one loop iteration at the new time: due timers run
//   EXPECT_THAT(f.log_lines(), Contains(HasSubstr("stale")));
#pragma once

#include "config/loader.hpp"
#include "engine/side_command.hpp"
#include "engine/world.hpp"
#include "loop/clock.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace vedette::engine::testing {

class WorldFixture final : public SideCommandSink {
 public:
  // `objects` is the object config; `main` more naemon.cfg lines (after defaults that write nothing else).
  WorldFixture(std::string_view objects, std::string_view main)
      : dir_(std::filesystem::temp_directory_path() /
             ("vedette_world_" + std::to_string(::getpid()) + "_" + std::to_string(next_id()))) {
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "objects.cfg") << objects;
    std::ofstream(dir_ / "naemon.cfg") << "cfg_file=objects.cfg\nlog_file=" << (dir_ / "naemon.log").string()
                                       << "\nstatus_file=/dev/null\ncheck_external_commands=0\n"
                                          "retain_state_information=0\n"
                                       << main;
    config::SourceFiles files;
    config::Diagnostics diags;
    config::Configuration cfg = config::load_configuration((dir_ / "naemon.cfg").string(), files, diags);
    for (const auto& d : diags.all())
      if (d.severity == config::Severity::error) ADD_FAILURE() << d.message;
    files::LogFileOptions log;
    log.path = (dir_ / "naemon.log").string();
    world_ = std::make_unique<World>(std::move(cfg), clock_, log, 1);
    world_->program_start = world_->now_epoch();
    world_->side_commands = this;
  }
  ~WorldFixture() {
    world_.reset();
    std::filesystem::remove_all(dir_);
  }
  WorldFixture(const WorldFixture&) = delete;
  WorldFixture& operator=(const WorldFixture&) = delete;

  World& world() { return *world_; }
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
    std::ifstream in(dir_ / "naemon.log");
    for (std::string line; std::getline(in, line);) {
      const std::size_t stamp_end = line.find("] ");
      lines.push_back(stamp_end == std::string::npos ? line : line.substr(stamp_end + 2));
    }
    return lines;
  }

 private:
  static int next_id() {
    static int id = 0;
    return ++id;
  }

  std::filesystem::path dir_;
  loop::ManualClock clock_;
  std::unique_ptr<World> world_;
  std::vector<SideCommand> side_commands_;
};

}  // namespace vedette::engine::testing
