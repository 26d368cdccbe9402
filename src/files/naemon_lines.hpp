// Appends "key=value" lines to a string, byte for byte as Naemon's fprintf calls write them in status.dat
// and retention.dat (%d, %lu, %f, %.3f, %.2f, %s). Keys include their indentation and '='. Used by the
// writer threads of both files.
//
//   std::string text;  files::NaemonLines o(text);
//   o.str("\thost_name=", name);  o.fixed<3>("\tcheck_latency=", 0.25);  // "\tcheck_latency=0.250\n"
#pragma once

#include "state/uuid.hpp"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <iterator>
#include <span>
#include <string>
#include <string_view>

namespace vedette::files {

class NaemonLines {
 public:
  explicit NaemonLines(std::string& s) : s_(s) {}

  void raw(std::string_view text) { s_.append(text); }
  void str(std::string_view key, std::string_view value) {
    s_.append(key);
    escaped(value);
    s_.push_back('\n');
  }
  void num(std::string_view key, long long value) {
    s_.append(key);
    const fmt::format_int f(value);
    s_.append(f.data(), f.size());
    s_.push_back('\n');
  }
  // %lu of an unsigned long.
  void unum(std::string_view key, unsigned long value) {
    s_.append(key);
    const fmt::format_int f(value);
    s_.append(f.data(), f.size());
    s_.push_back('\n');
  }
  // A problem or notification id: its text, empty for none.
  void uuid(std::string_view key, state::Uuid id) {
    s_.append(key);
    state::append_uuid(id, s_);
    s_.push_back('\n');
  }
  // A time_t printed with %lu, as Naemon does.
  void time(std::string_view key, std::int64_t value) { unum(key, static_cast<unsigned long>(value)); }
  void flag(std::string_view key, bool value) {
    s_.append(key);
    s_.push_back(value ? '1' : '0');
    s_.push_back('\n');
  }
  // %f with 6, 3 or 2 decimals.
  template <int Decimals>
  void fixed(std::string_view key, double value) {
    s_.append(key);
    // Whole numbers (intervals, most execution times at 0) are by far the common case; printing them by
    // hand avoids the float formatter. Anything else goes through fmt, which rounds exactly as printf.
    if (value >= 0 && value < 1e15 && value == static_cast<double>(static_cast<long long>(value))) {
      const fmt::format_int f(static_cast<long long>(value));
      s_.append(f.data(), f.size());
      s_.append(".000000", Decimals + 1);
    } else if constexpr (Decimals == 6) {
      fmt::format_to(std::back_inserter(s_), FMT_COMPILE("{:.6f}"), value);
    } else if constexpr (Decimals == 3) {
      fmt::format_to(std::back_inserter(s_), FMT_COMPILE("{:.3f}"), value);
    } else {
      fmt::format_to(std::back_inserter(s_), FMT_COMPILE("{:.2f}"), value);
    }
    s_.push_back('\n');
  }
  // A struct timeval as Naemon's tv_str(): "%lld.%06ld".
  void timeval(std::string_view key, std::int64_t sec, std::int32_t usec) {
    s_.append(key);
    fmt::format_to(std::back_inserter(s_), FMT_COMPILE("{}.{:06}\n"), sec, usec);
  }
  // Integers separated by commas ("5,0,0", state_history).
  template <typename Int>
  void list(std::string_view key, std::span<const Int> values) {
    s_.append(key);
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (i > 0) s_.push_back(',');
      const fmt::format_int f(static_cast<long long>(values[i]));
      s_.append(f.data(), f.size());
    }
    s_.push_back('\n');
  }
  // "<indent>_NAME=<modified>;<value>"
  void custom(std::string_view indent, std::string_view name, bool modified, std::string_view value) {
    s_.append(indent);
    s_.push_back('_');
    s_.append(name);
    s_.append(modified ? "=1;" : "=0;");
    escaped(value);
    s_.push_back('\n');
  }

 private:
  // A value ends at its line. Naemon stores long output with newlines escaped as the two bytes "\n" and
  // writes strings as they are; a raw newline that still reached a value here would end it early and turn
  // the rest into a bogus line, so it is escaped the same way (backslashes are left alone, as Naemon
  // leaves them).
  void escaped(std::string_view value) {
    for (;;) {
      const void* nl = value.empty() ? nullptr : std::memchr(value.data(), '\n', value.size());
      if (nl == nullptr) {
        s_.append(value);
        return;
      }
      const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(nl) - value.data());
      s_.append(value.data(), at);
      s_.append("\\n");
      value.remove_prefix(at + 1);
    }
  }

  std::string& s_;
};

}  // namespace vedette::files
