// A retention.dat written by the real Naemon 1.5.2 (tests/fixtures/retention/, see its README): Vedette reads
// it and applies the states Naemon had; and what Vedette writes back from it is Naemon's file again, block
// for block and key for key, except where docs/compatibility.md says why not.
#include "engine/status_snapshot.hpp"
#include "retention/apply.hpp"
#include "retention/writer.hpp"
#include "retention_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace vedette::retention {
namespace {

using test::Loaded;

constexpr Time k_created = 1796017102;  // info.created of the fixture
constexpr Time k_now = k_created + 5;

class NaemonFixture : public ::testing::Test {
 protected:
  NaemonFixture() : l_(test::fixture_dir() + "/objects.cfg", naemon_options()) {
    const Data data = read_file(test::fixture_dir() + "/retention.dat");
    EXPECT_EQ(data.status, Data::Status::ok);
    for (const Warning& w : data.warnings) ADD_FAILURE() << format_warning("retention.dat", w);
    r_ = apply(data, l_.target(), k_now);
  }

  // The main-config options Naemon ran with (naemon.cfg.in without its file and path lines).
  static std::string naemon_options() {
    std::istringstream in(test::read_text(test::fixture_dir() + "/naemon.cfg.in"));
    std::string options;
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line.front() == '#' || line.find('@') != std::string::npos) continue;
      options += line + "\n";
    }
    return options;
  }

  Loaded l_;
  ApplyResult r_;
};

TEST_F(NaemonFixture, EveryObjectIsApplied) {
  EXPECT_TRUE(r_.warnings.empty());
  EXPECT_EQ(r_.counts.hosts, 4u);
  EXPECT_EQ(r_.counts.services, 10u);
  EXPECT_EQ(r_.counts.contacts, 1u);
  EXPECT_EQ(r_.counts.hosts_dropped + r_.counts.services_dropped + r_.counts.contacts_dropped, 0u);
  EXPECT_TRUE(r_.scheduling_info_ok);
  EXPECT_EQ(r_.last_program_stop, k_created);
}

TEST_F(NaemonFixture, HostStates) {
  const state::HostState& alpha = l_.host("alpha");
  EXPECT_TRUE(alpha.has_been_checked);
  EXPECT_EQ(alpha.current_state, state::k_host_up);
  EXPECT_EQ(alpha.state_type, state::StateType::hard);
  EXPECT_EQ(alpha.plugin_output, "OK: alpha is alive");
  EXPECT_EQ(alpha.last_check, 1796017087);
  EXPECT_EQ(alpha.next_check, 1796017102);
  EXPECT_EQ(alpha.last_time_up, 1796017087);

  const state::HostState& beta = l_.host("beta");
  EXPECT_EQ(beta.current_state, state::k_host_down);
  EXPECT_EQ(beta.last_state, state::k_host_up);
  EXPECT_EQ(beta.state_type, state::StateType::hard);
  EXPECT_EQ(beta.current_attempt, 1);
  EXPECT_EQ(beta.plugin_output, "CRITICAL: beta is gone");
  EXPECT_EQ(beta.last_hard_state_change, 1796017088);
  EXPECT_EQ(state::to_string(beta.events.current_problem_id), "b0334d83-1a1c-47e9-8bf0-57742ceffbed");
  EXPECT_EQ(beta.events.current_event_id, 4u);
  EXPECT_EQ(beta.modified_attributes, k_modattr_check_timeperiod);  // CHANGE_HOST_CHECK_TIMEPERIOD
  ASSERT_NE(beta.overrides, nullptr);
  EXPECT_EQ(beta.overrides->check_period, "workhours");

  // Two passive DOWN results with passive_host_checks_are_soft: SOFT, attempt 2 of 3.
  const state::HostState& delta = l_.host("delta");
  EXPECT_EQ(delta.current_state, state::k_host_down);
  EXPECT_EQ(delta.state_type, state::StateType::soft);
  EXPECT_EQ(delta.current_attempt, 2);
  EXPECT_EQ(delta.check_type, state::CheckType::passive);
  EXPECT_EQ(delta.plugin_output, "PASSIVE DOWN - second");
  EXPECT_EQ(delta.flap.states[20], 1);
  EXPECT_EQ(delta.flap.index, 0);
  EXPECT_DOUBLE_EQ(delta.flap.percent_state_change, 6.25);

  const state::HostState& gamma = l_.host("gamma");
  EXPECT_FALSE(gamma.has_been_checked);
  EXPECT_EQ(gamma.current_state, state::k_host_up);
  EXPECT_EQ(gamma.last_check, 0);
}

