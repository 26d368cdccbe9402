#include "worker/job_result.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>

namespace vedette::worker {
namespace {

JobSettings settings() {
  JobSettings s;
  s.identifier = "w1";
  s.job_timeout_s = 60;
  s.timeout_return = 2;
  return s;
}

gearman::Job service_job(std::string command = "/bin/check_x -H web01") {
  gearman::Job job;
  job.type = gearman::JobType::service;
  job.result_queue = "check_results";
  job.host_name = "web01";
  job.service_description = "HTTP";
  job.core_time_us = 1'700'000'000'000'000;
  job.timeout_s = 30;
  job.command_line = std::move(command);
  return job;
}

exec::CheckResult exited(int code, std::string out, std::string err = {}) {
  exec::CheckResult r;
  r.outcome = exec::Outcome::exited;
  r.exit_code = code;
  r.output = std::move(out);
  r.error_output = std::move(err);
  r.start_us = 1'700'000'001'000'000;
  r.end_us = 1'700'000'001'250'000;
  return r;
}

TEST(WorkerJob, SplitsTheCommandAsNaemonDoes) {
  auto plain = make_check_job(service_job("/bin/check_x -H 'web 01' -w 5"), 7, settings());
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->id, 7u);
  EXPECT_EQ(plain->kind, exec::CheckKind::service);
  EXPECT_FALSE(plain->use_shell);
  EXPECT_EQ(plain->argv, (std::vector<std::string>{"/bin/check_x", "-H", "web 01", "-w", "5"}));
  EXPECT_EQ(plain->timeout_ms, 30'000u);

  auto shell = make_check_job(service_job("/bin/check_x | tee /tmp/x"), 8, settings());
  ASSERT_TRUE(shell);
  EXPECT_TRUE(shell->use_shell);
  EXPECT_EQ(shell->argv, std::vector<std::string>{"/bin/check_x | tee /tmp/x"});

  auto with_env = make_check_job(service_job("LANG=C /bin/check_x"), 9, settings());
  ASSERT_TRUE(with_env);
  EXPECT_EQ(with_env->argv, std::vector<std::string>{"/bin/check_x"});
  ASSERT_EQ(with_env->env.size(), 1u);
  EXPECT_EQ(with_env->env[0], (exec::EnvVar{"LANG", "C"}));

  gearman::Job no_timeout = service_job();
  no_timeout.timeout_s = 0;
  EXPECT_EQ(make_check_job(no_timeout, 1, settings())->timeout_ms, 60'000u);  // job_timeout
  EXPECT_FALSE(make_check_job(service_job("   "), 1, settings()));
}

TEST(WorkerJob, NotificationsExportTheOutputs) {
  gearman::Job note;
  note.type = gearman::JobType::notification;
  note.service_description = "HTTP";
  note.plugin_output = "CRITICAL";
  note.long_plugin_output = "details";
  note.command_line = "/bin/notify";
  auto job = make_check_job(note, 1, settings());
  ASSERT_TRUE(job);
  EXPECT_EQ(job->kind, exec::CheckKind::other);
  EXPECT_EQ(job->env, (std::vector<exec::EnvVar>{{"NAGIOS_SERVICEOUTPUT", "CRITICAL"},
                                                 {"NAGIOS_LONGSERVICEOUTPUT", "details"}}));
  note.service_description.clear();
  EXPECT_EQ(make_check_job(note, 1, settings())->env[0].first, "NAGIOS_HOSTOUTPUT");
}

TEST(WorkerResult, CarriesTheCheckAndItsTimes) {
  const gearman::Result r = make_result(service_job(), exited(1, "WARNING - slow\nline 2\n"), settings());
  EXPECT_EQ(r.host_name, "web01");
  EXPECT_EQ(r.service_description, "HTTP");
  EXPECT_EQ(r.return_code, 1);
  EXPECT_TRUE(r.exited_ok);
  EXPECT_EQ(r.output, "WARNING - slow\nline 2");
  EXPECT_EQ(r.core_start_time_us, 1'700'000'000'000'000);
  EXPECT_EQ(r.start_time_us, 1'700'000'001'000'000);
  EXPECT_EQ(r.finish_time_us, 1'700'000'001'250'000);
  EXPECT_EQ(r.source, "Vedette Worker @ w1");
}

TEST(WorkerResult, StderrFollowsInBrackets) {
  EXPECT_EQ(make_result(service_job(), exited(0, "OK", "a warning\n"), settings()).output,
            "OK\n[a warning] ");
  EXPECT_EQ(make_result(service_job(), exited(2, "", "only stderr"), settings()).output, "[only stderr] ");
  JobSettings quiet = settings();
  quiet.show_error_output = false;
  EXPECT_EQ(make_result(service_job(), exited(0, "OK", "hidden"), quiet).output, "OK");
}

TEST(WorkerResult, ExitCodesOutOfBoundsAreCritical) {
  const auto r5 = make_result(service_job(), exited(5, "odd"), settings());
  EXPECT_EQ(r5.return_code, 2);
  EXPECT_EQ(r5.output, "CRITICAL: Return code of 5 is out of bounds. (worker: w1)\nodd");
  const auto r126 = make_result(service_job(), exited(126, ""), settings());
  EXPECT_EQ(r126.return_code, 2);
  EXPECT_EQ(r126.output,
            "CRITICAL: Return code of 126 is out of bounds. Make sure the plugin you're trying to run is "
            "executable. (worker: w1)");
  const auto r127 = make_result(service_job(), exited(127, "sh: not found"), settings());
  EXPECT_EQ(r127.return_code, 2);
  EXPECT_NE(r127.output.find("actually exists. (worker: w1)"), std::string::npos) << r127.output;

  exec::CheckResult missing;
  missing.outcome = exec::Outcome::exec_failed;
  missing.spawn_errno = ENOENT;
  EXPECT_NE(make_result(service_job(), missing, settings()).output.find("Return code of 127"),
            std::string::npos);
  missing.spawn_errno = EACCES;
  EXPECT_NE(make_result(service_job(), missing, settings()).output.find("Return code of 126"),
            std::string::npos);

  exec::CheckResult killed;
  killed.outcome = exec::Outcome::killed_by_signal;
  killed.signal = SIGKILL;
  killed.output = "partial";
  const auto rk = make_result(service_job(), killed, settings());
  EXPECT_EQ(rk.return_code, 2);
  EXPECT_EQ(rk.output,
            "CRITICAL: Return code of 137 is out of bounds. Plugin exited by signal SIGKILL. (worker: w1)\n"
            "partial");
}

TEST(WorkerResult, TimeoutsAndSpawnFailures) {
  exec::CheckResult slow;
  slow.outcome = exec::Outcome::timed_out;
  slow.output = "half";
  const auto rs = make_result(service_job(), slow, settings());
  EXPECT_EQ(rs.return_code, 2);
  EXPECT_TRUE(rs.early_timeout);
  EXPECT_EQ(rs.output, "(Service Check Timed Out On Worker: w1)");
  gearman::Job host = service_job();
  host.type = gearman::JobType::host;
  JobSettings unknown = settings();
  unknown.timeout_return = 3;
  const auto rh = make_result(host, slow, unknown);
  EXPECT_EQ(rh.return_code, 3);
  EXPECT_EQ(rh.output, "(Host Check Timed Out On Worker: w1)");
  EXPECT_TRUE(rh.service_description.empty());

  exec::CheckResult failed;
  failed.outcome = exec::Outcome::spawn_failed;
  failed.spawn_errno = EMFILE;
  const auto rf = make_result(service_job(), failed, settings());
  EXPECT_EQ(rf.return_code, 3);
  EXPECT_FALSE(rf.exited_ok);
  EXPECT_NE(rf.output.find("could not start the plugin"), std::string::npos);
}

TEST(WorkerResult, TooOldJobsAreAnsweredWithoutRunning) {
  JobSettings s = settings();
  const gearman::Job job = service_job();
  const std::int64_t now = job.core_time_us + 100'000'000;  // 100 s later
  EXPECT_FALSE(too_old_result(job, now, s));                // max_age 0: no limit
  s.max_age_s = 200;
  EXPECT_FALSE(too_old_result(job, now, s));
  s.max_age_s = 60;
  auto late = too_old_result(job, now, s);
  ASSERT_TRUE(late);
  EXPECT_EQ(late->return_code, 3);
  EXPECT_EQ(late->output, "(Could Not Start Check In Time)");
  EXPECT_EQ(late->service_description, "HTTP");
  gearman::Job handler = job;
  handler.type = gearman::JobType::eventhandler;
  EXPECT_FALSE(too_old_result(handler, now, s));  // only checks
}

}  // namespace
}  // namespace vedette::worker
