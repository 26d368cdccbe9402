// Livestatus requests: parsed (request.hpp), compiled against their table and run (query.hpp) over a
// snapshot of a small model, with a short log file behind the log and statehist tables.
#include "engine/status_snapshot.hpp"
#include "engine/world/reload.hpp"
#include "fuzz_model.hpp"
#include "livestatus/query.hpp"
#include "livestatus/request.hpp"
#include "livestatus/tables.hpp"
#include "livestatus/view.hpp"
#include "timeperiod/evaluator.hpp"
#include "timeperiod/period.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace vedette;

constexpr std::int64_t k_now = 1700000300;

constexpr const char* k_log = R"([1700000000] LOG VERSION: 2.0
[1700000000] Naemon 1.4.1 starting... (PID=4242)
[1700000001] INITIAL HOST STATE: web;UP;HARD;1;PING OK
[1700000001] INITIAL SERVICE STATE: web;HTTP;OK;HARD;1;HTTP OK
[1700000100] SERVICE ALERT: web;HTTP;CRITICAL;SOFT;1;connection refused
[1700000160] SERVICE ALERT: web;HTTP;CRITICAL;HARD;4;connection refused
[1700000160] SERVICE NOTIFICATION: admin;web;HTTP;CRITICAL;check_dummy;connection refused
[1700000200] HOST ALERT: db;DOWN;HARD;3;PING CRITICAL
[1700000250] EXTERNAL COMMAND: ACKNOWLEDGE_SVC_PROBLEM;web;HTTP;1;1;1;admin;seen
[1700000260] SERVICE ALERT: web;HTTP;OK;HARD;4;HTTP OK
[1700000270] HOST DOWNTIME ALERT: db;STARTED; Host has entered a period of scheduled downtime
)";

struct World {
  config::Configuration cfg;
  std::vector<engine::HostState> hosts;
  std::vector<engine::ServiceState> services;
  std::vector<timeperiod::Period> periods;
  std::unique_ptr<timeperiod::Evaluator> evaluator;
  livestatus::Settings settings;
  livestatus::Counters counters;
  std::shared_ptr<const files::StatusSnapshot> snapshot;
};

World& world() {
  static World* w = [] {
    auto* out = new World;
    const std::filesystem::path dir = fuzz::private_dir("livestatus");
    std::ofstream(dir / "naemon.log") << k_log;
    out->cfg = fuzz::load_small_config(dir, "");
    engine::initial_states(*out->cfg.model, out->hosts, out->services);
    out->services[0].current_state = 2;
    out->services[0].plugin_output = "connection refused";
    out->services[0].perf_data = "time=0.5s;1;2;0; size=12B";
    out->hosts[1].current_state = 1;
    const model::Model& m = *out->cfg.model;
    out->periods.resize(m.timeperiods.size());
    for (std::size_t i = 0; i < m.timeperiods.size(); ++i) out->periods[i].rules = &m.timeperiods[i].rules;
    out->evaluator = std::make_unique<timeperiod::Evaluator>(out->periods, nullptr);
    out->settings.log_file = (dir / "naemon.log").string();
    out->settings.log_archive_path = (dir / "archives").string();
    engine::ProgramStatus program;
    program.now = k_now;
    program.program_start = 1700000000;
    program.pid = 4242;
    program.version = "1.4.1";
    out->snapshot = engine::make_status_snapshot({.model = m,
                                                  .main = out->cfg.main,
                                                  .hosts = out->hosts,
                                                  .services = out->services,
                                                  .program = program,
                                                  .keep_alive = std::make_shared<int>(0)});
    return out;
  }();
  return *w;
}

// libFuzzer keeps its inputs short (4 KiB by default), far shorter than the megabytes of combining headers
// that once overflowed a query thread's stack: a line "@N" stands for the next line N times, "@N K" for
// the next K lines (K at most 9) N times, N at most 300000, so a short input nests as deep as a hostile
// client can.
std::string expand_repeats(std::string_view text) {
  const auto next_line = [&text] {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    return line;
  };
  std::string out;
  while (!text.empty()) {
    const std::string_view line = next_line();
    unsigned long times = 0;
    unsigned lines = 1;
    if (line.size() >= 2 && line.size() <= 9 && line.front() == '@' &&
        line.find_first_not_of("0123456789 ", 1) == std::string_view::npos && line[1] != ' ') {
      const std::string digits(line.substr(1));
      std::size_t used = 0;
      times = std::min(std::stoul(digits, &used), 300'000UL);
      if (used + 2 == digits.size() && digits[used] == ' ' && digits[used + 1] != '0')
        lines = static_cast<unsigned>(digits[used + 1] - '0');
      else if (used != digits.size())
        times = 0;
    }
    if (times == 0) {
      out.append(line).push_back('\n');
      continue;
    }
    std::string block;
    for (unsigned i = 0; i < lines && !text.empty(); ++i) block.append(next_line()).push_back('\n');
    for (unsigned long i = 0; i < times; ++i) out += block;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  World& w = world();
  const std::string expanded = expand_repeats(std::string_view(reinterpret_cast<const char*>(data), size));
  const std::string_view text(expanded);
  livestatus::Request request;
  livestatus::RequestError error;
  if (!livestatus::parse_request(text, request, error, livestatus::find_table, k_now)) return 0;
  const livestatus::Table* table = livestatus::find_table(request.table);
  if (table == nullptr) return 0;
  std::optional<livestatus::Query> query = livestatus::Query::compile(request, *table, error);
  if (!query) return 0;
  livestatus::View view;
  view.status = w.snapshot;
  view.now = k_now;
  view.periods = w.evaluator.get();
  view.settings = &w.settings;
  view.counters = &w.counters;
  (void)query->wait_condition_holds(view);
  const livestatus::Query::Limits limits{
      .max_response_size = 1 << 20, .deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2)};
  std::string body;
  const int code = query->run(view, limits, body, error);
  std::string framed;
  livestatus::frame_response(request.fixed16, code, code == 200 ? std::string_view(body) : error.message,
                             framed);
  return 0;
}