TEST_F(NaemonFixture, ServiceStates) {
  auto expect = [&](std::string_view description, int state, state::StateType type, int attempt,
                    std::string_view output) {
    SCOPED_TRACE(description);
    const state::ServiceState& s = l_.service("alpha", description);
    EXPECT_TRUE(s.has_been_checked);
    EXPECT_EQ(s.current_state, state);
    EXPECT_EQ(s.state_type, type);
    EXPECT_EQ(s.current_attempt, attempt);
    EXPECT_EQ(s.plugin_output, output);
  };
  const auto hard = state::StateType::hard;
  expect("ok", state::k_state_ok, hard, 1, "OK: all fine");
  expect("warning", state::k_state_warning, hard, 1, "WARNING: load is high");
  expect("critical", state::k_state_critical, hard, 1, "CRITICAL: disk full");
  expect("unknown", state::k_state_unknown, hard, 1, "UNKNOWN: no data");
  expect("acked", state::k_state_critical, hard, 1, "CRITICAL: acked problem");
  expect("soft", state::k_state_critical, state::StateType::soft, 2, "PASSIVE CRITICAL - second");
  expect("two-lines", state::k_state_warning, hard, 1, "DISK WARNING - /var at 91%");

  const state::ServiceState& soft = l_.service("alpha", "soft");
  EXPECT_EQ(soft.check_type, state::CheckType::passive);
  EXPECT_EQ(soft.perf_data, "p=2");
  EXPECT_EQ(soft.last_check, 1796017100);
  EXPECT_EQ(soft.last_time_critical, 1796017100);
  const state::ServiceState& two = l_.service("alpha", "two-lines");
  EXPECT_EQ(two.long_plugin_output, "/var 91%\\n/home 40%");
  EXPECT_EQ(two.perf_data, "var=91% home=40%");
  EXPECT_FALSE(l_.service("gamma", "pending").has_been_checked);

  const state::ServiceState& acked = l_.service("alpha", "acked");
  EXPECT_TRUE(acked.problem_has_been_acknowledged);
  EXPECT_EQ(acked.acknowledgement_type, 2);  // sticky
}

TEST_F(NaemonFixture, ModifiedAttributesAndProgramState) {
  const model::Service& cfg = l_.cfg.model->service(l_.service_id("alpha", "modified"));
  const state::ServiceState& e = l_.service("alpha", "modified");
  EXPECT_EQ(e.modified_attributes, k_modattr_notifications_enabled | k_modattr_active_checks_enabled |
                                       k_modattr_normal_check_interval | k_modattr_custom_variable);
  EXPECT_FALSE(e.enabled(Flag::notifications));
  EXPECT_FALSE(e.enabled(Flag::active_checks));
  EXPECT_TRUE(e.enabled(Flag::passive_checks));
  EXPECT_DOUBLE_EQ(state::check_interval_of(cfg, e), 15.0);
  ASSERT_NE(e.overrides, nullptr);
  ASSERT_EQ(e.overrides->custom_variables.size(), 1u);
  EXPECT_EQ(e.overrides->custom_variables[0].value, "dba");

  // DISABLE_EVENT_HANDLERS and DISABLE_FLAP_DETECTION (modified_*_attributes=24).
  EXPECT_FALSE(l_.cfg.main.enable_event_handlers);
  EXPECT_FALSE(l_.cfg.main.enable_flap_detection);
  EXPECT_TRUE(l_.cfg.main.enable_notifications);
  EXPECT_EQ(r_.program.modified_host_attributes, 24u);
  EXPECT_EQ(r_.program.modified_service_attributes, 24u);
  EXPECT_EQ(r_.program.next_comment_id, 5u);
  EXPECT_EQ(r_.program.next_downtime_id, 2u);
  EXPECT_EQ(r_.program.next_event_id, 10u);

  // DISABLE_CONTACT_HOST_NOTIFICATIONS.
  const state::ContactState& admin = l_.contacts.at(0);
  EXPECT_EQ(admin.modified_host_attributes, k_modattr_notifications_enabled);
  EXPECT_EQ(admin.host_notifications_enabled, false);
}

