// An expanded command line built piece by piece, with the spans of the values that came from outside the
// configuration, for the command compiler's and the shell quoting's tests.
#pragma once

#include "config/command_compiler.hpp"

#include <string>
#include <string_view>

namespace vedette::config {

struct ExpandedLine {
  std::string text;
  OutsideSpans outside;

  ExpandedLine& configured(std::string_view bytes) {
    text += bytes;
    return *this;
  }
  ExpandedLine& value(std::string_view bytes) {
    outside.push_back({text.size(), text.size() + bytes.size()});
    text += bytes;
    return *this;
  }
};

}  // namespace vedette::config
