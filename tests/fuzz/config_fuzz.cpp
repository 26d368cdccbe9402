// The main config and object config parsers, with includes, through load_configuration(). The input is a
// set of files: the text up to the first line "--- <name>" is naemon.cfg, each such line starts the file
// <name> (letters, digits, '.', '_', '-' and one '/' for a subdirectory). Files are rewritten for every
// input in a private directory, and relative paths in them resolve there.
#include "config/loader.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

bool is_safe_name(std::string_view name) {
  if (name.empty() || name.size() > 64 || name.front() == '.' || name.front() == '/' || name.back() == '/')
    return false;
  int slashes = 0;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-' || c == '/';
    if (!ok) return false;
    if (c == '/' && ++slashes > 1) return false;
  }
  return name.find("..") == std::string_view::npos && name.find("/.") == std::string_view::npos;
}

// cfg_dir=/, include_dir=/usr or include_dir=../.. walks a real tree, which only measures the disk: such
// inputs are skipped.
// The object reader takes any line that starts with include_dir (as Naemon does: "include_dir\x99=/"), so
// whatever stands between "dir" and the line's '=' does not count.
bool walks_absolute_dir(std::string_view text) {
  for (std::size_t at = text.find("dir"); at != std::string_view::npos; at = text.find("dir", at + 1)) {
    const std::size_t eol = std::min(text.find('\n', at), text.size());
    std::size_t i = text.find('=', at);
    if (i >= eol) continue;
    ++i;
    while (i < eol && (text[i] == ' ' || text[i] == '\t' || text[i] == '=')) ++i;
    if (i < eol && text[i] == '/') return true;
    if (text.substr(i, eol - i).find("..") != std::string_view::npos) return true;  // out of the private dir
  }
  return false;
}

const fs::path& work_dir() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("vedette-fuzz-config-" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (walks_absolute_dir(input)) return -1;
  const fs::path& dir = work_dir();
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) fs::remove_all(e.path(), ec);

  std::string_view rest = input;
  std::string name = "naemon.cfg";
  for (;;) {
    std::size_t marker = rest.find("\n--- ");
    if (rest.starts_with("--- ")) marker = 0;
    const std::string_view content = rest.substr(0, marker);
    if (is_safe_name(name)) {
      fs::create_directories((dir / name).parent_path(), ec);
      std::ofstream(dir / name, std::ios::binary) << content;
    }
    if (marker == std::string_view::npos) break;
    rest.remove_prefix(marker + (marker == 0 ? 4 : 5));
    const std::size_t eol = rest.find('\n');
    name = std::string(rest.substr(0, eol));
    rest = eol == std::string_view::npos ? std::string_view{} : rest.substr(eol + 1);
  }

  vedette::config::SourceFiles files;
  vedette::config::Diagnostics diags;
  vedette::config::Configuration cfg =
      vedette::config::load_configuration((dir / "naemon.cfg").string(), files, diags);
  for (const vedette::config::Diagnostic& d : diags.all()) (void)vedette::config::Diagnostics::format(d);
  return 0;
}
