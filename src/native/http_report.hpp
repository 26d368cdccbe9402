// check_http's request and its verdict and text from what a probe received: check_http() of
// plugins/check_http.c (monitoring-plugins 2.3.3) from the request on, byte for byte. Pure; any thread.
#pragma once

#include "native/http_options.hpp"
#include "native/plugin_run.hpp"

#include <string>

namespace vedette::native {

// The request the plugin sends, headers and body.
[[nodiscard]] std::string http_request(const HttpOptions& options);

// Seconds as deltime() gives them (whole microseconds): the -E perfdata and the response time.
struct HttpTimes {
  double total = 0, connect = 0, ssl = 0, headers = 0, firstbyte = 0, transfer = 0;
};

// What the read loop kept: every byte read with NULs made blanks, cut short after the headers by -N as the
// plugin cuts it; `pagesize` the bytes read (not stored beyond a cap: see HttpRunner).
struct HttpPage {
  std::string bytes;
  std::size_t pagesize = 0;
};

// The response was read: status line, headers, body checks, thresholds, the message and perfdata.
[[nodiscard]] PluginRun report_http(const HttpOptions& options, HttpPage page, const HttpTimes& times);

// -N's document_headers_done on what has been read: true (and `bytes` cut at the blank line) once the
// headers are complete.
[[nodiscard]] bool http_headers_done(std::string& bytes);

// The other ends, each the plugin's message: a connect that failed on every address (the last errno), a
// name getaddrinfo did not resolve (its EAI_* code), a socket that could not be made, the alarm, the TLS
// handshake failing (`errors`: OpenSSL's error lines), a read error, nothing read.
[[nodiscard]] PluginRun report_http_connect_failure(const HttpOptions& options, int error);
[[nodiscard]] PluginRun report_http_unresolved(int gai_error);
[[nodiscard]] PluginRun report_http_no_socket();
[[nodiscard]] PluginRun report_http_timeout(const HttpOptions& options);
[[nodiscard]] PluginRun report_http_tls_failure(const std::string& errors);
[[nodiscard]] PluginRun report_http_receive_error();
[[nodiscard]] PluginRun report_http_no_data();

}  // namespace vedette::native
