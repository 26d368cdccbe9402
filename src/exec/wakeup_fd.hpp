// An eventfd used as a level "something is queued" flag between threads. signal() from any thread, clear()
// and fd() on the thread that polls it. exec keeps its own rather than depend on loop/.
#pragma once

namespace vedette::exec {

class WakeupFd {
 public:
  WakeupFd();  // aborts if no eventfd can be created: without it no thread could ever be woken
  ~WakeupFd();
  WakeupFd(const WakeupFd&) = delete;
  WakeupFd& operator=(const WakeupFd&) = delete;

  void signal();  // any thread; one write(2)
  void clear();   // poller thread; one read(2), harmless when not signalled
  [[nodiscard]] int fd() const { return fd_; }

 private:
  int fd_;
};

}  // namespace vedette::exec
