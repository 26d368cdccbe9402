#include "tsdb/metric_names.hpp"

#include <fmt/format.h>

#include <iterator>

namespace vedette::tsdb {
namespace {

bool is_control(char c) {
  return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
}

void append_escaped(std::string_view text, std::string_view special, std::string& out) {
  for (char c : text) {
    if (c == '\n' || c == '\r') c = ' ';
    if (special.find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
}

}  // namespace

void append_graphite_component(std::string_view value, std::string& out) {
  for (const char c : value) {
    const bool replaced = c == ' ' || c == '.' || c == '\\' || c == '/' || is_control(c);
    out += replaced ? '_' : c;
  }
}

void append_graphite_label(std::string_view label, std::string& out) {
  for (std::size_t i = 0; i < label.size(); ++i) {
    const char c = label[i];
    if (c == ':' && i + 1 < label.size() && label[i + 1] == ':') {
      out += '.';
      ++i;
      continue;
    }
    const bool replaced = c == ' ' || c == '\\' || c == '/' || is_control(c);
    out += replaced ? '_' : c;
  }
}

void append_influx_measurement(std::string_view name, std::string& out) {
  append_escaped(name, ", ", out);
}

void append_influx_key(std::string_view key, std::string& out) {
  append_escaped(key, ",= ", out);
}

void append_influx_string(std::string_view value, std::string& out) {
  out += '"';
  append_escaped(value, "\"\\", out);
  out += '"';
}

void append_number(double value, std::string& out) {
  fmt::format_to(std::back_inserter(out), "{}", value);
}

}  // namespace vedette::tsdb