TEST_F(NaemonFixture, CommentsAndDowntimes) {
  // The non-persistent user comment on beta goes, as Naemon drops it at start-up.
  ASSERT_EQ(r_.comments.size(), 3u);
  EXPECT_EQ(r_.counts.comments_dropped, 1u);
  EXPECT_EQ(r_.comments[0].entry_type, 4);  // acknowledgement
  EXPECT_EQ(r_.comments[0].comment_data, "looking into it");
  EXPECT_EQ(r_.comments[1].comment_data, "persistent note");
  EXPECT_EQ(r_.comments[2].entry_type, 2);  // the downtime's
  ASSERT_EQ(r_.downtimes.size(), 1u);
  const Downtime& d = r_.downtimes[0];
  EXPECT_EQ(d.host_name, "beta");
  EXPECT_EQ(d.downtime_id, 1u);
  EXPECT_EQ(d.comment_id, 4u);
  EXPECT_TRUE(d.fixed);
  EXPECT_TRUE(d.is_in_effect);
  EXPECT_EQ(d.comment, "maintenance");
}

// A block as Naemon's reader accepts it: the whole trimmed line must be one of its block openers, "}"
// closes, and every other line inside a block must hold a '='.
struct NaemonBlock {
  std::string opener;
  std::vector<std::pair<std::string, std::string>> lines;
};

std::vector<NaemonBlock> naemon_blocks(const std::string& text) {
  static const std::vector<std::string> openers = {"info {",           "program {",      "host {",
                                                   "service {",        "contact {",      "hostcomment {",
                                                   "servicecomment {", "hostdowntime {", "servicedowntime {"};
  std::vector<NaemonBlock> blocks;
  bool open = false;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty() || line.front() == '#') {
      EXPECT_FALSE(open && !line.empty()) << "comment inside a block: " << line;
      continue;
    }
    if (line == "}") {
      EXPECT_TRUE(open) << "stray }";
      open = false;
      continue;
    }
    if (std::find(openers.begin(), openers.end(), line) != openers.end()) {
      EXPECT_FALSE(open) << "block opened inside a block: " << line;
      blocks.push_back({line, {}});
      open = true;
      continue;
    }
    const std::size_t eq = line.find('=');
    EXPECT_TRUE(open && eq != std::string::npos) << "line Naemon would not read: " << line;
    if (!open || eq == std::string::npos) continue;
    EXPECT_EQ(line.substr(0, eq).find_first_of(" \t"), std::string::npos) << "blank in key: " << line;
    blocks.back().lines.emplace_back(line.substr(0, eq), line.substr(eq + 1));
  }
  EXPECT_FALSE(open) << "last block not closed";
  return blocks;
}

std::string identity(const NaemonBlock& b) {
  std::string id = b.opener;
  for (const auto& [key, value] : b.lines) {
    if (key == "host_name" || key == "service_description" || key == "contact_name" || key == "comment_id" ||
        key == "downtime_id") {
      id += ";" + value;
    }
  }
  return id;
}

