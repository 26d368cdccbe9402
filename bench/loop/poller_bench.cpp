// What one poll of the core loop costs the Poller around its epoll syscall: a zero-timeout poll with nothing
// ready (the loop's poll while work is pending), one with a ready fd reported, and an interest change applied
// before the poll (one epoll_ctl). Reported as ns per poll; compare builds in the same session.
//
//   build/<dir>/poller_bench --benchmark_min_time=1

#include "loop/poller.hpp"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <sys/eventfd.h>
#include <unistd.h>

namespace vedette::loop {
namespace {

// An eventfd: readable once signalled, and it stays readable until read.
class EventFd {
 public:
  EventFd() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
  ~EventFd() { ::close(fd_); }
  EventFd(const EventFd&) = delete;
  EventFd& operator=(const EventFd&) = delete;
  int fd() const { return fd_; }
  void signal() const {
    const std::uint64_t one = 1;
    (void)!::write(fd_, &one, sizeof one);
  }

 private:
  int fd_;
};

void BM_PollNothingReady(benchmark::State& state) {
  Poller poller;
  EventFd quiet;
  poller.set_interest(quiet.fd(), Interest::read, 1);
  for (auto _ : state) benchmark::DoNotOptimize(poller.wait(Duration{0}).size());
}
BENCHMARK(BM_PollNothingReady);

void BM_PollOneReady(benchmark::State& state) {
  Poller poller;
  EventFd ready;
  ready.signal();
  poller.set_interest(ready.fd(), Interest::read, 1);
  for (auto _ : state) benchmark::DoNotOptimize(poller.wait(Duration{0}).size());
}
BENCHMARK(BM_PollOneReady);

void BM_PollAfterInterestChange(benchmark::State& state) {
  Poller poller;
  EventFd quiet;
  bool write = false;
  for (auto _ : state) {
    write = !write;
    poller.set_interest(quiet.fd(), write ? Interest::read_write : Interest::read, 1);
    benchmark::DoNotOptimize(poller.wait(Duration{0}).size());
  }
}
BENCHMARK(BM_PollAfterInterestChange);

}  // namespace
}  // namespace vedette::loop
