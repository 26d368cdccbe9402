#include "app/native_check_cli.hpp"

#include "exec/executor.hpp"
#include "exec/result_queue.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <poll.h>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::app {

int run_native_check(int argc, char** argv) {
  if (argc < 1) {
    fmt::print(stderr, "vedette: --native-check needs a plugin path\n");
    return 125;
  }
  exec::CheckJob job;
  for (int i = 0; i < argc; ++i) job.argv.emplace_back(argv[i]);
  const std::string_view program = job.argv[0];
  const std::string_view base = program.substr(program.rfind('/') + 1);
  if (base == "check_dummy") job.native = model::NativePlugin::check_dummy;
  if (base == "check_tcp") job.native = model::NativePlugin::check_tcp;
  if (base == "check_ping") job.native = model::NativePlugin::check_ping;
  if (base == "check_icmp") job.native = model::NativePlugin::check_icmp;
  if (base == "check_http") job.native = model::NativePlugin::check_http;
  if (job.native == model::NativePlugin::none) {
    fmt::print(stderr, "vedette: {} has no native implementation\n", base);
    return 125;
  }
  exec::ResultQueue results;
  exec::Executor executor(results, {.threads = 1});
  if (!executor.submit(std::move(job))) return 125;
  std::vector<exec::CheckResult> batch;
  while (batch.empty()) {
    pollfd p{results.fd(), POLLIN, 0};
    ::poll(&p, 1, -1);
    results.drain(batch);
  }
  const exec::CheckResult& r = batch.front();
  if (!r.native) {
    // The executor ran the process instead: these arguments are not run natively.
    executor.shutdown();
    fmt::print(stderr, "vedette: not run natively: the plugin ran as a process\n");
    return 125;
  }
  std::fwrite(r.output.data(), 1, r.output.size(), stdout);
  std::fflush(stdout);
  if (r.outcome == exec::Outcome::timed_out) return 124;
  return r.exit_code;
}

}  // namespace vedette::app
