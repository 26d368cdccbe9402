// Everything performance data goes to from the core: the host and the service PerfdataOutput (Naemon's
// *_perfdata_command, *_perfdata_file and its processing command, engine/perfdata_output.hpp) and the
// Graphite/InfluxDB writers (engine/tsdb_output.hpp). Owns their timers — the two processing intervals and
// the wakeup for samples still waiting for their hand-over — and logs what their threads report, once per
// loop iteration. Built again at each reload; a reload's old TSDB writers finish sending on a thread of
// their own, so the core never waits for a backend. Core thread only.
//
//   PerfdataOutputs perfdata(world, side_commands);
//   perfdata.setup();                       // start-up, each reload
//   perfdata.after_result(ctx, check);      // after each result, with process_performance_data
//   perfdata.flush();                       // once per loop iteration
#pragma once

#include "engine/check_id.hpp"
#include "engine/macros.hpp"
#include "engine/perfdata_output.hpp"
#include "engine/side_command.hpp"
#include "engine/thread_messages.hpp"
#include "engine/tsdb_output.hpp"
#include "engine/world.hpp"
#include "files/perfdata_file.hpp"
#include "loop/loop.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace vedette::engine {

class PerfdataOutputs final : public loop::TimerHandler {
 public:
  // Perfdata commands run through `commands` (the check runner).
  PerfdataOutputs(World& world, SideCommandSink& commands);
  ~PerfdataOutputs();
  PerfdataOutputs(const PerfdataOutputs&) = delete;
  PerfdataOutputs& operator=(const PerfdataOutputs&) = delete;

  // The outputs for the configuration now (start-up and each reload). The old files close first, as
  // Naemon's cleanup and initialization do: a mode 'w' file starts empty again.
  void setup();
  // After a result of `check`, whose macros `ctx` holds (the caller checks process_performance_data).
  void after_result(const MacroContext& ctx, CheckId check);
  // Hands this iteration's lines and samples to the writer threads; logs what they reported.
  void flush();
  // The last lines are written (or reported lost) and the old TSDB writers joined, before the log closes.
  void shutdown();

  // loop::TimerHandler: a processing interval, or the TSDB's wakeup.
  void on_timer(loop::TimerId id) override;

 private:
  void flush_tsdb();
  void retire_tsdb();
  void report_events();

  struct RetiringTsdb {
    std::jthread thread;  // joins when erased
    std::shared_ptr<std::atomic<bool>> done;
  };

  World& w_;
  SideCommandSink& commands_;
  ThreadMessages events_;  // the perfdata writer threads' events; before the outputs, which report into it
  std::unique_ptr<PerfdataOutput> host_;
  std::unique_ptr<PerfdataOutput> service_;
  std::unique_ptr<TsdbOutput> tsdb_;         // null: no graphite_writer / influxdb_writer
  std::vector<RetiringTsdb> retiring_tsdb_;  // a reload's old writers, still sending
  loop::TimerId tsdb_timer_ = 0;             // wakes the loop for samples still waiting for their hand-over
  loop::TimerId host_timer_ = 0;
  loop::TimerId service_timer_ = 0;
  loop::MonoTime host_due_{};
  loop::MonoTime service_due_{};
};

}  // namespace vedette::engine
