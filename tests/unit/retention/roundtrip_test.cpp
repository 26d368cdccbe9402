// write -> read -> apply gives back the state that was written: every field of the hot state, the program
// flags and counters, and the fields carried for Naemon (acknowledgements, ids, flapping history,
// modified attributes). Also the writer's own rules for carried fields once the state has moved on.
#include "engine/status_snapshot.hpp"
#include "retention/apply.hpp"
#include "retention/writer.hpp"
#include "retention_test_support.hpp"

#include <gtest/gtest.h>

#include <string>

namespace vedette::retention {
namespace {

using test::Loaded;

constexpr Time k_now = 1'700'000'300;

const std::string k_objects = R"(define command {
  command_name  check_a
  command_line  /bin/true $ARG1$
}
define timeperiod {
  timeperiod_name  24x7
  alias            always
  monday           00:00-24:00
}
define contact {
  contact_name                   admin
  host_notification_commands     check_a
  service_notification_commands  check_a
  host_notification_period       24x7
  service_notification_period    24x7
  _PAGER                         555
}
define host {
  host_name            web
  address              10.0.0.1
  check_command        check_a!ping
  max_check_attempts   3
  check_period         24x7
  notification_period  24x7
  contacts             admin
  _RACK                r1
}
define host {
  host_name            db
  address              10.0.0.2
  check_command        check_a
  max_check_attempts   3
  check_period         24x7
  notification_period  24x7
  contacts             admin
  initial_state        d
}
define service {
  host_name            web
  service_description  HTTP
  check_command        check_a!x
  max_check_attempts   4
  check_interval       5
  retry_interval       1.5
  check_period         24x7
  notification_period  24x7
  contacts             admin
  _OWNER               ops
}
define service {
  host_name            web
  service_description  Disk
  check_command        check_a
  max_check_attempts   4
  check_period         24x7
  notification_period  24x7
  contacts             admin
}
define service {
  host_name            db
  service_description  never-checked
  check_command        check_a
  max_check_attempts   2
  check_period         24x7
  notification_period  24x7
  contacts             admin
}
)";

void set_states(Loaded& l) {
  state::HostState& web = l.host("web");
  web.has_been_checked = true;
  web.execution_time = 0.0125;
  web.latency = 0.25;
  web.check_type = state::CheckType::active;
  web.current_state = state::k_host_down;
  web.last_state = state::k_host_up;
  web.last_hard_state = state::k_host_up;
  web.state_type = state::StateType::soft;
  web.current_attempt = 2;
  web.plugin_output = "PING CRITICAL - Packet loss = 100%";
  web.long_plugin_output = "line 2\\nline 3 = {";
  web.perf_data = "rta=0.5ms;;;0 pl=100%";
  web.last_check = k_now - 10;
  web.next_check = k_now + 50;
  web.last_state_change = k_now - 70;
  web.last_hard_state_change = k_now - 7000;
  web.last_time_up = k_now - 130;
  web.last_time_down = k_now - 10;

  state::HostState& db = l.host("db");
  db.has_been_checked = true;
  db.check_type = state::CheckType::passive;
  db.current_state = state::k_host_unreachable;
  db.last_state = state::k_host_down;
  db.last_hard_state = state::k_host_unreachable;
  db.state_type = state::StateType::hard;
  db.current_attempt = 3;
  db.plugin_output = "passive: gone";
  db.last_check = k_now - 5;
  db.next_check = k_now + 100;
  db.last_state_change = db.last_hard_state_change = k_now - 500;
  db.last_time_unreachable = k_now - 5;
  db.last_time_down = k_now - 600;

  state::ServiceState& http = l.service("web", "HTTP");
  http.has_been_checked = true;
  http.execution_time = 1.5;
  http.latency = 0.001;
  http.current_state = state::k_state_critical;
  http.last_state = state::k_state_warning;
  http.last_hard_state = state::k_state_critical;
  http.state_type = state::StateType::hard;
  http.current_attempt = 4;
  http.plugin_output = "HTTP CRITICAL: C:\\temp; a=b";
  http.long_plugin_output = "more\\nand more";
  http.perf_data = "time=1.5s;1;2;0";
  http.last_check = k_now - 30;
  http.next_check = k_now + 30;
  http.last_state_change = k_now - 3000;
  http.last_hard_state_change = k_now - 2900;
  http.last_time_ok = k_now - 3100;
  http.last_time_warning = k_now - 3000;
  http.last_time_critical = k_now - 30;

  state::ServiceState& disk = l.service("web", "Disk");
  disk.has_been_checked = true;
  disk.current_state = state::k_state_unknown;
  disk.last_state = state::k_state_ok;
  disk.last_hard_state = state::k_state_ok;
  disk.state_type = state::StateType::soft;
  disk.current_attempt = 3;
  disk.plugin_output = "";
  disk.last_check = k_now - 1;
  disk.next_check = k_now + 1;
  disk.last_state_change = disk.last_hard_state_change = k_now - 100;
  disk.last_time_unknown = k_now - 1;
  disk.last_time_ok = k_now - 100;
}

