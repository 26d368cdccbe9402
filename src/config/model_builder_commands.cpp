#include "config/model_builder_internal.hpp"
#include "native/classify.hpp"

namespace vedette::config::internal {

void ModelBuilder::build_commands() {
  native::ClassifyContext native_ctx;
  native_ctx.enabled = options_.native_checks;
  native_ctx.user_macros = model_->user_macros;
  native_ctx.locale_refusal = native::plugins_locale_refusal();
  std::vector<const RawObject*> raws;
  for_each_registered(ObjectType::command, [&](const RawObject& obj) {
    if (!named(obj, "command_name")) return;
    std::string_view name = intern(obj.get("command_name"));
    if (!index_name(model_->command_by_name, raws, name, obj, "command")) return;
    check_name(name, "command", obj);
    if (!obj.has_value("command_line"))
      diags_.error(fmt::format("Command '{}' has no command_line", name), obj.at);
    model::Command command;
    command.name = name;
    command.compiled = compile_command_line(obj.get("command_line"), model_->strings);
    native::NativeDecision native = native::classify_command(command.compiled, native_ctx);
    command.native = native.plugin;
    command.native_kind = intern(native.kind);
    command.native_reason = intern(native.reason);
    model_->commands.push_back(command);
  });
}
}  // namespace vedette::config::internal
