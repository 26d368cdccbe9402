#include "exec/executor.hpp"

#include "exec/plugin_output.hpp"
#include "exec/result_queue.hpp"
#include "exec/spawner.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <poll.h>
#include <set>
#include <signal.h>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <tuple>
#include <unistd.h>
#include <vector>

namespace vedette::exec {
namespace {

using Clock = std::chrono::steady_clock;

CheckJob argv_job(std::vector<std::string> argv, std::uint32_t timeout_ms = 10'000) {
  CheckJob job;
  job.argv = std::move(argv);
  job.timeout_ms = timeout_ms;
  return job;
}

CheckJob shell_job(std::string line, std::uint32_t timeout_ms = 10'000) {
  CheckJob job;
  job.argv = {std::move(line)};
  job.use_shell = true;
  job.timeout_ms = timeout_ms;
  return job;
}

// Waits on the queue's eventfd like the core loop would, draining in batches.
std::vector<CheckResult> collect(ResultQueue& queue, std::size_t count,
                                 std::chrono::milliseconds limit = std::chrono::seconds(15)) {
  std::vector<CheckResult> all;
  std::vector<CheckResult> batch;
  const auto until = Clock::now() + limit;
  while (all.size() < count && Clock::now() < until) {
    pollfd p{queue.fd(), POLLIN, 0};
    ::poll(&p, 1, 50);
    queue.drain(batch);
    for (auto& r : batch) all.push_back(std::move(r));
    batch.clear();
  }
  return all;
}

CheckResult run_one(CheckJob job, ExecutorOptions options = {}) {
  ResultQueue queue;
  Executor executor(queue, options);
  EXPECT_TRUE(executor.submit(std::move(job)));
  auto results = collect(queue, 1);
  EXPECT_EQ(results.size(), 1u);
  return results.empty() ? CheckResult{} : std::move(results[0]);
}

bool process_gone(pid_t pid) {
  // Dead, or a zombie waiting for an init that may not reap in this container.
  if (::kill(pid, 0) != 0) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto close = line.rfind(')');
  return close == std::string::npos || line.substr(close + 2, 1) == "Z";
}

pid_t read_pid(const std::string& path) {
  std::ifstream in(path);
  pid_t pid = 0;
  in >> pid;
  return pid;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("vedette-exec-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

const char* method_name(SpawnMethod method) {
  return method == SpawnMethod::clone_vfork ? "clone" : "posix_spawn";
}

// Every executor behaviour with pidfds and with the wait4 polling fallback, under both spawn methods.
class ExecExecutor : public ::testing::TestWithParam<std::tuple<bool, SpawnMethod>> {
 protected:
  ExecutorOptions options() const {
    ExecutorOptions o;
    o.use_pidfd = std::get<0>(GetParam());
    o.spawn_method = std::get<1>(GetParam());
    return o;
  }
};

TEST_P(ExecExecutor, ExitCodesZeroToFour) {
  ResultQueue queue;
  Executor executor(queue, options());
  for (std::uint32_t code = 0; code <= 4; ++code) {
    CheckJob job = argv_job({"/bin/sh", "-c", "echo out $0; exit $0", std::to_string(code)});
    job.id = code;
    job.generation = 100 + code;
    ASSERT_TRUE(executor.submit(std::move(job)));
  }
  auto results = collect(queue, 5);
  ASSERT_EQ(results.size(), 5u);
  for (const auto& r : results) {
    EXPECT_EQ(r.outcome, Outcome::exited);
    EXPECT_EQ(r.exit_code, static_cast<int>(r.id));
    EXPECT_EQ(r.generation, 100 + r.id);
    EXPECT_EQ(r.output, "out " + std::to_string(r.id) + "\n");
    EXPECT_LE(r.start_us, r.end_us);
    const CheckVerdict v = interpret_check_result(r, 3);
    EXPECT_EQ(v.state, r.id <= 3 ? static_cast<int>(r.id) : 2);
  }
}

TEST_P(ExecExecutor, HangingPluginKilledWithItsWholeGroup) {
  const std::string pid_file = temp_path("grandchild.pid");
  const auto started = Clock::now();
  const CheckResult r =
      run_one(shell_job("sleep 1000 & echo $! > " + pid_file + "; echo partial; sleep 1000", 300), options());
  const auto took = Clock::now() - started;
  EXPECT_EQ(r.outcome, Outcome::timed_out);
  EXPECT_LT(took, std::chrono::seconds(60));  // killed at its timeout, not after its 1000 s
  EXPECT_GE(r.end_us - r.start_us, 290'000);
  EXPECT_EQ(r.output, "partial\n");
  const pid_t grandchild = read_pid(pid_file);
  ASSERT_GT(grandchild, 0);
  for (int i = 0; i < 100 && !process_gone(grandchild); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(process_gone(grandchild));
  std::remove(pid_file.c_str());
  const CheckVerdict v = interpret_check_result(r, 3);
  EXPECT_EQ(v.state, 3);
  EXPECT_EQ(v.output.output.rfind("(Service check timed out after 0.", 0), 0u) << v.output.output;
}

TEST_P(ExecExecutor, GrandchildHoldingThePipeDoesNotHoldTheResult) {
  const std::string pid_file = temp_path("holder.pid");
  const auto started = Clock::now();
  const CheckResult r = run_one(shell_job("(sleep 30 & echo $! > " + pid_file + ") ; echo hi"), options());
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(20));  // not the holder's 30 s
  EXPECT_EQ(r.outcome, Outcome::exited);
  EXPECT_EQ(r.output, "hi\n");
  const pid_t holder = read_pid(pid_file);
  if (holder > 0) ::kill(holder, SIGKILL);
  std::remove(pid_file.c_str());
}

TEST_P(ExecExecutor, KilledBySignal) {
  const CheckResult r = run_one(argv_job({"/bin/sh", "-c", "echo half; kill -TERM $$"}), options());
  EXPECT_EQ(r.outcome, Outcome::killed_by_signal);
  EXPECT_EQ(r.signal, SIGTERM);
  const CheckVerdict v = interpret_check_result(r, 2);
  EXPECT_EQ(v.state, 3);
  EXPECT_EQ(v.output.output, "half");
}

INSTANTIATE_TEST_SUITE_P(Modes, ExecExecutor,
                         ::testing::Combine(::testing::Values(true, false),
                                            ::testing::Values(SpawnMethod::clone_vfork,
                                                              SpawnMethod::posix_spawn)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) ? "pidfd_" : "polled_") +
                                  method_name(std::get<1>(info.param));
                         });

// What a plugin sees, under both spawn methods.
class ExecSpawn : public ::testing::TestWithParam<SpawnMethod> {
 protected:
  ExecutorOptions options() const {
    ExecutorOptions o;
    o.spawn_method = GetParam();
    return o;
  }
  CheckResult run(CheckJob job) const { return run_one(std::move(job), options()); }
};

TEST_P(ExecSpawn, NotExecutableFile) {
  const std::string path = temp_path("not-executable");
  { std::ofstream(path) << "#!/bin/sh\necho never\n"; }
  ::chmod(path.c_str(), 0644);
  // Direct exec: Naemon's child reports execvp's errno as its exit status.
  CheckResult r = run(argv_job({path}));
  EXPECT_EQ(r.outcome, Outcome::exec_failed);
  EXPECT_EQ(r.exit_code, EACCES);
  EXPECT_EQ(r.error_output, "execvp(" + path + ", ...) failed. errno is 13: Permission denied\n");
  EXPECT_EQ(interpret_check_result(r, 3).output.output, "(Return code of 13 is out of bounds)");
  // Through the shell: 126.
  r = run(shell_job(path + " arg"));
  EXPECT_EQ(r.outcome, Outcome::exited);
  EXPECT_EQ(r.exit_code, 126);
  EXPECT_EQ(interpret_check_result(r, 3).output.output,
            "(Return code of 126 is out of bounds - plugin may not be executable)");
  std::remove(path.c_str());
}

TEST_P(ExecSpawn, MissingPlugin) {
  CheckResult r = run(argv_job({"/nonexistent/check_nothing", "-H", "x"}));
  EXPECT_EQ(r.outcome, Outcome::exec_failed);
  EXPECT_EQ(r.exit_code, ENOENT);
  CheckVerdict v = interpret_check_result(r, 3);
  EXPECT_EQ(v.state, 2);
  EXPECT_EQ(v.output.output,
            "(No output on stdout) stderr: execvp(/nonexistent/check_nothing, ...) failed. errno is 2: No "
            "such file "
            "or directory");
  r = run(shell_job("/nonexistent/check_nothing -H x | cat"));
  EXPECT_EQ(r.outcome, Outcome::exited);
  r = run(shell_job("/nonexistent/check_nothing -H x"));
  EXPECT_EQ(r.exit_code, 127);
  v = interpret_check_result(r, 3);
  EXPECT_EQ(v.output.output, "(Return code of 127 is out of bounds - plugin may be missing)");
}

TEST_P(ExecSpawn, ScriptWithoutShebangRunsThroughShellAsExecvpDoes) {
  const std::string path = temp_path("no-shebang");
  { std::ofstream(path) << "echo from script $1\nexit 1\n"; }
  ::chmod(path.c_str(), 0755);
  const CheckResult r = run(argv_job({path, "x"}));
  EXPECT_EQ(r.outcome, Outcome::exited);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.output, "from script x\n");
  std::remove(path.c_str());
}

TEST_P(ExecSpawn, ShellAndNoShell) {
  CheckResult r = run(argv_job({"/bin/echo", "a  b", "$HOME", "'q'"}));
  EXPECT_EQ(r.output, "a  b $HOME 'q'\n");
  r = run(shell_job("echo $((1+2)) | tr 3 x"));
  EXPECT_EQ(r.output, "x\n");
  r = run(argv_job({"echo", "found", "in", "PATH"}));  // execvp's PATH search
  EXPECT_EQ(r.output, "found in PATH\n");
}

TEST_P(ExecSpawn, EnvironmentAdditionsOverride) {
  ::setenv("VEDETTE_EXEC_TEST_INHERITED", "daemon", 1);
  ::setenv("VEDETTE_EXEC_TEST_OVERRIDDEN", "daemon", 1);
  ResultQueue queue;
  Executor executor(queue, options());  // snapshots the environment here
  CheckJob job = shell_job("echo $VEDETTE_EXEC_TEST_INHERITED-$VEDETTE_EXEC_TEST_OVERRIDDEN-$NAGIOS_X");
  job.env = {{"VEDETTE_EXEC_TEST_OVERRIDDEN", "job"}, {"NAGIOS_X", "1"}};
  ASSERT_TRUE(executor.submit(std::move(job)));
  auto results = collect(queue, 1);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].output, "daemon-job-1\n");
}

