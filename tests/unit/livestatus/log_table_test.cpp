// The log table: how each kind of Naemon log line is classified and split (parse_log_line), and queries
// over a real log and its archives in a temporary directory: the module's order (newest first), the
// columns joined from the current objects, time and class pushdown (files outside the range are never
// opened), the growing current log, rotation, the cache's bound, Limit: stopping early, and AuthUser.
#include "engine/status_snapshot.hpp"
#include "engine/world/reload.hpp"
#include "livestatus/log_cache.hpp"
#include "livestatus/log_entry.hpp"
#include "livestatus/query.hpp"
#include "livestatus/request.hpp"
#include "livestatus/table.hpp"
#include "livestatus/tables.hpp"
#include "livestatus/view.hpp"
#include "loaded_config.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <utime.h>
#include <vector>

namespace vedette::livestatus {
namespace {

// ---------------------------------------------------------------------------------------------------------
// parse_log_line

struct Parsed {
  bool valid = false;
  LogEntry e;
  std::string line;
  [[nodiscard]] std::string f(LogField LogEntry::*field) const {
    return std::string(text_of(line, e.*field));
  }
  [[nodiscard]] int cls() const { return static_cast<int>(e.log_class); }
};

Parsed parse(std::string line) {
  Parsed p;
  p.line = std::move(line);
  p.valid = parse_log_line(p.line, p.e);
  return p;
}

TEST(LogLine, ServiceAndHostAlertsAndStates) {
  Parsed p = parse("[1700000000] SERVICE ALERT: web;HTTP;CRITICAL;HARD;3;connection refused;port 80");
  ASSERT_TRUE(p.valid);
  EXPECT_EQ(p.e.time, 1700000000);
  EXPECT_EQ(p.cls(), 1);
  EXPECT_EQ(p.e.type, LogType::alert_service);
  EXPECT_EQ(p.f(&LogEntry::type_text), "SERVICE ALERT");
  EXPECT_EQ(p.f(&LogEntry::host_name), "web");
  EXPECT_EQ(p.f(&LogEntry::service_description), "HTTP");
  EXPECT_EQ(p.e.state, 2);
  EXPECT_EQ(p.f(&LogEntry::state_type), "HARD");
  EXPECT_EQ(p.e.attempt, 3);
  // The module's output ends at the next ';'.
  EXPECT_EQ(p.f(&LogEntry::plugin_output), "connection refused");
  EXPECT_EQ(p.f(&LogEntry::options), "web;HTTP;CRITICAL;HARD;3;connection refused;port 80");

  p = parse("[1700000000] HOST ALERT: db;UNREACHABLE;SOFT;1;no route");
  EXPECT_EQ(p.cls(), 1);
  EXPECT_EQ(p.e.type, LogType::alert_host);
  EXPECT_EQ(p.e.state, 2);
  EXPECT_EQ(p.f(&LogEntry::service_description), "");
  EXPECT_EQ(p.f(&LogEntry::plugin_output), "no route");

  p = parse("[1700000000] INITIAL HOST STATE: db;DOWN;HARD;3;x");
  EXPECT_EQ(p.cls(), 6);
  EXPECT_EQ(p.e.type, LogType::state_host_initial);
  EXPECT_EQ(p.e.state, 1);
  EXPECT_EQ(p.f(&LogEntry::type_text), "INITIAL HOST STATE");
  p = parse("[1700000000] CURRENT SERVICE STATE: web;HTTP;WARNING;SOFT;2;slow");
  EXPECT_EQ(p.cls(), 6);
  EXPECT_EQ(p.e.type, LogType::state_service);
  EXPECT_EQ(p.e.state, 1);
  EXPECT_EQ(p.e.attempt, 2);
  p = parse("[1700000000] CURRENT SERVICE STATE: web;HTTP;UNKNOWN;HARD;1;");
  EXPECT_EQ(p.e.state, 3);
  // Missing fields: the module reads "" as state 3 (host and service) and attempt 0.
  p = parse("[1700000000] HOST ALERT: db");
  EXPECT_EQ(p.e.state, 3);
  EXPECT_EQ(p.e.attempt, 0);
  // Not "CURRENT HOST STATE: " (no blank after the colon): an info line, typed by its whole text.
  p = parse("[1570658402] CURRENT HOST STATE:");
  ASSERT_TRUE(p.valid);
  EXPECT_EQ(p.cls(), 0);
  EXPECT_EQ(p.f(&LogEntry::type_text), "CURRENT HOST STATE:");
}

TEST(LogLine, DowntimeFlappingAcknowledgementAndInfo) {
  Parsed p =
      parse("[1700000000] HOST DOWNTIME ALERT: db;STARTED; Host has entered a period of scheduled downtime");
  EXPECT_EQ(p.cls(), 1);
  EXPECT_EQ(p.e.type, LogType::downtime_alert_host);
  EXPECT_EQ(p.f(&LogEntry::state_type), "STARTED");
  EXPECT_EQ(p.f(&LogEntry::comment), " Host has entered a period of scheduled downtime");
  p = parse(
      "[1700000000] SERVICE FLAPPING ALERT: web;HTTP;STOPPED; Service appears to have stopped flapping");
  EXPECT_EQ(p.e.type, LogType::flapping_service);
  EXPECT_EQ(p.f(&LogEntry::service_description), "HTTP");
  EXPECT_EQ(p.f(&LogEntry::state_type), "STOPPED");
  p = parse("[1700000000] SERVICE DOWNTIME ALERT: web;HTTP;CANCELLED; Scheduled downtime cancelled");
  EXPECT_EQ(p.e.type, LogType::downtime_alert_service);
  p = parse("[1700000000] HOST FLAPPING ALERT: db;STARTED; flapping");
  EXPECT_EQ(p.e.type, LogType::flapping_host);
  p = parse("[1700000000] SERVICE ACKNOWLEDGE ALERT: web;HTTP;STARTED;admin;on it");
  EXPECT_EQ(p.e.type, LogType::acknowledge_alert_service);
  EXPECT_EQ(p.f(&LogEntry::contact_name), "admin");
  EXPECT_EQ(p.f(&LogEntry::comment), "on it");
  p = parse("[1700000000] HOST ACKNOWLEDGE ALERT: db;STARTED;admin;on it");
  EXPECT_EQ(p.e.type, LogType::acknowledge_alert_host);
  EXPECT_EQ(p.f(&LogEntry::contact_name), "admin");

  p = parse("[1700000000] SERVICE NOTIFICATION SUPPRESSED: web;HTTP;Notification was blocked");
  EXPECT_EQ(p.cls(), 0);
  EXPECT_EQ(p.f(&LogEntry::type_text), "SERVICE NOTIFICATION SUPPRESSED");
  EXPECT_EQ(p.f(&LogEntry::comment), "Notification was blocked");
  p = parse("[1700000000] HOST INFO: db;something");
  EXPECT_EQ(p.cls(), 0);
  EXPECT_EQ(p.f(&LogEntry::host_name), "db");
  p = parse("[1700000000] SERVICE NOTE: web;HTTP;note");
  EXPECT_EQ(p.cls(), 0);
  EXPECT_EQ(p.f(&LogEntry::service_description), "HTTP");
  p = parse("[1700000000] TIMEPERIOD TRANSITION: 24x7;-1;1");
  EXPECT_EQ(p.cls(), 6);
  EXPECT_EQ(p.e.type, LogType::timeperiod_transition);
  EXPECT_EQ(p.f(&LogEntry::type_text), "TIMEPERIOD TRANSITION: 24x7;-1;1");
  EXPECT_EQ(p.f(&LogEntry::options), "24x7;-1;1");
}

TEST(LogLine, Notifications) {
  Parsed p = parse("[1700000000] SERVICE NOTIFICATION: admin;web;HTTP;CRITICAL;notify_mail;refused");
  EXPECT_EQ(p.cls(), 3);
  EXPECT_EQ(p.f(&LogEntry::contact_name), "admin");
  EXPECT_EQ(p.f(&LogEntry::host_name), "web");
  EXPECT_EQ(p.f(&LogEntry::service_description), "HTTP");
  EXPECT_EQ(p.f(&LogEntry::state_type), "CRITICAL");
  EXPECT_EQ(p.e.state, 2);
  EXPECT_EQ(p.f(&LogEntry::command_name), "notify_mail");
  EXPECT_EQ(p.f(&LogEntry::plugin_output), "refused");
  // CUSTOM and ACKNOWLEDGEMENT carry the state in parentheses.
  p = parse("[1700000000] HOST NOTIFICATION: bob;db;CUSTOM (DOWN);notify_mail;timeout;admin;look");
  EXPECT_EQ(p.e.state, 1);
  EXPECT_EQ(p.f(&LogEntry::state_type), "CUSTOM (DOWN)");
  EXPECT_EQ(p.f(&LogEntry::command_name), "notify_mail");
  p = parse("[1700000000] SERVICE NOTIFICATION: admin;web;HTTP;RECOVERY;notify_mail;ok");
  EXPECT_EQ(p.e.state, 0);
  // Command and state swapped (the module's example): told by a state it cannot read.
  p = parse("[1700000000] HOST NOTIFICATION: omdadmin;localhost;check-mk-notify;DOWNTIMESTOPPED (UP);mk");
  EXPECT_EQ(p.f(&LogEntry::state_type), "DOWNTIMESTOPPED (UP)");
  EXPECT_EQ(p.f(&LogEntry::command_name), "check-mk-notify");
  EXPECT_EQ(p.e.state, 0);
  EXPECT_EQ(p.f(&LogEntry::plugin_output), "mk");
  p = parse("[1700000000] SERVICE NOTIFICATION: a;h;s;notify;FLAPPINGSTART (WARNING);out");
  EXPECT_EQ(p.e.state, 1);
  EXPECT_EQ(p.f(&LogEntry::command_name), "notify");
  // Nothing after the host: "" is state 3, swapped with the missing command: the module's 2.
  p = parse("[1700000000] HOST NOTIFICATION: bob;db");
  EXPECT_EQ(p.e.state, 2);
  EXPECT_EQ(p.f(&LogEntry::state_type), "");
}

TEST(LogLine, CommandsPassiveChecksAndProgramLines) {
  Parsed p = parse("[1700000000] EXTERNAL COMMAND: SCHEDULE_HOST_DOWNTIME;db;1;2;1;0;0;admin;x");
  EXPECT_EQ(p.cls(), 5);
  EXPECT_EQ(p.f(&LogEntry::type_text), "EXTERNAL COMMAND");
  EXPECT_EQ(p.f(&LogEntry::host_name), "db");
  EXPECT_EQ(p.f(&LogEntry::service_description), "");
  p = parse("[1700000000] EXTERNAL COMMAND: ACKNOWLEDGE_SVC_PROBLEM;web;HTTP;1;1;1;admin;x");
  EXPECT_EQ(p.f(&LogEntry::host_name), "web");
  EXPECT_EQ(p.f(&LogEntry::service_description), "HTTP");
  // Neither _HOST nor _SVC in the name: no object, as in the module.
  p = parse("[1700000000] EXTERNAL COMMAND: PROCESS_SERVICE_CHECK_RESULT;web;HTTP;0;fine");
  EXPECT_EQ(p.f(&LogEntry::host_name), "");
  p = parse("[1700000000] EXTERNAL COMMAND: ENABLE_HOSTGROUP_SVC_CHECKS;all");
  EXPECT_EQ(p.f(&LogEntry::host_name), "all");
  EXPECT_EQ(p.f(&LogEntry::service_description), "");
  p = parse("[1700000000] EXTERNAL COMMAND: ");
  EXPECT_EQ(p.cls(), 5);

  p = parse("[1700000000] PASSIVE SERVICE CHECK: web;HTTP;2;refused");
  EXPECT_EQ(p.cls(), 4);
  EXPECT_EQ(p.e.state, 2);
  EXPECT_EQ(p.f(&LogEntry::plugin_output), "refused");
  p = parse("[1700000000] PASSIVE HOST CHECK: db;1;down");
  EXPECT_EQ(p.cls(), 4);
  EXPECT_EQ(p.f(&LogEntry::host_name), "db");
  EXPECT_EQ(p.e.state, 1);
  EXPECT_EQ(p.f(&LogEntry::plugin_output), "down");

  p = parse("[1700000000] LOG VERSION: 2.0");
  EXPECT_EQ(p.cls(), 2);
  EXPECT_EQ(p.e.type, LogType::log_version);
  EXPECT_EQ(p.f(&LogEntry::type_text), "LOG VERSION: 2.0");
  EXPECT_EQ(parse("[1700000000] LOG VERSION: 3.0").cls(), 0);
  EXPECT_EQ(parse("[1700000000] logging initial states").cls(), 2);
  EXPECT_EQ(parse("[1700000000] Vedette 1.0 starting... (PID=42)").cls(), 2);
  EXPECT_EQ(parse("[1700000000] Caught 'Hangup', restarting...").cls(), 2);
  EXPECT_EQ(parse("[1700000000] Caught 'Terminated', shutting down...").cls(), 2);
  EXPECT_EQ(parse("[1700000000] Bailing out due to errors").cls(), 2);
  p = parse("[1700000000] LOG ROTATION: DAILY");
  EXPECT_EQ(p.cls(), 0);
  EXPECT_EQ(p.f(&LogEntry::type_text), "LOG ROTATION: DAILY");
  EXPECT_EQ(p.f(&LogEntry::options), "DAILY");
  p = parse("[1700000000] Warning: no colon-less text");
  EXPECT_EQ(p.f(&LogEntry::options), "no colon-less text");
  p = parse("[1700000000] no colon here");
  EXPECT_EQ(p.f(&LogEntry::options), "");
}

TEST(LogLine, InvalidLines) {
  EXPECT_FALSE(parse("").valid);
  EXPECT_FALSE(parse("[1700000000]").valid);  // shorter than 13
  EXPECT_TRUE(parse("[1700000000] ").valid);
  EXPECT_FALSE(parse("1700000000 SERVICE ALERT: a;b;OK;HARD;1;x").valid);
  EXPECT_FALSE(parse("[170000000] SERVICE ALERT: a;b;OK;HARD;1;x").valid);  // nine digits
  EXPECT_EQ(parse("[ 12345678x] x").e.time, 12345678);                      // atoi's reading
}

// ---------------------------------------------------------------------------------------------------------
// The table over real files

constexpr std::int64_t k_t0 = 1'700'000'000;

constexpr const char* k_objects = R"(define command {
  command_name  check_ping
  command_line  /bin/true
}
define command {
  command_name  notify_mail
  command_line  /bin/mail
}
define timeperiod {
  timeperiod_name  24x7
  alias            always
  monday           00:00-24:00
}
define contact {
  contact_name                   admin
  alias                          Administrator
  host_notification_commands     notify_mail
  service_notification_commands  notify_mail
  host_notification_period       24x7
  service_notification_period    24x7
}
define contact {
  contact_name                   bob
  host_notification_commands     notify_mail
  service_notification_commands  notify_mail
  host_notification_period       24x7
  service_notification_period    24x7
}
define contact {
  contact_name                   alice
  host_notification_commands     notify_mail
  service_notification_commands  notify_mail
  host_notification_period       24x7
  service_notification_period    24x7
}
define host {
  host_name           web
  alias               Web server
  address             10.0.0.1
  check_command       check_ping
  max_check_attempts  3
  contacts            admin
}
define host {
  host_name           db
  address             10.0.0.2
  check_command       check_ping
  max_check_attempts  3
  contacts            bob
}
define service {
  host_name            web
  service_description  HTTP
  check_command        check_ping
  max_check_attempts   4
  contacts             admin
}
)";

