#include "commands/command_reader.hpp"

#include "commands/command_line.hpp"
#include "engine/core.hpp"

#include <fmt/format.h>

#include <charconv>

namespace vedette::commands {

CommandReader::CommandReader(engine::Core& core) : core_(core) {
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
  if (strip_command_line(line).empty()) return;
  ParsedLine parsed = parse_external_command(line);
  if (!parsed.ok()) {
    core_.log(parse_warning_text(line, parsed.error()));
    return;
  }
  const ExternalCommand& cmd = parsed.command();
  const config::MainConfig& main = core_.main_config();
  if (is_logged(cmd, main.log_external_commands, main.log_passive_checks))
    core_.log(external_command_log_text(cmd));

  if (cmd.name == "PROCESS_SERVICE_CHECK_RESULT") {
    engine::PassiveResult r;
    r.host_name = cmd.args[0];
    r.service_description = cmd.args[1];
    r.return_code = static_cast<int>(cmd.number(2));
    r.output = cmd.args[3];
    r.check_time = cmd.entry_time;
    core_.submit_passive_result(r);
    return;
  }
  if (cmd.name == "PROCESS_HOST_CHECK_RESULT") {
    engine::PassiveResult r;
    r.host_name = cmd.args[0];
    r.return_code = static_cast<int>(cmd.number(1));
    r.output = cmd.args[2];
    r.check_time = cmd.entry_time;
    core_.submit_passive_result(r);
    return;
  }
  // The full command set arrives with the operations issue; until then say so rather than pretend.
  core_.log(fmt::format("Warning: External command '{}' is not supported by Vedette yet; ignored", cmd.name));
}

}  // namespace vedette::commands
