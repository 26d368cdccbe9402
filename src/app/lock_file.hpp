// Naemon's lock_file: whichever Vedette holds an fcntl write lock on it is the one instance running on
// this configuration, and its PID is in it. Main thread, before any other thread exists (an fcntl lock
// belongs to the process: taken after a fork, by the child).
//
//   base::Expected<LockFile> lock = LockFile::open(main.lock_file);
//   if (!lock) refuse(lock.error());
//   if (base::Status s = lock->acquire(); !s) refuse(s.error());   // held by another: its PID in the text
//   ... run ...   lock->release();                                  // removes the file
#pragma once

#include "base/expected.hpp"

#include <string>

namespace vedette::app {

class LockFile {
 public:
  // Opens `path`, creating it (mode 0644). It must be a regular file with one link: a symbolic link is not
  // followed, as this may run as root in a directory the daemon's user can write. The error in Naemon's
  // words; errno_value() tells why when the file could not be opened at all.
  [[nodiscard]] static base::Expected<LockFile> open(const std::string& path);
  // Without creating or writing anything: an error naming the PID when another process holds `path`;
  // ok when it does not, or when it cannot be read (then no other instance can have it either, except one
  // of a user that can read it, which the command file and the socket checks still catch).
  [[nodiscard]] static base::Status check_unheld(const std::string& path);

  LockFile(LockFile&& other) noexcept;
  LockFile& operator=(LockFile&& other) noexcept;
  ~LockFile();  // closes (which drops the lock) but leaves the file

  // Whether another process holds the lock: an error naming it (with `when`: "pre-fork", "post-fork" or
  // "" in Naemon's message).
  [[nodiscard]] base::Status check_free(std::string_view when) const;
  // Takes the lock and writes "PID\n" into the file.
  [[nodiscard]] base::Status acquire(std::string_view when);
  // At shutdown: removes the file and drops the lock, as Naemon does.
  void release();

  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  LockFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

  std::string path_;
  int fd_ = -1;
};

}  // namespace vedette::app