TEST_F(NaemonFixture, VedetteWritesBackWhatNaemonWrote) {
  const auto snap = test::snapshot_of(
      l_, r_.program, k_now, {.comments = r_.comments, .downtimes = r_.downtimes, .contacts = l_.contacts});
  std::string ours;
  format_retention(*snap, ours);
  const std::vector<NaemonBlock> vedette = naemon_blocks(ours);
  const std::vector<NaemonBlock> naemon =
      naemon_blocks(test::read_text(test::fixture_dir() + "/retention.dat"));

  std::map<std::string, const NaemonBlock*> by_id;
  for (const NaemonBlock& b : vedette) EXPECT_TRUE(by_id.emplace(identity(b), &b).second) << identity(b);
  std::size_t compared = 0;
  for (const NaemonBlock& theirs : naemon) {
    const std::string id = identity(theirs);
    if (id == "hostcomment {;beta;3") continue;  // the non-persistent comment Naemon itself drops at start-up
    const auto it = by_id.find(id);
    ASSERT_NE(it, by_id.end()) << "Vedette did not write " << id;
    const NaemonBlock& mine = *it->second;
    ASSERT_EQ(mine.lines.size(), theirs.lines.size()) << id;
    for (std::size_t i = 0; i < mine.lines.size(); ++i) {
      const auto& [key, value] = theirs.lines[i];
      EXPECT_EQ(mine.lines[i].first, key) << id;
      // Known differences (docs/compatibility.md): the time and version of the file, and the host's
      // retry_check_interval, where Naemon writes the check interval.
      if (key == "created" || key == "version") continue;
      if (theirs.opener == "host {" && key == "retry_check_interval") continue;
      EXPECT_EQ(mine.lines[i].second, value) << id << " " << key;
    }
    ++compared;
  }
  EXPECT_EQ(compared, vedette.size());
}

// States changed by Vedette after reading Naemon's file are what the next read gives. With
// VEDETTE_RETENTION_EXPORT=<path>, the file is also left there for tests/fixtures/retention/
// naemon_reads_vedette.sh, which hands it to the real Naemon.
TEST_F(NaemonFixture, VedettesChangesReachTheNextRead) {
  const Time now = std::time(nullptr);
  state::ServiceState& ok = l_.service("alpha", "ok");
  ok.current_state = state::k_state_critical;
  ok.last_state = state::k_state_ok;
  ok.state_type = state::StateType::soft;
  ok.current_attempt = 1;
  ok.plugin_output = "written by Vedette";
  ok.long_plugin_output = "second line\\nthird = line {";
  ok.perf_data = "v=1;2;3";
  ok.last_check = ok.last_state_change = ok.last_time_critical = now - 30;
  ok.next_check = now + 3600;
  state::HostState& gamma = l_.host("gamma");
  gamma.has_been_checked = true;
  gamma.current_state = state::k_host_down;
  gamma.last_hard_state = state::k_host_down;
  gamma.state_type = state::StateType::hard;
  gamma.plugin_output = "gamma down, says Vedette";
  gamma.last_check = gamma.last_state_change = gamma.last_hard_state_change = gamma.last_time_down = now - 20;
  const auto snap =
      test::snapshot_of(l_, r_.program, now, {.comments = r_.comments, .downtimes = r_.downtimes});
  test::TempDir dir;
  const char* exported = std::getenv("VEDETTE_RETENTION_EXPORT");
  const std::string path = exported != nullptr ? exported : dir.file("retention.dat");
  const base::Status written = write_file(*snap, {.path = path});
  ASSERT_TRUE(written) << written.error();

  const Data data = read_file(path);
  EXPECT_TRUE(data.warnings.empty());
  Loaded again(test::fixture_dir() + "/objects.cfg", naemon_options());
  const ApplyResult r = apply(data, again.target(), now);
  EXPECT_EQ(r.counts.services, 10u);
  const state::ServiceState& ok_again = again.service("alpha", "ok");
  EXPECT_EQ(ok_again.current_state, state::k_state_critical);
  EXPECT_EQ(ok_again.state_type, state::StateType::soft);
  EXPECT_EQ(ok_again.plugin_output, "written by Vedette");
  EXPECT_EQ(ok_again.long_plugin_output, "second line\\nthird = line {");
  EXPECT_EQ(ok_again.next_check, now + 3600);
  const state::HostState& gamma_again = again.host("gamma");
  EXPECT_EQ(gamma_again.current_state, state::k_host_down);
  EXPECT_EQ(gamma_again.current_attempt, 2);  // a hard problem is at max_check_attempts
  EXPECT_EQ(r.comments.size(), 3u);
  EXPECT_EQ(r.downtimes.size(), 1u);
}

}  // namespace
}  // namespace vedette::retention
