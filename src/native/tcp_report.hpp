// check_tcp's verdict and text from what a probe saw: the last part of plugins/check_tcp.c's main(). Pure;
// any thread.
#pragma once

#include "native/plugin_run.hpp"
#include "native/tcp_options.hpp"

#include <string>

namespace vedette::native {

// np_expect_match's answers (lib/utils_tcp.h), and -1 for "never matched" (no expect, or -m stopped first).
enum class Match : int { none = -1, failure = 0, success = 1, retry = 2 };

// lib/utils_tcp.c's np_expect_match, for check_tcp's flags (an -e makes matching "anywhere in", never exact).
// The received bytes are a C string to it: matching stops at the first NUL.
[[nodiscard]] Match expect_match(const std::string& received, const TcpOptions& options);

// A connect that failed on every address: `error` is the last errno. The plugin prints the connect error and
// exits with the -r state whether or not the connection was refused.
[[nodiscard]] PluginRun report_connect_failure(const TcpOptions& options, int error);

// Connected: `received` all bytes read, `match` the read loop's last answer, `elapsed_s` from before the
// connect to after the close.
[[nodiscard]] PluginRun report_tcp(const TcpOptions& options, std::string received, Match match,
                                   double elapsed_s);

// The alarm fired: "CRITICAL - Socket timeout after N seconds".
[[nodiscard]] PluginRun report_socket_timeout(const TcpOptions& options);

// The name did not resolve: is_host() failed in the plugin's argument check.
[[nodiscard]] PluginRun report_invalid_host(const TcpOptions& options);

}  // namespace vedette::native
