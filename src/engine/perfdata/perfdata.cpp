#include "engine/perfdata/perfdata.hpp"

#include "config/command_compiler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace vedette::engine {
namespace {

bool is_host(PerfdataObject object) {
  return object == PerfdataObject::host;
}

}  // namespace

bool wants_perfdata(const config::MainConfig& main, PerfdataObject object, const CheckState& state) {
  const bool empty_results = is_host(object) ? main.host_perfdata_process_empty_results
                                             : main.service_perfdata_process_empty_results;
  return wants_perfdata(main.process_performance_data, state.enabled(state::Flag::process_perf_data),
                        empty_results, state.perf_data);
}

std::string prepare_perfdata_template(std::string_view configured) {
  std::string out;
  out.reserve(configured.size() + 1);
  for (std::size_t i = 0; i < configured.size(); ++i) {
    const char c = configured[i];
    const char next = i + 1 < configured.size() ? configured[i + 1] : '\0';
    if (c == '\\' && (next == 't' || next == 'r' || next == 'n')) {
      out += next == 't' ? '\t' : next == 'r' ? '\r' : '\n';
      ++i;
      continue;
    }
    out += c;
  }
  out += '\n';
  return out;
}

std::string prepared_perfdata_template(const config::MainConfig& main, PerfdataObject object) {
  return prepare_perfdata_template(is_host(object) ? main.host_perfdata_file_template
                                                   : main.service_perfdata_file_template);
}

void append_perfdata_line(std::string_view prepared, const MacroContext& ctx, std::string& out) {
  process_macros(prepared, ctx, k_macro_plain, out);
}

std::optional<PerfdataCommand> find_perfdata_command(const model::Model& model, std::string_view text) {
  if (text.empty()) return std::nullopt;
  config::CommandCall call = config::split_command_call(text);
  const auto it = model.command_by_name.find(call.name);
  if (it == model.command_by_name.end()) return std::nullopt;
  return PerfdataCommand{.command = it->second, .args = std::move(call.args), .text = std::string(text)};
}

std::string perfdata_command_missing_warning(PerfdataObject object, bool processing, std::string_view text) {
  const std::string_view who = is_host(object) ? "Host" : "Service";
  const std::string_view what = is_host(object) ? "host" : "service";
  if (processing) {
    return fmt::format(
        "Warning: {} performance file processing command '{}' was not found - {} performance data file will "
        "not be processed!",
        who, text, what);
  }
  return fmt::format(
      "Warning: {} performance command '{}' was not found - {} performance data will not be processed!", who,
      text, what);
}

ExpandedPerfdataCommand expand_perfdata_command(const model::Command& command,
                                                std::span<const std::string_view> args,
                                                const MacroContext& ctx) {
  ExpandedPerfdataCommand out;
  out.command = expand_command(command.compiled, ctx, args);

  // The line as Naemon's worker gets it: each $ARGn$ expanded seeing the ones before it, then the whole
  // command_line.
  const std::size_t n = std::min(args.size(), config::k_max_command_args);
  std::vector<std::string> values(n);  // sized once: the views below point into these strings
  std::vector<std::string_view> views;
  views.reserve(n);
  MacroContext local = ctx;
  for (std::size_t i = 0; i < n; ++i) {
    local.args = std::span<const std::string_view>(views.data(), i);
    process_macros(args[i], local, k_strip_illegal, values[i]);
    views.push_back(values[i]);
  }
  local.args = std::span<const std::string_view>(views.data(), views.size());
  process_macros(command.compiled.line, local, k_strip_illegal, out.line);
  return out;
}

ExpandedPerfdataCommand expand_perfdata_command(const PerfdataCommand& command, const MacroContext& ctx) {
  const std::vector<std::string_view> args(command.args.begin(), command.args.end());
  return expand_perfdata_command(ctx.model.commands[model::index(command.command)], args, ctx);
}

files::PerfdataProcessing to_processing(ExpandedPerfdataCommand&& expanded) {
  files::PerfdataProcessing out;
  out.argv = std::move(expanded.command.argv);
  out.shell = expanded.command.shell;
  out.env = std::move(expanded.command.env);
  out.command_line = std::move(expanded.line);
  return out;
}

ProcessingSchedule processing_schedule(const config::MainConfig& main, PerfdataObject object) {
  const bool host = is_host(object);
  const unsigned long interval =
      host ? main.host_perfdata_file_processing_interval : main.service_perfdata_file_processing_interval;
  const std::string& command =
      host ? main.host_perfdata_file_processing_command : main.service_perfdata_file_processing_command;
  const config::PerfdataFileMode mode = host ? main.host_perfdata_file_mode : main.service_perfdata_file_mode;
  ProcessingSchedule out;
  if (interval == 0 || command.empty()) return out;
  if (mode == config::PerfdataFileMode::pipe) {
    out.warning = fmt::format(
        "Warning: {} performance file is configured to be a pipe - ignoring "
        "{}_perfdata_file_processing_interval",
        host ? "Host" : "Service", host ? "host" : "service");
    return out;
  }
  out.interval = interval;
  return out;
}

files::PerfdataFileOptions perfdata_file_options(const config::MainConfig& main, PerfdataObject object,
                                                 std::function<void(const files::PerfdataEvent&)> on_event) {
  const bool host = is_host(object);
  files::PerfdataFileOptions out;
  out.path = host ? main.host_perfdata_file : main.service_perfdata_file;
  out.mode = static_cast<files::PerfdataFileMode>(
      static_cast<char>(host ? main.host_perfdata_file_mode : main.service_perfdata_file_mode));
  out.object = object;
  out.timeout_seconds = main.perfdata_timeout;
  out.on_event = std::move(on_event);
  return out;
}

}  // namespace vedette::engine
