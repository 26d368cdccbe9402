#include "exec/spawner.hpp"

#include "base/check.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <string_view>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace vedette::exec {
namespace {

// Set when the kernel said no once, so later spawns do not ask again.
std::atomic<bool> g_pidfd_open_unsupported{false};
std::atomic<bool> g_clone_pidfd_unsupported{false};

int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  if (g_pidfd_open_unsupported.load(std::memory_order_relaxed)) return -1;
  // pidfds are always close-on-exec. A child that already exited is a zombie until we reap it, so this
  // cannot miss it and the pid cannot have been reused.
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0 && errno == ENOSYS) g_pidfd_open_unsupported.store(true, std::memory_order_relaxed);
  return fd;
#else
  (void)pid;
  return -1;
#endif
}

// Errors that mean "no process could be made", as opposed to "the process could not exec". Naemon's
// worker turns the first kind into a job error ("did not exit properly") and sees the second as the
// child's exit status.
bool is_resource_error(int error) {
  return error == EAGAIN || error == ENOMEM || error == EMFILE || error == ENFILE;
}

// The child's fds are dup2'ed onto 0-2, so none of ours may be 0-2 itself (possible only if the daemon
// runs with a standard fd closed). Moves `fd` to 3 or above, keeping close-on-exec.
bool keep_above_stdio(int& fd) {
  if (fd > STDERR_FILENO) return true;
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
  if (moved < 0) return false;
  ::close(fd);
  fd = moved;
  return true;
}

// Pipe whose read end (ours) is non-blocking; the write end stays blocking because the plugin owns it.
bool make_pipe(int fds[2]) {
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  if (::fcntl(fds[0], F_SETFL, O_NONBLOCK) != 0 || !keep_above_stdio(fds[0]) || !keep_above_stdio(fds[1])) {
    const int error = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    errno = error;
    return false;
  }
  return true;
}

std::string_view env_name(std::string_view entry) {
  return entry.substr(0, entry.find('='));
}

// Signals an inherited SIG_IGN must not pass on to plugins (it would survive exec); Naemon's runcmd resets
// SIGPIPE. Handlers need no reset: exec restores those to the default by itself.
constexpr int k_default_signals[] = {SIGPIPE, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGCHLD};

// What the clone_vfork child needs, all prepared by the parent: the child shares the parent's memory and
// must not allocate, lock or touch anything but this until it execs.
struct ChildPlan {
  const char* file;  // contains a '/': executed as is; otherwise looked up in search_path
  char** argv;       // argv[-1] is a spare slot: "/bin/sh" goes there for the ENOEXEC fallback
  char* const* envp;
  const char* search_path;  // PATH as execvp reads it
  int stdin_fd, stdout_fd, stderr_fd;
  int error;  // written by the child when it cannot exec; the parent reads it once clone returns
};

// The file could not be executed as a program: run it through the shell, as execvp does.
[[gnu::no_sanitize_address]] void exec_file(ChildPlan& plan, const char* path) {
  ::execve(path, plan.argv, plan.envp);
  if (errno != ENOEXEC) return;
  plan.argv[-1] = const_cast<char*>("/bin/sh");
  plan.argv[0] = const_cast<char*>(path);
  ::execve("/bin/sh", plan.argv - 1, plan.envp);
}

// execvp's PATH walk: EACCES from any directory wins over a later ENOENT; errors that say the directory
// entry is missing or unusable move on to the next directory, any other error stops the search.
[[gnu::no_sanitize_address]] void exec_searching(ChildPlan& plan) {
  const std::size_t name_len = std::strlen(plan.file);
  char path[4096];
  bool denied = false;
  const char* dir = plan.search_path;
  while (true) {
    const char* end = std::strchr(dir, ':');
    const std::size_t dir_len = end != nullptr ? static_cast<std::size_t>(end - dir) : std::strlen(dir);
    if (dir_len + name_len + 2 <= sizeof path) {
      std::size_t n = 0;
      if (dir_len == 0) {
        path[n++] = '.';  // an empty PATH entry is the current directory
      } else {
        std::memcpy(path, dir, dir_len);
        n = dir_len;
      }
      path[n++] = '/';
      std::memcpy(path + n, plan.file, name_len + 1);
      exec_file(plan, path);
      if (errno == EACCES) {
        denied = true;
      } else if (errno != ENOENT && errno != ENOTDIR && errno != ESTALE && errno != ENODEV &&
                 errno != ETIMEDOUT) {
        return;
      }
    }
    if (end == nullptr) break;
    dir = end + 1;
  }
  errno = denied ? EACCES : ENOENT;
}

// dup2 clears close-on-exec on the copy, except when source and target are the same fd.
[[gnu::no_sanitize_address]] bool move_fd(int from, int to) {
  if (from == to) return ::fcntl(to, F_SETFD, 0) == 0;
  return ::dup2(from, to) == to;
}

