// Everything performance data goes to from the core: the host and the service PerfdataWriter (Naemon's
// *_perfdata_command, *_perfdata_file and its processing command, engine/perfdata/perfdata_writer.hpp), the
// Graphite/InfluxDB writers (engine/perfdata/tsdb_output.hpp) and gearman's perfdata queues (the runner's
// link). Owns their timers — the two processing intervals and the wakeup for samples still waiting for their
// hand-over — and logs what their threads report, once per loop iteration. Built again at each reload; a
// reload's old TSDB writers finish sending on a thread of their own, so the core never waits for a backend.
// Core thread only.
//
//   PerfdataOutputs perfdata(world, runner);
//   perfdata.setup();                       // start-up, each reload
//   perfdata.after_result(check, now);      // after each result (the result pipeline calls it)
//   perfdata.flush();                       // once per loop iteration
#pragma once

#include "engine/macros/macros.hpp"
#include "engine/perfdata/perfdata_sink.hpp"
#include "engine/perfdata/perfdata_writer.hpp"
#include "engine/perfdata/tsdb_output.hpp"
#include "engine/state/check_id.hpp"
#include "engine/thread_messages.hpp"
#include "engine/world/world.hpp"
#include "files/perfdata_file.hpp"
#include "loop/loop.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace vedette::engine {

class CheckRunner;

class PerfdataOutputs final : public PerfdataSink, public loop::TimerHandler {
 public:
  // Perfdata commands run through `runner`, and perfdata goes to gearman through its link.
  PerfdataOutputs(World& world, CheckRunner& runner);
  ~PerfdataOutputs();
  PerfdataOutputs(const PerfdataOutputs&) = delete;
  PerfdataOutputs& operator=(const PerfdataOutputs&) = delete;

  // The outputs for the configuration now (start-up and each reload). The old files close first, as
  // Naemon's cleanup and initialization do: a mode 'w' file starts empty again.
  void setup();
  // PerfdataSink: the result's perfdata to every output (the caller checks process_performance_data).
  void after_result(CheckId check, Time now) override;
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
  CheckRunner& runner_;
  ThreadMessages events_;  // the perfdata writer threads' events; before the outputs, which report into it
  std::unique_ptr<PerfdataWriter> host_;
  std::unique_ptr<PerfdataWriter> service_;
  std::unique_ptr<TsdbOutput> tsdb_;         // null: no graphite_writer / influxdb_writer
  std::vector<RetiringTsdb> retiring_tsdb_;  // a reload's old writers, still sending
  loop::TimerId tsdb_timer_ = 0;             // wakes the loop for samples still waiting for their hand-over
  loop::TimerId host_timer_ = 0;
  loop::TimerId service_timer_ = 0;
  loop::MonoTime host_due_{};
  loop::MonoTime service_due_{};
};

}  // namespace vedette::engine
