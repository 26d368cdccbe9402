#include "native/resolver.hpp"

#include "base/check.hpp"
#include "loop/epoll.hpp"

#include <cstring>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>

namespace vedette::native {
namespace {

void set_port(Address& a, int port) {
  if (a.storage.ss_family == AF_INET)
    reinterpret_cast<sockaddr_in&>(a.storage).sin_port = htons(static_cast<std::uint16_t>(port));
  else if (a.storage.ss_family == AF_INET6)
    reinterpret_cast<sockaddr_in6&>(a.storage).sin6_port = htons(static_cast<std::uint16_t>(port));
}

// The plugin's hints: its address family, SOCK_STREAM, IPPROTO_TCP.
int resolve(const std::string& host, int family, int flags, std::vector<Address>& out) {
  addrinfo hints{};
  hints.ai_family = family;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_protocol = IPPROTO_TCP;
  hints.ai_flags = flags;
  addrinfo* res = nullptr;
  const int error = ::getaddrinfo(host.c_str(), "0", &hints, &res);
  if (error != 0) return error;
  out.clear();
  for (const addrinfo* r = res; r != nullptr; r = r->ai_next) {
    if (r->ai_addrlen > sizeof(sockaddr_storage)) continue;
    Address a;
    std::memcpy(&a.storage, r->ai_addr, r->ai_addrlen);
    a.length = r->ai_addrlen;
    out.push_back(a);
  }
  ::freeaddrinfo(res);
  return 0;
}

}  // namespace

bool numeric_addresses(const std::string& host, int family, int port, std::vector<Address>& out, int& error) {
  error = resolve(host, family, AI_NUMERICHOST, out);
  if (error != 0) return false;
  for (Address& a : out) set_port(a, port);
  return true;
}

Resolver::~Resolver() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool Resolver::lookup_cached(const std::string& name, int family, int port, std::vector<Address>& out) {
  std::lock_guard lock(mutex_);
  const auto it = cache_.find({name, family});
  if (it == cache_.end() || it->second.expires <= std::chrono::steady_clock::now()) return false;
  out = it->second.addresses;
  for (Address& a : out) set_port(a, port);
  return true;
}

void Resolver::request(std::string name, int family, int port, std::uint64_t ticket, ResolverInbox& inbox) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back({std::move(name), family, port, ticket, &inbox});
    if (!thread_.joinable()) {
      thread_ = base::start_thread([this] { run(); });
      ::pthread_setname_np(thread_.native_handle(), "resolver");
    }
  }
  wake_.notify_one();
}

void ResolverClient::request(std::string name, int family, int port, std::uint64_t ticket) {
  if (!watched_) {
    if (epoll_.add(inbox_->wakeup.fd(), loop::Epoll::readable, token_) == 0) watched_ = true;
  }
  resolver_.request(std::move(name), family, port, ticket, *inbox_);
}

std::vector<ResolverInbox::Answer> ResolverClient::take() {
  inbox_->wakeup.drain();
  std::vector<ResolverInbox::Answer> answers;
  std::lock_guard lock(inbox_->mutex);
  answers.swap(inbox_->answers);
  return answers;
}

bool ResolverClient::resolve(const std::string& host, int family, int port, std::vector<Address>& out,
                             std::uint64_t ticket) {
  int error = 0;
  if (numeric_addresses(host, family, port, out, error) || lookup_cached(host, family, port, out))
    return true;
  request(host, family, port, ticket);
  return false;
}

void ResolverClient::unwatch() {
  if (watched_) epoll_.remove(inbox_->wakeup.fd());
  watched_ = false;
}

void Resolver::run() {
  std::vector<Request> batch;
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    batch.swap(queue_);
    for (Request& req : batch) {
      ResolverInbox::Answer answer{req.ticket, 0, {}};
      const auto key = std::make_pair(req.name, req.family);
      const auto now = std::chrono::steady_clock::now();
      auto it = cache_.find(key);
      if (it != cache_.end() && it->second.expires > now) {
        answer.addresses = it->second.addresses;  // asked twice before the first answer: once is enough
      } else {
        lock.unlock();
        std::vector<Address> found;
        answer.error = resolve(req.name, req.family, 0, found);
        lock.lock();
        if (answer.error == 0) {
          answer.addresses = found;
          cache_[key] = {std::move(found), std::chrono::steady_clock::now() + k_answer_ttl};
        }
      }
      for (Address& a : answer.addresses) set_port(a, req.port);
      {
        std::lock_guard inbox_lock(req.inbox->mutex);
        req.inbox->answers.push_back(std::move(answer));
      }
      req.inbox->wakeup.signal();
      if (stopping_) return;
    }
    batch.clear();
  }
}

}  // namespace vedette::native