// Runs in the child, on the parent's memory, while the parent thread waits (CLONE_VFORK): only
// async-signal-safe calls, no allocation. Sanitizer instrumentation would write shadow memory the parent
// owns, so there is none here.
[[gnu::no_sanitize_address]] int run_child(void* arg) {
  ChildPlan& plan = *static_cast<ChildPlan*>(arg);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig : k_default_signals) ::sigaction(sig, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);  // the executor threads block the daemon's signals
  if (::setpgid(0, 0) == 0 && move_fd(plan.stdin_fd, STDIN_FILENO) &&
      move_fd(plan.stdout_fd, STDOUT_FILENO) && move_fd(plan.stderr_fd, STDERR_FILENO)) {
    // Every fd the daemon opens is close-on-exec; this also covers any a library opened without it.
    (void)::close_range(STDERR_FILENO + 1, ~0U, 0);
    if (std::strchr(plan.file, '/') != nullptr) {
      exec_file(plan, plan.file);
    } else {
      exec_searching(plan);
    }
  }
  plan.error = errno != 0 ? errno : ENOEXEC;
  ::_exit(127);
}

// The clone_vfork child's stack: one per calling thread, allocated on its first spawn. The child only runs
// exec_searching's path buffer and libc's syscall wrappers on it.
constexpr std::size_t k_child_stack_bytes = 64 * 1024;

char* child_stack_top() {
  thread_local std::unique_ptr<char[]> stack;
  if (!stack) stack = std::make_unique<char[]>(k_child_stack_bytes);
  // Stacks grow down on every Linux architecture Vedette builds for; keep the top 16-byte aligned.
  const auto top = reinterpret_cast<std::uintptr_t>(stack.get() + k_child_stack_bytes) & ~std::uintptr_t{15};
  return reinterpret_cast<char*>(top);
}

}  // namespace

// One spawn's inputs, shared by both methods.
struct Spawner::Prepared {
  explicit Prepared(const CheckJob& j) : job(j) {}
  const CheckJob& job;
  std::vector<char*> argv_storage;  // [0] spare for the shell fallback, then argv, then nullptr
  std::vector<std::string> added;   // the job's NAME=value
  std::vector<char*> merged;        // envp when the job adds variables
  char* const* envp = nullptr;
  int out[2] = {-1, -1};
  int err[2] = {-1, -1};

  char** argv() { return argv_storage.data() + 1; }
  const char* file() const { return job.use_shell ? "/bin/sh" : job.argv[0].c_str(); }
};

Spawner::Spawner(SpawnerOptions options) : options_(options) {
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) environment_.emplace_back(*e);
  envp_.reserve(environment_.size() + 1);
  for (auto& entry : environment_) envp_.push_back(entry.data());
  envp_.push_back(nullptr);
  // execvp's default when PATH is unset.
  const char* path = std::getenv("PATH");
  search_path_ = path != nullptr ? path : "/bin:/usr/bin";
  dev_null_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  dev_null_out_ = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  VEDETTE_CHECK_ERRNO(
      dev_null_ >= 0 && keep_above_stdio(dev_null_) && dev_null_out_ >= 0 && keep_above_stdio(dev_null_out_),
      "open /dev/null");
}

Spawner::~Spawner() {
  ::close(dev_null_);
  ::close(dev_null_out_);
}

SpawnReport Spawner::spawn(const CheckJob& job, SpawnedChild& child, ChildOutput output) const {
  child = SpawnedChild{};
  if (job.argv.empty() || (job.use_shell && job.argv.size() != 1)) return {SpawnStatus::exec_failed, EINVAL};

  // argv as char* without copying the strings; neither method writes through them.
  Prepared p(job);
  if (job.use_shell) {
    p.argv_storage = {nullptr, const_cast<char*>("/bin/sh"), const_cast<char*>("-c"),
                      const_cast<char*>(job.argv[0].c_str()), nullptr};
  } else {
    p.argv_storage.reserve(job.argv.size() + 2);
    p.argv_storage.push_back(nullptr);
    for (const auto& arg : job.argv) p.argv_storage.push_back(const_cast<char*>(arg.c_str()));
    p.argv_storage.push_back(nullptr);
  }

  // Environment: the snapshot, minus names the job overrides, plus the job's NAME=value pairs (Naemon's
  // runcmd uses setenv(..., 1), so the job wins).
  p.envp = envp_.data();
  if (!job.env.empty()) {
    p.added.reserve(job.env.size());
    for (const auto& [name, value] : job.env) p.added.push_back(name + "=" + value);
    p.merged.reserve(environment_.size() + p.added.size() + 1);
    for (const auto& entry : environment_) {
      const std::string_view name = env_name(entry);
      bool overridden = false;
      for (const auto& [add_name, value] : job.env) overridden = overridden || add_name == name;
      if (!overridden) p.merged.push_back(const_cast<char*>(entry.c_str()));
    }
    for (auto& entry : p.added) p.merged.push_back(entry.data());
    p.merged.push_back(nullptr);
    p.envp = p.merged.data();
  }

  if (output == ChildOutput::discard) {
    p.out[1] = p.err[1] = dev_null_out_;  // the spawner's own fd: not closed below
  } else {
    if (!make_pipe(p.out)) return {SpawnStatus::spawn_failed, errno};
    if (!make_pipe(p.err)) {
      const int error = errno;
      ::close(p.out[0]);
      ::close(p.out[1]);
      return {SpawnStatus::spawn_failed, error};
    }
  }

  const SpawnReport report =
      options_.method == SpawnMethod::clone_vfork ? spawn_clone(p, child) : spawn_posix(p, child);
  if (output == ChildOutput::discard) return report;
  ::close(p.out[1]);
  ::close(p.err[1]);
  if (report.status != SpawnStatus::ok) {
    ::close(p.out[0]);
    ::close(p.err[0]);
    return report;
  }
  child.stdout_fd = p.out[0];
  child.stderr_fd = p.err[0];
  return report;
}

