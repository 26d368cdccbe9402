// A custom object variable (`_NAME value` in the config; the name is stored upper-cased without '_').
// Built by config/ on one thread; read-only, and read from any thread, once the model is published.
#pragma once

#include <string_view>

namespace vedette::model {

struct CustomVariable {
  std::string_view name;
  std::string_view value;  // empty when is_null
  bool is_null = false;    // written as `null`: Naemon keeps no value (objects.cache says "null")
};

}  // namespace vedette::model