// The current log: "time offset from its start; message".
const std::vector<std::pair<int, std::string>> k_current{
    {0, "LOG ROTATION: DAILY"},
    {0, "LOG VERSION: 2.0"},
    {1, "Vedette 1.0 starting... (PID=42)"},
    {2, "INITIAL HOST STATE: web;UP;HARD;1;PING OK"},
    {3, "CURRENT SERVICE STATE: web;HTTP;OK;HARD;1;HTTP OK"},
    {10, "SERVICE ALERT: web;HTTP;CRITICAL;SOFT;1;connection refused"},
    {11, "SERVICE ALERT: web;HTTP;CRITICAL;HARD;2;connection refused;extra"},
    {12, "SERVICE NOTIFICATION: admin;web;HTTP;CRITICAL;notify_mail;connection refused"},
    {13, "HOST ALERT: db;DOWN;HARD;3;CRITICAL - timeout"},
    {14, "HOST NOTIFICATION: bob;db;CUSTOM (DOWN);notify_mail;CRITICAL - timeout;admin;please look"},
    {15, "EXTERNAL COMMAND: PROCESS_SERVICE_CHECK_RESULT;web;HTTP;0;fine"},
    {16, "EXTERNAL COMMAND: SCHEDULE_HOST_DOWNTIME;db;1;2;1;0;0;admin;x"},
    {17, "PASSIVE SERVICE CHECK: web;HTTP;0;fine"},
    {18, "SERVICE ALERT: gone;OLD;CRITICAL;HARD;1;nobody"},
    {19, "HOST DOWNTIME ALERT: db;STARTED; Host has entered a period of scheduled downtime"},
};

