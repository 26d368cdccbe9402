// expand_command on the typical `$USER1$/check_ping -H $HOSTADDRESS$ -w $ARG1$ -c $ARG2$`: ns and heap
// allocations per expansion (counted by replacing the global operator new), for the fast path, the
// buffer-reusing overload, and an argument with blanks that takes the expand-then-split path; and on an
// OCSP command for send_nsca, a shell line that carries the plugin output after every check.
//
//   build/<dir>/macros_bench
#include "../allocation_counter.hpp"
#include "config/command_compiler.hpp"
#include "engine/macros/macros.hpp"

#include <benchmark/benchmark.h>

namespace vedette::engine {
namespace {

struct Fixture {
  model::Model model;
  config::MainConfig main;
  model::CommandTemplate tmpl;
  model::CommandTemplate ocsp;
  std::vector<HostState> hosts{1};
  std::vector<ServiceState> services{1};

  Fixture() {
    model.user_macros.push_back("/usr/lib/nagios/plugins");
    model::Host h;
    h.name = "web01.example.com";
    h.address = "192.168.100.101";
    model.hosts.push_back(h);
    model::Service s;
    s.host = model::HostId{0};
    s.description = "PING";
    model.services.push_back(s);
    services[0].plugin_output = "PING OK - Packet loss = 0%, RTA = 0.80 ms";
    tmpl = config::compile_command_line("$USER1$/check_ping -H $HOSTADDRESS$ -w $ARG1$ -c $ARG2$",
                                        model.strings);
    ocsp = config::compile_command_line(
        R"(/usr/bin/printf "%s\t%s\t%s\t%s\n" "$HOSTNAME$" "$SERVICEDESC$" "$SERVICESTATEID$" "$SERVICEOUTPUT$" )"
        R"(| /usr/sbin/send_nsca -H 10.0.0.5 -c /etc/send_nsca.cfg)",
        model.strings);
  }
  MacroContext ctx() const {
    return {.model = model,
            .main = main,
            .host = model::HostId{0},
            .service = model::ServiceId{0},
            .host_state = &hosts[0],
            .service_state = &services[0],
            .now = 1'700'000'000,
            .all_hosts = &hosts,
            .all_services = &services};
  }
};

void report(benchmark::State& state, std::uint64_t allocations) {
  state.counters["allocs_per_expand"] =
      static_cast<double>(allocations) / static_cast<double>(state.iterations());
  state.SetItemsProcessed(state.iterations());
}

void BM_ExpandCheckPing(benchmark::State& state) {
  const Fixture f;
  const MacroContext ctx = f.ctx();
  const std::array<std::string_view, 2> args{"100.0,20%", "500.0,60%"};
  (void)expand_command(f.tmpl, ctx, args);  // warm the thread-local scratch
  const std::uint64_t before = g_allocations.load();
  for (auto _ : state) benchmark::DoNotOptimize(expand_command(f.tmpl, ctx, args));
  report(state, g_allocations.load() - before);
}
BENCHMARK(BM_ExpandCheckPing);

void BM_ExpandCheckPingReused(benchmark::State& state) {
  const Fixture f;
  const MacroContext ctx = f.ctx();
  const std::array<std::string_view, 2> args{"100.0,20%", "500.0,60%"};
  ExpandedCommand out;
  expand_command(f.tmpl, ctx, args, out);
  const std::uint64_t before = g_allocations.load();
  for (auto _ : state) {
    expand_command(f.tmpl, ctx, args, out);
    benchmark::DoNotOptimize(out);
  }
  report(state, g_allocations.load() - before);
}
BENCHMARK(BM_ExpandCheckPingReused);

void BM_ExpandResplit(benchmark::State& state) {
  const Fixture f;
  const MacroContext ctx = f.ctx();
  const std::array<std::string_view, 2> args{"100.0,20% -p 5", "500.0,60%"};
  (void)expand_command(f.tmpl, ctx, args);
  const std::uint64_t before = g_allocations.load();
  for (auto _ : state) benchmark::DoNotOptimize(expand_command(f.tmpl, ctx, args));
  report(state, g_allocations.load() - before);
}
BENCHMARK(BM_ExpandResplit);

void BM_ExpandOcspReused(benchmark::State& state) {
  const Fixture f;
  const MacroContext ctx = f.ctx();
  ExpandedCommand out;
  expand_command(f.ocsp, ctx, {}, out);
  const std::uint64_t before = g_allocations.load();
  for (auto _ : state) {
    expand_command(f.ocsp, ctx, {}, out);
    benchmark::DoNotOptimize(out);
  }
  report(state, g_allocations.load() - before);
}
BENCHMARK(BM_ExpandOcspReused);

}  // namespace
}  // namespace vedette::engine
