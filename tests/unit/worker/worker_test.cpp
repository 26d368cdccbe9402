// The whole distributed path on loopback: GearmanLink (the core's side) puts jobs on a real gearmand,
// Worker runs them with the executor and sends results back, the link decodes them. Skipped without
// gearmand (Debian: gearman-job-server).
#include "worker/worker.hpp"

#include "../gearman/gearmand_fixture.hpp"
#include "gearman/client.hpp"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <mutex>
#include <poll.h>
#include <string>
#include <vector>

namespace vedette::worker {
namespace {

using namespace std::chrono_literals;
using testing_support::Gearmand;
using testing_support::wait_until;

constexpr std::string_view k_key = "worker-test-key";

std::int64_t wall_now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

gearman::Submission check(std::string queue, std::string service, std::string command, int timeout_s = 10) {
  gearman::Submission s;
  s.queue = queue;
  s.unique = gearman::unique_key("web01", service);
  s.job.type = gearman::JobType::service;
  s.job.result_queue = "check_results";
  s.job.target_queue = std::move(queue);
  s.job.host_name = "web01";
  s.job.service_description = std::move(service);
  s.job.core_time_us = wall_now_us();
  s.job.timeout_s = timeout_s;
  s.job.command_line = std::move(command);
  return s;
}

class Log {
 public:
  std::function<void(std::string_view)> sink() {
    return [this](std::string_view line) {
      std::lock_guard lock(mutex_);
      text_ += std::string(line) + "\n";
    };
  }
  std::string text() const {
    std::lock_guard lock(mutex_);
    return text_;
  }

 private:
  mutable std::mutex mutex_;
  std::string text_;
};

class WorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string binary = testing_support::find_gearmand();
    if (binary.empty()) GTEST_SKIP() << "gearmand not installed (Debian package gearman-job-server)";
    for (int attempt = 0; attempt < 5 && !server_; ++attempt) {  // see GearmanLinkTest
      auto server = std::make_unique<Gearmand>(binary, testing_support::free_port());
      if (server->start()) server_ = std::move(server);
    }
    ASSERT_TRUE(server_) << "gearmand did not start";
    gearman::LinkOptions link;
    link.servers = {{"127.0.0.1", server_->port()}};
    link.codec = gearman::Codec::encrypted(k_key);
    link.retry_interval = 100ms;
    link_ = std::make_unique<gearman::GearmanLink>(std::move(link));
    ASSERT_TRUE(wait_until([&] { return link_->stats().results_connected; }));
  }

  WorkerOptions worker_options(std::string_view key = k_key) {
    WorkerOptions o;
    o.servers = {{"127.0.0.1", server_->port()}};
    o.codec = gearman::Codec::encrypted(key);
    o.queues = {"service", "hostgroup_dmz"};
    o.settings.identifier = "test-worker";
    o.max_jobs = 4;
    o.retry_interval = 100ms;
    o.log = log_.sink();
    return o;
  }

  // Results by service description.
  std::map<std::string, gearman::Result> collect(std::size_t count, std::chrono::milliseconds limit = 20s) {
    std::map<std::string, gearman::Result> by_service;
    std::vector<gearman::IncomingResult> results;
    std::vector<gearman::Submission> unsent;
    const auto until = std::chrono::steady_clock::now() + limit;
    while (by_service.size() < count && std::chrono::steady_clock::now() < until) {
      pollfd p{link_->fd(), POLLIN, 0};
      ::poll(&p, 1, 50);
      link_->drain(results, unsent);
      for (auto& r : results) by_service[r.result.service_description] = std::move(r.result);
    }
    return by_service;
  }

  std::unique_ptr<Gearmand> server_;
  std::unique_ptr<gearman::GearmanLink> link_;
  Log log_;
};

