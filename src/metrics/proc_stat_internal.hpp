// Reading /proc/<pid>/stat and /proc/<pid>/task/<tid>/stat lines (proc(5)), shared by thread_cpu.cpp and
// process_metrics.cpp. Pure functions; any thread.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::metrics::internal {

// "pid (comm) state ppid ...": the comm (which may hold spaces and parentheses, so it ends at the last
// ')') and the fields after it, field 3 (state) first. False if the line is not one.
[[nodiscard]] inline bool split_stat_line(std::string_view line, std::string_view& comm,
                                          std::vector<std::string_view>& fields) {
  const std::size_t open = line.find('(');
  const std::size_t close = line.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return false;
  comm = line.substr(open + 1, close - open - 1);
  fields.clear();
  std::string_view rest = line.substr(close + 1);
  while (true) {
    const std::size_t start = rest.find_first_not_of(" \n");
    if (start == std::string_view::npos) break;
    rest.remove_prefix(start);
    const std::size_t end = std::min(rest.find_first_of(" \n"), rest.size());
    fields.push_back(rest.substr(0, end));
    rest.remove_prefix(end);
  }
  return true;
}

// proc(5)'s field `number` (1-based: 14 is utime) of a split line, as an unsigned number.
[[nodiscard]] inline bool stat_number(const std::vector<std::string_view>& fields, std::size_t number,
                                      std::uint64_t& out) {
  if (number < 3 || number - 3 >= fields.size()) return false;
  const std::string_view text = fields[number - 3];
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && p == text.data() + text.size();
}

// A small file (/proc's), read with one read(2); "" when it cannot be.
[[nodiscard]] std::string read_small_file(const std::string& path);

}  // namespace vedette::metrics::internal
