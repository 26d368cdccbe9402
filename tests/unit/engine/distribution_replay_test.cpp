// Every result the real Mod-Gearman 5.2.4 C worker and send_gearman put on the wire
// (tests/fixtures/mod-gearman-5.2.4, README.md there says how each was captured), replayed through the
// core's result path: the link's decoding (transport + payload), then what the core hands its result
// processing (remote_check_result) and how that turns into a state and output (interpret_check_result, or
// the plugin output parser for passive results, as submit_passive_result does).
#include "engine/checks/distribution.hpp"
#include "exec/plugin_output.hpp"
#include "gearman/payload.hpp"
#include "gearman/transport.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace vedette::engine {
namespace {

namespace fs = std::filesystem;

const fs::path k_fixtures = fs::path(VEDETTE_SOURCE_DIR) / "tests/fixtures/mod-gearman-5.2.4";
constexpr std::string_view k_key = "should_be_changed";  // the capture's key (README.md)
// sg-enc-long-key's: send_gearman used its first 32 bytes, which is all Vedette reads of it too.
constexpr std::string_view k_long_key = "should_be_changedshould_be_changedshould_be_changed";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// What the core does with one captured payload.
struct Applied {
  gearman::Result result;
  int state = -1;
  exec::PluginOutput output;
};

Applied replay(std::string_view name) {
  const bool encrypted = name.find("-enc-") != std::string_view::npos;
  const gearman::Codec codec =
      !encrypted ? gearman::Codec::clear()
                 : gearman::Codec::encrypted(name == "sg-enc-long-key" ? k_long_key : k_key);
  const std::string raw = read_file(k_fixtures / (std::string(name) + ".raw"));
  Applied out;
  auto text = codec.open(raw);
  EXPECT_TRUE(text) << name << ": " << text.error();
  if (!text) return out;
  // The decoded text is the capture's .txt, byte for byte (the AES zero tail cut, as C reads it).
  EXPECT_EQ(*text, read_file(k_fixtures / (std::string(name) + ".txt"))) << name;
  auto parsed = gearman::parse_result(*text);
  EXPECT_TRUE(parsed) << name << ": " << parsed.error();
  if (!parsed) return out;
  out.result = *parsed;
  if (parsed->passive) {
    out.state = parsed->return_code;
    out.output = exec::parse_plugin_output(parsed->output);
    return out;
  }
  gearman::IncomingResult in{std::move(*parsed), 1'796'161'200'000'000};
  const exec::CheckResult r = remote_check_result(in);
  EXPECT_EQ(r.kind, out.result.service_description.empty() ? exec::CheckKind::host : exec::CheckKind::service)
      << name;
  const exec::CheckVerdict verdict = exec::interpret_check_result(r, 2);
  out.state = verdict.state;
  out.output = verdict.output;
  return out;
}

struct Expected {
  std::string_view host;
  std::string_view service;  // empty: a host result
  bool passive;
  int state;
  std::string_view output;
  std::string_view perf_data;
};

// Names without the -plain-/-enc- part: both captures of a case must give the same.
const std::map<std::string, Expected, std::less<>>& expectations() {
  static const std::map<std::string, Expected, std::less<>> k{
      {"worker-svc-ok", {"web01", "HTTP", false, 0, "OK: HTTP OK - 200", ""}},
      {"worker-svc-ok-again", {"web01", "HTTP", false, 0, "OK: HTTP OK - 200", ""}},
      {"worker-svc-after-timeout", {"web01", "HTTP", false, 0, "OK: HTTP OK - 200", ""}},
      {"worker-svc-legacy-start-time", {"web01", "HTTP", false, 0, "OK: HTTP OK - 200", ""}},
      {"worker-svc-next-check", {"web01", "HTTP", false, 1, "WARNING: HTTP WARNING - slow", ""}},
      {"worker-svc-multiline-perf",
       {"db01", "Disks", false, 2, "CRITICAL - 2 of 3 disks above threshold",
        "/=99%;80;90;0;100 /var=97%;80;90;0;100 /home=12%;80;90;0;100"}},
      // The C worker doubles backslashes and the NEB module keeps them (docs/compatibility.md); its "\n"
      // inside the doubled "\\n" is a line break there too, and the lines after the first '|' are perfdata.
      {"worker-svc-special-chars",
       {"win01", "Path Check", false, 0, "OK - path C:\\\\Windows\\\\System32 and \\",
        "b=c | 'q|s'=1;2;3 x=5\\\\\\\\ second line with \\\\\\\\double backslash\\\\\\\\ and tab\there"}},
      {"worker-svc-utf8",
       {"lab01", "Temperatur", false, 0, "OK - Temperatur 21,5 °C – Grüße", "temp=21.5°C;30;40"}},
      {"worker-svc-stderr", {"app01", "Load", false, 1, "WARNING - load high", "load1=5.2;4;8"}},
      {"worker-svc-empty-output", {"app01", "Empty", false, 0, "(No output returned from plugin)", ""}},
      {"worker-svc-rc5",
       {"app01", "RC5", false, 2, "CRITICAL: Return code of 5 is out of bounds. (worker: mgfx-worker)", ""}},
      {"worker-svc-signal",
       {"app01", "Segv", false, 2,
        "CRITICAL: Return code of 139 is out of bounds. Plugin exited by signal SIGSEGV. (worker: "
        "mgfx-worker)",
        ""}},
      {"worker-svc-missing-plugin",
       {"app01", "Missing", false, 2,
        "CRITICAL: Return code of 127 is out of bounds. Make sure the plugin you're trying to run actually "
        "exists. (worker: mgfx-worker)",
        ""}},
      {"worker-svc-missing-plugin-shell",
       {"app01", "Missing Shell", false, 2,
        "CRITICAL: Return code of 127 is out of bounds. Make sure the plugin you're trying to run actually "
        "exists. (worker: mgfx-worker)",
        ""}},
      {"worker-svc-not-executable",
       {"app01", "NoExec", false, 2,
        "CRITICAL: Return code of 126 is out of bounds. Make sure the plugin you're trying to run is "
        "executable. (worker: mgfx-worker)",
        ""}},
      {"worker-svc-timeout",
       {"app01", "Slow", false, 2, "(Service Check Timed Out On Worker: mgfx-worker)", ""}},
      {"worker-svc-too-old", {"web01", "HTTP", false, 3, "(Could Not Start Check In Time)", ""}},
      {"worker-host-ok", {"web01", "", false, 0, "OK: PING OK - rta 0.1ms", "rta=0.1ms;100;500;0"}},
      {"worker-host-down", {"web02", "", false, 2, "CRITICAL: PING CRITICAL - 100% loss", ""}},
      {"worker-host-timeout", {"web03", "", false, 2, "(Host Check Timed Out On Worker: mgfx-worker)", ""}},
      {"sg-passive-svc", {"web01", "HTTP", true, 0, "HTTP OK - 200 OK", "time=0.012s;1;2;0"}},
      {"sg-passive-host", {"web01", "", true, 1, "PING WARNING - rta 250ms", ""}},
      {"sg-passive-svc-multiline",
       {"db01", "Disks", true, 2, "CRITICAL - disk full", "/=99%;80;90 /var=40%;80;90"}},
      {"sg-active-svc", {"web01", "HTTP", false, 0, "HTTP OK - 200 OK", "time=1.5s"}},
      {"sg-active-svc-now", {"web01", "HTTP", false, 0, "HTTP OK", ""}},
      {"sg-special-chars",
       {"win01", "Path Check", true, 0, "OK - C:\\\\Windows\\\\Temp a", "b \\ 'q|s'=1;2;3"}},
      {"sg-delimited-1", {"web01", "HTTP", true, 0, "HTTP OK - via stdin", "t=1s"}},
      {"sg-delimited-2", {"web02", "", true, 2, "PING CRITICAL - down", ""}},
      {"sg-block-aligned", {"web01", "Pad", false, 0, "OK-x", ""}},
      {"sg-long-key", {"web01", "HTTP", true, 0, "long key", ""}},
  };
  return k;
}

std::string case_of(std::string name) {
  for (std::string_view mode : {"-plain", "-enc"})
    if (const std::size_t at = name.find(mode); at != std::string::npos) name.erase(at, mode.size());
  return name;
}

TEST(ModGearmanReplay, EveryCapturedResultIsAppliedWithItsStateAndOutput) {
  std::size_t replayed = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(k_fixtures)) {
    const std::string name = e.path().stem().string();
    if (e.path().extension() != ".raw" || name.starts_with("job-")) continue;
    const auto expected = expectations().find(case_of(name));
    ASSERT_NE(expected, expectations().end()) << name << " has no expectation";
    const Expected& x = expected->second;
    const Applied got = replay(name);
    EXPECT_EQ(got.result.host_name, x.host) << name;
    EXPECT_EQ(got.result.service_description, x.service) << name;
    EXPECT_EQ(got.result.passive, x.passive) << name;
    EXPECT_EQ(got.state, x.state) << name;
    EXPECT_EQ(got.output.output, x.output) << name;
    EXPECT_EQ(got.output.perf_data, x.perf_data) << name;
    ++replayed;
  }
  EXPECT_EQ(replayed, 45u);  // 27 from the worker, 18 from send_gearman
}

TEST(ModGearmanReplay, TheWorkersGarbageCoreStartTimeIsNamedButNeverDropsTheResult) {
  for (std::string_view name :
       {"worker-plain-svc-ok", "worker-plain-svc-timeout", "worker-enc-svc-timeout"}) {
    const Applied got = replay(name);
    EXPECT_NE(got.result.malformed.find("core_start_time"), std::string::npos) << name;
    EXPECT_EQ(got.result.core_start_time_us, 0) << name;
  }
  // A stale but well-formed value parses; the core never uses it (latency comes from its own schedule).
  EXPECT_TRUE(replay("worker-plain-host-ok").result.malformed.empty());
  EXPECT_TRUE(replay("worker-enc-svc-ok").result.malformed.empty());  // 0.000000
}

TEST(ModGearmanReplay, SourceAndLatencyAreWhatTheSendersSent) {
  EXPECT_EQ(replay("worker-plain-svc-ok").result.source, "Mod-Gearman Worker @\u00a0mgfx-worker");
  EXPECT_EQ(replay("worker-plain-svc-timeout").result.source, "(null)");
  EXPECT_EQ(replay("sg-plain-passive-svc").result.source, "send_gearman");
  const Applied active = replay("sg-plain-active-svc");
  EXPECT_EQ(active.result.latency_us, 500'000);
  EXPECT_EQ(active.result.start_time_us, 1'700'000'000'250'000);
  EXPECT_EQ(active.result.finish_time_us, 1'700'000'001'750'000);
}

TEST(ModGearmanReplay, AResultWithoutItsEssentialFieldsIsStillRefused) {
  EXPECT_FALSE(gearman::parse_result("host_name=h\nreturn_code=two\noutput=x\n"));
  EXPECT_FALSE(gearman::parse_result("core_start_time=1.0\nreturn_code=0\noutput=x\n"));
  EXPECT_FALSE(gearman::parse_result("host_name=h\nreturn_code=0\n"));
  auto lenient = gearman::parse_result(
      "host_name=h\ncore_start_time=x\nstart_time=-\nfinish_time=9e9\nlatency=abc\nexited_ok=yes\n"
      "early_timeout=?\ncheck_options=o\nscheduled_check=s\nreturn_code=1\noutput=fine\n");
  ASSERT_TRUE(lenient) << lenient.error();
  EXPECT_EQ(lenient->return_code, 1);
  EXPECT_EQ(lenient->output, "fine");
  EXPECT_EQ(lenient->malformed, "core_start_time 'x'");  // the first one, for the log
  EXPECT_TRUE(lenient->exited_ok);
  EXPECT_FALSE(lenient->early_timeout);
  EXPECT_EQ(lenient->start_time_us, 0);
  EXPECT_EQ(lenient->latency_us, 0);
}

}  // namespace
}  // namespace vedette::engine
