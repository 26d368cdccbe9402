#include "commands/command_reader.hpp"

#include "commands/command_line.hpp"
#include "config/mapped_file.hpp"
#include "engine/core.hpp"

#include <fmt/format.h>

#include <optional>
#include <unistd.h>
#include <utility>

namespace vedette::commands {

CommandReader::CommandReader(engine::Core& core, bool open_fifo) : core_(core), dispatch_(core.commands()) {
  if (!open_fifo) return;
  FifoOpenResult opened = CommandFifo::open(core_.main_config().command_file);
  if (!opened.fifo) {
    error_ = std::move(opened.error);
    return;
  }
  fifo_ = std::move(opened.fifo);
  core_.loop().watch(fifo_->fd(), loop::Interest::read, *this);
}

CommandReader::~CommandReader() {
  close();
}

void CommandReader::close() {
  if (!fifo_) return;
  core_.loop().unwatch(fifo_->fd());
  fifo_->close_and_unlink();
  fifo_.reset();
}

void CommandReader::on_ready(int, loop::Interest) {
  if (!fifo_) return;
  DrainResult drained = fifo_->drain([this](std::string_view line) { process_line(line); });
  if (drained.overlong_dropped != 0)
    core_.log(fmt::format("Warning: {} external command line(s) longer than {} bytes were ignored",
                          drained.overlong_dropped, CommandFifo::k_max_line_bytes));
  // A flood may leave more for later; the fd stays readable and the next iteration comes back here.
}

void CommandReader::process_line(std::string_view line) {
  (void)run_line(line);
}

std::optional<std::string> CommandReader::run_line(std::string_view line) {
  // Blank lines are skipped silently, as Naemon does. Only "" is tested up front; a line of white space fails
  // the parse and is recognised after it, so a valid line is not stripped twice.
  if (line.empty()) return std::nullopt;
  ParsedLine parsed = parse_external_command(line);
  if (!parsed.ok()) {
    if (strip_command_line(line).empty()) return std::nullopt;
    core_.log(parse_warning_text(line, parsed.error()));
    return parsed.error().message;
  }
  const ExternalCommand& cmd = parsed.command();
  if (auto invalid = dispatch_.validate(cmd)) {
    core_.log(parse_warning_text(line, *invalid));
    return invalid->message;
  }
  const config::MainConfig& main = core_.main_config();
  if (is_logged(cmd, main.log_external_commands, main.log_passive_checks))
    core_.log(external_command_log_text(cmd));
  core_.count_external_command();
  // PROCESS_FILE is the reader's own: the file's lines come back through run_line, as the FIFO's do.
  if (!cmd.is_custom() && cmd.spec->id == CommandId::process_file) {
    process_file(std::string(cmd.args[0]), cmd.number(1) != 0);
  } else {
    dispatch_.run(cmd);
  }
  return std::nullopt;
}

// Naemon's process_external_commands_from_file: every line as if it came through the command file, on the
// core thread; a failing line is logged once more with the file's wording.
void CommandReader::process_file(const std::string& path, bool remove) {
  // A file that names itself (or a cycle of files) would recurse forever.
  if (file_depth_ >= k_max_file_depth) {
    core_.log(
        fmt::format("Error: PROCESS_FILE nested more than {} deep; '{}' ignored", k_max_file_depth, path));
    return;
  }
  config::MappedFile file;
  // MappedFile never blocks: a FIFO named here would have stopped the core thread in open().
  if (!file.open(path)) {
    core_.log(
        fmt::format("Error: Cannot open file '{}' to process external commands! ({})", path, file.failure()));
    return;
  }
  ++file_depth_;
  std::string_view text = file.text();
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (auto error = run_line(line)) core_.log(fmt::format("External command from file error: {}", *error));
  }
  --file_depth_;
  if (remove) ::unlink(path.c_str());
}

}  // namespace vedette::commands
