// Commands the core runs without waiting for them: notification commands and event handlers. They go to
// the executor threads like checks (posix_spawn, process group, timeout, output cap); their result matters
// only when it is a failure Naemon logs. Core thread only.
#pragma once

#include "engine/macros/macros.hpp"
#include "model/model.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace vedette::engine {

struct SideCommand {
  ExpandedCommand command;
  int timeout_s = 30;
  std::string timeout_warning;  // logged when the command is killed at its timeout (empty: nothing)
  // Notifications only: logged as "Warning: Notification command for <failure_subject> exited with exit
  // code N. stdout: '…', stderr: '…'" (or "was killed by signal N") when the command fails.
  std::string failure_subject;
  // What it is for, so that distributed event handlers and notifications can follow their object's queue
  // (engine/checks/distribution.hpp). Anything else (perfdata commands, OCSP/OCHP) always runs locally.
  enum class Purpose : std::uint8_t { other, event_handler, notification };
  Purpose purpose = Purpose::other;
  model::HostId host = model::no_id<model::HostId>();           // the object of an event handler or
  model::ServiceId service = model::no_id<model::ServiceId>();  // notification (service unset: a host's)
  std::string contact;  // notification: the contact's name, "GLOBAL" for the global handler
};

// Where SideCommands go (the core), and the main log.
class SideCommandSink {
 public:
  virtual void run_side_command(SideCommand&& command) = 0;
  virtual void log(std::string_view line) = 0;

 protected:
  ~SideCommandSink() = default;
};

// `call` as written in the configuration ("notify-by-email!arg1", a global handler) expanded with `ctx`;
// nothing when it names no defined command.
[[nodiscard]] std::optional<ExpandedCommand> expand_command_text(const model::Model& model,
                                                                 std::string_view call,
                                                                 const MacroContext& ctx);
// A model command call expanded with `ctx`; nothing when it is not set.
[[nodiscard]] std::optional<ExpandedCommand> expand_call(const model::Model& model,
                                                         const model::CommandCall& call,
                                                         const MacroContext& ctx);
// The command line as Naemon's warnings show it.
[[nodiscard]] std::string command_line_text(const ExpandedCommand& command);

}  // namespace vedette::engine
