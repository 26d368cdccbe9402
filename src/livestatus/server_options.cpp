#include "livestatus/server_options.hpp"

#include "loop/tcp_listen.hpp"

#include <fmt/format.h>

#include <charconv>

namespace vedette::livestatus {

namespace {

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

std::optional<long long> number(std::string_view s) {
  long long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string absolute(std::string_view path, const config::MainConfig& main) {
  if (!path.empty() && path.front() == '/') return std::string(path);
  std::string base = main.config_rel_path;
  if (!base.empty() && base.back() != '/') base += '/';
  return base + std::string(path);
}

// One key=value of the module's arguments.
void apply(ServerOptions& o, std::string_view key, std::string_view value, std::vector<std::string>& notes) {
  const auto milliseconds = [&](std::chrono::milliseconds& out) {
    const auto v = number(value);
    if (!v || *v < 0) {
      notes.push_back(
          fmt::format("Livestatus: {} must be a number of milliseconds >= 0, not '{}'", key, value));
      return;
    }
    out = std::chrono::milliseconds(*v);
  };
  const auto authorization = [&](Authorization& out) {
    if (value == "strict") {
      out = Authorization::strict;
    } else if (value == "loose") {
      out = Authorization::loose;
    } else {
      notes.push_back(fmt::format("Livestatus: {} must be strict or loose, not '{}'", key, value));
    }
  };
  if (key == "inet_addr") {
    o.tcp_listen = std::string(value);
  } else if (key == "idle_timeout") {
    milliseconds(o.idle_timeout);
  } else if (key == "query_timeout") {
    milliseconds(o.query_timeout);
  } else if (key == "max_response_size") {
    if (const auto v = number(value); v && *v >= 0)
      o.max_response_size = static_cast<std::size_t>(*v);
    else
      notes.push_back(
          fmt::format("Livestatus: max_response_size must be a number of bytes, not '{}'", value));
  } else if (key == "num_client_threads") {
    if (const auto v = number(value); v && *v >= 1 && *v <= 256)
      o.threads = static_cast<int>(*v);
    else
      notes.push_back(fmt::format("Livestatus: num_client_threads must be 1 to 256, not '{}'", value));
  } else if (key == "max_connections" || key == "max_pending_bytes") {
    if (const auto v = number(value); v && *v >= 1) {
      (key == "max_connections" ? o.max_connections : o.max_pending_bytes) = static_cast<std::size_t>(*v);
    } else {
      notes.push_back(fmt::format("Livestatus: {} must be a number >= 1, not '{}'", key, value));
    }
  } else if (key == "tcp_commands") {
    using T = ServerOptions::TcpCommands;
    if (value == "all") {
      o.tcp_commands = T::all;
    } else if (value == "no_process_file") {
      o.tcp_commands = T::no_process_file;
    } else if (value == "none") {
      o.tcp_commands = T::none;
    } else {
      notes.push_back(
          fmt::format("Livestatus: tcp_commands must be all, no_process_file or none, not '{}'", value));
    }
  } else if (key == "max_backlog") {
    if (const auto v = number(value); v && *v >= 0 && *v <= 65535) o.max_backlog = static_cast<int>(*v);
  } else if (key == "service_authorization") {
    authorization(o.settings.service_authorization);
  } else if (key == "group_authorization") {
    authorization(o.settings.group_authorization);
  } else if (key == "pnp_path") {
    o.settings.pnp_path = std::string(value);
    if (!value.empty() && value.back() != '/') o.settings.pnp_path += '/';
  } else if (key == "hidden_custom_var_prefix") {
    o.settings.hidden_custom_var_prefix = std::string(value);
  } else if (key == "max_cached_messages" || key == "max_lines_per_logfile") {
    // strtoul() in the module; a value that is no number leaves the default here.
    if (const auto v = number(value); v && *v >= 0) {
      (key == "max_cached_messages" ? o.settings.max_cached_messages : o.settings.max_lines_per_logfile) =
          static_cast<std::size_t>(*v);
    } else {
      notes.push_back(fmt::format("Livestatus: {} must be a number, not '{}'", key, value));
    }
  } else if (key == "debug" || key == "log_file" || key == "thread_stack_size" || key == "data_encoding" ||
             key == "livecheck") {
    // Module internals Vedette has no use for; accepted so an existing line keeps working.
  } else {
    notes.push_back(fmt::format("Livestatus: ignoring unknown option {}={}", key, value));
  }
}

}  // namespace

std::optional<std::string> exposure_warning(const ServerOptions& o) {
  if (o.tcp_listen.empty()) return std::nullopt;
  const std::string host = loop::listen_host(o.tcp_listen);
  if (loop::is_loopback_host(host)) return std::nullopt;
  const char* commands = o.tcp_commands == ServerOptions::TcpCommands::none ? "refused (tcp_commands=none)"
                         : o.tcp_commands == ServerOptions::TcpCommands::no_process_file
                             ? "accepted but PROCESS_FILE (tcp_commands=no_process_file)"
                             : "accepted, PROCESS_FILE too (tcp_commands=none refuses them)";
  return fmt::format(
      "Livestatus listens on TCP {}{}, which other hosts can reach: it has no authentication, "
      "every client may read all of the status, and COMMAND is {}",
      o.tcp_listen, host.empty() ? " (every address)" : "", commands);
}

bool is_livestatus_module(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  const std::string_view file = slash == std::string_view::npos ? path : path.substr(slash + 1);
  return ends_with(file, "livestatus.o") || ends_with(file, "livestatus.so");
}

std::optional<ServerOptions> server_options(const config::MainConfig& main, std::vector<std::string>& notes) {
  ServerOptions o;
  bool configured = false;
  for (const config::MainConfig::BrokerModule& module : main.broker_modules) {
    if (!is_livestatus_module(module.path)) continue;
    configured = true;
    std::string_view args = module.args;
    while (!args.empty()) {
      const std::size_t start = args.find_first_not_of(" \t");
      if (start == std::string_view::npos) break;
      args.remove_prefix(start);
      const std::size_t end = args.find_first_of(" \t");
      const std::string_view token = args.substr(0, end);
      args.remove_prefix(end == std::string_view::npos ? args.size() : end);
      const std::size_t eq = token.find('=');
      if (eq == std::string_view::npos) {
        o.unix_socket = absolute(token, main);
      } else {
        apply(o, token.substr(0, eq), token.substr(eq + 1), notes);
      }
    }
  }
  if (!main.livestatus_socket.empty()) {
    configured = true;
    o.unix_socket = main.livestatus_socket;
  }
  if (!main.livestatus_listen.empty()) {
    configured = true;
    o.tcp_listen = main.livestatus_listen;
  }
  if (!configured) return std::nullopt;
  // As the module: an inet_addr that holds a '/' is a Unix socket path.
  if (o.tcp_listen.find('/') != std::string::npos) {
    o.unix_socket = o.tcp_listen;
    o.tcp_listen.clear();
  }
  if (std::optional<std::string> warning = exposure_warning(o)) notes.push_back("Warning: " + *warning);
  o.settings.interval_length = main.interval_length;
  o.settings.check_external_commands = main.check_external_commands;
  o.settings.log_file = main.log_file;
  o.settings.log_archive_path = main.log_archive_path;
  return o;
}

}  // namespace vedette::livestatus
