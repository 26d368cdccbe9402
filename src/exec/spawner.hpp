// Starts one plugin process the way every check needs it: vfork semantics (the cost does not grow with the
// daemon's memory), its own process group, stdin on /dev/null, stdout and stderr on two pipes (Naemon's
// worker keeps them apart: stderr is only shown when stdout is empty), no other fd, an empty signal mask.
// spawn() may be called from several threads at once; the caller owns the fds it gets back. run_to_end()
// spawns with the output on /dev/null and waits on the calling thread, for a thread that runs one command
// at a time (the perfdata writer's processing command); checks and side commands go to the Executor.
//
// Two ways, same result (tests/unit/exec run both; bench/exec/spawn_bench.cpp measures them side by side):
//  - clone_vfork (default): clone(CLONE_VM | CLONE_VFORK | CLONE_PIDFD) on a stack each calling thread
//    keeps, the pidfd coming from the same call. glibc's posix_spawn maps and unmaps a fresh child stack per
//    call; on virtual machines the munmap's TLB shootdown across the daemon's threads cost more than the
//    clone itself, and its child checks the disposition of all 64 signals with a syscall each.
//  - posix_spawn: glibc's posix_spawnp plus pidfd_open, the portable reference.
#pragma once

#include "exec/check_job.hpp"

#include <cstdint>
#include <string>
#include <sys/types.h>
#include <vector>

namespace vedette::exec {

struct SpawnedChild {
  pid_t pid = -1;
  // The child's pidfd: readable once the child has exited. -1 when pidfds are unavailable (old kernel,
  // disabled, or out of fds): then the caller must poll wait4(pid, WNOHANG). Nothing else in the process
  // may reap our children (no waitpid(-1), no SIGCHLD set to SIG_IGN), so the pid stays ours until then.
  int pidfd = -1;
  int stdout_fd = -1;  // read ends, O_NONBLOCK | O_CLOEXEC; -1 with ChildOutput::discard
  int stderr_fd = -1;
};

enum class ChildOutput : std::uint8_t {
  pipes,    // stdout and stderr on two pipes whose read ends SpawnedChild holds
  discard,  // both on /dev/null, as Naemon's worker reads and drops a processing command's output
};

enum class SpawnStatus : std::uint8_t {
  ok,
  exec_failed,   // the child was created but could not exec (already reaped); see error
  spawn_failed,  // no child: pipe2, clone or the like failed; see error
};

struct SpawnReport {
  SpawnStatus status = SpawnStatus::ok;
  int error = 0;  // errno for exec_failed / spawn_failed
};

// How run_to_end() went.
struct RunReport {
  SpawnReport spawn;       // not ok: nothing ran
  bool timed_out = false;  // its process group got SIGKILL at the job's timeout
  int wait_status = 0;     // waitpid's status once it was reaped
};

enum class SpawnMethod : std::uint8_t { clone_vfork, posix_spawn };

struct SpawnerOptions {
  bool use_pidfd = true;  // off only to test the wait4 polling fallback
  SpawnMethod method = SpawnMethod::clone_vfork;
};

class Spawner {
 public:
  // Snapshots the daemon's environment now (later setenv calls are not seen, and need no lock).
  explicit Spawner(SpawnerOptions options = {});
  ~Spawner();
  Spawner(const Spawner&) = delete;
  Spawner& operator=(const Spawner&) = delete;

  // Any thread. On ok, `child` holds the pid and three fds the caller must close.
  [[nodiscard]] SpawnReport spawn(const CheckJob& job, SpawnedChild& child,
                                  ChildOutput output = ChildOutput::pipes) const;

  // Any thread; blocks it until the child is reaped. Spawns `job` with ChildOutput::discard, waits, and at
  // job.timeout_ms (0: 60 s, as Naemon's worker) kills its process group as the Executor does, then reaps.
  [[nodiscard]] RunReport run_to_end(const CheckJob& job) const;

 private:
  struct Prepared;
  SpawnReport spawn_clone(Prepared& p, SpawnedChild& child) const;
  SpawnReport spawn_posix(Prepared& p, SpawnedChild& child) const;

  std::vector<std::string> environment_;  // "NAME=value"
  std::vector<char*> envp_;               // into environment_, null-terminated
  std::string search_path_;               // PATH at construction, for names without a '/'
  int dev_null_ = -1;                     // O_RDONLY: every child's stdin
  int dev_null_out_ = -1;                 // O_WRONLY: stdout and stderr with ChildOutput::discard
  SpawnerOptions options_;
};

// Closes every fd of `child` that is open and resets them to -1.
void close_child_fds(SpawnedChild& child);

}  // namespace vedette::exec