// Every step of `run` with `piece`: the pieces, and "<code> <message>" as the last when it fails.
std::vector<std::string> pieces_of(Query::Run& run, std::size_t piece) {
  std::vector<std::string> pieces;
  RequestError error;
  for (;;) {
    std::string out;
    const Query::Step step = run.step(out, piece, error);
    if (step == Query::Step::failed) {
      pieces.push_back(fmt::format("{} {}", error.code, error.message));
      return pieces;
    }
    pieces.push_back(std::move(out));
    if (step == Query::Step::done) return pieces;
  }
}

std::string joined(const std::vector<std::string>& pieces) {
  std::string all;
  for (const std::string& piece : pieces) all += piece;
  return all;
}

class LogTable : public ::testing::Test {
 protected:
  void SetUp() override {
    LogCache::shared().clear();
    dir_ = loaded_.dir.path();
    std::filesystem::create_directories(dir_ / "archives");
    engine::initial_states(loaded_.load(k_objects), hosts_, services_);
    program_.now = k_t0 + 8000;
    settings_.log_file = (dir_ / "naemon.log").string();
    settings_.log_archive_path = (dir_ / "archives").string();

    // Two archives an hour apart, each modified when its last line was written, and the current log.
    write_archive("naemon-11-14-2023-23.log", k_t0,
                  {"LOG VERSION: 2.0", "SERVICE ALERT: web;HTTP;OK;HARD;1;old"});
    write_archive(
        "naemon-11-15-2023-00.log", k_t0 + 3600,
        {"LOG VERSION: 2.0", "HOST ALERT: web;DOWN;SOFT;1;recent", "HOST ALERT: web;UP;SOFT;1;back"});
    std::string text;
    for (const auto& [offset, message] : k_current)
      text += fmt::format("[{}] {}\n", k_t0 + 7200 + offset, message);
    text += "not a log line\n";
    text += fmt::format("[{}] Caught 'Terminated', shutting down...\n", k_t0 + 7221);
    std::ofstream(dir_ / "naemon.log") << text;
  }
  void TearDown() override { LogCache::shared().clear(); }

