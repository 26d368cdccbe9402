// objects.cache at 100k services (10,000 hosts x 10), written once at start-up on the main thread: Naemon's
// name order alone, and the whole file (format + write + fsync + rename, ~95 MB).
//
//   build/<dir>/object_cache_bench
#include "files/object_cache.hpp"
#include "model/model.hpp"
#include "model/name_order.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace vedette::files {
namespace {

constexpr int k_hosts = 10'000;
constexpr int k_services_per_host = 10;

// Hosts and services as a generated configuration has them: a period, commands with arguments, contacts,
// custom variables; defined in an order that is not Naemon's, so the name order has work to do.
const model::Model& fixture() {
  static const model::Model* m = [] {
    auto* model = new model::Model;
    model::Timeperiod period;
    period.name = period.alias = model->strings.intern("24x7");
    period.rules.set_weekday(1, {{0, 86400}});
    model->timeperiods.push_back(period);
    model::Contact contact;
    contact.name = contact.alias = model->strings.intern("admin");
    model->contacts.push_back(contact);
    model->hosts.reserve(k_hosts);
    model->services.reserve(std::size_t{k_hosts} * k_services_per_host);
    for (int i = 0; i < k_hosts; ++i) {
      const int h = (i * 7919) % k_hosts;  // a permutation: definition order differs from name order
      model::Host host;
      host.name = host.alias = model->strings.intern(fmt::format("host{:05}.example.com", h));
      host.address = model->strings.intern(fmt::format("10.{}.{}.{}", h / 65536, (h / 256) % 256, h % 256));
      host.check_command.raw = model->strings.intern("check-host-alive");
      host.check_period = host.notification_period = model::TimeperiodId{0};
      host.contacts.push_back(model::ContactId{0});
      host.max_check_attempts = 3;
      host.custom_variables.push_back({model->strings.intern("SITE"), model->strings.intern("dc1")});
      for (int s = k_services_per_host - 1; s >= 0; --s) {
        model::Service svc;
        svc.host = static_cast<model::HostId>(i);
        svc.host_name = host.name;
        svc.description = model->strings.intern(fmt::format("Service {}", s));
        svc.check_command.raw = model->strings.intern("check_ping!100.0,20%!500.0,60%");
        svc.check_period = svc.notification_period = model::TimeperiodId{0};
        svc.contacts.push_back(model::ContactId{0});
        svc.max_check_attempts = 3;
        host.services.push_back(static_cast<model::ServiceId>(model->services.size()));
        model->services.push_back(svc);
      }
      model->hosts.push_back(std::move(host));
    }
    return model;
  }();
  return *m;
}

void BM_NameOrder(benchmark::State& state) {
  const model::Model& m = fixture();
  for (auto _ : state) benchmark::DoNotOptimize(model::name_order(m));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(m.services.size()));
}
BENCHMARK(BM_NameOrder)->Unit(benchmark::kMillisecond);

void BM_WriteObjectCache(benchmark::State& state) {
  const model::Model& m = fixture();
  const std::string path =
      (std::filesystem::temp_directory_path() / fmt::format("vedette-object-cache-bench-{}", ::getpid()))
          .string();
  std::uint64_t bytes = 0;
  for (auto _ : state) {
    const ObjectCacheResult r = write_object_cache(path, m, 1'700'000'000);
    if (!r.written) state.SkipWithError(r.error.c_str());
    bytes = r.bytes;
  }
  std::filesystem::remove(path);
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes));
  state.counters["MB"] = static_cast<double>(bytes) / 1e6;
}
BENCHMARK(BM_WriteObjectCache)->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace
}  // namespace vedette::files
