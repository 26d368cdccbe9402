// The command path's own share of a passive result, without the engine: reading the FIFO and splitting lines
// (CommandFifo::drain), and parsing one PROCESS_SERVICE_CHECK_RESULT line (parse, return code). run.sh
// measures the whole path in the real daemon; this isolates the part src/commands owns, in ns per line.
//
//   build/<dir>/bench/command_path_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

#include "commands/command_fifo.hpp"
#include "commands/command_line.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace vedette::commands {
namespace {

constexpr int k_services = 10'000;  // run.sh's default: 1,000 hosts x 10 services

// The lines run.sh's feeder writes, one per service, in its order.
std::vector<std::string> passive_lines() {
  std::vector<std::string> lines;
  lines.reserve(k_services);
  for (int k = 0; k < k_services; ++k) {
    lines.push_back(
        fmt::format("[1796036602] PROCESS_SERVICE_CHECK_RESULT;host{:05};svc{:03};0;OK - passive seq "
                    "{}|seq={}",
                    k / 10, k % 10, k, k));
  }
  return lines;
}

void BM_ParsePassiveLine(benchmark::State& state) {
  const std::vector<std::string> lines = passive_lines();
  std::size_t i = 0;
  for (auto _ : state) {
    const std::string_view line = lines[i];
    i = i + 1 == lines.size() ? 0 : i + 1;
    // What CommandReader::run_line does with a valid line: the parse, then the return code when dispatched.
    const ParsedLine parsed = parse_external_command(line);
    if (!parsed.ok()) std::abort();
    benchmark::DoNotOptimize(parsed.command().number(2));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ParsePassiveLine);

void BM_FindCommandSpec(benchmark::State& state) {
  const std::string_view names[] = {"PROCESS_SERVICE_CHECK_RESULT", "PROCESS_HOST_CHECK_RESULT",
                                    "SCHEDULE_FORCED_SVC_CHECK", "ACKNOWLEDGE_SVC_PROBLEM"};
  const std::string_view name = names[state.range(0)];
  for (auto _ : state) benchmark::DoNotOptimize(find_command_spec(name));
  state.SetLabel(std::string(name));
}
BENCHMARK(BM_FindCommandSpec)->DenseRange(0, 3);

// One pipe's worth (1 MiB, as CommandFifo sizes it) written, then drained and split into lines; the writes
// are not timed. Counts only the reader's read(2) and line splitting.
void BM_FifoDrain(benchmark::State& state) {
  char dir_template[] = "/tmp/command_path_bench.XXXXXX";
  const char* dir = ::mkdtemp(dir_template);
  if (dir == nullptr) {
    state.SkipWithError("mkdtemp failed");
    return;
  }
  const std::string path = std::string(dir) + "/bench.cmd";
  FifoOpenResult opened = CommandFifo::open(path);
  if (!opened.fifo) {
    state.SkipWithError(opened.error.c_str());
    return;
  }
  CommandFifo& fifo = *opened.fifo;
  const int writer = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  const int pipe_bytes = ::fcntl(writer, F_GETPIPE_SZ);
  std::string block;
  std::size_t block_lines = 0;
  for (const std::string& line : passive_lines()) {
    if (block.size() + line.size() + 1 > static_cast<std::size_t>(pipe_bytes)) break;
    block += line;
    block += '\n';
    ++block_lines;
  }
  std::size_t lines = 0;
  for (auto _ : state) {
    state.PauseTiming();
    for (std::size_t done = 0; done < block.size();) {
      const ssize_t wrote = ::write(writer, block.data() + done, block.size() - done);
      if (wrote <= 0) std::abort();  // the block fits the empty pipe
      done += static_cast<std::size_t>(wrote);
    }
    state.ResumeTiming();
    std::size_t bytes = 0;
    const DrainResult drained = fifo.drain([&](std::string_view line) { bytes += line.size(); });
    benchmark::DoNotOptimize(bytes);
    if (drained.lines != block_lines) std::abort();
    lines += drained.lines;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(lines));
  ::close(writer);
  fifo.close_and_unlink();
  ::rmdir(dir);
}
BENCHMARK(BM_FifoDrain);

}  // namespace
}  // namespace vedette::commands
