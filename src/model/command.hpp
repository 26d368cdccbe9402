// A command definition and a call of it (`check_command name!arg1!arg2`).
// Built by config/ on one thread; read-only, and read from any thread, once the model is published.
#pragma once

#include "model/command_template.hpp"
#include "model/ids.hpp"
#include "model/native_plugin.hpp"

#include <string_view>
#include <vector>

namespace vedette::model {

struct Command {
  std::string_view name;
  CommandTemplate compiled;  // command_line, split once at load time
  NativePlugin native = NativePlugin::none;
  // For `vedette -v`, interned: the plugin's name ("other commands" for other programs) and why it runs as
  // a process (empty when native).
  std::string_view native_kind;
  std::string_view native_reason;
};

// A reference to a command with its $ARGn$ values; `raw` is the text as written. The values live once
// per distinct text in Model::command_args (objects mostly share their command through a template).
struct CommandCall {
  CommandId command = no_id<CommandId>();
  std::uint32_t args = 0;  // index into Model::command_args; 0 = no arguments
  std::string_view raw;

  [[nodiscard]] bool is_set() const { return model::is_set(command); }
};

}  // namespace vedette::model