  // Lines one per 10 s from `start`; the file's mtime is its last line's time.
  void write_archive(const std::string& name, std::int64_t start, const std::vector<std::string>& messages) {
    const std::filesystem::path path = dir_ / "archives" / name;
    std::string text;
    for (std::size_t i = 0; i < messages.size(); ++i)
      text += fmt::format("[{}] {}\n", start + 10 * static_cast<std::int64_t>(i), messages[i]);
    std::ofstream(path) << text;
    set_mtime(path, start + 10 * static_cast<std::int64_t>(messages.size() - 1));
  }
  static void set_mtime(const std::filesystem::path& path, std::int64_t t) {
    utimbuf times{.actime = static_cast<std::time_t>(t), .modtime = static_cast<std::time_t>(t)};
    ASSERT_EQ(::utime(path.c_str(), &times), 0);
  }
  void append(const std::string& text) { std::ofstream(dir_ / "naemon.log", std::ios::app) << text; }

  // The body of the answer, or "<code> <message>".
  std::string ask(const std::string& text) {
    RequestError error;
    std::optional<Query> query = compile(text, error);
    if (!query) return std::to_string(error.code) + " " + error.message;
    std::string body;
    const int code = query->run(view(), {}, body, error);
    if (code != 200) return std::to_string(code) + " " + error.message;
    return body;
  }
  std::optional<Query> compile(const std::string& text, RequestError& error) {
    Request request;
    if (!parse_request(text, request, error, &find_table, static_cast<std::time_t>(program_.now)))
      return std::nullopt;
    return Query::compile(request, *find_table(request.table), error);
  }
  View view() {
    View view;
    view.status = engine::make_status_snapshot({.model = loaded_.model(),
                                                .main = loaded_.config.main,
                                                .hosts = hosts_,
                                                .services = services_,
                                                .program = program_,
                                                .keep_alive = keep_alive_});
    view.now = static_cast<std::time_t>(program_.now);
    view.settings = &settings_;
    return view;
  }
  static std::uint64_t opens() { return LogCache::shared().stats().opens; }