TEST_P(ExecSpawn, StdinIsDevNullAndStderrSeparate) {
  const CheckResult r =
      run(shell_job("cat; readlink /proc/self/fd/0; readlink /proc/$$/fd/0; echo err >&2", 5000));
  EXPECT_EQ(r.outcome, Outcome::exited);
  EXPECT_EQ(r.output, "/dev/null\n/dev/null\n");
  EXPECT_EQ(r.error_output, "err\n");
}

TEST_P(ExecSpawn, NoLeakedFdsAndOwnProcessGroup) {
  const int leaky = ::open("/dev/null", O_RDONLY);  // deliberately without O_CLOEXEC
  ASSERT_GE(leaky, 3);
  CheckResult r = run(argv_job({"/bin/ls", "/proc/self/fd"}));
  ::close(leaky);
  EXPECT_EQ(r.output, "0\n1\n2\n3\n");  // 3 is the directory ls itself opened
  r = run(shell_job("set -- $(cat /proc/$$/stat); echo $1 $5"));
  std::istringstream in(r.output);
  long pid = 0;
  long pgid = -1;
  in >> pid >> pgid;
  EXPECT_GT(pid, 0);
  EXPECT_EQ(pid, pgid);
  EXPECT_NE(pgid, ::getpgrp());
}

