// External commands: each line of the input is parsed, validated and dispatched to a core built over a
// small model, as a line from the command file or a Livestatus COMMAND is (commands/command_reader.hpp).
// The core's loop does not run: what a command only schedules is not carried out.
#include "commands/command_reader.hpp"
#include "engine/core.hpp"
#include "fuzz_model.hpp"
#include "loop/clock.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace {

using namespace vedette;

struct World {
  loop::ManualClock clock;
  std::unique_ptr<engine::Core> core;
  std::unique_ptr<commands::CommandReader> reader;
};

World& world() {
  static World* w = [] {
    auto* out = new World;
    const std::filesystem::path dir = fuzz::private_dir("commands");
    // Nothing grows on disk from run to run: the log and status.dat go nowhere, retention.dat is only
    // written by SAVE_STATE_INFORMATION, into the private directory.
    config::Configuration cfg = fuzz::load_small_config(
        dir,
        "log_file=/dev/null\nstatus_file=/dev/null\ncheck_external_commands=0\n"
        "retain_state_information=1\nstate_retention_file=" +
            (dir / "retention.dat").string() + "\nlock_file=" + (dir / "lock").string() + "\n");
    out->core = std::make_unique<engine::Core>(std::move(cfg), out->clock);
    out->reader = std::make_unique<commands::CommandReader>(*out->core, false);
    return out;
  }();
  return *w;
}

// Comments and downtimes a run added would pile up over millions of runs and slow every later one.
constexpr std::string_view k_cleanup[] = {
    "DEL_ALL_HOST_COMMENTS;web",       "DEL_ALL_HOST_COMMENTS;db",
    "DEL_ALL_SVC_COMMENTS;web;HTTP",   "DEL_ALL_SVC_COMMENTS;db;HTTP",
    "DEL_DOWNTIME_BY_HOST_NAME;web",   "DEL_DOWNTIME_BY_HOST_NAME;db",
    "REMOVE_HOST_ACKNOWLEDGEMENT;web", "REMOVE_SVC_ACKNOWLEDGEMENT;web;HTTP",
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  // PROCESS_FILE reads, and with its second argument deletes, any file it names.
  if (input.find("PROCESS_FILE") != std::string_view::npos) return -1;
  World& w = world();
  std::string_view rest = input;
  while (!rest.empty()) {
    const std::size_t end = rest.find('\n');
    w.reader->process_line(rest.substr(0, end));
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
  }
  for (std::string_view line : k_cleanup) w.reader->process_line(std::string("[1700000000] ").append(line));
  w.core->flush_log();  // the loop would each iteration; else the lines pile up in memory over the runs
  return 0;
}
