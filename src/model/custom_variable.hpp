// A custom object variable (`_NAME value` in the config; the name is stored upper-cased without '_').
#pragma once

#include <string_view>

namespace vedette::model {

struct CustomVariable {
  std::string_view name;
  std::string_view value;
};

}  // namespace vedette::model
