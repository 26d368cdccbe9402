// GearmanLink against a real gearmand on loopback, with a libgearman worker and client in the test
// playing Mod-Gearman's worker. Skipped when gearmand is not installed (Debian: gearman-job-server).
#include "gearman/client.hpp"
#include "gearmand_fixture.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <functional>
#include <libgearman-1.0/gearman.h>
#include <mutex>
#include <netinet/in.h>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace vedette::gearman {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using testing_support::find_gearmand;
using testing_support::free_port;
using testing_support::Gearmand;
using testing_support::wait_until;

constexpr std::string_view k_key = "link-test-key";

// Mod-Gearman's worker, reduced to taking job payloads off some queues.
class TestWorker {
 public:
  TestWorker(std::uint16_t port, const std::vector<std::string>& queues)
      : worker_(gearman_worker_create(nullptr)) {
    gearman_worker_add_server(worker_, "127.0.0.1", port);
    gearman_worker_set_timeout(worker_, 100);
    for (const std::string& q : queues) gearman_worker_add_function(worker_, q.c_str(), 0, &on_job, this);
  }
  ~TestWorker() { gearman_worker_free(worker_); }

  // Works until `count` jobs arrived (or the limit passed); returns the (queue, payload) pairs.
  std::vector<std::pair<std::string, std::string>> take(std::size_t count,
                                                        std::chrono::milliseconds limit = 15s) {
    const auto until = Clock::now() + limit;
    while (jobs_.size() < count && Clock::now() < until) (void)gearman_worker_work(worker_);
    return std::move(jobs_);
  }

 private:
  static void* on_job(gearman_job_st* job, void* context, size_t* result_size, gearman_return_t* ret) {
    *result_size = 0;
    *ret = GEARMAN_SUCCESS;
    auto* self = static_cast<TestWorker*>(context);
    self->jobs_.emplace_back(
        gearman_job_function_name(job),
        std::string(static_cast<const char*>(gearman_job_workload(job)), gearman_job_workload_size(job)));
    return nullptr;
  }

  gearman_worker_st* worker_;
  std::vector<std::pair<std::string, std::string>> jobs_;
};

// What a worker does with a result: a background job on the result queue.
bool send_to_queue(std::uint16_t port, const std::string& queue, const std::string& payload) {
  gearman_client_st* client = gearman_client_create(nullptr);
  gearman_client_add_server(client, "127.0.0.1", port);
  gearman_client_set_timeout(client, 5000);
  gearman_job_handle_t handle;
  const gearman_return_t rc =
      gearman_client_do_background(client, queue.c_str(), nullptr, payload.data(), payload.size(), handle);
  gearman_client_free(client);
  return gearman_success(rc);
}

class Events {
 public:
  std::function<void(const LinkEvent&)> sink() {
    return [this](const LinkEvent& e) {
      std::lock_guard lock(mutex_);
      events_.push_back(e);
    };
  }
  std::size_t count(LinkEventKind kind) const {
    std::lock_guard lock(mutex_);
    std::size_t n = 0;
    for (const LinkEvent& e : events_) n += e.kind == kind;
    return n;
  }
  std::string text() const {
    std::lock_guard lock(mutex_);
    std::string out;
    for (const LinkEvent& e : events_) out += e.message + "\n";
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<LinkEvent> events_;
};

// Drains the link like the core loop would, until `count` results arrived.
std::vector<IncomingResult> collect(GearmanLink& link, std::size_t count,
                                    std::chrono::milliseconds limit = 15s) {
  std::vector<IncomingResult> all;
  std::vector<IncomingResult> results;
  std::vector<Submission> gave_up;
  const auto until = Clock::now() + limit;
  while (all.size() < count && Clock::now() < until) {
    pollfd p{link.fd(), POLLIN, 0};
    ::poll(&p, 1, 50);
    link.drain(results, gave_up);
    for (auto& r : results) all.push_back(std::move(r));
    EXPECT_TRUE(gave_up.empty());
  }
  return all;
}

Submission service_submission(std::string host, std::string service, std::uint64_t tag) {
  Submission s;
  s.queue = "service";
  s.unique = unique_key(host, service);
  s.priority = Priority::low;
  s.tag = tag;
  s.job.type = JobType::service;
  s.job.result_queue = "check_results";
  s.job.target_queue = "service";
  s.job.host_name = std::move(host);
  s.job.service_description = std::move(service);
  s.job.core_time_us = 1'700'000'000'000'000;
  s.job.timeout_s = 60;
  s.job.command_line = "/usr/lib/nagios/plugins/check_dummy 0 ok";
  return s;
}

Result result_for(const Job& job, int code) {
  Result r;
  r.host_name = job.host_name;
  r.service_description = job.service_description;
  r.core_start_time_us = job.core_time_us;
  r.start_time_us = job.core_time_us + 1'000;
  r.finish_time_us = job.core_time_us + 2'000;
  r.return_code = code;
  r.source = "test worker";
  r.output = "OUTPUT " + job.service_description + "\nsecond line";
  return r;
}

class GearmanLinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    binary_ = find_gearmand();
    if (binary_.empty()) GTEST_SKIP() << "gearmand not installed (Debian package gearman-job-server)";
    // A few tries: a port can be taken by a parallel test process between free_port() and gearmand's bind.
    for (int attempt = 0; attempt < 5 && !server_; ++attempt) {
      auto server = std::make_unique<Gearmand>(binary_, free_port());
      if (server->start()) server_ = std::move(server);
    }
    ASSERT_TRUE(server_) << "gearmand did not start";
  }

  LinkOptions link_options() {
    LinkOptions o;
    o.servers = {{"127.0.0.1", server_->port()}};
    o.codec = Codec::encrypted(k_key);
    o.retry_interval = 100ms;
    o.io_timeout = 2000ms;
    o.on_event = events_.sink();
    return o;
  }

  std::string binary_;
  std::unique_ptr<Gearmand> server_;
  Events events_;
};

