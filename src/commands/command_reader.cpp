#include "commands/command_reader.hpp"

#include "commands/command_line.hpp"
#include "config/mapped_file.hpp"
#include "engine/core.hpp"

#include <fmt/format.h>

#include <charconv>
#include <optional>
#include <unistd.h>
#include <utility>

namespace vedette::commands {

namespace {

// The program-wide switch a command turns on (true) or off.
std::optional<std::pair<engine::ProgramSwitch, bool>> program_switch(std::string_view name) {
  using S = engine::ProgramSwitch;
  struct Entry {
    std::string_view on, off;
    S which;
  };
  static constexpr Entry k_entries[] = {
      {"ENABLE_NOTIFICATIONS", "DISABLE_NOTIFICATIONS", S::notifications},
      {"START_EXECUTING_SVC_CHECKS", "STOP_EXECUTING_SVC_CHECKS", S::service_checks},
      {"START_ACCEPTING_PASSIVE_SVC_CHECKS", "STOP_ACCEPTING_PASSIVE_SVC_CHECKS", S::passive_service_checks},
      {"START_EXECUTING_HOST_CHECKS", "STOP_EXECUTING_HOST_CHECKS", S::host_checks},
      {"START_ACCEPTING_PASSIVE_HOST_CHECKS", "STOP_ACCEPTING_PASSIVE_HOST_CHECKS", S::passive_host_checks},
      {"ENABLE_EVENT_HANDLERS", "DISABLE_EVENT_HANDLERS", S::event_handlers},
      {"ENABLE_FLAP_DETECTION", "DISABLE_FLAP_DETECTION", S::flap_detection},
      {"START_OBSESSING_OVER_SVC_CHECKS", "STOP_OBSESSING_OVER_SVC_CHECKS", S::obsess_over_services},
      {"START_OBSESSING_OVER_HOST_CHECKS", "STOP_OBSESSING_OVER_HOST_CHECKS", S::obsess_over_hosts},
      {"ENABLE_SERVICE_FRESHNESS_CHECKS", "DISABLE_SERVICE_FRESHNESS_CHECKS", S::service_freshness},
      {"ENABLE_HOST_FRESHNESS_CHECKS", "DISABLE_HOST_FRESHNESS_CHECKS", S::host_freshness},
      {"ENABLE_PERFORMANCE_DATA", "DISABLE_PERFORMANCE_DATA", S::performance_data},
  };
  for (const Entry& e : k_entries) {
    if (name == e.on) return std::pair{e.which, true};
    if (name == e.off) return std::pair{e.which, false};
  }
  return std::nullopt;
}

}  // namespace

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
  if (auto invalid = validate_objects(cmd, core_.model())) {
    core_.log(parse_warning_text(line, *invalid));
    return invalid->message;
  }
  const config::MainConfig& main = core_.main_config();
  if (is_logged(cmd, main.log_external_commands, main.log_passive_checks))
    core_.log(external_command_log_text(cmd));
  dispatch(cmd);
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
  if (!file.open(path)) {
    core_.log(fmt::format("Error: Cannot open file '{}' to process external commands!", path));
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
  } else if (const auto program = program_switch(name)) {
    core_.set_program_switch(program->first, program->second);
  } else if (name == "PROCESS_FILE") {
    process_file(std::string(cmd.args[0]), cmd.number(1) != 0);
  } else if (name == "LOG") {
    core_.log(cmd.raw_args);  // Naemon's way for scripts to write a line of their own into the log
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