TEST_P(ExecSpawn, CheckDummyIfPresent) {
  const char* dummy = "/usr/lib/nagios/plugins/check_dummy";
  if (::access(dummy, X_OK) != 0) GTEST_SKIP() << dummy << " not installed";
  const CheckResult r = run(argv_job({dummy, "1", "disk; nearly full"}));
  EXPECT_EQ(r.exit_code, 1);
  const CheckVerdict v = interpret_check_result(r, 3);
  EXPECT_EQ(v.state, 1);
  EXPECT_EQ(v.output.output, "WARNING: disk: nearly full");
}

TEST_P(ExecSpawn, PathSearchAsExecvp) {
  // A directory earlier in PATH holding a non-executable file of that name: execvp goes on, and would
  // report EACCES only if no later directory had it.
  const std::string dir = temp_path("path-dir");
  std::filesystem::create_directories(dir);
  { std::ofstream(dir + "/vedette_echo_probe") << "#!/bin/sh\necho never\n"; }
  ::chmod((dir + "/vedette_echo_probe").c_str(), 0644);
  { std::ofstream(dir + "/echo") << "#!/bin/sh\necho never\n"; }
  ::chmod((dir + "/echo").c_str(), 0644);
  const std::string saved = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
  ::setenv("PATH", (dir + ":" + saved).c_str(), 1);
  CheckResult found = run(argv_job({"echo", "later", "dir"}));
  CheckResult denied = run(argv_job({"vedette_echo_probe"}));
  CheckResult missing = run(argv_job({"vedette_no_such_plugin"}));
  ::setenv("PATH", saved.c_str(), 1);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(found.output, "later dir\n");
  EXPECT_EQ(denied.outcome, Outcome::exec_failed);
  EXPECT_EQ(denied.exit_code, EACCES);
  EXPECT_EQ(missing.outcome, Outcome::exec_failed);
  EXPECT_EQ(missing.exit_code, ENOENT);
}

