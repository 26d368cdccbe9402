#include "loop/signals.hpp"

#include "base/check.hpp"

#include <cerrno>
#include <pthread.h>
#include <sys/signalfd.h>
#include <unistd.h>

namespace vedette::loop {

sigset_t loop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGUSR1);
  return set;
}

sigset_t block_loop_signals() {
  const sigset_t set = loop_signals();
  sigset_t old;
  sigemptyset(&old);
  pthread_sigmask(SIG_BLOCK, &set, &old);
  return old;
}

SignalFd::SignalFd() {
  const sigset_t set = loop_signals();
  fd_ = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  VEDETTE_CHECK_ERRNO(fd_ >= 0, "signalfd");
}

SignalFd::~SignalFd() {
  close(fd_);
}

SignalSet SignalFd::drain() {
  SignalSet received;
  signalfd_siginfo infos[8];
  for (;;) {
    const ssize_t n = read(fd_, infos, sizeof infos);
    if (n <= 0) break;  // EAGAIN: nothing left
    for (std::size_t i = 0; i < static_cast<std::size_t>(n) / sizeof(signalfd_siginfo); ++i) {
      received.add(static_cast<int>(infos[i].ssi_signo));
    }
  }
  return received;
}

}  // namespace vedette::loop
