#include "exec/spawner.hpp"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string_view>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace vedette::exec {
namespace {

// Set when the kernel said ENOSYS once, so later spawns do not ask again.
std::atomic<bool> g_pidfd_unsupported{false};

int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  if (g_pidfd_unsupported.load(std::memory_order_relaxed)) return -1;
  // pidfds are always close-on-exec. A child that already exited is a zombie until we reap it, so this
  // cannot miss it and the pid cannot have been reused.
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0 && errno == ENOSYS) g_pidfd_unsupported.store(true, std::memory_order_relaxed);
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

// Pipe whose read end (ours) is non-blocking; the write end stays blocking because the plugin owns it.
bool make_pipe(int fds[2]) {
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  if (::fcntl(fds[0], F_SETFL, O_NONBLOCK) != 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return false;
  }
  return true;
}

std::string_view env_name(std::string_view entry) {
  return entry.substr(0, entry.find('='));
}

}  // namespace

Spawner::Spawner(bool use_pidfd) : use_pidfd_(use_pidfd) {
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) environment_.emplace_back(*e);
  envp_.reserve(environment_.size() + 1);
  for (auto& entry : environment_) envp_.push_back(entry.data());
  envp_.push_back(nullptr);
  dev_null_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (dev_null_ < 0) {
    std::fprintf(stderr, "vedette: open /dev/null: %s\n", std::strerror(errno));
    std::abort();
  }
}

Spawner::~Spawner() {
  ::close(dev_null_);
}

SpawnReport Spawner::spawn(const CheckJob& job, SpawnedChild& child) const {
  child = SpawnedChild{};
  if (job.argv.empty() || (job.use_shell && job.argv.size() != 1)) return {SpawnStatus::exec_failed, EINVAL};

  // argv as char* without copying the strings; posix_spawn does not write through them.
  std::vector<char*> argv;
  if (job.use_shell) {
    argv = {const_cast<char*>("/bin/sh"), const_cast<char*>("-c"), const_cast<char*>(job.argv[0].c_str()),
            nullptr};
  } else {
    argv.reserve(job.argv.size() + 1);
    for (const auto& arg : job.argv) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
  }

  // Environment: the snapshot, minus names the job overrides, plus the job's NAME=value pairs (Naemon's
  // runcmd uses setenv(..., 1), so the job wins).
  std::vector<std::string> added;
  std::vector<char*> merged;
  char* const* envp = envp_.data();
  if (!job.env.empty()) {
    added.reserve(job.env.size());
    for (const auto& [name, value] : job.env) added.push_back(name + "=" + value);
    merged.reserve(environment_.size() + added.size() + 1);
    for (const auto& entry : environment_) {
      const std::string_view name = env_name(entry);
      bool overridden = false;
      for (const auto& [add_name, value] : job.env) overridden = overridden || add_name == name;
      if (!overridden) merged.push_back(const_cast<char*>(entry.c_str()));
    }
    for (auto& entry : added) merged.push_back(entry.data());
    merged.push_back(nullptr);
    envp = merged.data();
  }

  int out[2];
  int err[2];
  if (!make_pipe(out)) return {SpawnStatus::spawn_failed, errno};
  if (!make_pipe(err)) {
    const int error = errno;
    ::close(out[0]);
    ::close(out[1]);
    return {SpawnStatus::spawn_failed, error};
  }

  // Every fd this process opens is O_CLOEXEC (pipe2, open, eventfd, epoll_create1, pidfd), so exec itself
  // closes everything but 0-2 and no close loop runs in the child. closefrom(3) below is one close_range(2)
  // in the child that also covers fds some library opened without O_CLOEXEC.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, dev_null_, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
#endif

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Own process group (pgid = pid) so a timeout can kill the plugin and everything it started. An empty
  // signal mask because the daemon's threads block the signals its signalfd reads. SIGPIPE and friends
  // back to default: Naemon's runcmd resets SIGPIPE, and an inherited SIG_IGN would survive exec.
  sigset_t empty;
  sigemptyset(&empty);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGCHLD}) sigaddset(&defaults, sig);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);

  pid_t pid = -1;
  int rc;
  if (job.use_shell) {
    rc = ::posix_spawn(&pid, "/bin/sh", &actions, &attr, argv.data(), envp);
  } else {
    // PATH search as Naemon's execvp. execvp also runs a file without a #! line through /bin/sh; glibc's
    // posix_spawnp no longer does, so do it here for paths (Naemon's plugins are almost always paths).
    rc = ::posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), envp);
    if (rc == ENOEXEC && job.argv[0].find('/') != std::string::npos) {
      argv.insert(argv.begin(), const_cast<char*>("/bin/sh"));
      rc = ::posix_spawn(&pid, "/bin/sh", &actions, &attr, argv.data(), envp);
    }
  }
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  ::close(err[1]);

  if (rc != 0) {
    ::close(out[0]);
    ::close(err[0]);
    // glibc reports exec errors through the return value and has already reaped that child.
    return {is_resource_error(rc) ? SpawnStatus::spawn_failed : SpawnStatus::exec_failed, rc};
  }

  child.pid = pid;
  child.stdout_fd = out[0];
  child.stderr_fd = err[0];
  child.pidfd = use_pidfd_ ? open_pidfd(pid) : -1;
  return {};
}

void close_child_fds(SpawnedChild& child) {
  for (int* fd : {&child.pidfd, &child.stdout_fd, &child.stderr_fd}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
}

}  // namespace vedette::exec
