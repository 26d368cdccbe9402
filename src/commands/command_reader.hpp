// Reads the command file and the files PROCESS_FILE names: each complete line is parsed, logged as Naemon
// logs it, and handed to the dispatch (commands/command_dispatch), which carries it out. Core thread only (it
// is the loop's handler for the FIFO's fd).
#pragma once

#include "commands/command_dispatch.hpp"
#include "commands/command_fifo.hpp"
#include "commands/command_line.hpp"
#include "loop/loop.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace vedette::engine {
class Core;
}

namespace vedette::commands {

class CommandReader final : public loop::FdHandler {
 public:
  // Opens (creating if needed) the FIFO at main.command_file and watches it in the core's loop. On failure
  // error() says why and nothing is watched. Without `open_fifo` (check_external_commands=0) it only runs
  // the lines handed to it (Livestatus).
  explicit CommandReader(engine::Core& core, bool open_fifo = true);
  ~CommandReader();
  CommandReader(const CommandReader&) = delete;
  CommandReader& operator=(const CommandReader&) = delete;

  [[nodiscard]] const std::string& error() const { return error_; }
  // Stops reading and removes the FIFO, as at shutdown.
  void close();

  // One line, as read from the FIFO or handed over by another input (Livestatus COMMAND).
  void process_line(std::string_view line);
  // The same, with the reason a line was refused (already logged), or nothing when it ran.
  [[nodiscard]] std::optional<std::string> execute(std::string_view line) { return run_line(line); }

 private:
  void on_ready(int fd, loop::Interest events) override;
  // The line's parse or validation error (already logged), or nothing when it ran.
  std::optional<std::string> run_line(std::string_view line);
  void process_file(const std::string& path, bool remove);

  static constexpr int k_max_file_depth = 8;
  int file_depth_ = 0;
  engine::Core& core_;
  CommandDispatch dispatch_;
  std::optional<CommandFifo> fifo_;
  std::string error_;
};

}  // namespace vedette::commands
