// Livestatus tables at 100k services (10,000 hosts x 10): the rows of GET services, reading the columns a
// Thruk service list asks for and every column, and building the index a server builds once per snapshot.
//
//   build/<dir>/tables_bench
#include "engine/status_snapshot.hpp"
#include "engine/world/reload.hpp"
#include "livestatus/tables.hpp"
#include "livestatus/view.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <string_view>
#include <vector>

namespace vedette::livestatus {
namespace {

constexpr int k_hosts = 10'000;
constexpr int k_services_per_host = 10;
constexpr int k_hosts_per_group = 100;

struct Fixture {
  model::Model model;
  config::MainConfig main;
  std::vector<engine::HostState> hosts;
  std::vector<engine::ServiceState> services;
  engine::ProgramStatus program;
  std::shared_ptr<const files::StatusSnapshot> snapshot;
  Settings settings;
  Counters counters;

  Fixture() {
    model::Model& m = model;
    m.timeperiods.push_back({m.strings.intern("24x7"), m.strings.intern("24x7"), {}, {}});
    m.contacts.push_back({});
    m.contacts[0].name = m.strings.intern("admin");
    m.contactgroups.push_back({m.strings.intern("ops"), m.strings.intern("ops"), {model::ContactId{0}}, {}});
    m.contacts[0].contactgroups.push_back(model::ContactgroupId{0});
    const auto period = model::TimeperiodId{0};
    m.hosts.reserve(k_hosts);
    m.services.reserve(std::size_t{k_hosts} * k_services_per_host);
    for (int h = 0; h < k_hosts; ++h) {
      if (h % k_hosts_per_group == 0) {
        m.hostgroups.push_back({});
        m.hostgroups.back().name = m.strings.intern(fmt::format("group{:03}", h / k_hosts_per_group));
      }
      model::Host host;
      host.name = m.strings.intern(fmt::format("host{:05}.example.com", h));
      host.address = m.strings.intern(fmt::format("10.0.{}.{}", h / 256, h % 256));
      host.alias = host.display_name = host.name;
      host.check_command.raw = m.strings.intern("check-host-alive");
      host.check_period = host.notification_period = period;
      host.max_check_attempts = 3;
      host.contact_groups.push_back(model::ContactgroupId{0});
      host.hostgroups.push_back(model::HostgroupId{static_cast<std::uint32_t>(m.hostgroups.size() - 1)});
      m.hostgroups.back().members.push_back(model::HostId{static_cast<std::uint32_t>(h)});
      host.custom_variables.push_back({m.strings.intern("SITE"), m.strings.intern("dc1")});
      host.notes_url = m.strings.intern("https://wiki/$HOSTNAME$");
      for (int s = 0; s < k_services_per_host; ++s) {
        model::Service svc;
        svc.host = static_cast<model::HostId>(h);
        svc.host_name = host.name;
        svc.description = svc.display_name = m.strings.intern(fmt::format("Service {}", s));
        svc.check_command.raw = m.strings.intern("check_ping!100.0,20%!500.0,60%");
        svc.check_period = svc.notification_period = period;
        svc.max_check_attempts = 3;
        svc.contacts.push_back(model::ContactId{0});
        host.services.push_back(model::ServiceId{static_cast<std::uint32_t>(m.services.size())});
        m.services.push_back(svc);
      }
      m.hosts.push_back(std::move(host));
    }
    for (std::uint32_t i = 0; i < m.hosts.size(); ++i)
      m.host_by_name.emplace(m.hosts[i].name, model::HostId{i});
    m.contact_by_name.emplace(m.contacts[0].name, model::ContactId{0});
    m.by_name = model::name_order(m);
    engine::initial_states(m, hosts, services);
    for (std::size_t i = 0; i < services.size(); ++i) {
      engine::ServiceState& s = services[i];
      s.has_been_checked = true;
      s.current_state = static_cast<int>(i % 4 == 3 ? 2 : 0);
      s.last_check = 1'700'000'000 + static_cast<engine::Time>(i % 300);
      s.plugin_output = "HTTP OK: HTTP/1.1 200 OK - 4522 bytes in 0.012 second response time";
      s.perf_data = "time=0.012345s;;;0.000000 size=4522B;;;0";
    }
    program.now = 1'700'000'300;
    program.program_start = 1'700'000'000;
    snapshot = engine::make_status_snapshot({.model = m,
                                             .main = main,
                                             .hosts = hosts,
                                             .services = services,
                                             .program = program,
                                             .keep_alive = std::make_shared<int>(0)});
  }