  // The pieces of an answer (Query::Run) add up to the answer run() gives whole, each but the last at least
  // `piece` bytes long, whatever the size of the pieces.
  void expect_pieces_make_the_answer(const std::string& q) {
    const std::string whole = ask(q);
    RequestError error;
    const std::optional<Query> query = compile(q, error);
    ASSERT_TRUE(query) << q << error.message;
    for (const std::size_t piece : {std::size_t{1}, std::size_t{7}, std::size_t{100}, std::size_t{100'000}}) {
      const std::unique_ptr<Query::Run> run = query->start(view(), {});
      const std::vector<std::string> pieces = pieces_of(*run, piece);
      EXPECT_EQ(joined(pieces), whole) << q << "in pieces of " << piece;
      EXPECT_EQ(run->produced(), whole.size()) << q;
      for (std::size_t i = 0; i + 1 < pieces.size(); ++i) EXPECT_GE(pieces[i].size(), piece) << q;
    }
  }

  test::LoadedConfig loaded_{"vedette-log-table"};
  std::filesystem::path dir_;  // loaded_'s
  std::vector<engine::HostState> hosts_;
  std::vector<engine::ServiceState> services_;
  engine::ProgramStatus program_;
  std::shared_ptr<const void> keep_alive_ = std::make_shared<int>(0);
  Settings settings_;
};

TEST_F(LogTable, NewestFirstAcrossArchivesWithParsedColumns) {
  const std::string all = ask("GET log\nColumns: time lineno class type host_name\n");
  const std::vector<std::string> expected_tail{
      // the recent archive, newest first
      fmt::format("{};3;1;HOST ALERT;web", k_t0 + 3620),
      fmt::format("{};2;1;HOST ALERT;web", k_t0 + 3610),
      fmt::format("{};1;2;LOG VERSION: 2.0;", k_t0 + 3600),
      // then the old one
      fmt::format("{};2;1;SERVICE ALERT;web", k_t0 + 10),
      fmt::format("{};1;2;LOG VERSION: 2.0;", k_t0),
  };
  std::string tail;
  for (const std::string& l : expected_tail) tail += l + "\n";
  EXPECT_TRUE(all.ends_with(tail)) << all;
  // The current log first: its last line (17: after the invalid line 16) leads.
  EXPECT_TRUE(all.starts_with(
      fmt::format("{};17;2;Caught 'Terminated', shutting down...;\n{};15;1;HOST DOWNTIME ALERT;db\n",
                  k_t0 + 7221, k_t0 + 7219)))
      << all;
  // Lines of the same second: the later line first.
  EXPECT_NE(all.find(fmt::format("{};2;2;LOG VERSION: 2.0;\n{};1;0;LOG ROTATION: DAILY;\n", k_t0 + 7200,
                                 k_t0 + 7200)),
            std::string::npos)
      << all;
  EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 16 + 3 + 2);

  EXPECT_EQ(
      ask(fmt::format("GET log\nColumns: class state state_type attempt plugin_output service_description\n"
                      "Filter: time = {}\n",
                      k_t0 + 7211)),
      "1;2;HARD;2;connection refused;HTTP\n");
  EXPECT_EQ(ask(fmt::format("GET log\nColumns: contact_name command_name state state_type plugin_output\n"
                            "Filter: time = {}\n",
                            k_t0 + 7214)),
            "bob;notify_mail;1;CUSTOM (DOWN);CRITICAL - timeout\n");
  EXPECT_EQ(ask(fmt::format("GET log\nColumns: message options\nFilter: time = {}\n", k_t0 + 7217)),
            fmt::format("[{}] PASSIVE SERVICE CHECK: web;HTTP;0;fine;web;HTTP;0;fine\n", k_t0 + 7217));
  EXPECT_EQ(ask(fmt::format("GET log\nColumns: comment\nFilter: time = {}\n", k_t0 + 7219)),
            " Host has entered a period of scheduled downtime\n");
}

TEST_F(LogTable, CurrentObjectColumnsByName) {
  const std::string q = fmt::format(
      "GET log\nColumns: host_name current_host_address host_alias log_type "
      "current_service_description current_contact_alias current_command_line "
      "service_max_check_attempts\nFilter: time = {}\n",
      k_t0 + 7212);
  EXPECT_EQ(ask(q), "web;10.0.0.1;Web server;SERVICE NOTIFICATION;HTTP;Administrator;/bin/mail;4\n");
  // A host that no longer exists: the current_* columns are empty.
  EXPECT_EQ(ask(fmt::format("GET log\nColumns: host_name current_host_address current_host_state\nFilter: "
                            "time = {}\n",
                            k_t0 + 7218)),
            "gone;;0\n");
  // The module's header names: the column found.
  EXPECT_EQ(
      ask(fmt::format("GET log\nColumns: host_alias\nColumnHeaders: on\nFilter: time = {}\n", k_t0 + 7212)),
      "current_host_alias\nWeb server\n");
}

TEST_F(LogTable, ClassFilterAndClassPushdown) {
  EXPECT_EQ(
      ask(fmt::format("GET log\nColumns: time type\nFilter: class = 1\nFilter: time >= {}\n", k_t0 + 7000)),
      fmt::format("{0};HOST DOWNTIME ALERT\n{1};SERVICE ALERT\n{2};HOST ALERT\n{3};SERVICE ALERT\n"
                  "{4};SERVICE ALERT\n",
                  k_t0 + 7219, k_t0 + 7218, k_t0 + 7213, k_t0 + 7211, k_t0 + 7210));
  EXPECT_EQ(ask("GET log\nColumns: type\nFilter: class = 5\nFilter: class = 4\nOr: 2\nFilter: time >= "
                "1700007000\n"),
            "PASSIVE SERVICE CHECK\nEXTERNAL COMMAND\nEXTERNAL COMMAND\n");
  // No class can pass: nothing is opened at all.
  LogCache::shared().clear();
  EXPECT_EQ(ask("GET log\nColumns: type\nFilter: class = 1\nFilter: class = 2\n"), "");
  EXPECT_EQ(opens(), 0u);
  EXPECT_EQ(ask("GET log\nStats: class = 2\nStats: class = 6\nStats: class = 3"), "5;2;2\n");
}

TEST_F(LogTable, TimePushdownOpensOnlyTheFilesOfTheRange) {
  // The last part of the current log: both archives were last written before it and are never opened.
  EXPECT_EQ(ask(fmt::format("GET log\nColumns: lineno\nFilter: time >= {}\nFilter: time < {}\n", k_t0 + 7218,
                            k_t0 + 7220)),
            "15\n14\n");
  EXPECT_EQ(opens(), 2u);  // the current log's first line, then the log itself
  const std::uint64_t parsed = LogCache::shared().stats().lines_parsed;
  EXPECT_EQ(parsed, 17u);

  // Again: from the cache, without opening anything.
  EXPECT_EQ(ask(fmt::format("GET log\nColumns: lineno\nFilter: time <= {}\nFilter: time > {}\n", k_t0 + 7201,
                            k_t0 + 7199)),
            "3\n2\n1\n");
  EXPECT_EQ(opens(), 2u);

  // Reaching into the recent archive opens it (first line, then the file), not the old one.
  EXPECT_EQ(ask(fmt::format("GET log\nColumns: time\nFilter: time >= {}\nFilter: time < {}\n", k_t0 + 3615,
                            k_t0 + 3700)),
            fmt::format("{}\n", k_t0 + 3620));
  EXPECT_EQ(opens(), 4u);
  // A range before the current log begins: its first line is known, so it is not read again.
  EXPECT_EQ(ask(fmt::format("GET log\nColumns: time\nFilter: time = {}\n", k_t0 + 3610)),
            fmt::format("{}\n", k_t0 + 3610));
  EXPECT_EQ(opens(), 4u);

  // An Or: of two ranges reads from the earliest to the latest.
  EXPECT_EQ(ask(fmt::format("GET log\nColumns: time\nFilter: time = {}\nFilter: time = {}\nOr: 2\n", k_t0,
                            k_t0 + 7221)),
            fmt::format("{}\n{}\n", k_t0 + 7221, k_t0));
  EXPECT_EQ(opens(), 6u);
  // Negate: tells nothing: every file.
  EXPECT_EQ(ask(fmt::format("GET log\nStats: time >= 0\nFilter: time < {}\nNegate:\n", k_t0 + 7000)), "16\n");
}

TEST_F(LogTable, FutureLinesStayHiddenWithoutATimeFilter) {
  append(fmt::format("[{}] SERVICE ALERT: web;HTTP;OK;HARD;1;from the future\n", program_.now + 100));
  EXPECT_EQ(ask("GET log\nStats: class = 1\n"), "8\n");
  EXPECT_EQ(ask(fmt::format("GET log\nStats: class = 1\nFilter: time > {}\n", program_.now)), "0\n");
}

TEST_F(LogTable, TheGrowingCurrentLogIsReadFromWhereItEnded) {
  const std::string since = fmt::format("Filter: time >= {}\n", k_t0 + 7000);
  EXPECT_EQ(ask("GET log\nStats: time > 0\n" + since), "16\n");
  const LogCache::Stats before = LogCache::shared().stats();

  const std::string more = fmt::format("[{}] SERVICE ALERT: web;HTTP;OK;HARD;1;recovered\n", k_t0 + 7300);
  // Half a line: the writer is in the middle of it; it is not a line yet.
  append(more + fmt::format("[{}] SERVICE ALERT: web;HTTP;WARN", k_t0 + 7301));
  EXPECT_EQ(ask("GET log\nColumns: lineno plugin_output\nLimit: 1\n" + since), "18;recovered\n");
  LogCache::Stats after = LogCache::shared().stats();
  EXPECT_EQ(after.lines_parsed - before.lines_parsed, 1u);
  EXPECT_EQ(after.bytes_read - before.bytes_read,
            more.size() + fmt::format("[{}] SERVICE ALERT: web;HTTP;WARN", k_t0 + 7301).size());

  append("ING;SOFT;1;slow\n");
  EXPECT_EQ(ask("GET log\nColumns: lineno state plugin_output\nLimit: 2\n" + since),
            "19;1;slow\n18;0;recovered\n");
  after = LogCache::shared().stats();
  EXPECT_EQ(after.lines_parsed - before.lines_parsed, 2u);
  EXPECT_EQ(ask("GET log\nStats: time > 0\n" + since), "18\n");

  // Rotation: the log becomes an archive and a new one starts.
  std::filesystem::rename(dir_ / "naemon.log", dir_ / "archives" / "naemon-11-15-2023-01.log");
  set_mtime(dir_ / "archives" / "naemon-11-15-2023-01.log", k_t0 + 7301);
  std::ofstream(dir_ / "naemon.log") << fmt::format("[{}] LOG ROTATION: DAILY\n[{}] LOG VERSION: 2.0\n",
                                                    k_t0 + 7400, k_t0 + 7400);
  EXPECT_EQ(ask("GET log\nColumns: lineno type\nLimit: 3\n" + since),
            "2;LOG VERSION: 2.0\n1;LOG ROTATION: DAILY\n19;SERVICE ALERT\n");
  EXPECT_EQ(ask("GET log\nStats: time > 0\n" + since), "20\n");
}

TEST_F(LogTable, LimitStopsReadingOlderFiles) {
  EXPECT_EQ(ask("GET log\nColumns: lineno\nLimit: 2\n"), "17\n15\n");
  EXPECT_EQ(opens(), 4u);  // the three first lines, and the current log alone
  EXPECT_EQ(LogCache::shared().stats().cached_files, 1u);
}

TEST_F(LogTable, TheCacheKeepsItsBound) {
  settings_.max_cached_messages = 4;
  EXPECT_EQ(ask("GET log\nStats: time > 0\n"), "21\n");
  // The file read last (the old archive) stays, however large; the others are dropped.
  LogCache::Stats s = LogCache::shared().stats();
  EXPECT_EQ(s.cached_files, 1u);
  EXPECT_EQ(s.cached_lines, 2u);
  // Dropped files are read again when asked for.
  EXPECT_EQ(ask("GET log\nStats: time > 0\n"), "21\n");
  settings_.max_cached_messages = 500000;
  settings_.max_lines_per_logfile = 3;
  LogCache::shared().clear();
  EXPECT_EQ(ask("GET log\nColumns: lineno\nFilter: time >= 1700007000\n"), "3\n2\n1\n");
}

TEST_F(LogTable, AuthUserSeesTheLinesOfItsObjectsAndProgramLines) {
  const std::string q = fmt::format("GET log\nColumns: lineno\nFilter: time >= {}\n", k_t0 + 7000);
  // admin: web's lines, the lines of no object (program, info, the command without an object), and not
  // db's nor the alert of the vanished host.
  EXPECT_EQ(ask(q + "AuthUser: admin\n"), "17\n13\n11\n8\n7\n6\n5\n4\n3\n2\n1\n");
  // bob: db's lines.
  EXPECT_EQ(ask(q + "AuthUser: bob\n"), "17\n15\n12\n11\n10\n9\n3\n2\n1\n");
  // A user who is no contact: only what names no object, as the module.
  EXPECT_EQ(ask(q + "AuthUser: nobody\n"), "17\n11\n3\n2\n1\n");
}

TEST_F(LogTable, ColumnsTableListsTheLogColumns) {
  EXPECT_EQ(
      ask("GET columns\nColumns: name type\nFilter: table = log\nFilter: name ~ ^(time|class|state_type)$\n"),
      "class;int\nstate_type;string\ntime;int\n");
}

TEST_F(LogTable, QueryThreadsShareTheCacheWhileTheLogGrows) {
  settings_.max_cached_messages = 4;  // every query evicts what the others read
  constexpr int k_appended = 200;
  std::atomic<bool> bad{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) {
        const std::string q = t % 2 == 0 ? "GET log\nStats: time > 0\n"
                                         : "GET log\nStats: time > 0\nFilter: time >= 1700007000\n";
        const std::string answer = ask(q);
        const long n = std::strtol(answer.c_str(), nullptr, 10);
        const long base = t % 2 == 0 ? 21 : 16;
        if (n < base || n > base + k_appended) bad = true;
      }
    });
  }
  for (int i = 0; i < k_appended; ++i)
    append(fmt::format("[{}] SERVICE ALERT: web;HTTP;OK;HARD;1;line {}\n", k_t0 + 7300 + i, i));
  for (std::thread& t : threads) t.join();
  EXPECT_FALSE(bad);
  EXPECT_EQ(ask("GET log\nStats: time > 0\n"), std::to_string(21 + k_appended) + "\n");
}

