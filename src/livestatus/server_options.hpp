// Where and how the built-in Livestatus serves, from the main config: Naemon's usual
// `broker_module=/…/livestatus.o /var/cache/naemon/live [key=value …]` line (the module file is never
// loaded and need not exist) and Vedette's own `livestatus_socket=` / `livestatus_listen=host:port`. Read
// on the core thread at start and reload; a plain value, which the server copies, afterwards.
//
//   std::vector<std::string> notes;
//   std::optional<ServerOptions> o = server_options(main, notes);  // nullopt: Livestatus not configured
//   for (auto& n : notes) core.log(n);                             // ignored options, deprecated ones
#pragma once

#include "config/main_config.hpp"
#include "livestatus/view.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vedette::livestatus {

struct ServerOptions {
  std::string unix_socket;  // empty: none
  std::string tcp_listen;   // "host:port", empty: none
  int threads = 4;          // query threads ("livestatus-N"); the I/O thread is "livestatus"
  // The module's defaults: keep-alive idle time, time to read one request, largest answer.
  std::chrono::milliseconds idle_timeout{300'000};
  std::chrono::milliseconds query_timeout{10'000};
  std::size_t max_response_size = 500u << 20;
  int max_backlog = 256;
  unsigned socket_mode = 0660;
  // Vedette's own limits against clients that hold the server's memory (docs/livestatus.md): connections
  // open at once, and the memory budget of all of them together (answers made and not read yet, requests
  // not ended); an answer larger than what is left of it is counted, then made in pieces as it is read.
  std::size_t max_connections = 4096;
  std::size_t max_pending_bytes = std::size_t{64} << 20;
  // What COMMAND may do over TCP, which has no authentication (tcp_commands=all|no_process_file|none).
  enum class TcpCommands : std::uint8_t { all, no_process_file, none };
  TcpCommands tcp_commands = TcpCommands::all;
  Settings settings;
};

// Whether `path` names Livestatus' module (any path ending in livestatus.o or livestatus.so).
[[nodiscard]] bool is_livestatus_module(std::string_view path);

// `notes` also gets exposure_warning()'s line.
[[nodiscard]] std::optional<ServerOptions> server_options(const config::MainConfig& main,
                                                          std::vector<std::string>& notes);

// A warning (without "Warning: ") when the TCP listener is reachable from other hosts (any address but a
// loopback one: ":6557" listens on all of them), which get every query and COMMAND without authentication.
[[nodiscard]] std::optional<std::string> exposure_warning(const ServerOptions& options);

}  // namespace vedette::livestatus
