// Naemon's daemon mode (-d): refuse to start when another instance holds the lock file, fork, let the
// parent exit once the child reports it is up, and keep the lock (with the child's PID in it) until
// shutdown. Main thread, before any other thread exists (fork copies only the calling thread).
//
//   auto daemon = app::Daemonizer::start(main.lock_file, drop_privileges);  // parent: never returns
//   if (!daemon) { print daemon.error(); return 1; }
//   ... start the core ...   daemon->report_started();   ... run ...   daemon->release();
#pragma once

#include "app/lock_file.hpp"
#include "base/expected.hpp"

#include <functional>
#include <string>

namespace vedette::app {

class Daemonizer {
 public:
  // Runs in the child once it holds the lock, while stderr still reaches the terminal: the privilege drop.
  // An error fails the start.
  using InChild = std::function<base::Status()>;

  // Checks the lock, forks and, in the child, takes the lock (fcntl write lock), writes "PID\n" into it,
  // becomes a session leader, changes to /, runs in_child and points stdin, stdout and stderr at /dev/null.
  // The lock file must be a regular file with one link (a symbolic link is not followed: this may run as
  // root in a directory the daemon's user can write). The parent waits for report_started() or the child's
  // death and exits with 0 or 1. In the child, returns the Daemonizer, or the error (Naemon's wording).
  static base::Expected<Daemonizer> start(const std::string& lock_file, const InChild& in_child = {});

  Daemonizer(Daemonizer&& other) noexcept;
  Daemonizer& operator=(Daemonizer&& other) noexcept;
  ~Daemonizer();

  // Lets the waiting parent exit 0 (once; later calls do nothing).
  void report_started();
  // At shutdown: removes the lock file, as Naemon does in daemon mode.
  void release();

 private:
  Daemonizer(LockFile lock, int parent_fd) : lock_(std::move(lock)), parent_fd_(parent_fd) {}

  LockFile lock_;
  int parent_fd_ = -1;  // write end of the pipe the parent waits on
};

}  // namespace vedette::app
