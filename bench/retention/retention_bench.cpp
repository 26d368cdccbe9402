// retention.dat at 100k and 1M services (10,000 and 100,000 hosts x 10): the core thread's cost per save
// (taking the snapshot), the writer thread's (formatting alone; format + write + fsync + rename: wall time,
// CPU time and MB/s per write), and the start-up read + apply.
//
//   build/<dir>/bench/retention_bench [--benchmark_filter=/hosts:10000]
#include "../state_file_bench.hpp"
#include "engine/books/downtime_book.hpp"
#include "engine/status_snapshot.hpp"
#include "engine/world/reload.hpp"
#include "retention/apply.hpp"
#include "retention/writer.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <unistd.h>

namespace vedette::retention {
namespace {

constexpr std::size_t k_services_per_host = 10;
// Hosts, as the benchmarks' first argument: 100k and 1M services.
constexpr int k_100k = 10'000;
constexpr int k_1m = 100'000;
constexpr Time k_now = 1'700'000'300;

struct Fixture {
  model::Model model;
  config::MainConfig main;
  std::vector<state::HostState> hosts;
  std::vector<state::ServiceState> services;
  engine::ProgramStatus program{.now = k_now};
  engine::DowntimeBook downtimes;  // none scheduled; the core always hands its book over for the depths

  explicit Fixture(int hosts_wanted) {
    const auto host_count = static_cast<std::size_t>(hosts_wanted);
    main.retain_state_information = true;
    model.timeperiods.push_back({model.strings.intern("24x7"), model.strings.intern("24x7"), {}, {}});
    model.timeperiod_by_name.emplace(model.timeperiods[0].name, model::TimeperiodId{0});
    model.commands.emplace_back().name = model.strings.intern("check_ping");
    model.command_by_name.emplace(model.commands[0].name, model::CommandId{0});
    const auto period = model::TimeperiodId{0};
    model.hosts.reserve(host_count);
    model.services.reserve(host_count * k_services_per_host);
    for (std::size_t h = 0; h < host_count; ++h) {
      model::Host host;
      host.name = model.strings.intern(fmt::format("host{:05}.example.com", h));
      host.check_command.raw = model.strings.intern("check-host-alive");
      host.check_period = host.notification_period = period;
      host.max_check_attempts = 3;
      host.custom_variables.push_back({model.strings.intern("SITE"), model.strings.intern("dc1")});
      for (std::size_t s = 0; s < k_services_per_host; ++s) {
        model::Service svc;
        svc.host = static_cast<model::HostId>(h);
        svc.host_name = host.name;
        svc.description = model.strings.intern(fmt::format("Service {}", s));
        svc.check_command.raw = model.strings.intern("check_ping!100.0,20%!500.0,60%");
        svc.check_period = svc.notification_period = period;
        svc.max_check_attempts = 3;
        host.services.push_back(static_cast<model::ServiceId>(model.services.size()));
        model.services.push_back(svc);
      }
      model.host_by_name.emplace(host.name, static_cast<model::HostId>(h));
      model.hosts.push_back(std::move(host));
    }
    engine::initial_states(model, hosts, services);
    for (std::size_t i = 0; i < hosts.size(); ++i) {
      state::HostState& s = hosts[i];
      s.has_been_checked = true;
      s.last_check = 1'700'000'000 + static_cast<Time>(i % 300);
      s.next_check = s.last_check + 300;
      s.execution_time = 0.01 * static_cast<double>(i % 7);
      s.latency = 0.001 * static_cast<double>(i % 13);
      s.plugin_output = "PING OK - Packet loss = 0%, RTA = 0.52 ms";
      s.perf_data = "rta=0.520000ms;3000.000000;5000.000000;0.000000 pl=0%;80;100;0";
    }
    for (std::size_t i = 0; i < services.size(); ++i) {
      state::ServiceState& s = services[i];
      s.has_been_checked = true;
      s.current_state = static_cast<int>(i % 4 == 3 ? 2 : 0);
      s.last_check = 1'700'000'000 + static_cast<Time>(i % 300);
      s.next_check = s.last_check + 300;
      s.execution_time = 0.01 * static_cast<double>(i % 7);
      s.latency = 0.001 * static_cast<double>(i % 13);
      s.plugin_output = "HTTP OK: HTTP/1.1 200 OK - 4522 bytes in 0.012 second response time";
      s.perf_data = "time=0.012345s;;;0.000000 size=4522B;;;0";
      if (i % 10 == 0) s.long_plugin_output = "line two\\nline three";
    }
    // What a file written by Naemon leaves behind: event and problem ids, flapping history.
    for (std::size_t i = 0; i < services.size(); ++i) {
      services[i].events.current_event_id = i;
      if (services[i].current_state != 0) {
        services[i].events.current_problem_id = {0x1234567800004000ULL | (i << 16), 0x8dd048f3be01ae51ULL};
        services[i].flap.states[20] = 2;
        services[i].flap.percent_state_change = 6.25;
      }
    }
  }

