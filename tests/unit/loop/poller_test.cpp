#include "loop/poller.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <unistd.h>

namespace vedette::loop {
namespace {

struct Pipe {
  int fds[2] = {-1, -1};
  Pipe() { EXPECT_EQ(pipe(fds), 0); }
  ~Pipe() { close_both(); }
  void close_both() {
    for (int& fd : fds) {
      if (fd >= 0) close(fd);
      fd = -1;
    }
  }
  int r() const { return fds[0]; }
  int w() const { return fds[1]; }
};

TEST(Poller, AppliesManyChangesToOneFdWithOneCall) {
  Poller poller;
  Pipe p;
  for (int i = 0; i < 10; ++i) {
    poller.set_interest(p.r(), Interest::read_write, 1);
    poller.set_interest(p.r(), Interest::none, 1);
    poller.set_interest(p.r(), Interest::read, 7);
  }
  EXPECT_EQ(poller.ctl_calls(), 0u);
  poller.flush_changes();
  EXPECT_EQ(poller.ctl_calls(), 1u);  // one EPOLL_CTL_ADD

  // Back and forth within an iteration ends where it started: no call at all.
  poller.set_interest(p.r(), Interest::none, 7);
  poller.set_interest(p.r(), Interest::read, 8);
  poller.flush_changes();
  EXPECT_EQ(poller.ctl_calls(), 1u);

  ASSERT_EQ(write(p.w(), "x", 1), 1);
  const auto ready = poller.wait(Duration::zero());
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].fd, p.r());
  EXPECT_EQ(ready[0].token, 8u);  // the token changed without a syscall
  EXPECT_EQ(ready[0].events, Interest::read);

  poller.set_interest(p.r(), Interest::none, 8);
  EXPECT_TRUE(poller.wait(Duration::zero()).empty());
  EXPECT_EQ(poller.ctl_calls(), 2u);  // one EPOLL_CTL_DEL
}

TEST(Poller, ManyFdsOneCallEach) {
  Poller poller;
  Pipe pipes[8];
  for (int round = 0; round < 5; ++round) {
    for (Pipe& p : pipes) {
      poller.set_interest(p.r(), Interest::read, 1);
      poller.set_interest(p.w(), Interest::write, 2);
    }
  }
  const auto ready = poller.wait(Duration::zero());
  EXPECT_EQ(poller.ctl_calls(), 16u);
  EXPECT_EQ(ready.size(), 8u);  // every write end is writable, no read end is readable
  for (const Ready& r : ready) EXPECT_EQ(r.events, Interest::write);
}

TEST(Poller, ForgetBeforeCloseLetsTheNumberBeReused) {
  Poller poller;
  auto first = std::make_unique<Pipe>();
  const int number = first->r();
  poller.set_interest(number, Interest::read, 1);
  ASSERT_EQ(write(first->w(), "x", 1), 1);
  poller.flush_changes();
  const int dup_of_old = dup(number);  // keeps the old description registered in epoll unless removed
  poller.forget(number);
  first->close_both();
  Pipe second;  // lowest free numbers: reuses `number`
  ASSERT_EQ(second.r(), number);
  poller.set_interest(number, Interest::read, 2);
  auto ready = poller.wait(Duration::zero());
  EXPECT_TRUE(ready.empty());  // the old pipe's data is not reported for the new fd
  ASSERT_EQ(write(second.w(), "y", 1), 1);
  ready = poller.wait(Duration::zero());
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].token, 2u);
  close(dup_of_old);
}

TEST(Poller, ClosedWithoutForgetIsReRegistered) {
  Poller poller;
  auto first = std::make_unique<Pipe>();
  const int number = first->r();
  poller.set_interest(number, Interest::read, 1);
  poller.flush_changes();
  first->close_both();  // the kernel drops the registration; our state still says registered
  Pipe second;
  ASSERT_EQ(second.r(), number);
  poller.set_interest(number, Interest::read_write, 3);  // MOD fails with ENOENT, then ADD
  ASSERT_EQ(write(second.w(), "y", 1), 1);
  const auto ready = poller.wait(Duration::zero());
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].token, 3u);
  EXPECT_TRUE(has(ready[0].events, Interest::read));
}

TEST(Poller, HangUpIsReportedAsReadable) {
  Poller poller;
  Pipe p;
  poller.set_interest(p.r(), Interest::read, 1);
  close(p.fds[1]);
  p.fds[1] = -1;
  const auto ready = poller.wait(Duration::zero());
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].events, Interest::read);
}

TEST(Poller, WaitsForTheTimeout) {
  Poller poller;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(poller.wait(std::chrono::milliseconds(20)).empty());
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_GE(elapsed, std::chrono::milliseconds(20));  // the kernel never ends a timeout early
  // Only a unit mix-up (20 s, 20 µs) is an error; a loaded machine may wake the thread late.
  EXPECT_LT(elapsed, std::chrono::seconds(10));
  EXPECT_EQ(poller.wait_calls(), 1u);
}

}  // namespace
}  // namespace vedette::loop
