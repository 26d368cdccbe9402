#include "engine/perfdata/perfdata_writer.hpp"

#include <utility>

namespace vedette::engine {

PerfdataWriter::PerfdataWriter(const model::Model& model, const config::MainConfig& main,
                               PerfdataObject object,
                               std::function<void(const files::PerfdataEvent&)> on_event,
                               std::vector<std::string>& warnings)
    : main_(main), object_(object) {
  const bool host = object == PerfdataObject::host;
  auto resolve = [&](const std::string& text, bool processing) -> std::optional<PerfdataCommand> {
    if (text.empty()) return std::nullopt;
    std::optional<PerfdataCommand> command = find_perfdata_command(model, text);
    if (!command) warnings.push_back(perfdata_command_missing_warning(object, processing, text));
    return command;
  };
  command_ = resolve(host ? main.host_perfdata_command : main.service_perfdata_command, /*processing=*/false);
  const std::string& path = host ? main.host_perfdata_file : main.service_perfdata_file;
  if (path.empty()) return;
  template_ = prepared_perfdata_template(main, object);
  file_ = std::make_unique<files::PerfdataFile>(perfdata_file_options(main, object, std::move(on_event)));
  const ProcessingSchedule schedule = processing_schedule(main, object);
  if (!schedule.warning.empty()) warnings.push_back(schedule.warning);
  if (schedule.interval > 0) {
    processing_ = resolve(
        host ? main.host_perfdata_file_processing_command : main.service_perfdata_file_processing_command,
        /*processing=*/true);
    if (processing_) processing_interval_ = schedule.interval;
  }
}

void PerfdataWriter::after_result(const MacroContext& ctx, const CheckState& state, SideCommandSink& sink) {
  if (!wants_perfdata(main_, object_, state)) return;
  if (command_) {
    ExpandedPerfdataCommand expanded = expand_perfdata_command(*command_, ctx);
    SideCommand side;  // Naemon logs nothing about these commands, not even a timeout
    side.timeout_s = main_.perfdata_timeout > 0 ? main_.perfdata_timeout : 60;
    side.command = std::move(expanded.command);
    sink.run_side_command(std::move(side));
  }
  if (file_) {
    line_.clear();
    append_perfdata_line(template_, ctx, line_);
    file_->write(line_);
  }
}

void PerfdataWriter::flush() {
  if (file_) file_->flush();
}

void PerfdataWriter::process(const MacroContext& ctx) {
  if (!file_ || !processing_ || !main_.process_performance_data) return;
  file_->process(to_processing(expand_perfdata_command(*processing_, ctx)));
}

}  // namespace vedette::engine
