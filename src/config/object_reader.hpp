// Reads object configuration files (cfg_file, cfg_dir, include_file, include_dir) into raw objects.
// Loader thread. Problems go to Diagnostics; reading goes on after an error so all are reported.
// A file that includes itself, directly or through others, or a directory reached again through a link
// inside it, is an error (Naemon recurses until its stack overflows); pseudo filesystems such as /proc are
// never walked (docs/configuration.md).
#pragma once

#include "config/diagnostics.hpp"
#include "config/mapped_file.hpp"
#include "config/raw_object.hpp"

#include <array>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace vedette::config {

class ObjectReader {
 public:
  ObjectReader(ObjectStore& store, SourceFiles& files, Diagnostics& diags)
      : store_(store), files_(files), diags_(diags) {}

  // `from` is the line that names the file or directory (cfg_file, include_file, ...), for messages.
  void read_file(const std::string& path, SourcePos from = {});
  // Every `*.cfg` file below `path`, recursively, hidden entries skipped, in name order.
  void read_dir(const std::string& path, SourcePos from = {});

 private:
  void parse(std::string_view text, const std::string* file);
  void add_directive(RawObject& obj, std::string_view line, SourcePos at);
  void finish(RawObject* obj);
  void walk_dir(const std::string& path, SourcePos from);

  // Includes nest at most this deep, as the main config's do; a cycle is caught sooner by `open_files_`.
  static constexpr std::size_t k_max_include_depth = 32;

  ObjectStore& store_;
  SourceFiles& files_;
  Diagnostics& diags_;
  std::vector<RawAttr> scratch_;  // directives of the definition being read
  // Where the definition being read has each directive (valid for the ids in its `own` bits) and each
  // custom variable (valid when `definition` is the current one), so a directive written again replaces
  // the first without a scan of the definition: scanning was quadratic in its length.
  struct Position {
    std::uint32_t definition = 0;
    std::uint32_t index = 0;
  };
  std::uint32_t definition_ = 0;  // numbers the definitions read, from 1
  std::array<std::uint32_t, k_directive_count> directive_at_{};
  std::vector<Position> custom_at_;  // by custom variable name id
  // A `members` list written over several lines (a directive is_accumulating_directive() joins), by
  // position: appended in place and kept once the definition ends. Keeping every intermediate list made a
  // group written one member per line quadratic in its members.
  std::vector<std::pair<std::uint32_t, std::string>> accumulated_;
  std::vector<FileId> open_files_;  // the files being read, outermost first
  // The directories being walked, which may nest thousands deep.
  struct FileIdHash {
    std::size_t operator()(const FileId& id) const {
      return std::hash<std::uint64_t>{}(id.inode * 31 + id.device);
    }
  };
  std::unordered_set<FileId, FileIdHash> open_dirs_;
};

}  // namespace vedette::config