// ---------------------------------------------------------------------------------------------------------
// Answers in pieces, and the log in memory once (issue 33)

TEST_F(LogTable, AnAnswerInPiecesIsTheWholeAnswer) {
  for (const std::string q : {
           "GET log\nColumns: time lineno class message\n",
           "GET log\nColumns: lineno host_name\nSort: host_name asc\nSort: lineno desc\n",
           "GET log\nColumns: class\nStats: time > 0\nStats: state = 2\n",
           "GET log\nStats: time > 0\nStats: class = 1\n",
           "GET log\nColumns: lineno\nOutputFormat: wrapped_json\nLimit: 3\n",
           "GET log\nColumns: lineno type current_host_address\nOutputFormat: json\nFilter: class = 1\n",
       }) {
    expect_pieces_make_the_answer(q);
  }
  // Headers alone fill a piece of one byte, then each row another.
  RequestError error;
  const std::optional<Query> query =
      compile("GET log\nColumns: lineno\nColumnHeaders: on\nLimit: 2\n", error);
  const std::unique_ptr<Query::Run> run = query->start(view(), {});
  EXPECT_EQ(pieces_of(*run, 1), (std::vector<std::string>{"lineno\n", "17\n", "15\n", ""}));
}

TEST_F(LogTable, LimitsHoldOverEveryPieceOfAnAnswer) {
  const std::string q = "GET log\nColumns: message\n";
  const std::size_t whole = ask(q).size();
  RequestError error;
  const std::optional<Query> query = compile(q, error);
  Query::Limits limits;
  limits.max_response_size = whole / 2;
  std::unique_ptr<Query::Run> run = query->start(view(), limits);
  const std::vector<std::string> pieces = pieces_of(*run, 10);
  EXPECT_GT(pieces.size(), 3u);
  EXPECT_EQ(pieces.back(), fmt::format("413 Maximum response size of {} reached", whole / 2));
  // A client that hangs up between two pieces stops the run.
  std::atomic<bool> gone{false};
  limits = Query::Limits{};
  limits.cancelled = &gone;
  run = query->start(view(), limits);
  std::string out;
  ASSERT_EQ(run->step(out, 10, error), Query::Step::more);
  gone = true;
  EXPECT_EQ(run->step(out, 10, error), Query::Step::failed);
  EXPECT_EQ(error.code, 400);
}

TEST_F(LogTable, AnAnswerMadeAgainReadsTheSameLinesThoughTheLogGrew) {
  const std::string q = "GET log\nColumns: lineno message\n";
  RequestError error;
  const std::optional<Query> query = compile(q, error);
  const std::unique_ptr<Query::Run> counted = query->start(view(), {});
  const std::string first = joined(pieces_of(*counted, 50));
  append(fmt::format("[{}] SERVICE ALERT: web;HTTP;OK;HARD;1;later\n", k_t0 + 7222));
  LogCache::shared().clear();
  const std::unique_ptr<Query::Run> again = counted->again({});
  EXPECT_EQ(joined(pieces_of(*again, 50)), first);
  EXPECT_EQ(ask(q), "18;[1700007222] SERVICE ALERT: web;HTTP;OK;HARD;1;later\n" + first);
}