TEST_P(ExecSpawn, SignalsBackToDefaultAndUnblocked) {
  // The executor threads block the daemon's signals and the daemon may ignore SIGPIPE: neither may reach
  // the plugin.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction saved {};
  ::sigaction(SIGPIPE, &ignore, &saved);
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGHUP);
  sigset_t old_mask;
  ::pthread_sigmask(SIG_BLOCK, &block, &old_mask);  // inherited by the executor threads started below
  const CheckResult r = run(argv_job({"/bin/grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status"}));
  ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  ::sigaction(SIGPIPE, &saved, nullptr);
  // Signals 1-31 only: glibc's posix_spawn leaves its own internal signals 32 and 33 ignored.
  std::istringstream in(r.output);
  std::string blk_label, ign_label;
  std::uint64_t blocked = ~0ull, ignored = ~0ull;
  in >> blk_label >> std::hex >> blocked >> ign_label >> ignored;
  EXPECT_EQ(blk_label, "SigBlk:");
  EXPECT_EQ(blocked, 0u) << r.output;
  EXPECT_EQ(ignored & 0x7fffffffu, 0u) << r.output;
}

// run_to_end (the perfdata writer's processing commands): output on /dev/null, exit status, and at the
// timeout the whole process group killed before it returns.
TEST_P(ExecSpawn, RunToEndDiscardsOutputAndKillsTheGroupAtTimeout) {
  const Spawner spawner({.method = GetParam()});
  const std::string out = temp_path("run-to-end");
  RunReport r = spawner.run_to_end(
      shell_job("echo lost; echo lost >&2; echo \"$(readlink /proc/$$/fd/1) $(readlink /proc/$$/fd/2)\" > " +
                out + "; exit 3"));
  EXPECT_EQ(r.spawn.status, SpawnStatus::ok);
  EXPECT_FALSE(r.timed_out);
  EXPECT_TRUE(WIFEXITED(r.wait_status));
  EXPECT_EQ(WEXITSTATUS(r.wait_status), 3);
  std::ostringstream text;
  text << std::ifstream(out).rdbuf();
  EXPECT_EQ(text.str(), "/dev/null /dev/null\n");

  const auto start = Clock::now();
  r = spawner.run_to_end(shell_job("sleep 30 & echo $! > " + out + "; wait", 500));
  EXPECT_TRUE(r.timed_out);
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(490));
  EXPECT_TRUE(WIFSIGNALED(r.wait_status));
  const pid_t sleeper = read_pid(out);
  ASSERT_GT(sleeper, 0);
  for (int i = 0; i < 200 && !process_gone(sleeper); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(process_gone(sleeper));
  std::remove(out.c_str());

  r = spawner.run_to_end(argv_job({"/nonexistent/process-perfdata"}));
  EXPECT_EQ(r.spawn.status, SpawnStatus::exec_failed);
  EXPECT_EQ(r.spawn.error, ENOENT);
}

