// The Livestatus server: a Unix socket and/or a TCP port, one I/O thread ("livestatus") that accepts, reads
// requests and writes answers for every connection without blocking on any of them, and query threads
// ("livestatus-N") that answer complete requests from a fresh snapshot (core_channel.hpp). A slow reader or
// a client that vanishes mid-answer costs a piece of its answer, never a query thread or the core: an
// answer too long for the memory budget is made a piece at a time as it is read; a waiting query holds no
// thread between its polls. What all clients together may hold is bounded (max_connections,
// max_pending_bytes), and the server's warnings go to the core's log, rate-limited.
//
//   auto server = Server::start(options, channel);  // or server.error() says why not
//   ...
//   server->reset();  // closes every connection, joins the threads, unlinks the socket
#pragma once

#include "base/expected.hpp"
#include "livestatus/core_channel.hpp"
#include "livestatus/server_options.hpp"
#include "livestatus/view.hpp"

#include <memory>
#include <string>

namespace vedette::livestatus {

class Server {
 public:
  // An error when a process accepts connections on the Unix socket at `path`: another Vedette (or Naemon)
  // serving Livestatus there, whose socket a second instance must not replace. A socket file nobody
  // listens on is a leftover, which start() replaces.
  [[nodiscard]] static base::Status check_unserved(const std::string& path);

  // Binds and listens (a Unix socket path longer than sun_path, a bad host:port or a bind failure is an
  // error, never truncated), then starts the threads. Raises the open-files limit to its hard maximum so
  // a thousand clients fit.
  [[nodiscard]] static base::Expected<std::unique_ptr<Server>> start(ServerOptions options,
                                                                     CoreChannel& channel);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  [[nodiscard]] const Counters& counters() const;

 private:
  class Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace vedette::livestatus
