// Naemon's performance data processing (perfdata.c, "xpddefault"), the parts that need the model and the
// macros: which results produce performance data, the line a result adds to host_perfdata_file /
// service_perfdata_file, and the perfdata and processing commands expanded for running. The files
// themselves are files::PerfdataFile. Core thread only (macro expansion reuses thread-local buffers).
//
// Per host or service result, when wants_perfdata(...):
//   1. *_perfdata_command, if set: expand_perfdata_command(...) and run it (timeout perfdata_timeout,
//      result ignored);
//   2. *_perfdata_file, if set: append_perfdata_line(prepared template, ctx, line); file.write(line).
#pragma once

#include "config/main_config.hpp"
#include "engine/macros/macros.hpp"
#include "engine/state/check_state.hpp"
#include "files/perfdata_file.hpp"
#include "model/command.hpp"
#include "model/model.hpp"

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::engine {

using files::PerfdataObject;

// Naemon's update_{host,service}_performance_data guards, in its order: the global switch
// (process_performance_data, as ENABLE_/DISABLE_PERFORMANCE_DATA leave it), the object's process_perf_data
// (as ENABLE_/DISABLE_*_PERFDATA leave it), then, only with *_perfdata_process_empty_results=0, a result
// without performance data is skipped.
[[nodiscard]] constexpr bool wants_perfdata(bool process_performance_data, bool object_process_perf_data,
                                            bool process_empty_results, std::string_view perf_data) {
  if (!process_performance_data || !object_process_perf_data) return false;
  return process_empty_results || !perf_data.empty();
}

// The same from the live values: main.process_performance_data, the object's Flag::process_perf_data and
// its perf_data of the result just applied.
[[nodiscard]] bool wants_perfdata(const config::MainConfig& main, PerfdataObject object,
                                  const CheckState& state);

// A *_perfdata_file_template as Naemon uses it (xpddefault_preprocess_file_templates, then the "%s\n" of
// xpddefault_update_*_performance_data_file): the two-character sequences \t, \r and \n become a tab, a
// carriage return and a newline (any other backslash stays as written), and a newline is appended. Once per
// configuration load.
[[nodiscard]] std::string prepare_perfdata_template(std::string_view configured);

// The prepared template of `object` from main (host_ / service_perfdata_file_template).
[[nodiscard]] std::string prepared_perfdata_template(const config::MainConfig& main, PerfdataObject object);

// Appends the line one result writes: `prepared` with its macros expanded as Naemon does for the file, with
// no cleaning (process_macros_r options 0: plugin output keeps illegal_macro_output_chars and control bytes).
// ctx is the host's (no service) or the service's, with its state after the result.
void append_perfdata_line(std::string_view prepared, const MacroContext& ctx, std::string& out);

// A *_perfdata_command or *_perfdata_file_processing_command ("name!arg1!arg2") resolved against the model,
// as Naemon's find_bang_command.
struct PerfdataCommand {
  model::CommandId command = model::no_id<model::CommandId>();
  std::vector<std::string> args;  // raw, as written after the '!'s
  std::string text;               // as configured
};

// nullopt if `text` is empty or names no command: Naemon then drops it with the warning
// perfdata_command_missing_warning() gives, and nothing is run for the whole run.
[[nodiscard]] std::optional<PerfdataCommand> find_perfdata_command(const model::Model& model,
                                                                   std::string_view text);

// Naemon's initialize_performance_data warning for a configured command that names no command.
[[nodiscard]] std::string perfdata_command_missing_warning(PerfdataObject object, bool processing,
                                                           std::string_view text);

struct ExpandedPerfdataCommand {
  ExpandedCommand command;  // what to run: argv, or one line for /bin/sh -c; env
  std::string line;         // the whole expanded line, as Naemon hands it to its worker (and logs it)
};

// The command line of `command` with `args` as $ARG1$…, expanded as Naemon's xpddefault does for both the
// perfdata command and the processing command (get_raw_command_line_r + process_macros_r with
// STRIP_ILLEGAL_MACRO_CHARS | ESCAPE_MACRO_CHARS, which is k_strip_illegal: Naemon's ESCAPE adds nothing),
// split as runcmd splits it (engine::expand_command). For the perfdata command ctx is the object's; for the
// processing command it has no host or service (Naemon uses empty macros there: only global macros such as
// $TIMET$ or $SERVICEPERFDATAFILE$ have values).
[[nodiscard]] ExpandedPerfdataCommand expand_perfdata_command(const model::Command& command,
                                                              std::span<const std::string_view> args,
                                                              const MacroContext& ctx);
[[nodiscard]] ExpandedPerfdataCommand expand_perfdata_command(const PerfdataCommand& command,
                                                              const MacroContext& ctx);

// What files::PerfdataFile::process takes.
[[nodiscard]] files::PerfdataProcessing to_processing(ExpandedPerfdataCommand&& expanded);

// When Naemon runs the processing command of `object`'s file (initialize_performance_data): every
// `interval` seconds from start, if the interval is > 0 and a processing command is set; `warning` is what
// Naemon logs at start instead when the file is a pipe (interval is then 0).
struct ProcessingSchedule {
  unsigned long interval = 0;  // seconds; 0: never
  std::string warning;         // empty unless a pipe makes Naemon ignore the interval
};
[[nodiscard]] ProcessingSchedule processing_schedule(const config::MainConfig& main, PerfdataObject object);

// files::PerfdataFileOptions for `object`'s file from main: path, mode, perfdata_timeout. Empty path: no file
// is configured and none should be created.
[[nodiscard]] files::PerfdataFileOptions perfdata_file_options(
    const config::MainConfig& main, PerfdataObject object,
    std::function<void(const files::PerfdataEvent&)> on_event = {});

}  // namespace vedette::engine
