// Starts one plugin process the way every check needs it: posix_spawn (vfork semantics, so the cost does
// not grow with the daemon's memory), its own process group, stdin on /dev/null, stdout and stderr on two
// pipes (Naemon's worker keeps them apart: stderr is only shown when stdout is empty), no other fd.
// spawn() may be called from several threads at once; the caller owns the fds it gets back.
#pragma once

#include "exec/check_job.hpp"

#include <string>
#include <sys/types.h>
#include <vector>

namespace vedette::exec {

struct SpawnedChild {
  pid_t pid = -1;
  // pidfd_open(pid): readable once the child has exited. -1 when pidfds are unavailable (old kernel,
  // disabled, or out of fds): then the caller must poll wait4(pid, WNOHANG). Nothing else in the process
  // may reap our children (no waitpid(-1), no SIGCHLD set to SIG_IGN), so the pid stays ours until then.
  int pidfd = -1;
  int stdout_fd = -1;  // read ends, O_NONBLOCK | O_CLOEXEC
  int stderr_fd = -1;
};

enum class SpawnStatus : std::uint8_t {
  ok,
  exec_failed,   // the child was created but could not exec (already reaped by posix_spawn); see error
  spawn_failed,  // no child: pipe2, posix_spawn's clone, or the like failed; see error
};

struct SpawnReport {
  SpawnStatus status = SpawnStatus::ok;
  int error = 0;  // errno for exec_failed / spawn_failed
};

class Spawner {
 public:
  // Snapshots the daemon's environment now (later setenv calls are not seen, and need no lock).
  explicit Spawner(bool use_pidfd = true);
  ~Spawner();
  Spawner(const Spawner&) = delete;
  Spawner& operator=(const Spawner&) = delete;

  // Any thread. On ok, `child` holds the pid and three fds the caller must close.
  [[nodiscard]] SpawnReport spawn(const CheckJob& job, SpawnedChild& child) const;

 private:
  std::vector<std::string> environment_;  // "NAME=value"
  std::vector<char*> envp_;               // into environment_, null-terminated
  int dev_null_ = -1;
  bool use_pidfd_;
};

// Closes every fd of `child` that is open and resets them to -1.
void close_child_fds(SpawnedChild& child);

}  // namespace vedette::exec