INSTANTIATE_TEST_SUITE_P(Methods, ExecSpawn,
                         ::testing::Values(SpawnMethod::clone_vfork, SpawnMethod::posix_spawn),
                         [](const auto& info) { return std::string(method_name(info.param)); });

TEST(ExecOutput, TenMegabytesCappedAndResultArrives) {
  CheckJob job = shell_job("head -c 10000000 /dev/zero | tr '\\0' x; echo done >&2", 10'000);
  job.output_cap_bytes = 64 * 1024;
  const auto started = Clock::now();
  const CheckResult r = run_one(std::move(job));
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(60));  // read to the end, not stalled on a full pipe
  EXPECT_EQ(r.outcome, Outcome::exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output.size(), 64u * 1024);
  EXPECT_LE(r.output.capacity(), 2u * 64 * 1024);
  EXPECT_TRUE(r.output_truncated);
  EXPECT_EQ(r.output.find_first_not_of('x'), std::string::npos);
  EXPECT_EQ(r.error_output, "done\n");
  EXPECT_FALSE(r.error_output_truncated);
}

TEST(ExecExecutorLoad, FiveHundredConcurrentJobsReturnExactlyOnce) {
  ResultQueue queue;
  Executor executor(queue, {.threads = 2});
  std::vector<CheckJob> batch;
  for (std::uint32_t i = 0; i < 500; ++i) {
    CheckJob job = argv_job({"/bin/true"});
    job.id = i;
    job.generation = i * 7;
    if (i % 2 == 0) {
      ASSERT_TRUE(executor.submit(std::move(job)));
    } else {
      batch.push_back(std::move(job));
    }
  }
  EXPECT_EQ(executor.submit_batch(batch), 250u);
  EXPECT_TRUE(batch.empty());
  auto results = collect(queue, 500, std::chrono::seconds(15));
  ASSERT_EQ(results.size(), 500u);
  std::set<std::uint32_t> seen;
  for (const auto& r : results) {
    EXPECT_TRUE(seen.insert(r.id).second) << "duplicate " << r.id;
    EXPECT_EQ(r.generation, r.id * 7);
    EXPECT_EQ(r.outcome, Outcome::exited);
    EXPECT_EQ(r.exit_code, 0);
  }
  // Nothing more arrives: a job submitted now comes back alone.
  CheckJob sentinel = argv_job({"/bin/true"});
  sentinel.id = 1000;
  ASSERT_TRUE(executor.submit(std::move(sentinel)));
  const auto extra = collect(queue, 1);
  ASSERT_EQ(extra.size(), 1u);
  EXPECT_EQ(extra[0].id, 1000u);
  EXPECT_GT(executor.cpu_time().count(), 0);
}

TEST(ExecExecutorLoad, ThreadsAreNamed) {
  ResultQueue queue;
  Executor executor(queue, {.threads = 2});
  std::set<std::string> names;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    std::getline(comm, name);
    names.insert(name);
  }
  EXPECT_TRUE(names.count("exec-0"));
  EXPECT_TRUE(names.count("exec-1"));
}

