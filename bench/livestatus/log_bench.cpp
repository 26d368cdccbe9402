// The log table over a large log: 1,000,000 lines across 24 hourly archives and the current log (about
// 40,000 lines an hour, Naemon's formats), queried as Thruk's event log does: the last hour, newest first.
// Warm: the files are parsed and cached (the usual case, queries every few seconds); cold: the cache is
// dropped first, so the last hour's files are opened and parsed again. A full scan of every line (Stats
// over all classes) shows the cost per cached line.
//
//   build/<dir>/log_bench
#include "livestatus/log_cache.hpp"
#include "livestatus/query.hpp"
#include "livestatus/request.hpp"
#include "livestatus/tables.hpp"
#include "livestatus/view.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <utime.h>

namespace vedette::livestatus {
namespace {

constexpr int k_hours = 25;  // 24 archives and the current log
constexpr int k_lines = 1'000'000;
constexpr std::int64_t k_start = 1'700'000'000;
constexpr std::int64_t k_now = k_start + k_hours * 3600 - 60;

// One line of a busy installation: mostly passive results and alerts, some notifications and commands.
void append_line(std::string& out, std::int64_t t, int i) {
  const int host = i % 997;
  const int service = i % 13;
  switch (i % 8) {
    case 0:
    case 1:
    case 2:
      fmt::format_to(std::back_inserter(out), "[{}] PASSIVE SERVICE CHECK: host{};svc{};{};OK - all fine\n",
                     t, host, service, i % 3);
      break;
    case 3:
      fmt::format_to(std::back_inserter(out), "[{}] SERVICE ALERT: host{};svc{};CRITICAL;SOFT;1;timeout\n", t,
                     host, service);
      break;
    case 4:
      fmt::format_to(std::back_inserter(out), "[{}] SERVICE ALERT: host{};svc{};OK;HARD;1;OK - recovered\n",
                     t, host, service);
      break;
    case 5:
      fmt::format_to(std::back_inserter(out),
                     "[{}] SERVICE NOTIFICATION: admin;host{};svc{};CRITICAL;notify-by-email;timeout\n", t,
                     host, service);
      break;
    case 6:
      fmt::format_to(std::back_inserter(out),
                     "[{}] EXTERNAL COMMAND: PROCESS_SERVICE_CHECK_RESULT;host{};svc{};0;OK - all fine\n", t,
                     host, service);
      break;
    default:
      fmt::format_to(std::back_inserter(out), "[{}] HOST ALERT: host{};DOWN;SOFT;1;PING CRITICAL\n", t, host);
      break;
  }
}

struct LogFixture {
  std::filesystem::path dir;
  Settings settings;

  LogFixture() {
    dir = std::filesystem::temp_directory_path() / fmt::format("vedette-log-bench-{}", ::getpid());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "archives");
    settings.log_file = (dir / "naemon.log").string();
    settings.log_archive_path = (dir / "archives").string();
    const int per_hour = k_lines / k_hours;
    int line = 0;
    for (int h = 0; h < k_hours; ++h) {
      std::string text;
      const std::int64_t hour = k_start + h * 3600;
      for (int i = 0; i < per_hour; ++i, ++line) append_line(text, hour + (i * 3600LL) / per_hour, line);
      const bool current = h == k_hours - 1;
      const std::filesystem::path path =
          current ? dir / "naemon.log" : dir / "archives" / fmt::format("naemon-{:04}.log", h);
      std::FILE* f = std::fopen(path.c_str(), "w");
      std::fwrite(text.data(), 1, text.size(), f);
      std::fclose(f);
      const auto last = static_cast<std::time_t>(hour + 3599);
      utimbuf times{.actime = last, .modtime = last};
      ::utime(path.c_str(), &times);
    }
  }
  ~LogFixture() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

LogFixture& fixture() {
  static LogFixture f;
  return f;
}

void run_query(benchmark::State& state, const std::string& text, bool cold, std::size_t max_cached) {
  LogFixture& f = fixture();
  f.settings.max_cached_messages = max_cached;
  Request request;
  RequestError error;
  if (!parse_request(text, request, error, &find_table, static_cast<std::time_t>(k_now))) {
    state.SkipWithError(error.message.c_str());
    return;
  }
  std::optional<Query> query = Query::compile(request, *find_table("log"), error);
  LogCache::shared().clear();
  std::string body;
  std::size_t rows = 0;
  for (auto _ : state) {
    if (cold) {
      state.PauseTiming();
      LogCache::shared().clear();
      state.ResumeTiming();
    }
    View view;
    view.now = static_cast<std::time_t>(k_now);
    view.settings = &f.settings;
    body.clear();
    (void)query->run(view, {}, body, error);
    rows = static_cast<std::size_t>(std::count(body.begin(), body.end(), '\n'));
    benchmark::DoNotOptimize(body.data());
  }
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["cached_lines"] = static_cast<double>(LogCache::shared().stats().cached_lines);
}

const std::string k_last_hour = fmt::format(
    "GET log\nColumns: time class type host_name service_description state plugin_output\n"
    "Filter: time >= {}\nFilter: time <= {}\n",
    k_now - 3600, k_now);

void BM_LogLastHourWarm(benchmark::State& state) {
  run_query(state, k_last_hour, false, 500'000);
}
BENCHMARK(BM_LogLastHourWarm)->Unit(benchmark::kMillisecond);

void BM_LogLastHourCold(benchmark::State& state) {
  run_query(state, k_last_hour, true, 500'000);
}
BENCHMARK(BM_LogLastHourCold)->Unit(benchmark::kMillisecond);

// Thruk's alert page: the last hour's alerts only (class pushdown, then the filter).
void BM_LogLastHourAlertsWarm(benchmark::State& state) {
  run_query(state, k_last_hour + "Filter: class = 1\n", false, 500'000);
}
BENCHMARK(BM_LogLastHourAlertsWarm)->Unit(benchmark::kMillisecond);

// Every line, counted by class, with a cache large enough to hold them all.
void BM_LogFullScanStatsWarm(benchmark::State& state) {
  run_query(state, "GET log\nStats: class = 1\nStats: class = 3\nStats: class = 4\n", false, 2'000'000);
  state.SetItemsProcessed(state.iterations() * k_lines);
}
BENCHMARK(BM_LogFullScanStatsWarm)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vedette::livestatus
