// One external command line in Naemon's syntax, `[epoch] NAME;arg1;arg2…`, checked against the table of the
// commands Naemon knows and split into fields by each command's argument list. Pure functions, any thread.
// An ExternalCommand's views point into the caller's line (and the static table): keep the line alive.
//
//   const ParsedLine parsed = parse_external_command(line);
//   if (!parsed.ok()) { log(parse_warning_text(line, parsed.error())); return; }
//   dispatch(parsed.command());  // args: fields in the command's declared order
#pragma once

#include "commands/command_id.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace vedette::model {
struct Model;
}  // namespace vedette::model

namespace vedette::commands {

// Naemon's argument types. Object types are only names here; the dispatcher resolves them against the model
// (Naemon's "Failed validation of … as type host" comes from there, not from this parser).
enum class ArgType : std::uint8_t {
  host,
  hostgroup,
  service,  // two fields: host_name;service_description
  servicegroup,
  contact,
  contactgroup,
  timeperiod,
  str,
  boolean,    // an integer that must be 0 or 1
  integer,    // strtol rules
  ulong,      // strtoul rules
  timestamp,  // strtoul rules, seconds since the epoch (also used by Naemon for the *_CHECK_INTERVAL values)
};

struct ArgSpec {
  ArgType type;
  std::string_view name;                          // Naemon's argument name, used in its error messages
  std::optional<std::string_view> default_value;  // used for an empty or missing trailing argument
};

struct CommandSpec {
  CommandId id;
  std::string_view name;
  int naemon_id;  // CMD_* from Naemon's common.h, as broker events carry it; -1 where Naemon assigns one at
                  // run time
  std::span<const ArgSpec> params;
  std::size_t field_count;  // params.size() plus one per service argument
};

// Every command Naemon registers (register_core_commands), in its registration order.
[[nodiscard]] std::span<const CommandSpec> command_specs();
// nullptr if Naemon has no command of that (case-sensitive) name.
[[nodiscard]] const CommandSpec* find_command_spec(std::string_view name);
[[nodiscard]] const CommandSpec& command_spec(CommandId id);

struct ExternalCommand {
  std::int64_t entry_time = 0;  // the [epoch] the submitter wrote
  std::string_view name;
  // One field per argument; a service argument gives two (host_name, service_description). Always
  // spec->field_count entries: empty or missing arguments that have a default hold the default's text. When
  // the last argument is a string it keeps every ';' after it (plugin output, comments).
  std::vector<std::string_view> args;
  std::string_view raw_args;          // everything after the first ';', as written; "" if none
  const CommandSpec* spec = nullptr;  // nullptr for a custom command (name starting with '_'): no args split

  [[nodiscard]] bool is_custom() const { return spec == nullptr; }
  // A numeric field (integer, boolean, ulong, timestamp) that parse_external_command has already validated.
  // A ulong written with a '-' wraps as strtoul does, which reads back here as the negative number.
  [[nodiscard]] std::int64_t number(std::size_t field) const;
};

// Naemon's CMD_ERROR_* classes of parse failure.
enum class CommandErrorCode : std::uint8_t {
  malformed_command,   // no [timestamp], bad timestamp, no command name
  unknown_command,     // message: Unknown command 'NAME'
  missing_argument,    // empty argument without default, or too few arguments
  excess_argument,     // more ';'-separated fields than the command takes
  type_mismatch,       // a number that does not parse, a service without its description
  validation_failure,  // a boolean other than 0 or 1
};

struct CommandError {
  CommandErrorCode code;
  std::string message;  // Naemon's text, e.g. "Unknown command 'FOO'"
};

class [[nodiscard]] ParsedLine {
 public:
  ParsedLine(ExternalCommand command) : value_(std::move(command)) {}
  ParsedLine(CommandError error) : value_(std::move(error)) {}

  [[nodiscard]] bool ok() const { return value_.index() == 0; }
  [[nodiscard]] const ExternalCommand& command() const { return std::get<ExternalCommand>(value_); }
  [[nodiscard]] ExternalCommand& command() { return std::get<ExternalCommand>(value_); }
  [[nodiscard]] const CommandError& error() const { return std::get<CommandError>(value_); }

 private:
  std::variant<ExternalCommand, CommandError> value_;
};

// The line as Naemon sees it: spaces, tabs, CR and LF stripped from both ends.
[[nodiscard]] std::string_view strip_command_line(std::string_view line);

// Naemon's process_external_command parse (NOKV syntax). The line may still carry its newline.
[[nodiscard]] ParsedLine parse_external_command(std::string_view line);

// Naemon's object validators: every host, service, group, contact and timeperiod argument must name an
// object of `model`. The first one that does not gives Naemon's "Failed validation of host_name as type host
// (argument 0)", a parse error (the command is not logged as EXTERNAL COMMAND then).
[[nodiscard]] std::optional<CommandError> validate_objects(const ExternalCommand& command,
                                                           const model::Model& model);

// The runtime warning Naemon logs for a rejected line (no trailing newline):
// "Warning: External command parse error <stripped line> (<message>)".
[[nodiscard]] std::string parse_warning_text(std::string_view line, const CommandError& error);

// The log line for an accepted command (no trailing newline): "EXTERNAL COMMAND: NAME;raw_args", with the ';'
// even when there are no arguments, as Naemon writes it.
[[nodiscard]] std::string external_command_log_text(const ExternalCommand& command);

// Whether Naemon logs that line: PROCESS_SERVICE/HOST_CHECK_RESULT per log_passive_checks, LOG never (its
// handler writes the entry itself), everything else, custom commands included, per log_external_commands.
[[nodiscard]] bool is_logged(const ExternalCommand& command, bool log_external_commands,
                             bool log_passive_checks);

}  // namespace vedette::commands