RunReport Spawner::run_to_end(const CheckJob& job) const {
  RunReport report;
  SpawnedChild child;
  report.spawn = spawn(job, child, ChildOutput::discard);
  if (report.spawn.status != SpawnStatus::ok) return report;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline =
      Clock::now() + std::chrono::milliseconds(job.timeout_ms == 0 ? 60'000 : job.timeout_ms);
  for (;;) {
    const pid_t got = ::waitpid(child.pid, &report.wait_status, WNOHANG);
    if (got == child.pid || (got < 0 && errno != EINTR)) break;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      (void)::kill(-child.pid, SIGKILL);
      while (::waitpid(child.pid, &report.wait_status, 0) < 0 && errno == EINTR) {
      }
      report.timed_out = true;
      break;
    }
    if (child.pidfd >= 0) {
      pollfd p{child.pidfd, POLLIN, 0};
      (void)::poll(&p, 1,
                   static_cast<int>(std::min<std::chrono::milliseconds::rep>(left.count(), 3'600'000)));
    } else {  // no pidfd: poll, as the Executor's fallback does
      std::this_thread::sleep_for(std::min(left, std::chrono::milliseconds(10)));
    }
  }
  close_child_fds(child);
  return report;
}

SpawnReport Spawner::spawn_clone(Prepared& p, SpawnedChild& child) const {
  ChildPlan plan{p.file(), p.argv(), p.envp, search_path_.c_str(), dev_null_, p.out[1], p.err[1], 0};
  int pidfd = -1;
  int flags = CLONE_VM | CLONE_VFORK | SIGCHLD;
  const bool want_pidfd = options_.use_pidfd && !g_clone_pidfd_unsupported.load(std::memory_order_relaxed);
  if (want_pidfd) flags |= CLONE_PIDFD;
  pid_t pid = ::clone(run_child, child_stack_top(), flags, &plan, &pidfd);
  if (pid < 0 && errno == EINVAL && want_pidfd) {
    g_clone_pidfd_unsupported.store(true, std::memory_order_relaxed);  // kernels before 5.2
    pidfd = -1;
    pid = ::clone(run_child, child_stack_top(), flags & ~CLONE_PIDFD, &plan, &pidfd);
  }
  if (pid < 0) return {SpawnStatus::spawn_failed, errno};
  // The parent resumes once the child has exec'd or exited; an exec failure is in plan.error.
  if (plan.error != 0) {
    int status;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (pidfd >= 0) ::close(pidfd);
    return {is_resource_error(plan.error) ? SpawnStatus::spawn_failed : SpawnStatus::exec_failed, plan.error};
  }
  child.pid = pid;
  if (options_.use_pidfd) child.pidfd = pidfd >= 0 ? pidfd : open_pidfd(pid);
  return {};
}

SpawnReport Spawner::spawn_posix(Prepared& p, SpawnedChild& child) const {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, dev_null_, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, p.out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, p.err[1], STDERR_FILENO);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
#endif

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t empty;
  sigemptyset(&empty);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int sig : k_default_signals) sigaddset(&defaults, sig);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);

  pid_t pid = -1;
  int rc;
  if (p.job.use_shell) {
    rc = ::posix_spawn(&pid, "/bin/sh", &actions, &attr, p.argv(), p.envp);
  } else {
    // glibc's posix_spawnp no longer runs a file without a #! line through /bin/sh as execvp does; do it
    // here for paths (Naemon's plugins are almost always paths).
    rc = ::posix_spawnp(&pid, p.file(), &actions, &attr, p.argv(), p.envp);
    if (rc == ENOEXEC && p.job.argv[0].find('/') != std::string::npos) {
      p.argv_storage[0] = const_cast<char*>("/bin/sh");
      rc = ::posix_spawn(&pid, "/bin/sh", &actions, &attr, p.argv_storage.data(), p.envp);
    }
  }
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  // glibc reports exec errors through the return value and has already reaped that child.
  if (rc != 0) return {is_resource_error(rc) ? SpawnStatus::spawn_failed : SpawnStatus::exec_failed, rc};
  child.pid = pid;
  if (options_.use_pidfd) child.pidfd = open_pidfd(pid);
  return {};
}

void close_child_fds(SpawnedChild& child) {
  for (int* fd : {&child.pidfd, &child.stdout_fd, &child.stderr_fd}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
}

}  // namespace vedette::exec
