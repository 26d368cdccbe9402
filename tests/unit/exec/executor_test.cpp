#include "exec/executor.hpp"

#include "exec/plugin_output.hpp"
#include "exec/result_queue.hpp"

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
#include <thread>
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

class ExecExecutor : public ::testing::TestWithParam<bool> {
 protected:
  ExecutorOptions options() const {
    ExecutorOptions o;
    o.use_pidfd = GetParam();
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
  EXPECT_LT(took, std::chrono::seconds(3));
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
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(2));
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

INSTANTIATE_TEST_SUITE_P(Pidfd, ExecExecutor, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "pidfd" : "polled"; });

TEST(ExecSpawn, NotExecutableFile) {
  const std::string path = temp_path("not-executable");
  { std::ofstream(path) << "#!/bin/sh\necho never\n"; }
  ::chmod(path.c_str(), 0644);
  // Direct exec: Naemon's child reports execvp's errno as its exit status.
  CheckResult r = run_one(argv_job({path}));
  EXPECT_EQ(r.outcome, Outcome::exec_failed);
  EXPECT_EQ(r.exit_code, EACCES);
  EXPECT_EQ(r.error_output, "execvp(" + path + ", ...) failed. errno is 13: Permission denied\n");
  EXPECT_EQ(interpret_check_result(r, 3).output.output, "(Return code of 13 is out of bounds)");
  // Through the shell: 126.
  r = run_one(shell_job(path + " arg"));
  EXPECT_EQ(r.outcome, Outcome::exited);
  EXPECT_EQ(r.exit_code, 126);
  EXPECT_EQ(interpret_check_result(r, 3).output.output,
            "(Return code of 126 is out of bounds - plugin may not be executable)");
  std::remove(path.c_str());
}

TEST(ExecSpawn, MissingPlugin) {
  CheckResult r = run_one(argv_job({"/nonexistent/check_nothing", "-H", "x"}));
  EXPECT_EQ(r.outcome, Outcome::exec_failed);
  EXPECT_EQ(r.exit_code, ENOENT);
  CheckVerdict v = interpret_check_result(r, 3);
  EXPECT_EQ(v.state, 2);
  EXPECT_EQ(v.output.output,
            "(No output on stdout) stderr: execvp(/nonexistent/check_nothing, ...) failed. errno is 2: No "
            "such file "
            "or directory");
  r = run_one(shell_job("/nonexistent/check_nothing -H x | cat"));
  EXPECT_EQ(r.outcome, Outcome::exited);
  r = run_one(shell_job("/nonexistent/check_nothing -H x"));
  EXPECT_EQ(r.exit_code, 127);
  v = interpret_check_result(r, 3);
  EXPECT_EQ(v.output.output, "(Return code of 127 is out of bounds - plugin may be missing)");
}

TEST(ExecSpawn, ScriptWithoutShebangRunsThroughShellAsExecvpDoes) {
  const std::string path = temp_path("no-shebang");
  { std::ofstream(path) << "echo from script $1\nexit 1\n"; }
  ::chmod(path.c_str(), 0755);
  const CheckResult r = run_one(argv_job({path, "x"}));
  EXPECT_EQ(r.outcome, Outcome::exited);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.output, "from script x\n");
  std::remove(path.c_str());
}

TEST(ExecSpawn, ShellAndNoShell) {
  CheckResult r = run_one(argv_job({"/bin/echo", "a  b", "$HOME", "'q'"}));
  EXPECT_EQ(r.output, "a  b $HOME 'q'\n");
  r = run_one(shell_job("echo $((1+2)) | tr 3 x"));
  EXPECT_EQ(r.output, "x\n");
  r = run_one(argv_job({"echo", "found", "in", "PATH"}));  // execvp's PATH search
  EXPECT_EQ(r.output, "found in PATH\n");
}

TEST(ExecSpawn, EnvironmentAdditionsOverride) {
  ::setenv("VEDETTE_EXEC_TEST_INHERITED", "daemon", 1);
  ::setenv("VEDETTE_EXEC_TEST_OVERRIDDEN", "daemon", 1);
  ResultQueue queue;
  Executor executor(queue);  // snapshots the environment here
  CheckJob job = shell_job("echo $VEDETTE_EXEC_TEST_INHERITED-$VEDETTE_EXEC_TEST_OVERRIDDEN-$NAGIOS_X");
  job.env = {{"VEDETTE_EXEC_TEST_OVERRIDDEN", "job"}, {"NAGIOS_X", "1"}};
  ASSERT_TRUE(executor.submit(std::move(job)));
  auto results = collect(queue, 1);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].output, "daemon-job-1\n");
}

TEST(ExecSpawn, StdinIsDevNullAndStderrSeparate) {
  const CheckResult r =
      run_one(shell_job("cat; readlink /proc/self/fd/0; readlink /proc/$$/fd/0; echo err >&2", 5000));
  EXPECT_EQ(r.outcome, Outcome::exited);
  EXPECT_EQ(r.output, "/dev/null\n/dev/null\n");
  EXPECT_EQ(r.error_output, "err\n");
}

TEST(ExecSpawn, NoLeakedFdsAndOwnProcessGroup) {
  const int leaky = ::open("/dev/null", O_RDONLY);  // deliberately without O_CLOEXEC
  ASSERT_GE(leaky, 3);
  CheckResult r = run_one(argv_job({"/bin/ls", "/proc/self/fd"}));
  ::close(leaky);
  EXPECT_EQ(r.output, "0\n1\n2\n3\n");  // 3 is the directory ls itself opened
  r = run_one(shell_job("set -- $(cat /proc/$$/stat); echo $1 $5"));
  std::istringstream in(r.output);
  long pid = 0;
  long pgid = -1;
  in >> pid >> pgid;
  EXPECT_GT(pid, 0);
  EXPECT_EQ(pid, pgid);
  EXPECT_NE(pgid, ::getpgrp());
}

TEST(ExecSpawn, CheckDummyIfPresent) {
  const char* dummy = "/usr/lib/nagios/plugins/check_dummy";
  if (::access(dummy, X_OK) != 0) GTEST_SKIP() << dummy << " not installed";
  const CheckResult r = run_one(argv_job({dummy, "1", "disk; nearly full"}));
  EXPECT_EQ(r.exit_code, 1);
  const CheckVerdict v = interpret_check_result(r, 3);
  EXPECT_EQ(v.state, 1);
  EXPECT_EQ(v.output.output, "WARNING: disk: nearly full");
}

TEST(ExecOutput, TenMegabytesCappedAndResultArrives) {
  CheckJob job = shell_job("head -c 10000000 /dev/zero | tr '\\0' x; echo done >&2", 10'000);
  job.output_cap_bytes = 64 * 1024;
  const auto started = Clock::now();
  const CheckResult r = run_one(std::move(job));
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(8));
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
  // Nothing more arrives.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::vector<CheckResult> extra;
  queue.drain(extra);
  EXPECT_TRUE(extra.empty());
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
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(2));
  for (int i = 0; i < 100 && !process_gone(grandchild); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(process_gone(grandchild));
  EXPECT_FALSE(executor.submit(argv_job({"/bin/true"})));
  executor.shutdown();  // idempotent
  std::remove(pid_file.c_str());
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
