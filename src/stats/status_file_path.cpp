#include "stats/status_file_path.hpp"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string_view>

namespace vedette::stats {
namespace {

constexpr int k_line_buffer = 1023;  // naemonstats' fgets size: longer lines are read in pieces

std::string absolute(const std::string& path, const std::filesystem::path& base) {
  const std::filesystem::path p(path);
  return (p.is_absolute() ? p : base / p).lexically_normal().string();
}

}  // namespace

StatusFilePath status_file_from_main_config(const std::string& main_config) {
  StatusFilePath result;
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(main_config.c_str(), "r"),
                                                             &std::fclose);
  if (!file) return result;
  result.config_read = true;
  std::error_code ec;
  const std::filesystem::path base =
      std::filesystem::path(absolute(main_config, std::filesystem::current_path(ec))).parent_path();
  char buffer[k_line_buffer + 1] = {};
  while (std::fgets(buffer, k_line_buffer, file.get()) != nullptr) {
    std::string_view line(buffer);
    while (!line.empty() && std::strchr(" \n\r\t", line.back()) != nullptr) line.remove_suffix(1);
    while (!line.empty() && std::strchr(" \n\r\t", line.front()) != nullptr) line.remove_prefix(1);
    if (line.empty() || line.front() == '#') continue;
    // The key is the text before the first '=' (leading '=' skipped); blanks around it are not trimmed.
    while (!line.empty() && line.front() == '=') line.remove_prefix(1);
    const std::size_t equals = line.find('=');
    if (equals == std::string_view::npos || equals + 1 == line.size()) continue;
    const std::string_view key = line.substr(0, equals);
    if (key == "status_file" || key == "status_log" || key == "xsddefault_status_log")
      result.path = absolute(std::string(line.substr(equals + 1)), base);
  }
  return result;
}

}  // namespace vedette::stats
