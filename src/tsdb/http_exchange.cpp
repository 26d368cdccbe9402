#include "tsdb/http_exchange.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <iterator>

namespace vedette::tsdb {
namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

void append_http_post(std::string_view host_header, std::string_view target, std::string_view extra_headers,
                      std::string_view body, std::string& out) {
  fmt::format_to(std::back_inserter(out),
                 "POST {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: vedette\r\n"
                 "Content-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n{}\r\n",
                 target, host_header, body.size(), extra_headers);
  out += body;
}

std::optional<HttpResponse> parse_http_response(std::string_view in) {
  const std::size_t end = in.find("\r\n\r\n");
  if (end == std::string_view::npos) return std::nullopt;
  HttpResponse r;
  std::string_view head = in.substr(0, end);
  const std::size_t eol = head.find("\r\n");
  const std::string_view status_line = head.substr(0, eol);
  head = eol == std::string_view::npos ? std::string_view{} : head.substr(eol + 2);
  if (!status_line.starts_with("HTTP/1.") || status_line.size() < 12) {
    r.size = in.size();
    r.keep_alive = false;
    return r;
  }
  r.keep_alive = status_line[7] != '0';
  std::from_chars(status_line.data() + 9, status_line.data() + 12, r.status);
  std::optional<std::size_t> length;
  while (!head.empty()) {
    const std::size_t next = head.find("\r\n");
    const std::string_view line = head.substr(0, next);
    head = next == std::string_view::npos ? std::string_view{} : head.substr(next + 2);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view name = trim(line.substr(0, colon));
    const std::string_view value = trim(line.substr(colon + 1));
    if (iequals(name, "content-length")) {
      std::size_t n = 0;
      std::from_chars(value.data(), value.data() + value.size(), n);
      length = n;
    } else if (iequals(name, "connection")) {
      if (iequals(value, "close")) r.keep_alive = false;
    }
  }
  const bool bodyless = r.status == 204 || r.status == 304 || (r.status >= 100 && r.status < 200);
  std::size_t body_size = 0;
  if (!bodyless && length) {
    body_size = *length;
  } else if (!bodyless) {
    // Chunked or until-close: we only need the status, so the connection is not reused.
    r.keep_alive = false;
    body_size = in.size() - end - 4;
  }
  if (in.size() - end - 4 < body_size) return std::nullopt;
  r.body = in.substr(end + 4, body_size);
  r.size = end + 4 + body_size;
  return r;
}

void append_url_encoded(std::string_view value, std::string& out) {
  for (const char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += c;
      continue;
    }
    fmt::format_to(std::back_inserter(out), "%{:02X}", u);
  }
}

}  // namespace vedette::tsdb