TEST_F(LogTable, AFileIsInMemoryOnceWhileAQueryHoldsItsLines) {
  LogCache& cache = LogCache::shared();
  const LogCache::Limits limits{.max_cached_lines = 4, .max_lines_per_file = 1'000'000};
  const std::vector<LogFilePlan> files = cache.plan(
      {.log_file = settings_.log_file, .archive_path = settings_.log_archive_path}, 0, k_t0 + 8000);
  ASSERT_EQ(files.size(), 3u);
  // A query holds the current log's lines while others read the archives: the cache drops the current log
  // to keep its bound.
  std::vector<std::shared_ptr<const LogChunk>> held = cache.lines(files[0], limits);
  ASSERT_FALSE(held.empty());
  (void)cache.lines(files[1], limits);
  (void)cache.lines(files[2], limits);
  EXPECT_EQ(cache.stats().cached_lines, 2u);
  const std::uint64_t parsed = cache.stats().lines_parsed;
  // The current log again: its lines come back from the query that still holds them, not from the file.
  const std::vector<std::shared_ptr<const LogChunk>> again = cache.lines(files[0], limits);
  EXPECT_EQ(cache.stats().lines_parsed, parsed);
  ASSERT_EQ(again.size(), held.size());
  for (std::size_t i = 0; i < held.size(); ++i) EXPECT_EQ(again[i].get(), held[i].get());
  // Once nobody holds them, they are read again.
  held.clear();
  (void)cache.lines(files[1], limits);
  EXPECT_EQ(again.front().use_count(), 1);  // ours alone: the cache dropped them again
}

