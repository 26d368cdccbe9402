// The Livestatus server's life (server.hpp): binding the Unix socket and the TCP port, starting the I/O
// thread and the query threads, and at the end joining them, closing every socket and unlinking the Unix
// one. What the threads do is server_io.cpp (connections) and server_queries.cpp (answering requests);
// their shared state is Server::Impl, server_internal.hpp.
#include "livestatus/server.hpp"

#include "base/check.hpp"
#include "livestatus/server_internal.hpp"
#include "loop/tcp_listen.hpp"
#include "loop/thread_name.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace vedette::livestatus {

namespace {

void raise_open_files_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  (void)::setrlimit(RLIMIT_NOFILE, &limit);
}

base::Expected<int> listen_unix(const std::string& path, const ServerOptions& o) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) {
    return base::Error{
        fmt::format("Livestatus: socket path '{}' is {} bytes long, longer than the {} a Unix socket allows",
                    path, path.size(), sizeof addr.sun_path - 1)};
  }
  std::memcpy(addr.sun_path, path.data(), path.size());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return base::Error{fmt::format("Livestatus: cannot create a Unix socket: {}", std::strerror(errno))};
  // A socket left by an earlier run (or Naemon's) is in the way; one still served belongs to a running
  // instance, and anything else at that path is not ours.
  if (base::Status unserved = Server::check_unserved(path); !unserved) {
    ::close(fd);
    return base::Error{unserved.error()};
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) ::unlink(path.c_str());
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    base::Error error{
        fmt::format("Livestatus: cannot bind the Unix socket '{}': {}", path, std::strerror(errno))};
    ::close(fd);
    return error;
  }
  if (::chmod(path.c_str(), o.socket_mode) != 0 || ::listen(fd, o.max_backlog) != 0) {
    base::Error error{fmt::format("Livestatus: cannot listen on '{}': {}", path, std::strerror(errno))};
    ::close(fd);
    ::unlink(path.c_str());
    return error;
  }
  return fd;
}

base::Expected<int> listen_tcp(const std::string& where, const ServerOptions& o) {
  base::Expected<int> fd = loop::listen_tcp(where, o.max_backlog);
  if (!fd) return base::Error{"Livestatus: " + fd.error()};
  return fd;
}

constexpr int k_query_nice = 5;

}  // namespace

base::Status Server::check_unserved(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) return base::Status::ok();
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) return base::Status::ok();  // start() refuses it with its reason
  std::memcpy(addr.sun_path, path.data(), path.size());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return base::Status::ok();
  // A listener answers at once (or EAGAIN: its backlog is full); nobody there is ECONNREFUSED.
  const bool served = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 ||
                      errno == EAGAIN || errno == EINPROGRESS;
  ::close(fd);
  if (!served) return base::Status::ok();
  return base::Error{fmt::format(
      "Livestatus: socket '{}' is served by another process (another Vedette or Naemon running with this "
      "socket?); refusing to start",
      path)};
}

Server::Impl::~Impl() {
  stopping_.store(true);
  {
    std::lock_guard lock(jobs_mutex_);
    jobs_ready_.notify_all();
  }
  wake_io();
  if (io_thread_.joinable()) io_thread_.join();
  for (std::thread& t : workers_)
    if (t.joinable()) t.join();
  for (auto& [id, c] : connections_) ::close(c.fd);
  for (const Listener& l : listeners_) ::close(l.fd);
  if (!options_.unix_socket.empty() && unix_bound_) ::unlink(options_.unix_socket.c_str());
  if (wake_ >= 0) ::close(wake_);
}

base::Status Server::Impl::start() {
  raise_open_files_limit();
  if (!options_.unix_socket.empty()) {
    const base::Expected<int> fd = listen_unix(options_.unix_socket, options_);
    if (!fd) return base::Error{fd.error()};
    unix_bound_ = true;
    listeners_.push_back(Listener{.fd = *fd, .tcp = false});
  }
  if (!options_.tcp_listen.empty()) {
    const base::Expected<int> fd = listen_tcp(options_.tcp_listen, options_);
    if (!fd) return base::Error{fd.error()};
    listeners_.push_back(Listener{.fd = *fd, .tcp = true});
  }
  epoll_.emplace();
  if (epoll_->fd() < 0) return base::Error{fmt::format("Livestatus: {}", std::strerror(errno))};
  wake_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_ < 0) return base::Error{fmt::format("Livestatus: {}", std::strerror(errno))};
  watch(wake_, loop::Epoll::readable, k_wake_tag);
  watch_listeners();
  io_thread_ = base::start_thread([this] {
    loop::set_current_thread_name("livestatus");
    io_loop();
  });
  for (int i = 0; i < options_.threads; ++i) {
    workers_.push_back(base::start_thread([this, i] {
      loop::set_current_thread_name(fmt::format("livestatus-{}", i + 1));
      // Below the executor and core threads: a big query on a busy machine waits, a check does not.
      (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), k_query_nice);
      work();
    }));
  }
  return base::Status::ok();
}

base::Expected<std::unique_ptr<Server>> Server::start(ServerOptions options, CoreChannel& channel) {
  auto impl = std::make_unique<Impl>(std::move(options), channel);
  if (base::Status s = impl->start(); !s) return base::Error{s.error()};
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() = default;

const Counters& Server::counters() const {
  return impl_->counters;
}

}  // namespace vedette::livestatus