  engine::SnapshotSource source() const {
    return {.model = model,
            .main = main,
            .hosts = hosts,
            .services = services,
            .program = program,
            .downtime_depths = &downtimes};
  }
};

Fixture& fixture(int hosts) {
  return bench::fixture_of_size<Fixture>(hosts);
}

// Core thread: the stall per save, as the core takes it (the memory of the snapshot the writer released last
// is reused). The previous snapshot is released on another thread, as the writer does.
void BM_RetentionSnapshot(benchmark::State& state) {
  Fixture& f = fixture(static_cast<int>(state.range(0)));
  engine::StatusSnapshotBuilder builder;
  const engine::SnapshotSource source = f.source();
  for (auto _ : state) {
    auto snap = builder.build(source);
    benchmark::DoNotOptimize(snap.get());
    state.PauseTiming();
    std::thread([old = std::move(snap)]() mutable { old.reset(); }).join();
    state.ResumeTiming();
  }
  state.counters["ns_per_service"] =
      benchmark::Counter(static_cast<double>(f.services.size()),
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_RetentionSnapshot)->Arg(k_100k)->Arg(k_1m)->ArgName("hosts")->Unit(benchmark::kMillisecond);

// The same in fresh memory every time: what the builder's reuse saves.
void BM_RetentionSnapshotFresh(benchmark::State& state) {
  Fixture& f = fixture(static_cast<int>(state.range(0)));
  const engine::SnapshotSource source = f.source();
  for (auto _ : state) {
    auto snap = engine::make_status_snapshot(source);
    benchmark::DoNotOptimize(snap.get());
    state.PauseTiming();
    std::thread([old = std::move(snap)]() mutable { old.reset(); }).join();
    state.ResumeTiming();
  }
}
BENCHMARK(BM_RetentionSnapshotFresh)->Arg(k_100k)->Arg(k_1m)->ArgName("hosts")->Unit(benchmark::kMillisecond);

// Writer thread: formatting alone, into memory.
void BM_RetentionFormat(benchmark::State& state) {
  Fixture& f = fixture(static_cast<int>(state.range(0)));
  const auto snap = engine::make_status_snapshot(f.source());
  std::string out;
  format_retention(*snap, out);  // grows the buffer once, outside the timing
  for (auto _ : state) {
    out.clear();
    format_retention(*snap, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(out.size()) * state.iterations());
  state.counters["MB"] = static_cast<double>(out.size()) / 1e6;
}
BENCHMARK(BM_RetentionFormat)->Arg(k_100k)->Arg(k_1m)->ArgName("hosts")->Unit(benchmark::kMillisecond);

// Writer thread: format + write + rename of a whole file (range(1): fsync of the file and the directory or
// not), as the writer times it; cpu_ms is the writer thread's CPU time per write.
void BM_RetentionWriteFile(benchmark::State& state) {
  Fixture& f = fixture(static_cast<int>(state.range(0)));
  const auto snap = engine::make_status_snapshot(f.source());
  std::string dir_pattern =
      (std::filesystem::temp_directory_path() / "vedette-retention-bench-XXXXXX").string();
  const std::filesystem::path dir = ::mkdtemp(dir_pattern.data());
  Writer writer({.path = (dir / "retention.dat").string(), .fsync = state.range(1) != 0});
  WriterStats stats;
  double cpu_ms = 0;
  for (auto _ : state) {
    const double cpu_start = bench::thread_cpu_ms("retention");
    writer.publish(snap);
    writer.wait_idle(std::chrono::minutes(1));
    cpu_ms += bench::thread_cpu_ms("retention") - cpu_start;
    stats = writer.stats();
    state.SetIterationTime(static_cast<double>(stats.last_write_us) / 1e6);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(stats.last_bytes) * state.iterations());
  state.counters["cpu_ms"] = benchmark::Counter(cpu_ms, benchmark::Counter::kAvgIterations);
  state.counters["format_ms"] = static_cast<double>(stats.last_format_us) / 1e3;
  state.counters["MB"] = static_cast<double>(stats.last_bytes) / 1e6;
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_RetentionWriteFile)
    ->ArgsProduct({{k_100k, k_1m}, {0, 1}})
    ->ArgNames({"hosts", "fsync"})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// Start-up: read (mmap) + parse + apply of the whole file, streaming, into fresh hot state.
void BM_RetentionLoad(benchmark::State& state) {
  Fixture& f = fixture(static_cast<int>(state.range(0)));
  std::string dir_pattern =
      (std::filesystem::temp_directory_path() / "vedette-retention-bench-XXXXXX").string();
  const std::filesystem::path dir = ::mkdtemp(dir_pattern.data());
  const std::string path = (dir / "retention.dat").string();
  if (const base::Status s =
          write_file(*engine::make_status_snapshot(f.source()), {.path = path, .fsync = false});
      !s) {
    state.SkipWithError(s.error().c_str());
    return;
  }
  std::size_t applied = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<state::HostState> hosts(f.hosts.size());
    std::vector<state::ServiceState> services(f.services.size());
    std::vector<state::ContactState> contacts = state::initial_contact_states(f.model);
    config::MainConfig main = f.main;
    state.ResumeTiming();
    const LoadResult r = load(path, {f.model, main, hosts, services, contacts}, k_now);
    applied = r.applied.counts.services;
    benchmark::DoNotOptimize(services.data());
    state.PauseTiming();
    std::thread([old = std::move(services)]() mutable { old.clear(); }).join();
    state.ResumeTiming();
  }
  state.counters["services"] = static_cast<double>(applied);
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_RetentionLoad)
    ->Arg(k_100k)
    ->Arg(k_1m)
    ->ArgName("hosts")
    ->UseRealTime()  // the file is parsed on a thread of its own
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vedette::retention