template <typename State>
void expect_same(const State& a, const State& b, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(a.current_state, b.current_state);
  EXPECT_EQ(a.last_state, b.last_state);
  EXPECT_EQ(a.last_hard_state, b.last_hard_state);
  EXPECT_EQ(a.state_type, b.state_type);
  EXPECT_EQ(a.current_attempt, b.current_attempt);
  EXPECT_EQ(a.check_type, b.check_type);
  EXPECT_EQ(a.has_been_checked, b.has_been_checked);
  EXPECT_EQ(a.last_check, b.last_check);
  EXPECT_EQ(a.next_check, b.next_check);
  EXPECT_EQ(a.last_state_change, b.last_state_change);
  EXPECT_EQ(a.last_hard_state_change, b.last_hard_state_change);
  EXPECT_NEAR(a.latency, b.latency, 0.0005);  // written with 3 decimals, as Naemon does
  EXPECT_NEAR(a.execution_time, b.execution_time, 0.0005);
  EXPECT_EQ(a.plugin_output, b.plugin_output);
  EXPECT_EQ(a.long_plugin_output, b.long_plugin_output);
  EXPECT_EQ(a.perf_data, b.perf_data);
  EXPECT_EQ(a.modified_attributes, b.modified_attributes);
  EXPECT_EQ(a.flags, b.flags);
  EXPECT_EQ(a.problem_has_been_acknowledged, b.problem_has_been_acknowledged);
  EXPECT_EQ(a.acknowledgement_type, b.acknowledgement_type);
  EXPECT_EQ(a.acknowledgement_end_time, b.acknowledgement_end_time);
  EXPECT_EQ(a.events.last_event_id, b.events.last_event_id);
  EXPECT_EQ(a.events.current_event_id, b.events.current_event_id);
  EXPECT_EQ(a.events.current_problem_id, b.events.current_problem_id);
  EXPECT_EQ(a.events.last_problem_id, b.events.last_problem_id);
  EXPECT_EQ(a.events.problem_start, b.events.problem_start);
  EXPECT_EQ(a.events.problem_end, b.events.problem_end);
  EXPECT_EQ(a.notification.last_notification, b.notification.last_notification);
  EXPECT_EQ(a.notification.current_notification_number, b.notification.current_notification_number);
  EXPECT_EQ(a.notification.current_notification_id, b.notification.current_notification_id);
  EXPECT_EQ(a.notification.notified_on, b.notification.notified_on);
  EXPECT_EQ(a.flap.is_flapping, b.flap.is_flapping);
  EXPECT_DOUBLE_EQ(a.flap.percent_state_change, b.flap.percent_state_change);
  EXPECT_EQ(a.flap.states, b.flap.states);
  EXPECT_EQ(a.flap.index, b.flap.index);
  ASSERT_EQ(a.overrides == nullptr, b.overrides == nullptr);
  if (a.overrides == nullptr) return;
  EXPECT_EQ(a.overrides->check_command, b.overrides->check_command);
  EXPECT_EQ(a.overrides->check_period, b.overrides->check_period);
  EXPECT_EQ(a.overrides->check_interval, b.overrides->check_interval);
  EXPECT_EQ(a.overrides->max_check_attempts, b.overrides->max_check_attempts);
  ASSERT_EQ(a.overrides->custom_variables.size(), b.overrides->custom_variables.size());
  for (std::size_t i = 0; i < a.overrides->custom_variables.size(); ++i)
    EXPECT_EQ(a.overrides->custom_variables[i].value, b.overrides->custom_variables[i].value);
}

std::string format(Loaded& l, const ProgramCounters& counters, std::span<const Comment> comments = {},
                   std::span<const Downtime> downtimes = {}, Time now = k_now) {
  const auto snap = test::snapshot_of(l, counters, now, {.comments = comments, .downtimes = downtimes});
  std::string text;
  format_retention(*snap, text);
  return text;
}

