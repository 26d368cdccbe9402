// The HTTP/1.1 that InfluxDB's write endpoints need and no more: a POST with a Content-Length body, and
// the status line, headers and Content-Length body of the answer. Pure; any thread.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace vedette::tsdb {

// Appends `POST <target> HTTP/1.1` with Host, Content-Type text/plain, Content-Length, `extra_headers`
// (complete lines, each ending "\r\n", e.g. "Authorization: Token …\r\n") and the body.
void append_http_post(std::string_view host_header, std::string_view target, std::string_view extra_headers,
                      std::string_view body, std::string& out);

struct HttpResponse {
  int status = 0;
  std::size_t size = 0;    // bytes of the whole response (headers and body)
  std::string_view body;   // a view into the input
  bool keep_alive = true;  // false after "Connection: close", HTTP/1.0, or a body without a length
};

// The response at the front of `in`; nullopt while it is incomplete. A malformed status line gives a
// response with status 0, so the caller closes the connection.
[[nodiscard]] std::optional<HttpResponse> parse_http_response(std::string_view in);

// Percent-encodes a query parameter (RFC 3986 unreserved characters stay).
void append_url_encoded(std::string_view value, std::string& out);

}  // namespace vedette::tsdb
