// Test support: a real gearmand on a free loopback port, started as a child in the foreground, and the
// small helpers the gearman and worker tests share. Test threads only.
#pragma once

#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <fcntl.h>
#include <filesystem>
#include <functional>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace vedette::testing_support {

// The installed gearmand (Debian: gearman-job-server), or "" when there is none: tests then skip.
inline std::string find_gearmand() {
  for (const char* p : {"/usr/sbin/gearmand", "/usr/bin/gearmand", "/usr/local/sbin/gearmand"})
    if (::access(p, X_OK) == 0) return p;
  return {};
}

// A loopback port bound (and not listening) by the returned fd: connecting is refused, and no other
// process can take the port while the fd stays open. For tests of a gearmand that is not there.
inline int reserve_dead_port(std::uint16_t& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    return -1;
  }
  port = ntohs(addr.sin_port);
  return fd;
}

// A loopback port free a moment ago (0 if none could be had).
inline std::uint16_t free_port() {
  std::uint16_t port = 0;
  const int fd = reserve_dead_port(port);
  if (fd < 0) return 0;
  ::close(fd);
  return port;
}

inline bool can_connect(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

inline bool wait_until(const std::function<bool()>& condition,
                       std::chrono::milliseconds limit = std::chrono::seconds(15)) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return condition();
}

// gearmand in the foreground as a child, on 127.0.0.1:port.
class Gearmand {
 public:
  Gearmand(std::string binary, std::uint16_t port) : binary_(std::move(binary)), port_(port) {
    dir_ = std::filesystem::temp_directory_path() /
           ("vedette-gearmand-" + std::to_string(::getpid()) + "-" + std::to_string(port));
    std::filesystem::create_directories(dir_);
  }
  ~Gearmand() {
    kill(SIGKILL);
    if (hold_fd_ >= 0) ::close(hold_fd_);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  bool start() {
    if (hold_fd_ >= 0) {
      ::close(hold_fd_);
      hold_fd_ = -1;
    }
    const std::string port = std::to_string(port_);
    const std::string pid_file = (dir_ / "gearmand.pid").string();
    pid_ = ::fork();
    if (pid_ == 0) {
      const int null = ::open("/dev/null", O_RDWR);
      ::dup2(null, 0);
      ::dup2(null, 1);
      ::dup2(null, 2);
      ::execl(binary_.c_str(), binary_.c_str(), "--listen", "127.0.0.1", "--port", port.c_str(), "--log-file",
              "none", "--pid-file", pid_file.c_str(), "--threads", "1", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    if (pid_ < 0 || !wait_until([&] { return can_connect(port_); }, std::chrono::seconds(10))) return false;
    // Another test process may have taken the port between free_port() and the bind: then that process's
    // gearmand answered the connect and ours exits (address in use). Make sure ours is the one running.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) != 0) {
      pid_ = -1;
      return false;
    }
    return true;
  }

  // Kills gearmand and keeps its port bound (not listening) until the next start(), so that a parallel
  // test process cannot start its own gearmand there while this one is down.
  void kill_and_hold_port(int signal) {
    kill(signal);
    hold_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(hold_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(port_);
    (void)::bind(hold_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  }

  void kill(int signal) {
    if (pid_ <= 0) return;
    ::kill(pid_, signal);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  [[nodiscard]] std::uint16_t port() const { return port_; }

 private:
  std::string binary_;
  std::uint16_t port_;
  std::filesystem::path dir_;
  pid_t pid_ = -1;
  int hold_fd_ = -1;
};

}  // namespace vedette::testing_support