TEST(RetentionRoundTrip, HotStateComesBackAsItWasWritten) {
  Loaded l = Loaded::from_text(k_objects, "use_retained_scheduling_info=1\n");
  set_states(l);
  l.cfg.main.enable_notifications = false;
  l.cfg.main.execute_host_checks = false;
  l.cfg.main.global_service_event_handler = "check_a!handler";
  const ProgramCounters counters{
      .modified_host_attributes = k_modattr_notifications_enabled | k_modattr_active_checks_enabled,
      .modified_service_attributes = k_modattr_event_handler_command,
      .next_comment_id = 7,
      .next_downtime_id = 3,
      .next_event_id = 42};
  const std::string text = format(l, counters);
  const std::vector<state::HostState> hosts = l.hosts;
  const std::vector<state::ServiceState> services = l.services;

  Loaded fresh = Loaded::from_text(k_objects, "use_retained_scheduling_info=1\n");
  const Data data = parse_text(text);
  ASSERT_TRUE(data.warnings.empty()) << data.warnings.front().message;
  const ApplyResult r = apply(data, fresh.target(), k_now + 5);
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(r.counts.hosts, 2u);
  EXPECT_EQ(r.counts.services, 3u);
  EXPECT_EQ(r.counts.contacts, 1u);
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    expect_same(fresh.hosts[i], hosts[i], "host " + std::to_string(i));
    EXPECT_EQ(fresh.hosts[i].last_time_up, hosts[i].last_time_up);
    EXPECT_EQ(fresh.hosts[i].last_time_down, hosts[i].last_time_down);
    EXPECT_EQ(fresh.hosts[i].last_time_unreachable, hosts[i].last_time_unreachable);
  }
  for (std::size_t i = 0; i < services.size(); ++i) {
    expect_same(fresh.services[i], services[i], "service " + std::to_string(i));
    EXPECT_EQ(fresh.services[i].last_time_ok, services[i].last_time_ok);
    EXPECT_EQ(fresh.services[i].last_time_warning, services[i].last_time_warning);
    EXPECT_EQ(fresh.services[i].last_time_unknown, services[i].last_time_unknown);
    EXPECT_EQ(fresh.services[i].last_time_critical, services[i].last_time_critical);
  }
  EXPECT_FALSE(fresh.cfg.main.enable_notifications);
  EXPECT_FALSE(fresh.cfg.main.execute_host_checks);
  EXPECT_EQ(fresh.cfg.main.global_service_event_handler, "check_a!handler");
  EXPECT_EQ(r.program.modified_host_attributes, counters.modified_host_attributes);
  EXPECT_EQ(r.program.modified_service_attributes, counters.modified_service_attributes);
  EXPECT_EQ(r.program.next_comment_id, 7u);
  EXPECT_EQ(r.program.next_downtime_id, 3u);
  EXPECT_EQ(r.program.next_event_id, 42u);
  EXPECT_EQ(r.last_program_stop, k_now);

  // And once more: the second file is the first one, byte for byte.
  EXPECT_EQ(format(fresh, r.program), text);
}

// What a reload does: the text in chunks that end at block boundaries, fed to a TextApplier, gives what the
// whole text gives.
TEST(RetentionRoundTrip, ChunkedTextAppliesAsTheWholeText) {
  Loaded l = Loaded::from_text(k_objects, "use_retained_scheduling_info=1\n");
  set_states(l);
  const ProgramCounters counters{.next_comment_id = 5};
  const std::string text = format(l, counters);
  const auto snap = test::snapshot_of(l, counters, k_now);
  std::string joined;
  std::size_t chunks = 0;
  Loaded fresh = Loaded::from_text(k_objects, "use_retained_scheduling_info=1\n");
  TextApplier applier(fresh.target(), k_now + 5);
  format_retention(*snap, [&](std::string_view chunk) {
    ASSERT_TRUE(chunk.ends_with("}\n"));
    joined.append(chunk);
    ++chunks;
    applier.feed(chunk);
  });
  EXPECT_EQ(joined, text);
  EXPECT_GE(chunks, 1u);
  const LoadResult r = applier.finish();
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(r.applied.counts.hosts, 2u);
  EXPECT_EQ(r.applied.counts.services, 3u);
  EXPECT_EQ(r.applied.program.next_comment_id, 5u);
  for (std::size_t i = 0; i < l.services.size(); ++i)
    expect_same(fresh.services[i], l.services[i], "service " + std::to_string(i));
}

