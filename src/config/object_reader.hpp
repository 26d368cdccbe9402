// Reads object configuration files (cfg_file, cfg_dir, include_file, include_dir) into raw objects.
// Loader thread. Problems go to Diagnostics; reading goes on after an error so all are reported.
#pragma once

#include "config/diagnostics.hpp"
#include "config/raw_object.hpp"

#include <string>

namespace vedette::config {

class ObjectReader {
 public:
  ObjectReader(ObjectStore& store, SourceFiles& files, Diagnostics& diags)
      : store_(store), files_(files), diags_(diags) {}

  void read_file(const std::string& path);
  // Every `*.cfg` file below `path`, recursively, hidden entries skipped, in name order.
  void read_dir(const std::string& path);

 private:
  void parse(std::string_view text, const std::string* file);
  void add_directive(RawObject& obj, std::string_view line, SourcePos at);
  void finish(RawObject* obj);

  ObjectStore& store_;
  SourceFiles& files_;
  Diagnostics& diags_;
  std::vector<RawAttr> scratch_;  // directives of the definition being read
};

}  // namespace vedette::config
