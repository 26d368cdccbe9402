// Process signals as fd events: SIGTERM and SIGINT (stop), SIGHUP (reload), SIGUSR1 (reopen the log). They
// must be blocked in every thread, so main() calls block_loop_signals() before starting any thread (new
// threads inherit the mask); then SignalFd delivers them to the core loop and no handler runs at an
// arbitrary point. Core thread only.
//
//   block_loop_signals();  SignalFd signals;  loop.watch(signals.fd(), Interest::read, handler);
#pragma once

#include <csignal>
#include <cstdint>

namespace vedette::loop {

// Signals that arrived, as a set of signal numbers.
class SignalSet {
 public:
  void add(int signo) { bits_ |= bit(signo); }
  bool contains(int signo) const { return (bits_ & bit(signo)) != 0; }
  bool empty() const { return bits_ == 0; }

 private:
  static std::uint64_t bit(int signo) { return signo > 0 && signo < 64 ? std::uint64_t{1} << signo : 0; }
  std::uint64_t bits_ = 0;
};

// SIGTERM, SIGINT, SIGHUP, SIGUSR1.
sigset_t loop_signals();
// Blocks loop_signals() in the calling thread (and in threads it starts later). Returns the previous mask.
sigset_t block_loop_signals();

class SignalFd {
 public:
  SignalFd();  // a non-blocking signalfd for loop_signals(); fatal (base/check.hpp) on failure (startup)
  ~SignalFd();
  SignalFd(const SignalFd&) = delete;
  SignalFd& operator=(const SignalFd&) = delete;

  int fd() const { return fd_; }
  // Reads every pending signal.
  SignalSet drain();

 private:
  int fd_;
};

}  // namespace vedette::loop
