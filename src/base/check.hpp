// The one fatal-error path: for what the daemon cannot run without (an eventfd or epoll at startup, a
// thread) and for broken invariants. Prints "vedette: fatal: file:line: message" to stderr and aborts, as
// an uncaught exception did, but says where and why. Errors a caller can handle are values, never this.
//
//   VEDETTE_CHECK(slot < size, "slot out of range");
//   VEDETTE_CHECK_ERRNO(fd >= 0, "eventfd");        // appends strerror(errno)
//   thread_ = base::start_thread([this] { run(); });  // fatal instead of std::system_error
//   auto t = base::start_thread<std::jthread>(...);     // the same for a jthread
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>

namespace vedette::base {

// error != 0 appends ": strerror(error)".
[[noreturn]] inline void fatal(const char* file, unsigned line, std::string_view message,
                               int error = 0) noexcept {
  if (error != 0) {
    std::fprintf(stderr, "vedette: fatal: %s:%u: %.*s: %s\n", file, line, static_cast<int>(message.size()),
                 message.data(), std::strerror(error));
  } else {
    std::fprintf(stderr, "vedette: fatal: %s:%u: %.*s\n", file, line, static_cast<int>(message.size()),
                 message.data());
  }
  std::abort();
}

// std::thread throws std::system_error when the system has no thread to give (EAGAIN). Every thread
// Vedette starts is one it cannot work without, so that is fatal, reported at the caller's line
// (__builtin_FILE rather than std::source_location, which the fuzz build's clang 14 lacks).
template <class Thread = std::thread, class Body>
[[nodiscard]] Thread start_thread(Body&& body, const char* file = __builtin_FILE(),
                                  unsigned line = __builtin_LINE()) {
  try {
    return Thread(std::forward<Body>(body));
  } catch (const std::system_error& e) {
    fatal(file, line, "cannot start a thread", e.code().value());
  }
}

}  // namespace vedette::base

#define VEDETTE_CHECK(cond, message)                         \
  do {                                                       \
    if (!(cond)) [[unlikely]]                                \
      ::vedette::base::fatal(__FILE__, __LINE__, (message)); \
  } while (false)

// For a system call the daemon cannot do without: the message gets strerror(errno).
#define VEDETTE_CHECK_ERRNO(cond, message)                          \
  do {                                                              \
    if (!(cond)) [[unlikely]]                                       \
      ::vedette::base::fatal(__FILE__, __LINE__, (message), errno); \
  } while (false)
