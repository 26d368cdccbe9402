// Where one kind of object's performance data goes (Naemon's perfdata.c): the *_perfdata_command run
// after each result, the *_perfdata_file written from its template by the "perfdata" thread, and the
// *_perfdata_file_processing_command run every processing interval. Built from the main config at start
// and at each reload; core thread only (the file's writer thread reports through `on_event`).
//
//   PerfdataWriter services(model, main, PerfdataObject::service, on_event, warnings);
//   services.after_result(ctx, state, sink);   // every service result
//   services.flush();                          // once per loop iteration
//   services.process(ctx);                     // every services.processing_interval() seconds
#pragma once

#include "engine/notify/side_command.hpp"
#include "engine/perfdata/perfdata.hpp"
#include "files/perfdata_file.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace vedette::engine {

class PerfdataWriter {
 public:
  // Commands that name no command definition are left out, with Naemon's warning added to `warnings`.
  PerfdataWriter(const model::Model& model, const config::MainConfig& main, PerfdataObject object,
                 std::function<void(const files::PerfdataEvent&)> on_event,
                 std::vector<std::string>& warnings);

  // After a result of an object of this kind (`ctx` names it, `state` is its hot state): Naemon's
  // update_*_performance_data. Does nothing unless process_performance_data and the object's
  // process_perf_data are on (and, with *_perfdata_process_empty_results=0, it has perfdata).
  void after_result(const MacroContext& ctx, const CheckState& state, SideCommandSink& sink);
  // Hands the lines of this iteration to the writer thread.
  void flush();
  // Seconds between runs of the processing command; 0: none.
  [[nodiscard]] unsigned long processing_interval() const { return processing_interval_; }
  // Runs the processing command on the writer thread, between closing and reopening the file.
  void process(const MacroContext& ctx);

 private:
  const config::MainConfig& main_;
  PerfdataObject object_;
  std::unique_ptr<files::PerfdataFile> file_;  // null: no *_perfdata_file
  std::string template_;                       // prepared: escapes done, '\n' appended
  std::optional<PerfdataCommand> command_;
  std::optional<PerfdataCommand> processing_;
  unsigned long processing_interval_ = 0;
  std::string line_;  // reused
};

}  // namespace vedette::engine
