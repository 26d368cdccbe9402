// The built-in perfdata writers (graphite_writer=, influxdb_writer=; docs/perfdata-writers.md) fed from
// every host and service result: the naming template is expanded here, on the core thread, because macros
// read the core's state; parsing the performance data and formatting the lines happen on the writers' own
// threads (tsdb::Writer). Built from the main config at start and at each reload; core thread only.
//
//   TsdbOutput tsdb(main, on_event);          // on_event: writer threads' log lines, for the core's log
//   tsdb.after_result(ctx, state);            // every result, when process_performance_data is on
//   for (auto& line : tsdb.flush(now)) log(line);   // once per loop iteration
#pragma once

#include "engine/macros/macros.hpp"
#include "engine/state/check_state.hpp"
#include "loop/clock.hpp"
#include "tsdb/writer.hpp"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::engine {

// A naming template split once into literal text and macros, so that each macro's value can be escaped
// on its own (a '.' in a host name must not add a Graphite path level, the template's own dots must).
// $HOSTCHECKCOMMAND$ and $SERVICECHECKCOMMAND$ give the command's name without its `!` arguments, as
// Icinga 2's check_command does, in both writers.
class NameTemplate {
 public:
  NameTemplate() = default;
  explicit NameTemplate(std::string_view text);
  // Appends the expansion for ctx; each macro's value goes through `escape` (null: as it is).
  void expand(const MacroContext& ctx, void (*escape)(std::string_view, std::string&),
              std::string& out) const;

 private:
  struct Part {
    std::string text;
    bool macro = false;
    bool command_name = false;  // a check command macro: its value up to the first '!'
  };
  std::vector<Part> parts_;
};

class TsdbOutput {
 public:
  TsdbOutput(const config::MainConfig& main, std::function<void(std::string)> on_event);

  [[nodiscard]] bool has_writers() const { return graphite_ != nullptr || influxdb_ != nullptr; }

  // After a result of the object ctx names (`state` is its hot state after the result): sends unless the
  // object's process_perf_data is off (the caller checks process_performance_data first), or there is
  // neither performance data nor metadata to send.
  void after_result(const MacroContext& ctx, const CheckState& state);

  // Hands samples over when due. Returns lines to log (dropped samples), usually none.
  [[nodiscard]] std::vector<std::string> flush(loop::MonoTime now);
  // Whether samples wait for a later flush(): the core then wakes for them within the flush interval.
  [[nodiscard]] bool has_pending() const { return pending_; }
  [[nodiscard]] loop::Duration flush_interval() const;

  // Tests and benchmarks.
  [[nodiscard]] tsdb::Writer* graphite() const { return graphite_.get(); }
  [[nodiscard]] tsdb::Writer* influxdb() const { return influxdb_.get(); }

 private:
  bool send_metadata_;
  NameTemplate graphite_host_, graphite_service_;
  NameTemplate influx_host_, influx_service_;
  std::unique_ptr<tsdb::Writer> graphite_;
  std::unique_ptr<tsdb::Writer> influxdb_;
  std::string name_;  // reused
  bool pending_ = false;
};

}  // namespace vedette::engine