// Every field survives a save, last_update (which the engine does not stamp) too: read, write, read again.
TEST(RetentionRoundTrip, CarriedFieldsSurviveASave) {
  const std::string objects_path = test::fixture_dir() + "/objects.cfg";
  Loaded first(objects_path, "use_retained_scheduling_info=1\n");
  const Data naemon = read_file(test::fixture_dir() + "/retention.dat");
  ASSERT_EQ(naemon.status, Data::Status::ok);
  const Time created = 1796017102;  // info.created of the fixture
  const ApplyResult r1 = apply(naemon, first.target(), created + 5);
  const std::string text = format(first, r1.program, r1.comments, r1.downtimes, created);

  Loaded second(objects_path, "use_retained_scheduling_info=1\n");
  const ApplyResult r2 = apply(parse_text(text), second.target(), created + 5);
  ASSERT_EQ(first.hosts.size(), second.hosts.size());
  for (std::size_t i = 0; i < first.hosts.size(); ++i) expect_same(second.hosts[i], first.hosts[i], "host");
  for (std::size_t i = 0; i < first.services.size(); ++i) {
    expect_same(second.services[i], first.services[i], "service");
  }
  auto same_stamp = [&](const state::CheckState& a, const state::CheckState& b) {
    EXPECT_EQ(a.last_update.sec, b.last_update.sec);
    EXPECT_EQ(a.last_update.usec, b.last_update.usec);
  };
  for (std::size_t i = 0; i < first.hosts.size(); ++i) same_stamp(first.hosts[i], second.hosts[i]);
  for (std::size_t i = 0; i < first.services.size(); ++i) {
    same_stamp(first.services[i], second.services[i]);
  }
  EXPECT_EQ(r2.comments.size(), r1.comments.size());
  EXPECT_EQ(r2.downtimes.size(), r1.downtimes.size());
  EXPECT_EQ(format(second, r2.program, r2.comments, r2.downtimes, created), text);
}

// The notification fields are hot state: written as they are, notified_on in the file's order.
TEST(RetentionRoundTrip, NotificationFieldsAreWrittenAsTheyAre) {
  Loaded l = Loaded::from_text(k_objects);
  set_states(l);
  state::ServiceState& http = l.service("web", "HTTP");  // CRITICAL
  http.problem_has_been_acknowledged = true;
  http.acknowledgement_type = 1;
  http.notification.current_notification_number = 3;
  http.notification.notified_on = 1u << state::k_state_critical | 1u << state::k_state_unknown;
  http.notification.next_notification = k_now + 60;  // not in the file: computed again when read

  const std::string out = format(l, {});
  std::string b = out.substr(out.find("service_description=HTTP\n"));
  b = b.substr(0, b.find("}\n"));
  EXPECT_NE(b.find("current_notification_number=3\n"), std::string::npos);
  EXPECT_NE(b.find("notified_on_unknown=1\nnotified_on_warning=0\nnotified_on_critical=1\n"),
            std::string::npos);
  EXPECT_NE(b.find("problem_has_been_acknowledged=1\nacknowledgement_type=1\n"), std::string::npos);
  EXPECT_EQ(b.find("next_notification"), std::string::npos);
}

TEST(RetentionRoundTrip, AttributeMasksApplyOnWrite) {
  Loaded l = Loaded::from_text(k_objects,
                               "retained_service_attribute_mask=2\nretained_process_host_attribute_mask=1\n"
                               "retained_host_attribute_mask=4\n");
  const ApplyResult r =
      apply(parse_text("host {\nhost_name=web\nmodified_attributes=6\n}\n"
                       "service {\nhost_name=web\nservice_description=HTTP\nmodified_attributes=3\n}\n"),
            l.target(), k_now);
  const std::string text = format(l, {.modified_host_attributes = 3});
  EXPECT_NE(text.find("program {\nmodified_host_attributes=2\n"), std::string::npos);
  EXPECT_NE(text.find("host {\nhost_name=web\nmodified_attributes=2\n"), std::string::npos);
  EXPECT_NE(text.find("service_description=HTTP\nmodified_attributes=1\n"), std::string::npos);
}

TEST(RetentionRoundTrip, RawNewlinesInTextsAreEscaped) {
  Loaded l = Loaded::from_text(k_objects);
  l.host("web").plugin_output = "two\nlines";
  const std::string text = format(l, {});
  EXPECT_NE(text.find("plugin_output=two\\nlines\n"), std::string::npos);
  EXPECT_TRUE(parse_text(text).warnings.empty());
}

}  // namespace
}  // namespace vedette::retention
