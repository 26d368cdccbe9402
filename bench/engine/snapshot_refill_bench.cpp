// The core thread's cost of a status snapshot at 100k services (10,000 hosts x 10) when K objects changed
// since the snapshot whose memory the builder recycles: copying only those (the World's state tables mark
// them) against copying every object (a source without change marks, as before).
//
//   build/<dir>/bench/snapshot_refill_bench
#include "engine/books/downtime_book.hpp"
#include "engine/state/state_table.hpp"
#include "engine/status_snapshot.hpp"
#include "engine/world/reload.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <random>
#include <thread>

namespace vedette::engine {
namespace {

struct Tables {
  model::Model model;
  config::MainConfig main;
  StateTable<HostState> hosts;
  StateTable<ServiceState> services;
  ProgramStatus program;
  DowntimeBook downtimes;

  Tables() {
    for (int h = 0; h < 10'000; ++h) {
      model::Host host;
      host.name = model.strings.intern(fmt::format("host{:05}", h));
      for (int s = 0; s < 10; ++s) {
        model::Service svc;
        svc.host = static_cast<model::HostId>(h);
        svc.host_name = host.name;
        svc.description = model.strings.intern(fmt::format("Service {}", s));
        model.services.push_back(svc);
      }
      model.hosts.push_back(std::move(host));
    }
    initial_states(model, hosts.vector(), services.vector());
    for (ServiceState& s : services.vector()) {
      s.has_been_checked = true;
      s.plugin_output = "HTTP OK: HTTP/1.1 200 OK - 4522 bytes in 0.012 second response time";
      s.perf_data = "time=0.012345s;;;0.000000 size=4522B;;;0";
    }
  }
  SnapshotSource source(bool marked) const {
    return {.model = model,
            .main = main,
            .hosts = hosts.all(),
            .services = services.all(),
            .program = program,
            .downtime_depths = &downtimes,
            .host_changes = marked ? &hosts.changes() : nullptr,
            .service_changes = marked ? &services.changes() : nullptr};
  }
};

Tables& tables() {
  static Tables t;
  return t;
}

// range(0): services changed between two snapshots (100 checks/s over a 10 s status_update_interval: 1000).
void run(benchmark::State& state, bool marked) {
  Tables& t = tables();
  StatusSnapshotBuilder builder;
  std::mt19937 rng(1);
  std::uniform_int_distribution<std::size_t> pick(0, t.services.size() - 1);
  for (auto _ : state) {
    state.PauseTiming();
    for (std::int64_t k = 0; k < state.range(0); ++k) t.services[pick(rng)].last_check += 1;
    state.ResumeTiming();
    auto snap = builder.build(t.source(marked));
    benchmark::DoNotOptimize(snap.get());
    state.PauseTiming();
    std::thread([old = std::move(snap)]() mutable { old.reset(); }).join();  // the writer releases it
    state.ResumeTiming();
  }
}

void BM_SnapshotChangedOnly(benchmark::State& state) {
  run(state, true);
}
void BM_SnapshotEveryObject(benchmark::State& state) {
  run(state, false);
}
BENCHMARK(BM_SnapshotChangedOnly)->Arg(100)->Arg(1000)->Arg(10'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SnapshotEveryObject)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vedette::engine
