#include "config/perfdata_writers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <iterator>

namespace vedette::config {
namespace {

bool parse_port(std::string_view text, std::uint16_t& port) {
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || value == 0 || value > 65535)
    return false;
  port = static_cast<std::uint16_t>(value);
  return true;
}

// "host:port" or "[v6]:port".
std::string parse_host_port(std::string_view text, WriterEndpoint& out) {
  std::string_view host;
  std::string_view port;
  if (text.starts_with('[')) {
    const std::size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return fmt::format("invalid address '{}': expected [address]:port", text);
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return fmt::format("invalid address '{}': expected host:port", text);
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos)
      return fmt::format("invalid address '{}': write an IPv6 address as [address]:port", text);
  }
  if (host.empty()) return fmt::format("invalid address '{}': the host is missing", text);
  if (!parse_port(port, out.port)) return fmt::format("invalid port '{}': expected 1 to 65535", port);
  out.host = std::string(host);
  return {};
}

std::string parse_influx_url(std::string_view text, WriterEndpoint& out) {
  if (text.starts_with("https://"))
    return fmt::format("'{}': https is not supported; use http:// (through a local TLS proxy if needed)",
                       text);
  if (!text.starts_with("http://")) return fmt::format("invalid URL '{}': expected http://host:port", text);
  std::string_view rest = text.substr(7);
  if (rest.ends_with('/')) rest.remove_suffix(1);
  if (rest.find('/') != std::string_view::npos)
    return fmt::format("invalid URL '{}': expected http://host:port without a path", text);
  const bool has_port = rest.starts_with('[') ? rest.find("]:") != std::string_view::npos
                                              : rest.find(':') != std::string_view::npos;
  const std::string with_port = has_port ? std::string(rest) : std::string(rest) + ":8086";
  return parse_host_port(with_port, out);
}

// Macros are $NAME$ pairs: an odd '$' would swallow the rest of the path.
std::string check_template(std::string_view text) {
  std::size_t dollars = 0;
  for (const char c : text) dollars += c == '$' ? 1 : 0;
  if (dollars % 2 != 0) return fmt::format("unbalanced '$' in template '{}'", text);
  return {};
}

std::string parse_bool(std::string_view text, bool& out) {
  if (text != "0" && text != "1") return fmt::format("invalid value '{}': expected 0 or 1", text);
  out = text == "1";
  return {};
}

std::string parse_int(std::string_view text, long long min, long long max, long long& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc{} || end != text.data() + text.size() || out < min || out > max)
    return fmt::format("invalid value '{}': expected an integer from {} to {}", text, min, max);
  return {};
}

}  // namespace

bool apply_perfdata_writer_option(PerfdataWriters& w, std::string_view name, std::string_view value,
                                  SourcePos at, std::string& error) {
  // Options taken as written (templates checked for balanced '$').
  struct TextOption {
    std::string_view name;
    std::string PerfdataWriters::*member;
    bool is_template;
  };
  static constexpr TextOption k_text[] = {
      {"graphite_host_template", &PerfdataWriters::graphite_host_template, true},
      {"graphite_service_template", &PerfdataWriters::graphite_service_template, true},
      {"influxdb_host_measurement_template", &PerfdataWriters::influxdb_host_measurement_template, true},
      {"influxdb_service_measurement_template", &PerfdataWriters::influxdb_service_measurement_template,
       true},
      {"influxdb_database", &PerfdataWriters::influxdb_database, false},
      {"influxdb_retention_policy", &PerfdataWriters::influxdb_retention_policy, false},
      {"influxdb_username", &PerfdataWriters::influxdb_username, false},
      {"influxdb_password", &PerfdataWriters::influxdb_password, false},
      {"influxdb_org", &PerfdataWriters::influxdb_org, false},
      {"influxdb_bucket", &PerfdataWriters::influxdb_bucket, false},
      {"influxdb_token", &PerfdataWriters::influxdb_token, false},
  };
  error.clear();
  long long n = 0;
  if (const auto* option = std::find_if(std::begin(k_text), std::end(k_text),
                                        [&](const TextOption& o) { return o.name == name; });
      option != std::end(k_text)) {
    if (option->is_template) error = check_template(value);
    if (error.empty()) w.*(option->member) = std::string(value);
  } else if (name == "graphite_writer") {
    error = parse_host_port(value, w.graphite);
    w.graphite.at = at;
  } else if (name == "influxdb_writer") {
    error = parse_influx_url(value, w.influxdb);
    w.influxdb.at = at;
  } else if (name == "perfdata_writer_send_thresholds") {
    error = parse_bool(value, w.send_thresholds);
  } else if (name == "perfdata_writer_send_metadata") {
    error = parse_bool(value, w.send_metadata);
  } else if (name == "perfdata_writer_buffer_size") {
    error = parse_int(value, 65536, std::int64_t{1} << 32, n);
    if (error.empty()) w.buffer_size = static_cast<std::size_t>(n);
  } else if (name == "perfdata_writer_flush_interval") {
    error = parse_int(value, 10, 60000, n);
    if (error.empty()) w.flush_interval_ms = static_cast<int>(n);
  } else if (name == "perfdata_writer_timeout") {
    error = parse_int(value, 1, 300, n);
    if (error.empty()) w.timeout_s = static_cast<int>(n);
  } else {
    return false;
  }
  if (!error.empty()) error = fmt::format("option '{}': {}", name, error);
  return true;
}

std::vector<std::pair<SourcePos, std::string>> check_perfdata_writers(const PerfdataWriters& w) {
  std::vector<std::pair<SourcePos, std::string>> out;
  if (!w.influxdb.is_set()) return out;
  auto error = [&](std::string message) { out.emplace_back(w.influxdb.at, std::move(message)); };
  if (w.influxdb_v2()) {
    if (!w.influxdb_database.empty())
      error("influxdb_writer: set influxdb_database (InfluxDB 1.x) or influxdb_bucket (2.x), not both");
    if (w.influxdb_org.empty()) error("influxdb_writer: influxdb_bucket needs influxdb_org");
    if (w.influxdb_token.empty()) error("influxdb_writer: influxdb_bucket needs influxdb_token");
  } else if (w.influxdb_database.empty()) {
    error(
        "influxdb_writer: needs influxdb_database (InfluxDB 1.x) or influxdb_bucket and influxdb_org (2.x)");
  }
  return out;
}

}  // namespace vedette::config
