// Host name lookups for native checks, off the executor threads: getaddrinfo blocks, so one resolver thread
// (started on the first name) answers requests in order and keeps a cache. Numeric addresses never come here.
// Cache rule: an answer is kept for k_answer_ttl (getaddrinfo gives no TTL, so a fixed one, the order of a
// typical DNS TTL and far below nscd's hour); a failure is never kept, the next check asks again. Any thread.
//
//   if (!resolver.lookup_cached(name, family, out)) resolver.request(name, family, port, ticket, inbox);
#pragma once

#include "loop/wakeup.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <utility>
#include <vector>

namespace vedette::loop {
class Epoll;
}  // namespace vedette::loop

namespace vedette::native {

// One address getaddrinfo gave, in its order (the plugin tries them in that order too).
struct Address {
  sockaddr_storage storage{};
  socklen_t length = 0;
};

// What one executor thread receives: answers to its requests, and a wakeup in its epoll.
struct ResolverInbox {
  struct Answer {
    std::uint64_t ticket;
    int error;  // 0, or getaddrinfo's EAI_* code
    std::vector<Address> addresses;
  };
  std::mutex mutex;
  std::vector<Answer> answers;  // guarded by mutex
  loop::Wakeup wakeup;
};

class Resolver {
 public:
  static constexpr std::chrono::seconds k_answer_ttl{60};

  Resolver() = default;
  ~Resolver();  // joins the thread; requests not yet answered are dropped
  Resolver(const Resolver&) = delete;
  Resolver& operator=(const Resolver&) = delete;

  // Fills `out` (port set) from the cache if a live answer is there.
  [[nodiscard]] bool lookup_cached(const std::string& name, int family, int port, std::vector<Address>& out);
  // The answer goes to `inbox` (which must outlive the Resolver's thread or this request) with `ticket`.
  void request(std::string name, int family, int port, std::uint64_t ticket, ResolverInbox& inbox);

 private:
  struct Request {
    std::string name;
    int family;
    int port;
    std::uint64_t ticket;
    ResolverInbox* inbox;
  };
  struct Entry {
    std::vector<Address> addresses;  // port 0
    std::chrono::steady_clock::time_point expires;
  };
  void run();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Request> queue_;                          // guarded by mutex_
  std::map<std::pair<std::string, int>, Entry> cache_;  // guarded by mutex_
  bool stopping_ = false;                               // guarded by mutex_
  std::thread thread_;                                  // started by the first request
};

// An executor thread's side of the resolver: its inbox, in the thread's epoll (with `token`) from the first
// request on. Executor thread only.
class ResolverClient {
 public:
  ResolverClient(Resolver& resolver, loop::Epoll& epoll, std::uint64_t token)
      : resolver_(resolver), epoll_(epoll), token_(token), inbox_(std::make_unique<ResolverInbox>()) {}
  ~ResolverClient() { unwatch(); }
  ResolverClient(const ResolverClient&) = delete;
  ResolverClient& operator=(const ResolverClient&) = delete;

  [[nodiscard]] bool lookup_cached(const std::string& name, int family, int port, std::vector<Address>& out) {
    return resolver_.lookup_cached(name, family, port, out);
  }
  void request(std::string name, int family, int port, std::uint64_t ticket);
  // True with `out` filled when `host` is numeric or a live cache entry; else the resolver is asked and its
  // answer comes with `ticket`.
  [[nodiscard]] bool resolve(const std::string& host, int family, int port, std::vector<Address>& out,
                             std::uint64_t ticket);
  // What has been answered since the last call (on the token's event).
  [[nodiscard]] std::vector<ResolverInbox::Answer> take();
  void unwatch();

 private:
  Resolver& resolver_;
  loop::Epoll& epoll_;
  std::uint64_t token_;
  std::unique_ptr<ResolverInbox> inbox_;
  bool watched_ = false;
};

// Numeric addresses only (AI_NUMERICHOST: no lookup, never blocks). False if `host` is a name or does not
// fit `family`.
[[nodiscard]] bool numeric_addresses(const std::string& host, int family, int port, std::vector<Address>& out,
                                     int& error);

}  // namespace vedette::native
