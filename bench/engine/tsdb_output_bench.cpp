// The core thread's cost of the perfdata writers per result: TsdbOutput::after_result (template expansion
// and the copy into the writer's buffer) plus its share of flush(), with Graphite, InfluxDB or both
// configured against loopback servers in this program that take everything (carbon: read and discard;
// InfluxDB: 204 for every POST). Heap allocations per result are counted by replacing operator new.
//
//   build/<dir>/tsdb_output_bench
#include "../allocation_counter.hpp"
#include "engine/perfdata/tsdb_output.hpp"

#include <benchmark/benchmark.h>

#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace vedette::engine {
namespace {

// Accepts connections and reads everything; with `http`, answers each POST with 204.
class Server {
 public:
  explicit Server(bool http) : http_(http) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    ::listen(fd_, 4);
    thread_ = std::thread([this] { serve(); });
  }
  ~Server() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  std::uint16_t port() const { return port_; }

 private:
  void serve() {
    while (true) {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::vector<char> buf(1 << 16);
      std::string tail;
      for (ssize_t n; (n = ::read(c, buf.data(), buf.size())) > 0;) {
        if (!http_) continue;
        tail.append(buf.data(), static_cast<std::size_t>(n));
        std::size_t posts = 0;
        for (std::size_t at = 0; (at = tail.find("POST /", at)) != std::string::npos; at += 6) ++posts;
        tail.erase(0, tail.size() > 6 ? tail.size() - 5 : 0);
        static const char k_answer[] = "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n";
        for (std::size_t i = 0; i < posts; ++i)
          if (::write(c, k_answer, sizeof k_answer - 1) < 0) break;
      }
      ::close(c);
    }
  }

  bool http_;
  int fd_ = -1;
  std::uint16_t port_ = 0;
  std::thread thread_;
};

struct Fixture {
  model::Model model;
  config::MainConfig main;
  std::vector<HostState> hosts{1};
  std::vector<ServiceState> services{1};

  Fixture() {
    model::Host h;
    h.name = "web01.example.com";
    model.hosts.push_back(h);
    model::Service s;
    s.host = model::HostId{0};
    s.description = "HTTP";
    model.services.push_back(s);
    services[0].perf_data = "time=0.012345s;1.000000;2.000000;0.000000 size=4521B;;;0";
    services[0].last_check = 1'700'000'000;
    services[0].set_enabled(state::Flag::process_perf_data, true);
    main.perfdata_writers.influxdb_database = "perf";
    main.perfdata_writers.influxdb_service_measurement_template = "check_http";  // no command in this model
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

void run(benchmark::State& state, bool graphite, bool influxdb) {
  Fixture f;
  const Server carbon(false);
  const Server influx(true);
  if (graphite) f.main.perfdata_writers.graphite = {.host = "127.0.0.1", .port = carbon.port()};
  if (influxdb) f.main.perfdata_writers.influxdb = {.host = "127.0.0.1", .port = influx.port()};
  f.main.perfdata_writers.buffer_size = std::size_t{256} << 20;
  std::uint64_t dropped = 0;
  {
    TsdbOutput out(f.main, [](std::string) {});
    const MacroContext ctx = f.ctx();
    loop::MonoTime now{std::chrono::hours(1)};
    for (int i = 0; i < 10000; ++i) out.after_result(ctx, f.services[0]);  // grow the buffers
    (void)out.flush(now + std::chrono::hours(1));
    const std::uint64_t before = g_allocations.load();
    std::uint64_t n = 0;
    for (auto _ : state) {
      out.after_result(ctx, f.services[0]);
      now += std::chrono::microseconds(100);  // 10,000 results a second: a hand-over per 10,000
      benchmark::DoNotOptimize(out.flush(now));
      // The writers format and send several times slower than the core queues (that is the point), so
      // without this their backlog would grow to the bound and the core would pay page faults for a
      // buffer that, at any real check rate, stays the size of one interval's results.
      if (++n % 10000 == 0) {
        state.PauseTiming();
        for (tsdb::Writer* w : {out.graphite(), out.influxdb()})
          if (w != nullptr) w->wait_idle(std::chrono::seconds(30));
        state.ResumeTiming();
      }
    }
    state.counters["allocs_per_result"] =
        static_cast<double>(g_allocations.load() - before) / static_cast<double>(state.iterations());
    for (const tsdb::Writer* w : {out.graphite(), out.influxdb()})
      if (w != nullptr) dropped += w->stats().samples_dropped;
  }
  state.counters["dropped"] = static_cast<double>(dropped);
  state.SetItemsProcessed(state.iterations());
}

void BM_Graphite(benchmark::State& state) {
  run(state, true, false);
}
BENCHMARK(BM_Graphite);

void BM_Influxdb(benchmark::State& state) {
  run(state, false, true);
}
BENCHMARK(BM_Influxdb);

void BM_Both(benchmark::State& state) {
  run(state, true, true);
}
BENCHMARK(BM_Both);

}  // namespace
}  // namespace vedette::engine