TEST_F(LogTable, AFileKeepsTheTextOfTheLinesItReadsAndNoMore) {
  // 40,000 lines, of which max_lines_per_logfile takes the first 10,000.
  std::string text;
  for (int i = 0; i < 40'000; ++i)
    text += fmt::format("[{}] SERVICE ALERT: web;HTTP;OK;HARD;1;line {:06}\n", k_t0 + 7200 + i / 50, i);
  std::ofstream(dir_ / "naemon.log") << text;
  LogCache& cache = LogCache::shared();
  const std::vector<LogFilePlan> files = cache.plan(
      {.log_file = settings_.log_file, .archive_path = settings_.log_archive_path}, 0, k_t0 + 8000);
  ASSERT_FALSE(files.empty());
  ASSERT_TRUE(files[0].current);
  std::size_t lines = 0;
  std::size_t capacity = 0;
  for (const auto& chunk :
       cache.lines(files[0], {.max_cached_lines = 500'000, .max_lines_per_file = 10'000})) {
    lines += chunk->entries.size();
    capacity += chunk->text.capacity();
  }
  EXPECT_EQ(lines, 10'000u);
  EXPECT_LT(capacity, text.size() * 3 / 10);  // a quarter of the file, not all of it
}

TEST_F(LogTable, ALargeFileComesInChunksThatStayAsTheLogGrows) {
  std::string text;
  const std::string output(1000, 'x');
  for (int i = 0; i < 17'000; ++i)
    text += fmt::format("[{}] SERVICE ALERT: web;HTTP;OK;HARD;1;{}\n", k_t0 + 7200 + i / 100, output);
  std::ofstream(dir_ / "naemon.log") << text;
  LogCache& cache = LogCache::shared();
  const LogSources sources{.log_file = settings_.log_file, .archive_path = settings_.log_archive_path};
  const LogFilePlan current = cache.plan(sources, 0, k_t0 + 8000).front();
  const std::vector<std::shared_ptr<const LogChunk>> before = cache.lines(current, {});
  ASSERT_GE(before.size(), 2u);
  for (const auto& chunk : before) EXPECT_LE(chunk->text.size(), std::size_t{16} << 20);
  // What a query holds of the log stays the cache's as well when the log grows: the full chunk is not
  // copied into a merged one.
  append(fmt::format("[{}] SERVICE ALERT: web;HTTP;OK;HARD;1;later\n", k_t0 + 7400));
  const std::vector<std::shared_ptr<const LogChunk>> after = cache.lines(current, {});
  EXPECT_EQ(after.front().get(), before.front().get());
  EXPECT_EQ(ask("GET log\nStats: time > 0\n"), "17006\n");  // and the archives' five
}

// ---------------------------------------------------------------------------------------------------------
// statehist

class StateHistTable : public LogTable {
 protected:
  static constexpr std::int64_t k_s = k_t0 + 10'000;  // the current log's start

  // Replaces the log by these lines (offset from k_s; message) and drops the archives.
  void write_log(const std::vector<std::pair<int, std::string>>& lines) {
    std::filesystem::remove_all(dir_ / "archives");
    std::filesystem::create_directories(dir_ / "archives");
    std::string text;
    for (const auto& [offset, message] : lines) text += fmt::format("[{}] {}\n", k_s + offset, message);
    std::ofstream(dir_ / "naemon.log.new") << text;
    std::filesystem::rename(dir_ / "naemon.log.new", dir_ / "naemon.log");  // a new file, as at a rotation
    program_.now = k_s + 10'000;
  }
  std::string range(std::int64_t from, std::int64_t until) {
    return fmt::format("Filter: time >= {}\nFilter: time < {}\n", k_s + from, k_s + until);
  }
};

const std::vector<std::pair<int, std::string>> k_history{
    {0, "LOG VERSION: 2.0"},
    {0, "CURRENT HOST STATE: web;UP;HARD;1;ok"},
    {0, "CURRENT SERVICE STATE: web;HTTP;OK;HARD;1;fine"},
    {100, "SERVICE ALERT: web;HTTP;CRITICAL;HARD;1;refused"},
    {200, "SERVICE ALERT: web;HTTP;OK;HARD;1;back"},
    {300, "HOST ALERT: web;DOWN;HARD;1;down"},
    {400, "HOST ALERT: web;UP;HARD;1;up"},
    {500, "SERVICE DOWNTIME ALERT: web;HTTP;STARTED; in downtime"},
    {600, "SERVICE DOWNTIME ALERT: web;HTTP;STOPPED; out"},
    {700, "HOST ALERT: db;DOWN;HARD;1;x"},
    {1200, "SERVICE ALERT: web;HTTP;WARNING;HARD;1;after the range"},
};

TEST_F(StateHistTable, StateSpansOfHostsAndServices) {
  write_log(k_history);
  const std::string columns =
      "Columns: host_name service_description from until duration state host_down in_downtime log_output "
      "debug_info\n";
  const auto row = [](std::string_view host, std::string_view service, int from, int until, int state,
                      int host_down, int downtime, std::string_view output, std::string_view debug) {
    return fmt::format("{};{};{};{};{};{};{};{};{};{}\n", host, service, k_s + from, k_s + until,
                       until - from, state, host_down, downtime, output, debug);
  };
  const std::string expected =
      // HTTP's states, a row each time one changes
      row("web", "HTTP", 50, 100, 0, 0, 0, "fine", "") +
      row("web", "HTTP", 100, 200, 2, 0, 0, "refused", "SVC ALERT") +
      // the host goes down: its row, then its service's (which takes the host's output)
      row("web", "", 50, 300, 0, 0, 0, "ok", "") +
      row("web", "HTTP", 200, 300, 0, 0, 0, "back", "SVC ALERT") +
      row("web", "", 300, 400, 1, 1, 0, "down", "HOST STATE") +
      row("web", "HTTP", 300, 400, 0, 1, 0, "down", "SVC HOST STATE") +
      row("web", "HTTP", 400, 500, 0, 0, 0, "up", "SVC HOST STATE") +
      row("web", "HTTP", 500, 600, 0, 0, 1, "", "DOWNTIME SERVICE") +
      // db appears more than ten minutes into the range: unmonitored until then
      row("db", "", 50, 700, -1, 0, 0, "", "UNMONITORED ") +
      // the end of the range: one row per object, in the order they appeared
      row("web", "", 400, 999, 0, 0, 0, "up", "HOST STATE") +
      row("web", "HTTP", 600, 999, 0, 0, 0, "", "DOWNTIME SERVICE") +
      row("db", "", 700, 999, 1, 1, 0, "x", "HOST STATE");
  EXPECT_EQ(ask("GET statehist\n" + columns + range(50, 1000)), expected);

  // What Thruk's availability report asks: the time per state.
  EXPECT_EQ(
      ask("GET statehist\nColumns: host_name service_description\nStats: sum duration_ok\n"
          "Stats: sum duration_warning\nStats: sum duration_critical\nStats: sum duration_unmonitored\n" +
          range(50, 1000)),
      "db;;0;299;0;650\nweb;;849;100;0;0\nweb;HTTP;849;0;100;0\n");
  EXPECT_EQ(ask("GET statehist\nColumns: duration_part duration_part_critical\nFilter: state = 2\n" +
                range(50, 1000)),
            "1.0537407798e-01;1.0537407798e-01\n");  // 100 / 949, printed as the module prints floats
  EXPECT_EQ(ask("GET statehist\nColumns: current_host_address host_alias current_service_max_check_attempts\n"
                "Filter: state = 2\n" +
                range(50, 1000)),
            "10.0.0.1;Web server;4\n");
  // AuthUser: the contacts of the host or service.
  EXPECT_EQ(ask("GET statehist\nStats: state >= -1\nAuthUser: bob\n" + range(50, 1000)), "2\n");
  EXPECT_EQ(ask("GET statehist\nStats: state >= -1\nAuthUser: admin\n" + range(50, 1000)), "10\n");
  // Limit: stops the walk.
  EXPECT_EQ(ask("GET statehist\nColumns: state\nLimit: 2\n" + range(50, 1000)), "0\n2\n");
}

TEST_F(StateHistTable, TheRangeNeedsAStart) {
  write_log(k_history);
  EXPECT_EQ(ask("GET statehist\nColumns: state\n"),
            "400 Start of timeframe required. e.g. Filter: time > 1234567890");
  EXPECT_EQ(ask(fmt::format("GET statehist\nColumns: state\nFilter: time >= {}\nFilter: time < {}\n", k_s,
                            k_s + 1)),
            "400 Query timeframe is 0 seconds");
  // A filter that accepts no time at all: no rows, and no overflow of the empty range (issue 20).
  EXPECT_EQ(ask("GET statehist\nColumns: state\nOr: 0\n"), "");
  // Only a start: up to now.
  EXPECT_EQ(ask(fmt::format("GET statehist\nColumns: until\nFilter: host_name = db\nFilter: time >= {}\n",
                            k_s + 50)),
            fmt::format("{}\n{}\n", k_s + 700, program_.now));
}

TEST_F(StateHistTable, StatesBeforeTheRangeComeFromTheFileThatHoldsItsStart) {
  // The fixture's log: web goes down and up in the recent archive; the range starts in it.
  EXPECT_EQ(
      ask(fmt::format("GET statehist\nColumns: from until state\nFilter: host_name = web\n"
                      "Filter: service_description =\nFilter: time >= {}\nFilter: time < {}\n",
                      k_t0 + 3605, k_t0 + 7250)),
      fmt::format("{0};{1};0\n{1};{2};1\n{2};{3};0\n", k_t0 + 3605, k_t0 + 3610, k_t0 + 3620, k_t0 + 7249));
  // HTTP first shows up at 7203, long after the range began: unmonitored until then.
  EXPECT_EQ(ask(fmt::format(
                "GET statehist\nColumns: from until state debug_info\nFilter: service_description = HTTP\n"
                "Filter: time >= {}\nFilter: time < {}\nLimit: 1\n",
                k_t0 + 3605, k_t0 + 7250)),
            fmt::format("{};{};-1;UNMONITORED \n", k_t0 + 3605, k_t0 + 7203));
}

TEST_F(StateHistTable, AnAnswerInPiecesIsTheWholeAnswer) {
  write_log(k_history);
  for (const std::string q : {
           "GET statehist\nColumns: host_name service_description from until state debug_info\n",
           "GET statehist\nColumns: host_name from state\nSort: state desc\nSort: from asc\n",
           "GET statehist\nColumns: host_name service_description\nStats: sum duration_ok\n",
           "GET statehist\nStats: sum duration\nStats: state = 0\n",
       }) {
    expect_pieces_make_the_answer(q + range(50, 1000));
  }
}

TEST_F(StateHistTable, RowsThatAreNotKeptAreNotHeld) {
  std::vector<std::pair<int, std::string>> lines{{0, "LOG VERSION: 2.0"},
                                                 {0, "CURRENT SERVICE STATE: web;HTTP;OK;HARD;1;fine"}};
  for (int i = 1; i <= 1000; ++i)
    lines.emplace_back(i, fmt::format("SERVICE ALERT: web;HTTP;{};HARD;1;x", i % 2 == 1 ? "CRITICAL" : "OK"));
  write_log(lines);
  const Table& statehist = *find_table("statehist");
  for (const bool kept : {false, true}) {
    const View v = view();
    RowHints hints;
    hints.time_from = k_s + 1;
    hints.time_until = k_s + 2000;
    hints.rows_kept = kept;
    const std::unique_ptr<RowCursor> rows = statehist.open(v, hints);
    Row row;
    std::size_t count = 0;
    std::size_t most_held = 0;  // a row's index is its place among the rows the table holds
    while (rows->next(row)) {
      ++count;
      most_held = std::max<std::size_t>(most_held, row.index + 1);
    }
    EXPECT_EQ(count, 1001u);  // a row per change, and one at the end
    EXPECT_EQ(most_held, kept ? count : 1u);
  }
}

}  // namespace
}  // namespace vedette::livestatus
