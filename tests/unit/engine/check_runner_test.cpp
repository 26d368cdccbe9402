#include "engine/checks/check_runner.hpp"

#include "world_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace vedette::engine {
namespace {

using namespace std::chrono_literals;
using ::testing::Contains;
using ::testing::HasSubstr;

// Real plugins on the executor: a service that prints, one that fails, and a notification command that
// fails, all without a shell.
constexpr const char* k_objects =
    "define command {\n  command_name echo\n  command_line /bin/echo '$ARG1$|load=1'\n}\n"
    "define command {\n  command_name fail\n  command_line /bin/sh -c 'exit 2'\n}\n"
    "define host {\n  host_name web01\n  address 127.0.0.1\n  max_check_attempts 1\n  check_command "
    "echo!up\n}\n"
    "define service {\n  host_name web01\n  service_description APP\n  check_command echo!fine\n"
    "  max_check_attempts 1\n}\n"
    "define service {\n  host_name web01\n  service_description DB\n  check_command fail\n"
    "  max_check_attempts 1\n}\n";

// The orphan timer's handler (the core's); no gearman here, so it never fires.
class NoOrphans final : public loop::TimerHandler {
 public:
  void on_timer(loop::TimerId) override {}
};

class Runner {
 public:
  explicit Runner(const std::string& main = "") : f(k_objects, main) {
    // The executor runs the plugins for real and holds a job until its start time on the real monotonic
    // clock: the fixture's clock reads that clock's time (at the manual clock's wall time), whatever the
    // machine's uptime. ManualClock's 1000 s lies ahead on a machine up for less, and no job would run.
    const loop::WallTime wall = f.clock().wall_now();
    f.clock().set(loop::MonoTime(std::chrono::steady_clock::now().time_since_epoch()));
    f.clock().set_wall(wall);
    f.advance(0s);  // the loop reads its clock once per iteration
    freshness.resize(f.world().check_count());
    runner.resize(f.world().check_count());
  }
  CheckId service(const char* description) {
    return f.world().check_of(f.world().model->find_service("web01", description));
  }
  void start(CheckId check) { runner.start(check, f.clock().wall_now(), f.world().now_instant(), false); }
  // As the core: what came back so far, each result taken in turn.
  void collect() {
    runner.collect();
    for (FinishedCheck r; runner.next_finished(r);) {
      results.push_back(r);
      f.world().state_of(r.check).is_executing = false;  // as the state machine does
    }
  }
  // Collects until `n` results are in (the plugins run for real), at most 10 s. Callers ASSERT on it: the
  // results are read next.
  [[nodiscard]] bool wait_for(std::size_t n) {
    for (int i = 0; i < 1000 && results.size() < n; ++i) {
      std::this_thread::sleep_for(10ms);
      collect();
    }
    EXPECT_EQ(results.size(), n);
    return results.size() == n;
  }

  testing::WorldFixture f;
  FreshnessChecker freshness{f.world(), [](CheckId, Time) {}};
  PassiveResults passive{f.world()};
  NoOrphans orphans;
  CheckRunner runner{
      f.world(), freshness, passive, orphans, {.executor = {.threads = 1}, .result_period = 250ms}};
  std::vector<FinishedCheck> results;
};

TEST(CheckRunnerTest, AStartedCheckRunsItsExpandedCommandAndComesBackAsAnOutcome) {
  Runner t;
  const CheckId app = t.service("APP");
  t.start(app);
  EXPECT_TRUE(t.f.world().state_of(app).is_executing);
  EXPECT_TRUE(t.runner.expects_results());
  t.runner.submit();
  ASSERT_TRUE(t.wait_for(1));
  const FinishedCheck& r = t.results[0];
  EXPECT_EQ(r.check, app);
  EXPECT_EQ(r.outcome.type, CheckType::active);
  EXPECT_EQ(r.outcome.state, 0);
  EXPECT_EQ(r.outcome.output, "fine");
  EXPECT_EQ(r.outcome.perf_data, "load=1");
  EXPECT_EQ(r.source, CheckSources::k_core_worker);
  EXPECT_FALSE(t.runner.expects_results());
}

TEST(CheckRunnerTest, HostAndServiceResultsComeBackForTheirOwnChecks) {
  Runner t;
  const CheckId db = t.service("DB"), host = t.f.world().check_of(model::HostId{0});
  t.start(db);
  t.start(host);
  t.runner.submit();
  ASSERT_TRUE(t.wait_for(2));
  for (const FinishedCheck& r : t.results) {
    if (r.check == db) {
      EXPECT_EQ(r.outcome.state, 2);
    } else {
      EXPECT_EQ(r.check, host);
      EXPECT_EQ(r.outcome.output, "up");
    }
  }
}

TEST(CheckRunnerTest, MaxConcurrentChecksCountsTheChecksOut) {
  Runner t("max_concurrent_checks=1\n");
  EXPECT_FALSE(t.runner.at_concurrency_limit());
  t.start(t.service("APP"));
  EXPECT_TRUE(t.runner.at_concurrency_limit());
  t.runner.submit();
  ASSERT_TRUE(t.wait_for(1));
  EXPECT_FALSE(t.runner.at_concurrency_limit());
}

TEST(CheckRunnerTest, AResultOfACheckRemovedByAReloadIsDropped) {
  Runner t;
  const CheckId app = t.service("APP");
  t.start(app);
  t.runner.submit();
  // A reload that kept only DB: APP has no new id.
  const std::size_t checks = t.f.world().check_count();
  ByCheck<CheckId> old_of_new(checks, k_no_check), new_of_old(checks, k_no_check);
  old_of_new[t.service("DB")] = t.service("DB");
  new_of_old[t.service("DB")] = t.service("DB");
  t.runner.remap(old_of_new, new_of_old, t.f.world().model->commands.size());
  // The result came back (the runner counts it as back), and went nowhere.
  for (int i = 0; i < 1000 && t.runner.expects_results(); ++i) {
    std::this_thread::sleep_for(10ms);
    t.collect();
  }
  EXPECT_FALSE(t.runner.expects_results());
  EXPECT_TRUE(t.results.empty());
}

TEST(CheckRunnerTest, AFailedNotificationCommandIsLoggedAsNaemonDoes) {
  Runner t;
  SideCommand c;
  c.command.argv = {"/bin/sh", "-c", "echo oops; exit 3"};
  c.failure_subject = "contact 'admin'";
  c.purpose = SideCommand::Purpose::notification;
  t.runner.run_side_command(std::move(c));
  t.runner.submit();
  for (int i = 0; i < 1000; ++i) {
    std::this_thread::sleep_for(10ms);
    t.collect();
    t.runner.report();
    if (!t.f.log_lines().empty()) break;
  }
  EXPECT_THAT(t.f.log_lines(),
              Contains(HasSubstr("Warning: Notification command for contact 'admin' exited with exit code 3. "
                                 "stdout: 'oops")));
}

}  // namespace
}  // namespace vedette::engine