TEST(ExecExecutorLoad, ShutdownKillsRunningGroupsAndRefusesJobs) {
  const std::string pid_file = temp_path("shutdown.pid");
  ResultQueue queue;
  Executor executor(queue);
  ASSERT_TRUE(executor.submit(shell_job("sleep 1000 & echo $! > " + pid_file + "; sleep 1000", 100'000)));
  pid_t grandchild = 0;
  for (int i = 0; i < 200 && grandchild <= 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    grandchild = read_pid(pid_file);
  }
  ASSERT_GT(grandchild, 0);
  const auto started = Clock::now();
  executor.shutdown();
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(60));  // killed, not waited for (1000 s)
  for (int i = 0; i < 100 && !process_gone(grandchild); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(process_gone(grandchild));
  EXPECT_FALSE(executor.submit(argv_job({"/bin/true"})));
  executor.shutdown();  // idempotent
  std::remove(pid_file.c_str());
}

std::int64_t mono_ns_now() {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::int64_t wall_us_now() {
  timespec ts;
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000 + ts.tv_nsec / 1000;
}

CheckJob held_job(std::uint32_t id, std::int64_t start_in_ms) {
  CheckJob job = argv_job({"/bin/true"});
  job.id = id;
  job.not_before_ns = mono_ns_now() + start_in_ms * 1'000'000;
  return job;
}

// Jobs handed over early start at their own time, not before (beyond the start slack) and not when a
// thread happens to wake: one due sooner than everything its thread holds must wake that thread. With
// several threads, the jobs are dealt out in turn and each thread keeps its own time.
class ExecExecutorHeldJobs : public ::testing::TestWithParam<unsigned> {};

INSTANTIATE_TEST_SUITE_P(Threads, ExecExecutorHeldJobs, ::testing::Values(1u, 4u));

TEST_P(ExecExecutorHeldJobs, StartAtTheirTimeInTimeOrder) {
  ResultQueue queue;
  Executor executor(queue, {.threads = GetParam()});
  const std::int64_t submitted_us = wall_us_now();
  std::vector<CheckJob> batch;
  batch.push_back(held_job(0, 600));
  batch.push_back(held_job(1, 300));
  executor.submit_batch(batch);
  ASSERT_TRUE(executor.submit(held_job(2, 100)));  // sooner than anything held: must wake the thread
  ASSERT_TRUE(executor.submit(held_job(3, 0)));    // now
  auto results = collect(queue, 4);
  ASSERT_EQ(results.size(), 4u);
  std::map<std::uint32_t, std::int64_t> started_after_ms;
  for (const auto& r : results) started_after_ms[r.id] = (r.start_us - submitted_us) / 1000;
  EXPECT_GE(started_after_ms[2], 99);
  EXPECT_GE(started_after_ms[1], 299);
  EXPECT_GE(started_after_ms[0], 599);
  // In due order, whatever a loaded machine adds: the one due now first, none waiting for the 600 ms job.
  EXPECT_LT(started_after_ms[3], started_after_ms[2]);
  EXPECT_LT(started_after_ms[2], started_after_ms[1]);
  EXPECT_LT(started_after_ms[1], started_after_ms[0]);
  for (const auto& r : results) EXPECT_EQ(r.outcome, Outcome::exited);
}

// A burst of jobs due within a few ms, dealt out over the threads: each starts and comes back once.
TEST_P(ExecExecutorHeldJobs, BurstOfDueJobsAllStart) {
  ResultQueue queue;
  Executor executor(queue, {.threads = GetParam()});
  std::vector<CheckJob> batch;
  for (std::uint32_t i = 0; i < 40; ++i) batch.push_back(held_job(i, 50 + (i % 4)));
  ASSERT_EQ(executor.submit_batch(batch), 40u);
  auto results = collect(queue, 40);
  ASSERT_EQ(results.size(), 40u);
  std::set<std::uint32_t> ids;
  for (const auto& r : results) {
    ids.insert(r.id);
    EXPECT_EQ(r.outcome, Outcome::exited);
  }
  EXPECT_EQ(ids.size(), 40u);
}

TEST_P(ExecExecutorHeldJobs, CancelHeldReturnsEveryJobNotStarted) {
  ResultQueue queue;
  Executor executor(queue, {.threads = GetParam()});
  for (std::uint32_t i = 0; i < 5; ++i) {
    CheckJob job = held_job(i, 60'000);
    job.generation = 10 + i;
    ASSERT_TRUE(executor.submit(std::move(job)));
  }
  ASSERT_TRUE(executor.submit(held_job(99, 0)));              // due now: runs, is not cancelled
  auto results = collect(queue, 1, std::chrono::seconds(5));  // it has run: the others are held by now
  ASSERT_EQ(results.size(), 1u);
  executor.cancel_held();
  const auto cancelled = collect(queue, 5, std::chrono::seconds(5));
  ASSERT_EQ(cancelled.size(), 5u);
  results.insert(results.end(), cancelled.begin(), cancelled.end());
  for (const auto& r : results) {
    if (r.id == 99) {
      EXPECT_EQ(r.outcome, Outcome::exited);
    } else {
      EXPECT_EQ(r.outcome, Outcome::cancelled);
      EXPECT_EQ(r.generation, 10 + r.id);
    }
  }
  // New jobs are still accepted and run.
  ASSERT_TRUE(executor.submit(held_job(7, 0)));
  results = collect(queue, 1);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].outcome, Outcome::exited);
}

TEST_P(ExecExecutorHeldJobs, ShutdownDropsHeldJobs) {
  ResultQueue queue;
  Executor executor(queue, {.threads = GetParam()});
  ASSERT_TRUE(executor.submit(held_job(0, 60'000)));
  // One job due now per thread, dealt out in turn after the held one: when every one has come back, the
  // held job's thread has taken it in and holds it for its start time.
  for (unsigned i = 0; i < GetParam(); ++i) ASSERT_TRUE(executor.submit(held_job(100 + i, 0)));
  ASSERT_EQ(collect(queue, GetParam()).size(), GetParam());
  const auto started = Clock::now();
  executor.shutdown();
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(30));  // dropped, not held to its 60 s
  std::vector<CheckResult> out;
  queue.drain(out);
  EXPECT_TRUE(out.empty());
}

// ExecutorOptions::timing_out_slots: jobs marked timing_out beyond the bound wait, without a process, until
// one of theirs is reaped; the others pass them.
CheckJob timing_out_job(std::uint32_t id) {
  CheckJob job = argv_job({"/bin/sleep", "30"}, 300);
  job.id = id;
  job.timing_out = true;
  return job;
}

TEST(ExecTimingOutSlots, BeyondTheBoundTheyWaitAndHealthyJobsPassThem) {
  ResultQueue queue;
  Executor executor(queue, {.threads = 1, .timing_out_slots = 1});
  EXPECT_EQ(executor.timing_out_slots(), 1u);
  for (std::uint32_t i = 0; i < 3; ++i) ASSERT_TRUE(executor.submit(timing_out_job(i)));
  CheckJob healthy = argv_job({"/bin/true"});
  healthy.id = 9;
  ASSERT_TRUE(executor.submit(std::move(healthy)));
  auto results = collect(queue, 4);
  ASSERT_EQ(results.size(), 4u);
  // The healthy job did not wait for the timing-out ones: its result came first.
  EXPECT_EQ(results[0].id, 9u);
  EXPECT_EQ(results[0].outcome, Outcome::exited);
  EXPECT_FALSE(results[0].timing_out);
  // One at a time, in order, each started only after the one before was killed; still a timeout each.
  for (std::uint32_t i = 0; i < 3; ++i) {
    const CheckResult& r = results[i + 1];
    EXPECT_EQ(r.id, i);
    EXPECT_EQ(r.outcome, Outcome::timed_out);
    EXPECT_TRUE(r.timing_out);
    if (i > 0) {
      EXPECT_GE(r.start_us, results[i].end_us);
    }
  }
}

TEST(ExecTimingOutSlots, SharedOutOverTheThreadsAtLeastOneEach) {
  ResultQueue queue;
  EXPECT_EQ(Executor(queue, {.threads = 4, .timing_out_slots = 2}).timing_out_slots(), 4u);
  EXPECT_EQ(Executor(queue, {.threads = 2, .timing_out_slots = 7}).timing_out_slots(), 7u);
  EXPECT_EQ(Executor(queue, {.threads = 2}).timing_out_slots(), 0u);
}

TEST(ExecTimingOutSlots, UnboundedByDefault) {
  ResultQueue queue;
  Executor executor(queue, {.threads = 1});
  for (std::uint32_t i = 0; i < 3; ++i) ASSERT_TRUE(executor.submit(timing_out_job(i)));
  auto results = collect(queue, 3);
  ASSERT_EQ(results.size(), 3u);
  for (const auto& r : results) {
    EXPECT_EQ(r.outcome, Outcome::timed_out);
    EXPECT_LT(r.start_us, results[0].end_us);  // all ran at once
  }
}

TEST(ExecTimingOutSlots, CancelHeldReturnsTheWaitingOnes) {
  ResultQueue queue;
  Executor executor(queue, {.threads = 1, .timing_out_slots = 1});
  // The first takes the one slot and says so when it runs; the second waits for the slot.
  const std::string started = temp_path("timing-out-started");
  std::remove(started.c_str());
  CheckJob first = shell_job("echo > " + started + "; exec sleep 30", 10'000);
  first.id = 0;
  first.timing_out = true;
  ASSERT_TRUE(executor.submit(std::move(first)));
  ASSERT_TRUE(executor.submit(timing_out_job(1)));
  for (int i = 0; i < 1500 && !std::filesystem::exists(started); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(std::filesystem::exists(started)) << "the first timing-out job never ran";
  executor.cancel_held();
  auto results = collect(queue, 1, std::chrono::seconds(5));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].id, 1u);
  EXPECT_EQ(results[0].outcome, Outcome::cancelled);
  std::remove(started.c_str());
}

TEST(ExecResultQueue, PolledModeSetsAFlagInsteadOfWritingTheEventfd) {
  ResultQueue queue;
  queue.use_polling();
  EXPECT_FALSE(queue.has_results());
  CheckResult r;
  r.id = 7;
  queue.push(std::move(r));
  pollfd p{queue.fd(), POLLIN, 0};
  EXPECT_EQ(::poll(&p, 1, 0), 0) << "no syscall on the producer side, nothing to read on the core's";
  EXPECT_TRUE(queue.has_results());
  std::vector<CheckResult> out;
  queue.drain(out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].id, 7u);
  EXPECT_FALSE(queue.has_results());
  std::vector<CheckResult> batch(2);
  queue.push_batch(batch);
  EXPECT_TRUE(queue.has_results());
  out.clear();
  queue.drain(out);
  EXPECT_EQ(out.size(), 2u);
}

TEST(ExecResultQueue, EventfdWrittenOnlyOnEmptyToNonEmpty) {
  ResultQueue queue;
  for (std::uint32_t i = 0; i < 3; ++i) {
    CheckResult r;
    r.id = i;
    queue.push(std::move(r));
  }
  std::vector<CheckResult> batch(2);
  batch[0].id = 3;
  batch[1].id = 4;
  queue.push_batch(batch);
  EXPECT_TRUE(batch.empty());
  std::uint64_t counter = 0;
  ASSERT_EQ(::read(queue.fd(), &counter, sizeof counter), static_cast<ssize_t>(sizeof counter));
  EXPECT_EQ(counter, 1u);
  std::vector<CheckResult> out;
  queue.drain(out);
  ASSERT_EQ(out.size(), 5u);
  for (std::uint32_t i = 0; i < 5; ++i) EXPECT_EQ(out[i].id, i);
  pollfd p{queue.fd(), POLLIN, 0};
  EXPECT_EQ(::poll(&p, 1, 0), 0);  // drained: not readable
  out.clear();
  queue.push(CheckResult{});
  EXPECT_EQ(::poll(&p, 1, 0), 1);
  queue.drain(out);
  EXPECT_EQ(out.size(), 1u);
  EXPECT_EQ(::poll(&p, 1, 0), 0);
}

}  // namespace
}  // namespace vedette::exec
