// check_http's command line, read as plugins/check_http.c (monitoring-plugins 2.3.3) reads it, for the
// options run natively: -H -I -p -u -e -s -w -c -t -S --sni -j, and -4 -6 -a -b -d -k -A -P -T -f (without
// following) -m -N -E -B -r -R -l --invert-regex --max-redirs -n. Pure; any thread.
#pragma once

#include "native/plugin_args.hpp"
#include "native/plugin_range.hpp"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vedette::native {

struct HttpRegex {
  std::string pattern;
  int cflags = 0;  // as regcomp got them when the plugin compiled it (-l and -R before -r count)
  bool invert = false;
};

struct HttpOptions {
  std::string server_address;            // -I, the first operand, or the host name
  std::optional<std::string> host_name;  // -H (a ":port" cut off), or the second operand
  int server_port = 80;
  int virtual_port = 0;  // the port the Host header names
  std::string url = "/";
  std::string method = "GET";
  std::optional<std::string> post_data, content_type;
  std::string user_agent;  // the whole header line
  std::vector<std::string> headers;
  std::string user_auth, proxy_auth;      // -a, -b: "user:password"
  std::string server_expect = "HTTP/1.";  // -e: comma-separated pieces of the status line
  bool server_expect_given = false;
  std::string header_expect, string_expect;  // -d, -s
  std::optional<HttpRegex> regex;
  PluginThresholds thresholds;
  int timeout_s = 10;  // raised past the critical threshold, as the plugin does
  int family = 0;      // AF_UNSPEC, AF_INET (-4), AF_INET6 (-6)
  bool use_ssl = false, use_sni = false;
  int onredirect = 0;  // the state of a 3xx (the plugin's default: OK)
  int min_page_len = 0, max_page_len = 0;
  bool no_body = false, extended_perfdata = false, show_body = false;
};

// Run time: the options of a check_http argv (argv[0] the program), or std::nullopt when the plugin would do
// anything but one request (usage text, an option not run natively, a unix socket, following redirects):
// then it runs as a process.
[[nodiscard]] std::optional<HttpOptions> parse_http_options(std::span<const std::string> argv);

// Load time: why these words (argv[1..]; unknown ones come from macros) keep the command a process, or "".
[[nodiscard]] std::string check_http_refusal(std::span<const ArgWord> words);

}  // namespace vedette::native
