#include "native/http_report.hpp"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <netdb.h>
#include <optional>
#include <regex.h>

namespace vedette::native {
namespace {

constexpr int k_http_port = 80, k_https_port = 443;

// plugins/utils.c's max_state_alt: CRITICAL over WARNING over UNKNOWN over OK.
int max_state_alt(int a, int b) {
  if (a == k_state_critical || b == k_state_critical) return k_state_critical;
  if (a == k_state_warning || b == k_state_warning) return k_state_warning;
  if (a == k_state_unknown || b == k_state_unknown) return k_state_unknown;
  return k_state_ok;
}

// plugins/utils.c's strip: trailing blanks, tabs, CRs and LFs.
void strip(char* text) {
  for (std::size_t n = std::strlen(text); n >= 1; --n) {
    const char c = text[n - 1];
    if (c != ' ' && c != '\r' && c != '\n' && c != '\t') break;
    text[n - 1] = '\0';
  }
}

// expected_statuscode: any comma-separated piece of -e anywhere in the status line (strtok skips empty ones).
bool expected_statuscode(const char* reply, const std::string& codes) {
  std::string copy = codes;
  char* save = nullptr;
  for (char* code = ::strtok_r(copy.data(), ",", &save); code != nullptr;
       code = ::strtok_r(nullptr, ",", &save))
    if (std::strstr(reply, code) != nullptr) return true;
  return false;
}

// The searched text in a "not found" message: a 30-byte buffer, cut to 26 bytes and "..." when it fills.
std::string shown_search(const std::string& text) {
  return text.size() >= 30 ? text.substr(0, 26) + "..." : text;
}

bool is_chunked(const char* header) {
  static const regex_t* const chunked = [] {
    static regex_t compiled;
    return ::regcomp(&compiled, "Transfer-Encoding: *chunked *", REG_ICASE) == 0 ? &compiled : nullptr;
  }();
  regmatch_t match[1];
  return chunked != nullptr && ::regexec(chunked, header, 1, match, 0) == 0;
}

// unchunk_content: chunk sizes in hex (strtol: blanks, a sign and "0x" allowed), extensions skipped to the
// CR, up to the zero-size chunk (a first chunk of size zero: an empty body). Where the plugin would read or
// copy past what was received (a truncated or negative chunk, no final chunk), std::nullopt: "Failed to
// unchunk".
std::optional<std::string> unchunked(const char* content, const char* end) {
  std::string result;
  const char* pointer = content;
  while (true) {
    if (pointer >= end) return std::nullopt;
    char* endptr = nullptr;
    const long size = std::strtol(pointer, &endptr, 16);
    if (size == LONG_MIN || size == LONG_MAX || endptr == pointer) return std::nullopt;
    if (*endptr == ';')
      while (*endptr != '\r') {
        if (endptr >= end) return std::nullopt;
        ++endptr;
      }
    if (size == 0) break;
    const char* start = endptr + 2;
    if (size < 0 || start > end || static_cast<std::size_t>(end - start) < static_cast<std::size_t>(size))
      return std::nullopt;
    result.append(start, static_cast<std::size_t>(size));
    pointer = start + size + 2;
  }
  return result;
}

PluginRun died(int state, std::string output) {
  PluginRun run;
  run.exit_code = state;
  run.output = std::move(output);
  return run;
}

constexpr const char* k_unable = "HTTP CRITICAL - Unable to open TCP socket\n";

// base64_encode_alloc: RFC 4648 with padding.
std::string base64(const std::string& in) {
  static constexpr char k_digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(in[i]) << 16) |
                       (static_cast<unsigned char>(in[i + 1]) << 8) | static_cast<unsigned char>(in[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out += k_digits[(v >> shift) & 63];
  }
  if (i < in.size()) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += k_digits[(v >> 18) & 63];
    out += k_digits[(v >> 12) & 63];
    out += i + 1 < in.size() ? k_digits[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace

std::string http_request(const HttpOptions& o) {
  std::string buf;
  append_printf(buf, "%s %s %s\r\n%s\r\n", o.method.c_str(), o.url.c_str(),
                o.host_name ? "HTTP/1.1" : "HTTP/1.0", o.user_agent.c_str());
  buf += "Connection: close\r\n";
  // The last -k "Host:..." replaces the Host header; it alone is left out of the other headers.
  std::size_t forced = o.headers.size();
  for (std::size_t i = 0; i < o.headers.size(); ++i)
    if (o.headers[i].compare(0, 5, "Host:") == 0) forced = i;
  if (o.host_name) {
    if (forced < o.headers.size())
      buf += o.headers[forced] + "\r\n";
    else if ((!o.use_ssl && o.virtual_port == k_http_port) || (o.use_ssl && o.virtual_port == k_https_port))
      append_printf(buf, "Host: %s\r\n", o.host_name->c_str());
    else
      append_printf(buf, "Host: %s:%d\r\n", o.host_name->c_str(), o.virtual_port);
  }
  for (std::size_t i = 0; i < o.headers.size(); ++i)
    if (i != forced) buf += o.headers[i] + "\r\n";
  if (!o.user_auth.empty()) buf += "Authorization: Basic " + base64(o.user_auth) + "\r\n";
  if (!o.proxy_auth.empty()) buf += "Proxy-Authorization: Basic " + base64(o.proxy_auth) + "\r\n";
  if (o.post_data) {
    append_printf(buf, "Content-Type: %s\r\n",
                  o.content_type ? o.content_type->c_str() : "application/x-www-form-urlencoded");
    append_printf(buf, "Content-Length: %i\r\n\r\n", static_cast<int>(std::strlen(o.post_data->c_str())));
    buf += o.post_data->c_str();
  } else {
    buf += "\r\n";
  }
  return buf;
}

bool http_headers_done(std::string& bytes) {
  const char* text = bytes.c_str();
  for (const char* body = text; *body != '\0'; ++body) {
    if (std::strncmp(body, "\n\n", 2) == 0 || std::strncmp(body, "\n\r\n", 3) == 0) {
      bytes[static_cast<std::size_t>(body - text)] = '\0';
      return true;
    }
  }
  return false;
}

PluginRun report_http(const HttpOptions& o, HttpPage in, const HttpTimes& t) {
  // The plugin walks the page with C string functions; where its walk would leave the bytes it read, the
  // walk stops at their end instead.
  char* const begin = in.bytes.data();
  char* const end = begin + in.bytes.size();
  auto advance = [end](char*& p, std::size_t n) { p = static_cast<std::size_t>(end - p) >= n ? p + n : end; };

  char* page = begin;
  char* const status_line = page;
  advance(page, std::strcspn(page, "\r\n"));
  char* pos = page;
  advance(page, std::strspn(page, "\r\n"));
  status_line[std::strcspn(status_line, "\r\n")] = '\0';
  strip(status_line);

  char* const header = page;
  while (page < end && std::strcspn(page, "\r\n") > 0) {
    advance(page, std::strcspn(page, "\r\n"));
    pos = page;
    if ((std::strspn(page, "\r") == 1 && std::strspn(page, "\r\n") >= 2) ||
        (std::strspn(page, "\n") == 1 && std::strspn(page, "\r\n") >= 2))
      advance(page, 2);
    else
      advance(page, 1);
  }
  advance(page, std::strspn(page, "\r\n"));
  *pos = '\0';  // header[pos - header]; before the headers that is the status line's own end

  if (!expected_statuscode(status_line, o.server_expect)) {
    std::string msg;
    if (o.server_port == k_http_port)
      append_printf(msg, "Invalid HTTP response received from host: %s\n", status_line);
    else
      append_printf(msg, "Invalid HTTP response received from host on port %d: %s\n", o.server_port,
                    status_line);
    if (o.show_body) append_printf(msg, "\n%s", page);
    return died(k_state_critical, "HTTP CRITICAL - " + msg);
  }

  std::string msg;
  int result = k_state_ok;
  if (o.server_expect_given) {
    append_printf(msg, "Status line output matched \"%s\" - ", o.server_expect.c_str());
  } else {
    // Without a blank the plugin dereferences a null pointer; here that is an invalid status line.
    const char* blank = std::strchr(status_line, ' ');
    const char* status_code = blank != nullptr ? blank + 1 : status_line + std::strlen(status_line);
    std::string line;
    if (std::strspn(status_code, "1234567890") != 3) {
      append_printf(line, "HTTP CRITICAL: Invalid Status Line (%s)\n", status_line);
      return died(k_state_critical, std::move(line));
    }
    const int http_status = std::atoi(status_code);
    if (http_status >= 600 || http_status < 100) {
      append_printf(line, "HTTP CRITICAL: Invalid Status (%s)\n", status_line);
      return died(k_state_critical, std::move(line));
    }
    if (http_status >= 500)
      result = k_state_critical;
    else if (http_status >= 400)
      result = max_state_alt(k_state_warning, result);
    else if (http_status >= 300)
      result = max_state_alt(o.onredirect, result);
    append_printf(msg, "%s - ", status_line);
  }

  const char* scheme = o.use_ssl ? "https" : "http";
  const char* shown_host = o.host_name ? o.host_name->c_str() : o.server_address.c_str();
  if (!o.header_expect.empty() && std::strstr(header, o.header_expect.c_str()) == nullptr) {
    append_printf(msg, "header '%s' not found on '%s://%s:%d%s', ", shown_search(o.header_expect).c_str(),
                  scheme, shown_host, o.server_port, o.url.c_str());
    result = k_state_critical;
  }

  std::string body_storage;
  const char* body = page;
  if (is_chunked(header)) {
    std::optional<std::string> plain = unchunked(page, end);
    if (!plain) return died(k_state_unknown, "HTTP UNKNOWN: Failed to unchunk message body\n");
    body_storage = std::move(*plain);
    body = body_storage.c_str();
  }

  if (!o.string_expect.empty() && std::strstr(body, o.string_expect.c_str()) == nullptr) {
    append_printf(msg, "string '%s' not found on '%s://%s:%d%s', ", shown_search(o.string_expect).c_str(),
                  scheme, shown_host, o.server_port, o.url.c_str());
    result = k_state_critical;
  }

  if (o.regex) {
    regex_t preg;
    if (::regcomp(&preg, o.regex->pattern.c_str(), o.regex->cflags) == 0) {
      regmatch_t pmatch[2];
      const int errcode = ::regexec(&preg, body, 2, pmatch, 0);
      const bool invert = o.regex->invert;
      if ((errcode == 0 && !invert) || (errcode == REG_NOMATCH && invert)) {
        result = max_state_alt(k_state_ok, result);
      } else if ((errcode == REG_NOMATCH && !invert) || (errcode == 0 && invert)) {
        msg += invert ? "pattern found, " : "pattern not found, ";
        result = k_state_critical;
      } else {
        char errbuf[8192];
        ::regerror(errcode, &preg, errbuf, sizeof errbuf);
        append_printf(msg, "Execute Error: %s, ", errbuf);
        result = k_state_critical;
      }
      ::regfree(&preg);
    }
  }

  const int page_len = static_cast<int>(in.pagesize);
  if (o.max_page_len > 0 && page_len > o.max_page_len) {
    append_printf(msg, "page size %d too large, ", page_len);
    result = max_state_alt(k_state_warning, result);
  } else if (o.min_page_len > 0 && page_len < o.min_page_len) {
    append_printf(msg, "page size %d too small, ", page_len);
    result = max_state_alt(k_state_warning, result);
  }

  // The trailing ", " or " - " (msg always ends in one of them here).
  const std::size_t cut = msg.size() >= 3 && msg[msg.size() - 2] == ',' ? 2 : 3;
  if (msg.size() >= cut) msg.resize(msg.size() - cut);

  std::string text;
  append_printf(text, "%s - %d bytes in %.3f second response time |", msg.c_str(), page_len, t.total);
  const PluginThresholds& th = o.thresholds;
  append_fperfdata(text, "time", t.total, "s", th.warning.has_value(), th.warning ? th.warning->end : 0,
                   th.critical.has_value(), th.critical ? th.critical->end : 0, true, 0, true, o.timeout_s);
  text += ' ';
  append_perfdata(text, "size", page_len, "B", o.min_page_len > 0, o.min_page_len, o.min_page_len > 0, 0,
                  true, 0, false, 0);
  if (o.extended_perfdata) {
    auto timing = [&](const char* label, double value) {
      append_fperfdata(text, label, value, "s", false, 0, false, 0, false, 0, true, o.timeout_s);
    };
    text += ' ';
    timing("time_connect", t.connect);
    text += ' ';
    if (o.use_ssl) timing("time_ssl", t.ssl);
    text += ' ';
    timing("time_headers", t.headers);
    text += ' ';
    timing("time_firstbyte", t.firstbyte);
    text += ' ';
    timing("time_transfer", t.transfer);
  }
  if (o.show_body) append_printf(text, "\n%s", body);

  result = max_state_alt(threshold_state(t.total, th), result);
  PluginRun run;
  run.exit_code = result;
  append_printf(run.output, "HTTP %s: %s\n", state_text(result), text.c_str());
  return run;
}

PluginRun report_http_connect_failure(const HttpOptions& o, int error) {
  std::string out;
  append_printf(out, "connect to address %s and port %d: %s\n", o.server_address.c_str(), o.server_port,
                std::strerror(error));
  return died(k_state_critical, out + k_unable);
}

PluginRun report_http_unresolved(int gai_error) {
  return died(k_state_critical, std::string(::gai_strerror(gai_error)) + "\n" + k_unable);
}

PluginRun report_http_no_socket() {
  return died(k_state_critical, std::string("Socket creation failed\n") + k_unable);
}

PluginRun report_http_timeout(const HttpOptions& o) {
  std::string out;
  append_printf(out, "CRITICAL - Socket timeout after %d seconds\n", o.timeout_s);
  return died(k_state_critical, std::move(out));
}

PluginRun report_http_tls_failure(const std::string& errors) {
  return died(k_state_critical, "CRITICAL - Cannot make SSL connection.\n" + errors);
}

PluginRun report_http_receive_error() {
  return died(k_state_critical, "HTTP CRITICAL - Error on receive\n");
}

PluginRun report_http_no_data() {
  return died(k_state_critical, "HTTP CRITICAL - No data received from host\n");
}

}  // namespace vedette::native