TEST_F(WorkerTest, RunsJobsAndSendsResultsBack) {
  Worker worker(worker_options());
  ASSERT_TRUE(link_->submit(check("service", "ok", "/bin/echo OK - fine")));
  ASSERT_TRUE(link_->submit(check("service", "shell", "echo 'WARNING - 80%'; echo detail; exit 1")));
  ASSERT_TRUE(link_->submit(check("hostgroup_dmz", "dmz", "/bin/echo from the dmz worker queue")));
  ASSERT_TRUE(link_->submit(check("service", "missing", "/nonexistent/check_thing -H x")));
  ASSERT_TRUE(link_->submit(check("service", "slow", "/bin/sleep 10", 1)));
  ASSERT_TRUE(link_->submit(check("service", "stderr", "echo problem >&2; exit 2")));

  const auto results = collect(6);
  ASSERT_EQ(results.size(), 6u) << log_.text();
  EXPECT_EQ(results.at("ok").return_code, 0);
  EXPECT_EQ(results.at("ok").output, "OK - fine");
  EXPECT_EQ(results.at("ok").source, "Vedette Worker @ test-worker");
  EXPECT_GT(results.at("ok").finish_time_us, 0);
  EXPECT_EQ(results.at("shell").return_code, 1);
  EXPECT_EQ(results.at("shell").output, "WARNING - 80%\ndetail");
  EXPECT_EQ(results.at("dmz").output, "from the dmz worker queue");
  EXPECT_EQ(results.at("missing").return_code, 2);
  EXPECT_NE(results.at("missing").output.find("Return code of 127"), std::string::npos)
      << results.at("missing").output;
  EXPECT_EQ(results.at("slow").return_code, 2);
  EXPECT_EQ(results.at("slow").output, "(Service Check Timed Out On Worker: test-worker)");
  EXPECT_TRUE(results.at("slow").early_timeout);
  EXPECT_EQ(results.at("stderr").return_code, 2);
  EXPECT_EQ(results.at("stderr").output, "[problem] ");
  // Counted once gearmand acknowledged, which can be after the link already has the result.
  EXPECT_TRUE(wait_until([&] { return worker.stats().results_sent == 6; }));
  EXPECT_EQ(worker.stats().bad_jobs, 0u);
}

TEST_F(WorkerTest, AWorkerWithTheWrongKeyDropsJobs) {
  Worker worker(worker_options("not the key"));
  ASSERT_TRUE(link_->submit(check("service", "x", "/bin/echo never")));
  ASSERT_TRUE(wait_until([&] { return worker.stats().bad_jobs == 1; })) << log_.text();
  EXPECT_NE(log_.text().find("wrong key"), std::string::npos) << log_.text();
  EXPECT_EQ(worker.stats().results_sent, 0u);
  EXPECT_EQ(link_->stats().results, 0u);
}

TEST_F(WorkerTest, TooOldJobsComeBackWithoutRunning) {
  WorkerOptions options = worker_options();
  options.settings.max_age_s = 5;
  Worker worker(std::move(options));
  auto old = check("service", "old", "/bin/echo should not run");
  old.job.core_time_us -= 60'000'000;
  ASSERT_TRUE(link_->submit(std::move(old)));
  const auto results = collect(1);
  ASSERT_EQ(results.size(), 1u) << log_.text();
  EXPECT_EQ(results.at("old").return_code, 3);
  EXPECT_EQ(results.at("old").output, "(Could Not Start Check In Time)");
  EXPECT_EQ(worker.stats().too_old, 1u);
}

TEST_F(WorkerTest, RunsAtMostMaxJobsAtOnce) {
  WorkerOptions options = worker_options();
  options.max_jobs = 2;
  Worker worker(std::move(options));
  for (int i = 0; i < 6; ++i)
    ASSERT_TRUE(link_->submit(check("service", "sleep" + std::to_string(i), "/bin/sleep 0.3")));
  std::uint64_t most = 0;
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (worker.stats().results_sent < 6 && std::chrono::steady_clock::now() < until) {
    most = std::max(most, worker.stats().running);
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(worker.stats().results_sent, 6u) << log_.text();
  EXPECT_LE(most, 2u);
  EXPECT_GE(most, 1u);
}

TEST_F(WorkerTest, StoppingLetsTheRunningCheckFinishAndSendItsResult) {
  Worker worker(worker_options());
  ASSERT_TRUE(link_->submit(check("service", "finishing", "/bin/sh -c 'sleep 0.5; echo finished'")));
  ASSERT_TRUE(wait_until([&] { return worker.stats().running == 1; })) << log_.text();
  worker.stop(5s);
  EXPECT_EQ(worker.stats().results_sent, 1u) << log_.text();
  EXPECT_EQ(worker.stats().handed_back, 0u);
  const auto results = collect(1);
  ASSERT_EQ(results.size(), 1u) << log_.text();
  EXPECT_EQ(results.at("finishing").output, "finished");
}

TEST_F(WorkerTest, AJobAWorkerCannotFinishGoesBackToGearmandForAnother) {
  auto first = std::make_unique<Worker>(worker_options());
  ASSERT_TRUE(link_->submit(check("service", "moved", "/bin/sh -c 'sleep 1; echo done by $WHO'")));
  ASSERT_TRUE(wait_until([&] { return first->stats().running == 1; })) << log_.text();
  first->stop();  // no grace: the plugin is killed and the job not completed
  EXPECT_EQ(first->stats().handed_back, 1u) << log_.text();
  EXPECT_EQ(first->stats().results_sent, 0u);
  first.reset();
  Worker second(worker_options());
  const auto results = collect(1);
  ASSERT_EQ(results.size(), 1u) << log_.text();
  EXPECT_EQ(results.at("moved").output.rfind("done by", 0), 0u) << results.at("moved").output;
  EXPECT_EQ(second.stats().jobs, 1u);
}

}  // namespace
}  // namespace vedette::worker
