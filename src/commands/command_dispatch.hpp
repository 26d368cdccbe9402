// What each external command does: a parsed command is checked against the running model and carried out
// by the core component that does its work (engine/core_commands.hpp), chosen by the command's id with one
// switch, with Naemon's failure lines in the log. The reader (commands/command_reader) hands commands here;
// PROCESS_FILE stays with it, since the file's lines go back through it. Core thread only.
//
//   CommandDispatch dispatch(core.commands());
//   if (auto invalid = dispatch.validate(cmd)) { log(parse_warning_text(line, *invalid)); return; }
//   dispatch.run(cmd);
#pragma once

#include "commands/command_line.hpp"
#include "engine/core_commands.hpp"

#include <optional>

namespace vedette::commands {

class CommandDispatch {
 public:
  explicit CommandDispatch(engine::CoreCommands core) : core_(core) {}

  // Naemon's object validators against the model running now (validate_objects).
  [[nodiscard]] std::optional<CommandError> validate(const ExternalCommand& cmd) const;
  // Carries out a validated command, then stamps last_update on the host or service it names. A custom
  // command, or one Vedette does not carry out yet, is logged as not supported.
  void run(const ExternalCommand& cmd);

 private:
  void mark_target_updated(const ExternalCommand& cmd);

  engine::CoreCommands core_;
};

}  // namespace vedette::commands
