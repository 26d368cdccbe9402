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
  if (auto invalid = validate_objects(cmd, core_.model())) {
    core_.log(parse_warning_text(line, *invalid));
    return;
  }
  const config::MainConfig& main = core_.main_config();
  if (is_logged(cmd, main.log_external_commands, main.log_passive_checks))
    core_.log(external_command_log_text(cmd));
  dispatch(cmd);
}

void CommandReader::dispatch(const ExternalCommand& cmd) {
  const model::Model& model = core_.model();
  const std::string_view name = cmd.name;
  auto host = [&](std::size_t field) { return model.host_by_name.find(cmd.args[field])->second; };
  if (name == "PROCESS_SERVICE_CHECK_RESULT") {
    engine::PassiveResult r;
    r.host_name = cmd.args[0];
    r.service_description = cmd.args[1];
    r.return_code = static_cast<int>(cmd.number(2));
    r.output = cmd.args[3];
    r.check_time = cmd.entry_time;
    core_.submit_passive_result(r);
  } else if (name == "PROCESS_HOST_CHECK_RESULT") {
    engine::PassiveResult r;
    r.host_name = cmd.args[0];
    r.return_code = static_cast<int>(cmd.number(1));
    r.output = cmd.args[2];
    r.check_time = cmd.entry_time;
    core_.submit_passive_result(r);
  } else if (name == "SCHEDULE_SVC_CHECK" || name == "SCHEDULE_FORCED_SVC_CHECK") {
    core_.schedule_service_check(model.find_service(cmd.args[0], cmd.args[1]), cmd.number(2),
                                 name == "SCHEDULE_FORCED_SVC_CHECK");
  } else if (name == "SCHEDULE_HOST_CHECK" || name == "SCHEDULE_FORCED_HOST_CHECK") {
    core_.schedule_host_check(host(0), cmd.number(1), name == "SCHEDULE_FORCED_HOST_CHECK");
  } else if (name == "SCHEDULE_HOST_SVC_CHECKS" || name == "SCHEDULE_FORCED_HOST_SVC_CHECKS") {
    for (const model::ServiceId s : model.host(host(0)).services)
      core_.schedule_service_check(s, cmd.number(1), name == "SCHEDULE_FORCED_HOST_SVC_CHECKS");
  } else if (name == "SAVE_STATE_INFORMATION") {
    core_.save_state();
  } else if (name == "RESTART_PROGRAM") {
    core_.restart();
  } else if (name == "SHUTDOWN_PROGRAM") {
    core_.stop({});
  } else {
    // The full command set arrives with the operations issue; until then say so rather than pretend.
    core_.log(fmt::format("Warning: External command '{}' is not supported by Vedette yet; ignored", name));
  }
}

}  // namespace vedette::commands