  View view() const {
    View v;
    v.status = snapshot;
    v.now = program.now;
    v.settings = &settings;
    v.counters = &counters;
    return v;
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

void per_service(benchmark::State& state) {
  state.counters["ns_per_service"] =
      benchmark::Counter(static_cast<double>(std::size_t{k_hosts} * k_services_per_host),
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_ServiceRows(benchmark::State& state) {
  const View v = fixture().view();
  const Table& services = *find_table("services");
  std::vector<Row> rows;
  for (auto _ : state) {
    rows.clear();
    services.rows(v, rows);
    benchmark::DoNotOptimize(rows.data());
  }
  per_service(state);
}
BENCHMARK(BM_ServiceRows)->Unit(benchmark::kMillisecond);

void read_all(benchmark::State& state, const std::vector<const Column*>& columns) {
  View v = fixture().view();
  v.index = make_table_index(v.status);
  std::vector<Row> rows;
  find_table("services")->rows(v, rows);
  Cell cell;
  for (auto _ : state) {
    for (Row r : rows) {
      for (const Column* c : columns) {
        c->read(v, r, cell);
        benchmark::DoNotOptimize(cell.kind());
      }
    }
  }
  per_service(state);
}

// The columns of Thruk's service list (a selection of its `GET services` columns).
void BM_ServiceThrukColumns(benchmark::State& state) {
  const Table& services = *find_table("services");
  std::vector<const Column*> columns;
  for (std::string_view name : {"host_name",
                                "description",
                                "display_name",
                                "state",
                                "state_type",
                                "has_been_checked",
                                "plugin_output",
                                "long_plugin_output",
                                "perf_data",
                                "last_check",
                                "next_check",
                                "last_state_change",
                                "acknowledged",
                                "scheduled_downtime_depth",
                                "is_flapping",
                                "active_checks_enabled",
                                "notifications_enabled",
                                "current_attempt",
                                "max_check_attempts",
                                "host_state",
                                "host_address",
                                "host_alias",
                                "host_scheduled_downtime_depth",
                                "host_acknowledged",
                                "in_check_period",
                                "comments",
                                "groups",
                                "contacts",
                                "custom_variable_names",
                                "custom_variable_values",
                                "host_notes_url_expanded"})
    columns.push_back(services.find(name));
  read_all(state, columns);
}
BENCHMARK(BM_ServiceThrukColumns)->Unit(benchmark::kMillisecond);

// Every column of services (210, host_* included); host_num_services_* walk the host's services each time.
void BM_ServiceAllColumns(benchmark::State& state) {
  std::vector<const Column*> columns;
  for (const Column& c : find_table("services")->columns) columns.push_back(&c);
  read_all(state, columns);
}
BENCHMARK(BM_ServiceAllColumns)->Unit(benchmark::kMillisecond);

// What the server pays once per model (the model part) plus once per change of comments and downtimes.
void BM_TableIndexBuild(benchmark::State& state) {
  const Fixture& f = fixture();
  for (auto _ : state) benchmark::DoNotOptimize(make_table_index(f.snapshot).get());
  per_service(state);
}
BENCHMARK(BM_TableIndexBuild)->Unit(benchmark::kMillisecond);

// A new snapshot of the same model and comment and downtime lists: the index is taken over.
void BM_TableIndexReuse(benchmark::State& state) {
  const Fixture& f = fixture();
  const std::shared_ptr<const TableIndex> previous = make_table_index(f.snapshot);
  for (auto _ : state) benchmark::DoNotOptimize(make_table_index(f.snapshot, previous.get()).get());
}
BENCHMARK(BM_TableIndexReuse);

}  // namespace
}  // namespace vedette::livestatus