TEST_F(GearmanLinkTest, JobsGoOutAndResultsComeBack) {
  const Codec codec = Codec::encrypted(k_key);
  GearmanLink link(link_options());
  ASSERT_TRUE(wait_until([&] { return link.stats().results_connected; })) << events_.text();

  for (std::uint64_t i = 0; i < 3; ++i)
    ASSERT_TRUE(link.submit(service_submission("web01", "svc" + std::to_string(i), i)));
  Submission host;
  host.queue = "hostgroup_dmz";
  host.priority = Priority::normal;
  host.job.type = JobType::host;
  host.job.result_queue = "check_results";
  host.job.target_queue = "hostgroup_dmz";
  host.job.host_name = "gw";
  host.job.core_time_us = 1'700'000'000'000'000;
  host.job.command_line = "/bin/true";
  ASSERT_TRUE(link.submit(std::move(host)));

  TestWorker worker(server_->port(), {"service", "hostgroup_dmz"});
  const auto jobs = worker.take(4);
  ASSERT_EQ(jobs.size(), 4u) << events_.text();
  std::size_t services = 0;
  for (const auto& [queue, payload] : jobs) {
    auto text = codec.open(payload);
    ASSERT_TRUE(text) << text.error();
    auto job = parse_job(*text);
    ASSERT_TRUE(job) << job.error();
    EXPECT_EQ(job->result_queue, "check_results");
    EXPECT_EQ(job->target_queue, queue);
    if (job->type == JobType::service) {
      ++services;
      EXPECT_EQ(queue, "service");
      EXPECT_EQ(job->host_name, "web01");
      EXPECT_EQ(job->command_line, "/usr/lib/nagios/plugins/check_dummy 0 ok");
    } else {
      EXPECT_EQ(queue, "hostgroup_dmz");
      EXPECT_EQ(job->host_name, "gw");
    }
    // The worker's answer, encrypted with the shared key.
    auto wire = codec.seal(format_result(result_for(*job, job->type == JobType::service ? 1 : 0)));
    ASSERT_TRUE(wire);
    ASSERT_TRUE(send_to_queue(server_->port(), job->result_queue, *wire));
  }
  EXPECT_EQ(services, 3u);

  // Junk on the result queue is dropped and reported, and does not stop the results after it.
  ASSERT_TRUE(send_to_queue(server_->port(), "check_results", "not base64 at all"));
  ASSERT_TRUE(send_to_queue(server_->port(), "check_results",
                            *Codec::encrypted("wrong key").seal("host_name=x\noutput=y\n")));
  Result late;
  late.host_name = "late";
  late.output = "after the junk";
  ASSERT_TRUE(send_to_queue(server_->port(), "check_results", *codec.seal(format_result(late))));

  const auto results = collect(link, 5);
  ASSERT_EQ(results.size(), 5u) << events_.text();
  std::size_t service_results = 0;
  for (const IncomingResult& in : results) {
    EXPECT_GT(in.received_us, 0);
    const Result& r = in.result;
    if (r.host_name == "late") {
      EXPECT_EQ(r.output, "after the junk");
      continue;
    }
    if (r.service_description.empty()) {
      EXPECT_EQ(r.host_name, "gw");
      EXPECT_EQ(r.return_code, 0);
      continue;
    }
    ++service_results;
    EXPECT_EQ(r.host_name, "web01");
    EXPECT_EQ(r.return_code, 1);
    EXPECT_EQ(r.output, "OUTPUT " + r.service_description + "\nsecond line");
    EXPECT_EQ(r.core_start_time_us, 1'700'000'000'000'000);
  }
  EXPECT_EQ(service_results, 3u);
  // The submit thread counts a job after gearmand's answer, which may come after the worker had it.
  EXPECT_TRUE(wait_until([&] { return link.stats().sent == 4; }));
  const LinkStats stats = link.stats();
  EXPECT_EQ(stats.results, 5u);
  EXPECT_EQ(stats.bad_results, 2u);
  EXPECT_EQ(stats.queued_jobs, 0u);
  EXPECT_EQ(events_.count(LinkEventKind::bad_result), 1u) << events_.text();  // once a minute at most
  EXPECT_EQ(events_.count(LinkEventKind::submit_down), 0u);
  EXPECT_EQ(events_.count(LinkEventKind::results_down), 0u);
}

// Jobs go out in batches of background tasks (send_pipelined); a queue still gets them in the order they
// were submitted, and each once.
TEST_F(GearmanLinkTest, ABatchGoesOutInTheOrderItCame) {
  const Codec codec = Codec::encrypted(k_key);
  LinkOptions options = link_options();
  options.result_queue.clear();
  GearmanLink link(std::move(options));
  constexpr int k_jobs = 600;  // more than one batch
  for (int i = 0; i < k_jobs; ++i) {
    Submission s = service_submission("web01", "svc" + std::to_string(i), static_cast<std::uint64_t>(i));
    s.priority = Priority::normal;  // one priority: gearmand hands them out in the order it got them
    ASSERT_TRUE(link.submit(std::move(s)));
  }
  ASSERT_TRUE(wait_until([&] { return link.stats().sent == k_jobs; }, 20s)) << events_.text();
  TestWorker worker(server_->port(), {"service"});
  const auto jobs = worker.take(k_jobs, 30s);
  ASSERT_EQ(jobs.size(), static_cast<std::size_t>(k_jobs));
  for (int i = 0; i < k_jobs; ++i) {
    auto text = codec.open(jobs[static_cast<std::size_t>(i)].second);
    ASSERT_TRUE(text);
    auto job = parse_job(*text);
    ASSERT_TRUE(job) << job.error();
    ASSERT_EQ(job->service_description, "svc" + std::to_string(i));
  }
  EXPECT_EQ(link.stats().send_failures, 0u);
}

TEST_F(GearmanLinkTest, AJobHandedOverEarlyGoesOutWhenDue) {
  GearmanLink link(link_options());
  Submission s = service_submission("web01", "later", 1);
  const auto due = Clock::now() + 400ms;
  s.not_before = due;
  ASSERT_TRUE(link.submit(std::move(s)));
  ASSERT_TRUE(link.submit(service_submission("web01", "now", 2)));  // behind it: waits as well
  TestWorker worker(server_->port(), {"service"});
  const auto jobs = worker.take(2, 5s);
  const auto arrived = Clock::now();
  ASSERT_EQ(jobs.size(), 2u) << events_.text();
  EXPECT_GE(arrived, due);
}

TEST_F(GearmanLinkTest, RecoversWhenGearmandRestarts) {
  const Codec codec = Codec::encrypted(k_key);
  LinkOptions options = link_options();
  options.give_up_after = 0ms;  // keep every job until gearmand is back
  GearmanLink link(std::move(options));
  ASSERT_TRUE(wait_until([&] { return link.stats().results_connected; })) << events_.text();

  server_->kill_and_hold_port(SIGKILL);
  ASSERT_TRUE(wait_until([&] { return events_.count(LinkEventKind::results_down) == 1; })) << events_.text();
  ASSERT_TRUE(link.submit(service_submission("web01", "during-outage", 7)));
  ASSERT_TRUE(link.submit(service_submission("web01", "during-outage-2", 8)));
  ASSERT_TRUE(wait_until([&] { return events_.count(LinkEventKind::submit_down) == 1; })) << events_.text();
  std::this_thread::sleep_for(500ms);  // several retries: still one report per outage
  EXPECT_EQ(events_.count(LinkEventKind::submit_down), 1u) << events_.text();
  EXPECT_EQ(events_.count(LinkEventKind::results_down), 1u) << events_.text();
  EXPECT_FALSE(link.stats().submit_connected);
  EXPECT_EQ(link.stats().queued_jobs, 2u);

  ASSERT_TRUE(server_->start()) << "gearmand did not restart";
  ASSERT_TRUE(wait_until([&] { return events_.count(LinkEventKind::submit_up) == 1; })) << events_.text();
  ASSERT_TRUE(wait_until([&] { return events_.count(LinkEventKind::results_up) == 1; })) << events_.text();

  // The jobs queued during the outage arrive, and results flow again.
  TestWorker worker(server_->port(), {"service"});
  const auto jobs = worker.take(2);
  ASSERT_EQ(jobs.size(), 2u);
  for (const auto& [queue, payload] : jobs) {
    auto job = parse_job(*codec.open(payload));
    ASSERT_TRUE(job) << job.error();
    ASSERT_TRUE(
        send_to_queue(server_->port(), "check_results", *codec.seal(format_result(result_for(*job, 2)))));
  }
  const auto results = collect(link, 2);
  ASSERT_EQ(results.size(), 2u) << events_.text();
  EXPECT_EQ(results[0].result.return_code, 2);
  EXPECT_EQ(link.stats().unsent, 0u);
}

TEST_F(GearmanLinkTest, StopIsPromptWhileTheResultWorkerWaits) {
  LinkOptions options = link_options();
  options.io_timeout = 10'000ms;  // stop() must not wait for it
  auto link = std::make_unique<GearmanLink>(std::move(options));
  ASSERT_TRUE(wait_until([&] { return link->stats().results_connected; })) << events_.text();
  std::this_thread::sleep_for(100ms);  // into gearman_worker_work's wait
  const auto start = Clock::now();
  link.reset();
  EXPECT_LT(Clock::now() - start, 2s);
}

// No gearmand at all: nothing here needs the binary.
TEST(GearmanLink, BackPressureAndGivingUpWhenGearmandIsAbsent) {
  std::uint16_t port = 0;
  const int reserved = testing_support::reserve_dead_port(port);  // nobody listens here during the test
  ASSERT_GE(reserved, 0);
  Events events;
  LinkOptions options;
  options.servers = {{"127.0.0.1", port}};
  options.codec = Codec::encrypted(k_key);
  options.max_queued_jobs = 3;
  options.retry_interval = 50ms;
  options.give_up_after = 300ms;
  options.io_timeout = 1000ms;
  options.on_event = events.sink();
  GearmanLink link(std::move(options));

  Submission bad = service_submission("h", "s", 99);
  bad.queue.clear();
  EXPECT_FALSE(link.submit(bad));  // no queue
  bad.queue = std::string(k_max_queue_name + 1, 'q');
  EXPECT_FALSE(link.submit(bad));  // too long for gearmand
  EXPECT_EQ(bad.tag, 99u);         // left untouched

  for (std::uint64_t i = 0; i < 3; ++i)
    ASSERT_TRUE(link.submit(service_submission("h", std::to_string(i), i)));
  Submission fourth = service_submission("h", "4", 4);
  EXPECT_FALSE(link.submit(fourth));  // full
  EXPECT_EQ(fourth.job.service_description, "4");

  std::vector<Submission> unsent;
  std::vector<IncomingResult> results;
  std::vector<Submission> batch;
  const auto until = Clock::now() + 5s;
  while (unsent.size() < 3 && Clock::now() < until) {
    pollfd p{link.fd(), POLLIN, 0};
    ::poll(&p, 1, 50);
    link.drain(results, batch);
    EXPECT_TRUE(results.empty());
    for (auto& s : batch) unsent.push_back(std::move(s));
  }
  ASSERT_EQ(unsent.size(), 3u) << events.text();
  for (std::uint64_t i = 0; i < 3; ++i) EXPECT_EQ(unsent[i].tag, i);  // in submission order
  EXPECT_EQ(link.stats().unsent, 3u);
  EXPECT_EQ(link.stats().queued_jobs, 0u);
  EXPECT_EQ(events.count(LinkEventKind::submit_down), 1u) << events.text();
  EXPECT_EQ(events.count(LinkEventKind::results_down), 1u) << events.text();
  EXPECT_NE(events.text().find("cannot submit jobs to gearmand 127.0.0.1:" + std::to_string(port)),
            std::string::npos)
      << events.text();
  // Room again.
  EXPECT_TRUE(link.submit(std::move(fourth)));
  link.stop();
  ::close(reserved);
}

}  // namespace
}  // namespace vedette::gearman
