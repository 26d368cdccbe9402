// The Livestatus query engine over a synthetic 100k-row services table (10,000 hosts x 10): rows per
// second for the queries Thruk and NagVis send most (all rows in CSV and JSON, a filtered view, the
// state counts of the tactical overview, a sorted page), and heap allocations per query, which must not
// grow with the rows (the Cell and the output string are reused).
//
//   build/<dir>/query_bench
#include "../allocation_counter.hpp"
#include "livestatus/cell.hpp"
#include "livestatus/query.hpp"
#include "livestatus/request.hpp"
#include "livestatus/table.hpp"
#include "livestatus/view.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <string>
#include <vector>

namespace vedette::livestatus {
namespace {

constexpr int k_hosts = 10'000;
constexpr int k_services_per_host = 10;
constexpr std::uint32_t k_rows = k_hosts * k_services_per_host;

struct Service {
  std::string host_name;
  std::string description;
  int state = 0;
  int state_type = 1;
  std::string plugin_output;
  std::int64_t last_check = 0;
  double latency = 0;
  double execution_time = 0;
  std::vector<std::string> groups;
  std::vector<std::pair<std::string, std::string>> custom_variables;
};

const std::vector<Service>& services() {
  static const std::vector<Service> all = [] {
    std::vector<Service> v;
    v.reserve(k_rows);
    for (int h = 0; h < k_hosts; ++h) {
      for (int s = 0; s < k_services_per_host; ++s) {
        const int i = h * k_services_per_host + s;
        Service svc;
        svc.host_name = fmt::format("host{:05}.example.com", h);
        svc.description = fmt::format("Service {}", s);
        svc.state = i % 17 == 0 ? 2 : (i % 11 == 0 ? 1 : 0);
        svc.plugin_output = svc.state == 0 ? "PING OK - Packet loss = 0%, RTA = 0.80 ms"
                                           : "PING CRITICAL - Packet loss = 100%";
        svc.last_check = 1'700'000'000 + i % 300;
        svc.latency = 0.001 * (i % 97);
        svc.execution_time = 0.01 * (i % 13);
        svc.groups = {"ping", s % 2 == 0 ? "even" : "odd"};
        svc.custom_variables = {{"SITE", "dc1"}, {"OWNER", "ops"}};
        v.push_back(std::move(svc));
      }
    }
    return v;
  }();
  return all;
}

const Service& of(Row row) {
  return services()[row.index];
}

Column make_column(std::string name, ColumnType type, Column::Getter get) {
  Column c;
  c.name = std::move(name);
  c.type = type;
  c.get = get;
  return c;
}

const Table& services_table() {
  static const Table table = [] {
    Table t;
    t.name = "services";
    t.prefix = "service_";
    t.natural_sort = {"host_name", "description"};
    t.columns.push_back(make_column("custom_variables", ColumnType::dict, [](const View&, Row r, Cell& c) {
      c.start_dict();
      for (const auto& [k, v] : of(r).custom_variables) c.add_pair(k, v);
    }));
    t.columns.push_back(make_column("description", ColumnType::string,
                                    [](const View&, Row r, Cell& c) { c.set_string(of(r).description); }));
    t.columns.push_back(make_column("execution_time", ColumnType::floating,
                                    [](const View&, Row r, Cell& c) { c.set_float(of(r).execution_time); }));
    t.columns.push_back(make_column("groups", ColumnType::list, [](const View&, Row r, Cell& c) {
      c.start_list();
      for (const std::string& g : of(r).groups) c.add(g);
    }));
    t.columns.push_back(make_column("host_name", ColumnType::string,
                                    [](const View&, Row r, Cell& c) { c.set_string(of(r).host_name); }));
    t.columns.push_back(make_column("last_check", ColumnType::time,
                                    [](const View&, Row r, Cell& c) { c.set_int(of(r).last_check); }));
    t.columns.push_back(make_column("latency", ColumnType::floating,
                                    [](const View&, Row r, Cell& c) { c.set_float(of(r).latency); }));
    t.columns.push_back(make_column("plugin_output", ColumnType::string,
                                    [](const View&, Row r, Cell& c) { c.set_string(of(r).plugin_output); }));
    t.columns.push_back(make_column("state", ColumnType::integer,
                                    [](const View&, Row r, Cell& c) { c.set_int(of(r).state); }));
    t.columns.push_back(make_column("state_type", ColumnType::integer,
                                    [](const View&, Row r, Cell& c) { c.set_int(of(r).state_type); }));
    t.rows = [](const View&, std::vector<Row>& out) {
      out.reserve(k_rows);
      for (std::uint32_t i = 0; i < k_rows; ++i) out.push_back(Row{.index = i, .group = 0});
    };
    return t;
  }();
  return table;
}

const Table* lookup(std::string_view name) {
  return name == "services" ? &services_table() : nullptr;
}

void run_query(benchmark::State& state, std::string_view text) {
  services();
  Request request;
  RequestError error;
  if (!parse_request(text, request, error, &lookup, 1'700'000'000))
    return state.SkipWithError(error.message.c_str());
  std::optional<Query> query = Query::compile(request, services_table(), error);
  if (!query) return state.SkipWithError(error.message.c_str());
  View view;
  std::string body;
  std::uint64_t allocations = 0;
  for (auto _ : state) {
    body.clear();
    const std::uint64_t before = g_allocations.load(std::memory_order_relaxed);
    const int code = query->run(view, {}, body, error);
    allocations += g_allocations.load(std::memory_order_relaxed) - before;
    if (code != 200) return state.SkipWithError(error.message.c_str());
    benchmark::DoNotOptimize(body.data());
  }
  state.counters["rows/s"] =
      benchmark::Counter(static_cast<double>(k_rows), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["allocs/query"] =
      benchmark::Counter(static_cast<double>(allocations), benchmark::Counter::kAvgIterations);
  state.counters["bytes"] = static_cast<double>(body.size());
}

void BM_AllRowsCsv(benchmark::State& state) {
  run_query(state,
            "GET services\nColumns: host_name description state state_type plugin_output last_check latency "
            "execution_time groups custom_variables\n");
}
BENCHMARK(BM_AllRowsCsv)->Unit(benchmark::kMillisecond);

void BM_AllRowsJson(benchmark::State& state) {
  run_query(state,
            "GET services\nColumns: host_name description state state_type plugin_output last_check latency "
            "execution_time groups custom_variables\nOutputFormat: json\n");
}
BENCHMARK(BM_AllRowsJson)->Unit(benchmark::kMillisecond);

void BM_ProblemsFiltered(benchmark::State& state) {
  run_query(state,
            "GET services\nColumns: host_name description state plugin_output\nFilter: state != 0\n"
            "Filter: plugin_output ~~ critical\nFilter: host_name ~ ^host0\nOutputFormat: json\n");
}
BENCHMARK(BM_ProblemsFiltered)->Unit(benchmark::kMillisecond);

void BM_StateCounts(benchmark::State& state) {
  run_query(state,
            "GET services\nStats: state = 0\nStats: state = 1\nStats: state = 2\nStats: state = 3\n"
            "Stats: state != 0\nStats: state_type = 1\nStatsAnd: 2\n");
}
BENCHMARK(BM_StateCounts)->Unit(benchmark::kMillisecond);

void BM_GroupedStats(benchmark::State& state) {
  run_query(state, "GET services\nColumns: state\nStats: state >= 0\nStats: avg latency\n");
}
BENCHMARK(BM_GroupedStats)->Unit(benchmark::kMillisecond);

void BM_SortedPage(benchmark::State& state) {
  run_query(state,
            "GET services\nColumns: host_name description state last_check\nSort: last_check desc\n"
            "Limit: 100\nOutputFormat: json\n");
}
BENCHMARK(BM_SortedPage)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vedette::livestatus
