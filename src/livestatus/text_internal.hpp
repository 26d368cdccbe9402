// Text helpers the query engine shares: the module's white space (C isspace in the "C" locale), its field
// splitting and its atoi. Pure functions, for any thread.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

namespace vedette::livestatus {

[[nodiscard]] constexpr bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
[[nodiscard]] constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

[[nodiscard]] constexpr std::string_view lstrip(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return s;
}
[[nodiscard]] constexpr std::string_view rstrip(std::string_view s) {
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// The next white-space separated field of `rest`, which moves past it; false at the end.
[[nodiscard]] constexpr bool next_field(std::string_view& rest, std::string_view& field) {
  rest = lstrip(rest);
  if (rest.empty()) return false;
  std::size_t end = 0;
  while (end < rest.size() && !is_space(rest[end])) ++end;
  field = rest.substr(0, end);
  rest.remove_prefix(end);
  return true;
}

// The text up to the next '\n' (or the end); `rest` moves past the newline.
[[nodiscard]] constexpr std::string_view next_line(std::string_view& rest) {
  const std::size_t end = rest.find('\n');
  const std::string_view line = rest.substr(0, end);
  rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
  return line;
}

// strtoll's reading (leading space, a sign, digits; anything after is ignored; 0 without digits),
// saturated to int64.
[[nodiscard]] constexpr std::int64_t parse_int64(std::string_view s) {
  s = lstrip(s);
  bool negative = false;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  constexpr std::uint64_t k_limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  std::uint64_t value = 0;
  for (char c : s) {
    if (!is_digit(c)) break;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
    if (value > k_limit) {
      value = k_limit + (negative ? 1 : 0);
      break;
    }
  }
  if (!negative) return static_cast<std::int64_t>(value);
  return value > k_limit ? std::numeric_limits<std::int64_t>::min() : -static_cast<std::int64_t>(value);
}

// The value of a count header (Limit:, Offset:, Timelimit:, WaitTimeout:, And:, Or:, StatsAnd:, StatsOr:):
// decimal digits only, at most INT_MAX; nullopt otherwise. The module reads them with atoi, which wraps
// (`Or: 4294967298` is 2) and stops at the first other byte (`WaitTimeout: 1e30` is 1); Vedette refuses
// both (docs/compatibility.md).
[[nodiscard]] constexpr std::optional<int> parse_count(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::int64_t value = 0;
  for (char c : s) {
    if (!is_digit(c)) return std::nullopt;
    value = value * 10 + (c - '0');
    if (value > std::numeric_limits<int>::max()) return std::nullopt;
  }
  return static_cast<int>(value);
}

// atoi as glibc's: strtol's value cut to int.
[[nodiscard]] constexpr int parse_int(std::string_view s) {
  return static_cast<int>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(parse_int64(s))));
}

[[nodiscard]] constexpr char to_lower_ascii(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
}

// strcasecmp() == 0 in the "C" locale.
[[nodiscard]] constexpr bool equals_icase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (to_lower_ascii(a[i]) != to_lower_ascii(b[i])) return false;
  return true;
}

}  // namespace vedette::livestatus
