#include "engine/notify/side_command.hpp"

#include "config/command_compiler.hpp"

#include <vector>

namespace vedette::engine {

std::optional<ExpandedCommand> expand_command_text(const model::Model& model, std::string_view call,
                                                   const MacroContext& ctx) {
  if (call.empty()) return std::nullopt;
  const config::CommandCall parsed = config::split_command_call(call);
  const auto it = model.command_by_name.find(parsed.name);
  if (it == model.command_by_name.end()) return std::nullopt;
  const std::vector<std::string_view> args(parsed.args.begin(), parsed.args.end());
  return expand_command(model.commands[model::index(it->second)].compiled, ctx, args);
}

std::optional<ExpandedCommand> expand_call(const model::Model& model, const model::CommandCall& call,
                                           const MacroContext& ctx) {
  if (!call.is_set()) return std::nullopt;
  return expand_command(model.commands[model::index(call.command)].compiled, ctx, model.args_of(call));
}

std::string command_line_text(const ExpandedCommand& command) {
  std::string line;
  for (const std::string& word : command.argv) {
    if (!line.empty()) line.push_back(' ');
    line += word;
  }
  return line;
}

}  // namespace vedette::engine
