// Macro values and command expansion against a model loaded by the real loader, so the templates are the
// ones the daemon runs. Expected values follow Naemon's macros.c and runcmd's split.
#include "engine/macros/macros.hpp"

#include "config/command_compiler.hpp"
#include "config/loader.hpp"
#include "engine/books/downtime_book.hpp"
#include "loaded_config.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace vedette::engine {
namespace {

namespace fs = std::filesystem;
using Strings = std::vector<std::string>;

constexpr const char* k_objects = R"(define command {
  command_name  check_ping
  command_line  $USER1$/check_ping -H $HOSTADDRESS$ -w $ARG1$ -c $ARG2$
}
define command {
  command_name  check_disk
  command_line  $USER1$/check_disk $ARG1$
}
define command {
  command_name  echo_args
  command_line  /bin/echo $ARG1$ $ARG2$ $ARG3$
}
define command {
  command_name  piped
  command_line  /bin/echo $HOSTNAME$ | /bin/cat
}
define command {
  command_name  quoted
  command_line  /bin/echo '$ARG1$' "$SERVICEOUTPUT$"
}
define command {
  command_name  with_env
  command_line  LANG=C TZ=UTC /bin/echo $ARG1$
}
define command {
  command_name  logger_like
  command_line  /usr/bin/logger $NOTIFICATIONCOMMENT$ $SERVICEACKCOMMENT$
}
define command {
  command_name  notify-host-by-email
  command_line  /usr/bin/printf "%b" "***** Naemon *****\n\nNotification Type: $NOTIFICATIONTYPE$\nHost: $HOSTNAME$\nState: $HOSTSTATE$\nAddress: $HOSTADDRESS$\nInfo: $HOSTOUTPUT$\n\nDate/Time: $LONGDATETIME$\n" | @MAIL_PROG@ -s "** $NOTIFICATIONTYPE$ Host Alert: $HOSTNAME$ is $HOSTSTATE$ **" $CONTACTEMAIL$
}
define command {
  command_name  notify-service-by-email
  command_line  /usr/bin/printf "%b" "***** Naemon *****\n\nNotification Type: $NOTIFICATIONTYPE$\n\nService: $SERVICEDESC$\nHost: $HOSTALIAS$\nAddress: $HOSTADDRESS$\nState: $SERVICESTATE$\n\nDate/Time: $LONGDATETIME$\n\nAdditional Info:\n\n$SERVICEOUTPUT$\n" | @MAIL_PROG@ -s "** $NOTIFICATIONTYPE$ Service Alert: $HOSTALIAS$/$SERVICEDESC$ is $SERVICESTATE$ **" $CONTACTEMAIL$
}
define timeperiod {
  timeperiod_name  24x7
  alias            always
  monday           00:00-24:00
}
define contact {
  contact_name                   admin
  email                          admin@example.com
  host_notification_commands     echo_args
  service_notification_commands  echo_args
  host_notification_period       24x7
  service_notification_period    24x7
  _PHONE                         555
}
define hostgroup {
  hostgroup_name  all
  alias           All hosts
}
define hostgroup {
  hostgroup_name  web
  alias           Web servers
  members         web01
}
define host {
  host_name           web01
  alias               Web One
  address             10.0.0.1
  hostgroups          all
  check_command       check_ping!100.0,20%!500.0,60%
  max_check_attempts  3
  contacts            admin
  notes               runs on $HOSTADDRESS$
  notes_url           http://wiki/$HOSTNAME$?a b
  _FOO                bar baz
  _rack               r1
}
define host {
  host_name           db01
  address             10.0.0.2
  hostgroups          all
  check_command       check_ping!1,1%!2,2%
  max_check_attempts  3
  contacts            admin
  _FOO                dbfoo
}
define servicegroup {
  servicegroup_name  webs
  alias              Web services
}
define service {
  host_name           web01
  service_description HTTP
  check_command       check_disk!-w 20% -c 10%
  max_check_attempts  4
  contacts            admin
  servicegroups       webs
  notes               last said: $SERVICEOUTPUT$
  _SNMP_COMMUNITY     public
}
define service {
  host_name           db01
  service_description HTTP
  check_command       check_disk!-w 1
  max_check_attempts  4
  contacts            admin
  servicegroups       webs
}
)";

class MacroTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    loaded_ = new test::LoadedConfig("vedette_macros");
    const test::TempDir& dir = loaded_->dir;
    // As Naemon's sample commands.cfg.in has it, with a stand-in for mail(1) that writes what it got.
    std::string objects = k_objects;
    for (std::size_t at; (at = objects.find("@MAIL_PROG@")) != std::string::npos;)
      objects.replace(at, 11, dir.file("mail"));
    dir.write(
        "mail",
        "#!/bin/sh\n{ printf 'argv:'; printf ' [%s]' \"$@\"; printf '\\nstdin:\\n'; cat; } > \"$0.out\"\n");
    fs::permissions(dir.path() / "mail", fs::perms::owner_all);
    dir.write("resource.cfg", "$USER1$=/usr/lib/nagios/plugins\n$USER2$=s3cr3t word\n");
    loaded_->load(objects,
                  "resource_file=resource.cfg\nillegal_macro_output_chars=`~$&|'\"<>\n"
                  "admin_email=root@example.com\ndate_format=iso8601\n",
                  test::Failing::warnings_too);
  }
  static void TearDownTestSuite() { delete loaded_; }

  void SetUp() override {
    const model::Model& m = model();
    hosts_.resize(m.hosts.size());
    services_.resize(m.services.size());
    web01_ = m.host_by_name.at("web01");
    db01_ = m.host_by_name.at("db01");
    http_ = m.find_service("web01", "HTTP");
    ServiceState& s = services_[model::index(http_)];
    s.current_state = k_state_critical;
    s.last_state = k_state_ok;
    s.state_type = StateType::soft;
    s.current_attempt = 2;
    s.last_state_change = now_ - 303;
    s.last_check = now_ - 10;
    s.execution_time = 0.0125;
    s.latency = 0.5;
    s.plugin_output = "DISK CRITICAL - /var `is` full | really";
    s.long_plugin_output = "line2\\nline3";
    s.perf_data = "/var=99%;80;90";
    s.has_been_checked = true;
    hosts_[model::index(db01_)].current_state = k_host_down;
    hosts_[model::index(db01_)].has_been_checked = true;
    hosts_[model::index(web01_)].has_been_checked = true;
  }

  static const model::Model& model() { return loaded_->model(); }
  static config::MainConfig& main() { return loaded_->config.main; }
  static const fs::path& dir() { return loaded_->dir.path(); }

  MacroContext service_ctx() const {
    return MacroContext{.model = model(),
                        .main = main(),
                        .host = web01_,
                        .service = http_,
                        .host_state = &hosts_[model::index(web01_)],
                        .service_state = &services_[model::index(http_)],
                        .now = now_,
                        .all_hosts = &hosts_,
                        .all_services = &services_};
  }

  std::string value(std::string_view name) const { return value(name, service_ctx()); }
  static std::string value(std::string_view name, const MacroContext& ctx) {
    std::string out;
    if (!macro_value(name, ctx, out)) return "<unknown>";
    return out;
  }
  std::string expand(std::string_view text) const {
    std::string out;
    process_macros(text, service_ctx(), k_strip_illegal, out);
    return out;
  }

  ExpandedCommand run(std::string_view command, std::vector<std::string_view> args) const {
    const model::Model& m = model();
    return expand_command(m.commands[model::index(m.command_by_name.at(command))].compiled, service_ctx(),
                          args);
  }

  static inline test::LoadedConfig* loaded_ = nullptr;
  std::vector<HostState> hosts_;
  std::vector<ServiceState> services_;
  model::HostId web01_{}, db01_{};
  model::ServiceId http_{};
  Time now_ = 1'700'000'000;
};

TEST_F(MacroTest, HostAndServiceMacros) {
  EXPECT_EQ(value("HOSTNAME"), "web01");
  EXPECT_EQ(value("HOSTALIAS"), "Web One");
  EXPECT_EQ(value("HOSTDISPLAYNAME"), "web01");
  EXPECT_EQ(value("HOSTADDRESS"), "10.0.0.1");
  EXPECT_EQ(value("HOSTSTATE"), "UP");
  EXPECT_EQ(value("HOSTSTATEID"), "0");
  EXPECT_EQ(value("MAXHOSTATTEMPTS"), "3");
  EXPECT_EQ(value("HOSTCHECKCOMMAND"), "check_ping!100.0,20%!500.0,60%");
  EXPECT_EQ(value("SERVICEDESC"), "HTTP");
  EXPECT_EQ(value("SERVICESTATE"), "CRITICAL");
  EXPECT_EQ(value("SERVICESTATEID"), "2");
  EXPECT_EQ(value("LASTSERVICESTATE"), "OK");
  EXPECT_EQ(value("SERVICESTATETYPE"), "SOFT");
  EXPECT_EQ(value("HOSTSTATETYPE"), "HARD");
  EXPECT_EQ(value("SERVICEATTEMPT"), "2");
  EXPECT_EQ(value("MAXSERVICEATTEMPTS"), "4");
  EXPECT_EQ(value("SERVICECHECKTYPE"), "ACTIVE");
  EXPECT_EQ(value("SERVICEEXECUTIONTIME"), "0.013");  // "%.3f" of 0.0125 rounds half to even
  EXPECT_EQ(value("SERVICELATENCY"), "0.500");
  EXPECT_EQ(value("SERVICEDURATION"), "0d 0h 5m 3s");
  EXPECT_EQ(value("SERVICEDURATIONSEC"), "303");
  EXPECT_EQ(value("LASTSERVICESTATECHANGE"), std::to_string(now_ - 303));
  EXPECT_EQ(value("LASTSERVICECHECK"), std::to_string(now_ - 10));
  EXPECT_EQ(value("SERVICEOUTPUT"), "DISK CRITICAL - /var `is` full | really") << "raw value, not cleaned";
  EXPECT_EQ(value("LONGSERVICEOUTPUT"), "line2\\nline3");
  EXPECT_EQ(value("SERVICEPERFDATA"), "/var=99%;80;90");
  EXPECT_EQ(value("SERVICECHECKCOMMAND"), "check_disk!-w 20% -c 10%");
  EXPECT_EQ(value("SERVICEPERCENTCHANGE"), "0.00");
  EXPECT_EQ(value("SERVICEACKAUTHOR"), "");
  EXPECT_EQ(value("NOTIFICATIONTYPE"), "");
}

TEST_F(MacroTest, GroupsGlobalsAndTimes) {
  // Naemon prepends each group to the host's list: the last group registered comes first.
  EXPECT_EQ(value("HOSTGROUPNAME"), "web");
  EXPECT_EQ(value("HOSTGROUPALIAS"), "Web servers");
  EXPECT_EQ(value("HOSTGROUPNAMES"), "web,all");
  EXPECT_EQ(value("HOSTGROUPMEMBERS:all"), "db01,web01");
  EXPECT_EQ(value("SERVICEGROUPNAME"), "webs");
  EXPECT_EQ(value("SERVICEGROUPMEMBERS"), "db01,HTTP,web01,HTTP");
  EXPECT_EQ(value("ADMINEMAIL"), "root@example.com");
  EXPECT_EQ(value("MAINCONFIGFILE"), (dir() / "naemon.cfg").string());
  EXPECT_EQ(value("RESOURCEFILE"), (dir() / "resource.cfg").string());
  EXPECT_EQ(value("TIMET"), std::to_string(now_));

  const std::time_t t = now_;
  std::tm tm{};
  ::localtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  EXPECT_EQ(value("DATE"), buf) << "date_format=iso8601";
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  EXPECT_EQ(value("SHORTDATETIME"), buf);
  std::strftime(buf, sizeof buf, "%H:%M:%S", &tm);
  EXPECT_EQ(value("TIME"), buf);
  EXPECT_NE(value("LONGDATETIME").find(std::to_string(tm.tm_year + 1900)), std::string::npos);

  EXPECT_EQ(value("TOTALHOSTSUP"), "1");
  EXPECT_EQ(value("TOTALHOSTSDOWN"), "1");
  EXPECT_EQ(value("TOTALSERVICESCRITICAL"), "1");
  EXPECT_EQ(value("TOTALHOSTSERVICES"), "1");
  EXPECT_EQ(value("TOTALHOSTSERVICESCRITICAL"), "1");
}

// macros.c: a problem in a downtime, acknowledged, or with active checks disabled at run time is handled;
// a service's also when its host is down. UNREACHABLE hosts count with the DOWN ones.
TEST_F(MacroTest, UnhandledTotalsLeaveOutHandledProblems) {
  HostState& db = hosts_[model::index(db01_)];
  ServiceState& http = services_[model::index(http_)];
  db.set_enabled(state::Flag::active_checks, true);
  http.set_enabled(state::Flag::active_checks, true);
  EXPECT_EQ(value("TOTALHOSTSDOWNUNHANDLED"), "1");
  EXPECT_EQ(value("TOTALHOSTPROBLEMSUNHANDLED"), "1");
  EXPECT_EQ(value("TOTALSERVICESCRITICALUNHANDLED"), "1");
  EXPECT_EQ(value("TOTALSERVICEPROBLEMSUNHANDLED"), "1");

  db.problem_has_been_acknowledged = true;
  http.set_enabled(state::Flag::active_checks, false);
  EXPECT_EQ(value("TOTALHOSTSDOWNUNHANDLED"), "0") << "acknowledged";
  EXPECT_EQ(value("TOTALSERVICESCRITICALUNHANDLED"), "0") << "active checks disabled by a command";
  EXPECT_EQ(value("TOTALHOSTSDOWN"), "1");
  EXPECT_EQ(value("TOTALSERVICESCRITICAL"), "1");

  db.problem_has_been_acknowledged = false;
  db.current_state = k_host_unreachable;
  http.set_enabled(state::Flag::active_checks, true);
  DowntimeBook downtimes;
  state::Downtime d;
  d.start_time = now_ - 10;
  d.end_time = now_ + 100;
  d.fixed = true;
  d.duration = 110;
  ASSERT_TRUE(downtimes.schedule(DowntimeTarget::of_service(web01_, http_), d, now_).ok());
  (void)downtimes.advance(now_);
  MacroContext ctx = service_ctx();
  ctx.downtime_depths = DowntimeDepths(downtimes);
  EXPECT_EQ(value("TOTALSERVICESCRITICALUNHANDLED", ctx), "0") << "in a downtime";
  EXPECT_EQ(value("TOTALHOSTSDOWNUNHANDLED", ctx), "1") << "Naemon counts an unhandled UNREACHABLE host here";
  EXPECT_EQ(value("TOTALHOSTSUNREACHABLEUNHANDLED", ctx), "0");
}

TEST_F(MacroTest, NotesAreExpandedAndUrlsEncoded) {
  EXPECT_EQ(value("HOSTNOTES"), "runs on 10.0.0.1");
  EXPECT_EQ(value("HOSTNOTESURL"), "http://wiki/web01?a b") << "only the macros inside are URL-encoded";
  EXPECT_EQ(value("HOSTNOTESURL:db01"), "") << "db01 has none";
  std::string out;
  process_macros("$SERVICEDESC$ $HOSTALIAS$", service_ctx(), k_url_encode, out);
  EXPECT_EQ(out, "HTTP Web%20One");
}

TEST_F(MacroTest, CustomVariables) {
  EXPECT_EQ(value("_HOSTFOO"), "bar baz");
  EXPECT_EQ(value("_HOSTRACK"), "r1") << "names are stored upper-cased";
  EXPECT_EQ(value("_HOSTrack"), "<unknown>") << "and matched exactly";
  EXPECT_EQ(value("_SERVICESNMP_COMMUNITY"), "public");
  EXPECT_EQ(value("_HOSTFOO:db01"), "dbfoo");
  EXPECT_EQ(value("_HOSTFOO:all:,"), "dbfoo,bar baz");
  EXPECT_EQ(value("_HOSTNOPE"), "<unknown>");
  EXPECT_EQ(value("_CONTACTPHONE:admin"), "555");
  MacroContext ctx = service_ctx();
  ctx.contact = model().contact_by_name.at("admin");
  EXPECT_EQ(value("_CONTACTPHONE", ctx), "555");
  EXPECT_EQ(value("CONTACTEMAIL", ctx), "admin@example.com");
  EXPECT_EQ(value("CONTACTNAME"), "<unknown>") << "no contact in a check";
}

TEST_F(MacroTest, OnDemandMacros) {
  EXPECT_EQ(value("HOSTSTATE:db01"), "DOWN");
  EXPECT_EQ(value("HOSTADDRESS:db01"), "10.0.0.2");
  EXPECT_EQ(value("SERVICESTATE:web01:HTTP"), "CRITICAL");
  EXPECT_EQ(value("SERVICESTATE::HTTP"), "CRITICAL") << "empty host: the current one";
  EXPECT_EQ(value("SERVICESTATE:db01:HTTP"), "OK");
  EXPECT_EQ(value("SERVICESTATE::NOPE"), "") << "Naemon: known, no value";
  EXPECT_EQ(value("SERVICESTATEID:webs:;"), "0;2") << "servicegroup and delimiter";
  EXPECT_EQ(value("HOSTSTATE:all:/"), "DOWN/UP");
  EXPECT_EQ(value("HOSTSTATE:nosuch"), "<unknown>");
  EXPECT_EQ(value("SERVICESTATE:nosuch"), "<unknown>");

  MacroContext no_arrays = service_ctx();
  no_arrays.all_hosts = nullptr;
  EXPECT_EQ(value("HOSTSTATE:db01", no_arrays), "<unknown>") << "no state to read";
  EXPECT_EQ(value("HOSTADDRESS:db01", no_arrays), "10.0.0.2") << "configuration needs no state";
}

TEST_F(MacroTest, ProcessMacrosRules) {
  EXPECT_EQ(expand("a $$ b $$$HOSTNAME$"), "a $ b $web01");
  EXPECT_EQ(expand("$FOO$ and $HOSTNAME$"), "$FOO$ and web01") << "unknown macros stay";
  EXPECT_EQ(expand("x $HOSTNAME"), "x web01") << "a macro unterminated at the end still counts";
  EXPECT_EQ(expand("x $NOPE"), "x $NOPE");
  EXPECT_EQ(expand("end $"), "end $");
  EXPECT_EQ(expand("$USER1$|$USER2$|$USER9$|$USER0$|$USER257$"),
            "/usr/lib/nagios/plugins|s3cr3t word||$USER0$|$USER257$");
  EXPECT_EQ(expand("$ARG1$|$ARG33$|$ARGX$"), "|$ARG33$|$ARGX$");
  // Output macros lose control bytes and illegal_macro_output_chars; others never do.
  EXPECT_EQ(expand("$SERVICEOUTPUT$"), "DISK CRITICAL - /var is full  really");
  EXPECT_EQ(expand("$SERVICECHECKCOMMAND$"), "check_disk!-w 20% -c 10%");
  services_[model::index(http_)].plugin_output =
      "a\tb\x7f"
      "c";
  EXPECT_EQ(expand("$SERVICEOUTPUT$"), "abc");
  EXPECT_EQ(expand("$USER2$"), "s3cr3t word");
  std::string plain;
  process_macros("$SERVICEOUTPUT$", service_ctx(), k_macro_plain, plain);
  EXPECT_EQ(plain,
            "a\tb\x7f"
            "c")
      << "no stripping without the option";
}

// The host macros and their service twins read the same CheckState fields the same way; only the state
// names and the last time in each state are per kind.
TEST_F(MacroTest, HostAndServiceTwinsReadTheSameStateFields) {
  HostState& h = hosts_[model::index(web01_)];
  ServiceState& s = services_[model::index(http_)];
  for (CheckState* st : {static_cast<CheckState*>(&h), static_cast<CheckState*>(&s)}) {
    st->current_state = 1;
    st->last_state = 2;
    st->state_type = StateType::soft;
    st->check_type = CheckType::passive;
    st->current_attempt = 3;
    st->last_check = now_ - 7;
    st->last_state_change = now_ - 90061;
    st->latency = 1.5;
    st->execution_time = 2.25;
    st->plugin_output = "out";
    st->long_plugin_output = "long";
    st->perf_data = "p=1";
    st->notification.current_notification_number = 4;
    st->notification.current_notification_id = state::Uuid{0, 42};
    st->events.current_event_id = 11;
    st->events.last_event_id = 10;
    st->events.current_problem_id = state::Uuid{0, 12};
    st->events.problem_start = now_ - 120;
  }
  h.flap.percent_state_change = 12.5;
  s.flap.percent_state_change = 12.5;
  h.last_time_down = now_ - 1;
  s.last_time_warning = now_ - 2;

  const std::vector<std::pair<std::string, std::string>> twins = {
      {"STATEID", "1"},
      {"STATETYPE", "SOFT"},
      {"CHECKTYPE", "PASSIVE"},
      {"ATTEMPT", "3"},
      {"EXECUTIONTIME", "2.250"},
      {"LATENCY", "1.500"},
      {"OUTPUT", "out"},
      {"PERFDATA", "p=1"},
      {"DURATION", "1d 1h 1m 1s"},
      {"DURATIONSEC", "90061"},
      {"PERCENTCHANGE", "12.50"},
      {"NOTIFICATIONNUMBER", "4"},
      {"NOTIFICATIONID", "42"},
      {"EVENTID", "11"},
      {"PROBLEMID", "12"},
      {"PROBLEMSTART", std::to_string(now_ - 120)},
      {"PROBLEMEND", "0"},
      {"PROBLEMDURATIONSEC", "120"},
      {"PROBLEMDURATION", "0d 0h 2m 0s"},
  };
  for (const auto& [suffix, expected] : twins) {
    EXPECT_EQ(value("HOST" + suffix), expected) << suffix;
    EXPECT_EQ(value("SERVICE" + suffix), expected) << suffix;
  }
  for (const auto& [kind, expected] :
       std::vector<std::pair<std::string, std::string>>{{"STATEID", "2"},
                                                        {"EVENTID", "10"},
                                                        {"PROBLEMID", ""},
                                                        {"STATECHANGE", std::to_string(now_ - 90061)},
                                                        {"CHECK", std::to_string(now_ - 7)}}) {
    EXPECT_EQ(value("LASTHOST" + kind), expected) << kind;
    EXPECT_EQ(value("LASTSERVICE" + kind), expected) << kind;
  }
  EXPECT_EQ(value("LONGHOSTOUTPUT"), "long");
  EXPECT_EQ(value("LONGSERVICEOUTPUT"), "long");
  EXPECT_EQ(value("HOSTSTATE"), "DOWN");
  EXPECT_EQ(value("SERVICESTATE"), "WARNING");
  EXPECT_EQ(value("LASTHOSTSTATE"), "UNREACHABLE");
  EXPECT_EQ(value("LASTSERVICESTATE"), "CRITICAL");
  EXPECT_EQ(value("LASTHOSTDOWN"), std::to_string(now_ - 1));
  EXPECT_EQ(value("LASTSERVICEWARNING"), std::to_string(now_ - 2));
  EXPECT_EQ(value("LASTHOSTUP"), "0");
  EXPECT_EQ(value("LASTSERVICEOK"), "0");
}

// What outsiders write reaches /bin/sh cleaned of illegal_macro_output_chars: a custom variable that
// CHANGE_CUSTOM_*_VAR set (Naemon passes it raw), and the author and comment of a notification (likewise);
// configured values are the administrator's and stay as written (docs/compatibility.md, "Macros").
TEST_F(MacroTest, ValuesFromOutsideAreCleanedOfIllegalChars) {
  const std::string configured = expand("$_SERVICESNMP_COMMUNITY$");
  ServiceState& s = services_[model::index(http_)];
  auto changed = std::make_shared<state::Overrides>();
  changed->custom_variables.push_back({"SNMP_COMMUNITY", "x`reboot`;$(id)|y>\"/etc/z\"\n"});
  s.overrides = changed;
  EXPECT_EQ(configured, "public");
  EXPECT_EQ(expand("$_SERVICESNMP_COMMUNITY$"), "xreboot;(id)y/etc/z");
  EXPECT_EQ(expand("$_SERVICESNMP_COMMUNITY:web01:HTTP$"), "xreboot;(id)y/etc/z");
  std::string raw;
  process_macros("$_SERVICESNMP_COMMUNITY$", service_ctx(), k_macro_plain, raw);
  EXPECT_EQ(raw, "x`reboot`;$(id)|y>\"/etc/z\"\n") << "only commands are cleaned";
  s.overrides = nullptr;

  s.long_plugin_output = "a`id`\\nb$(id)";
  EXPECT_EQ(expand("$LONGSERVICEOUTPUT$"), "aid\\nb(id)");
  NotificationMacros n;
  n.type = "ACKNOWLEDGEMENT";
  n.author = "eve'; rm -rf /; '";
  n.author_name = "admin";
  n.comment = "`halt` & $(halt) > /dev/sda";
  n.acknowledgement = true;
  MacroContext ctx = service_ctx();
  ctx.notification = &n;
  std::string out;
  process_macros("$NOTIFICATIONAUTHOR$|$NOTIFICATIONCOMMENT$|$SERVICEACKAUTHOR$|$SERVICEACKCOMMENT$", ctx,
                 k_strip_illegal, out);
  EXPECT_EQ(out, "eve; rm -rf /; |halt  (halt)  /dev/sda|eve; rm -rf /; |halt  (halt)  /dev/sda");
}

TEST_F(MacroTest, TypicalChecksSplitAsNaemon) {
  ExpandedCommand c = run("check_ping", {"100.0,20%", "500.0,60%"});
  EXPECT_FALSE(c.shell);
  EXPECT_EQ(c.argv, (Strings{"/usr/lib/nagios/plugins/check_ping", "-H", "10.0.0.1", "-w", "100.0,20%", "-c",
                             "500.0,60%"}));

  c = run("check_disk", {"-w 20% -c 10%"});
  EXPECT_FALSE(c.shell);
  EXPECT_EQ(c.argv, (Strings{"/usr/lib/nagios/plugins/check_disk", "-w", "20%", "-c", "10%"}))
      << "an argument with blanks becomes several words, as in Naemon";

  c = run("echo_args", {"-H $HOSTADDRESS$", "[$ARG1$]", "$ARG3$"});
  EXPECT_EQ(c.argv, (Strings{"/bin/echo", "-H", "10.0.0.1", "[-H", "10.0.0.1]"}))
      << "arguments are expanded first, seeing earlier arguments only; an empty word disappears";

  c = run("echo_args", {"$USER2$", "$_HOSTFOO$"});
  EXPECT_EQ(c.argv, (Strings{"/bin/echo", "s3cr3t", "word", "bar", "baz"}));
}

TEST_F(MacroTest, ShellAndQuoting) {
  ExpandedCommand c = run("piped", {});
  EXPECT_TRUE(c.shell);
  EXPECT_EQ(c.argv, (Strings{"/bin/echo web01 | /bin/cat"}));

  c = run("echo_args", {"a;b"});
  EXPECT_TRUE(c.shell) << "a metacharacter in a value sends the line to the shell";
  EXPECT_EQ(c.argv, (Strings{"/bin/echo a;b  "}));

  c = run("echo_args", {"$NOPE$"});
  EXPECT_TRUE(c.shell) << "an unknown macro stays as $NOPE$, which needs the shell";

  c = run("quoted", {"two words"});
  EXPECT_FALSE(c.shell);
  EXPECT_EQ(c.argv, (Strings{"/bin/echo", "two words", "DISK CRITICAL - /var is full  really"}));

  c = run("quoted", {"it's"});
  EXPECT_TRUE(c.shell) << "the value's quote leaves a quote unbalanced";
}

TEST_F(MacroTest, EnvironmentWordsAndMacros) {
  ExpandedCommand c = run("with_env", {"x"});
  EXPECT_FALSE(c.shell);
  EXPECT_EQ(c.argv, (Strings{"/bin/echo", "x"}));
  EXPECT_EQ(c.env, (std::vector<std::pair<std::string, std::string>>{{"LANG", "C"}, {"TZ", "UTC"}}));

  EXPECT_TRUE(environment_macros(service_ctx()).empty()) << "off unless enable_environment_macros=1";
  main().enable_environment_macros = true;
  c = run("with_env", {"x"});
  main().enable_environment_macros = false;
  auto find = [&](const std::string& name) -> std::string {
    for (const auto& [k, v] : c.env)
      if (k == name) return v;
    return "<missing>";
  };
  EXPECT_EQ(find("NAGIOS_HOSTNAME"), "web01");
  EXPECT_EQ(find("NAGIOS_SERVICESTATE"), "CRITICAL");
  EXPECT_EQ(find("NAGIOS_ARG1"), "x");
  EXPECT_EQ(find("NAGIOS__HOSTFOO"), "bar baz");
  EXPECT_EQ(find("NAGIOS__SERVICESNMP_COMMUNITY"), "public");
  EXPECT_EQ(find("NAGIOS_USER1"), "<missing>") << "resource macros are never exported";
  ASSERT_GE(c.env.size(), 2u);
  EXPECT_EQ(c.env[c.env.size() - 2].first, "LANG") << "the command's own words come last and win";
}

// The fast path (fill the template's words) and the whole-line path (expand, then split) must agree on
// every line and value; where no value comes from outside, that is Naemon's way.
TEST_F(MacroTest, FastPathMatchesExpandThenSplit) {
  const std::vector<std::string> line_parts = {"/bin/x",
                                               " ",
                                               "  ",
                                               "$ARG1$",
                                               "$ARG2$",
                                               "$HOSTNAME$",
                                               "$SERVICEOUTPUT$",
                                               "'",
                                               "\"",
                                               "\\",
                                               "=",
                                               "a",
                                               "-w",
                                               "|",
                                               ";",
                                               "$$",
                                               "$NOPE$",
                                               "$_HOSTFOO$",
                                               "$USER2$",
                                               "~",
                                               "FOO=",
                                               "\t",
                                               "$ARG3$",
                                               "$(",
                                               ")",
                                               "`",
                                               "#",
                                               "X=",
                                               "$NOTIFICATIONCOMMENT$",
                                               "$SERVICENOTES$"};
  const std::vector<std::string> values = {"",
                                           "x",
                                           "a b",
                                           "-w 20%",
                                           "'q'",
                                           "\"d\"",
                                           "a\\b",
                                           "x;y",
                                           "$",
                                           "$$",
                                           "=",
                                           "K=v",
                                           "~",
                                           "*",
                                           "\t",
                                           "$HOSTNAME$",
                                           "(",
                                           "a=b c",
                                           " ",
                                           "`id`",
                                           "&",
                                           "é",
                                           "$SERVICEOUTPUT$",
                                           "[$SERVICEOUTPUT$]"};
  const std::vector<std::string> outputs = {"OK",    "",   "a b", "x;y", "'q' \"d\"",
                                            "$(id)", "\\", "#",   "=",   " ~ "};
  main().illegal_macro_output_chars.clear();
  std::mt19937 rng(42);
  auto pick = [&](const auto& v) {
    return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
  };
  model::StringPool pool;
  int resplits = 0;
  int outside = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string line;
    const int n = std::uniform_int_distribution<int>(1, 8)(rng);
    for (int i = 0; i < n; ++i) line += pick(line_parts);
    const model::CommandTemplate tmpl = config::compile_command_line(line, pool);
    const std::vector<std::string> arg_text = {pick(values), pick(values), pick(values)};
    const std::vector<std::string_view> args(arg_text.begin(), arg_text.end());
    services_[model::index(http_)].plugin_output = pick(outputs);
    const std::string comment = pick(outputs);  // the macros hold a view of it
    NotificationMacros notification;
    notification.comment = comment;
    MacroContext ctx = service_ctx();
    ctx.notification = &notification;
    const ExpandedCommand fast = expand_command(tmpl, ctx, args);

    // Expand each argument, then the line, then split, marking what came from outside.
    std::vector<std::string> expanded_args;
    std::vector<config::OutsideSpans> args_outside;
    std::vector<std::string_view> views;
    expanded_args.reserve(3);
    args_outside.reserve(3);
    for (const std::string& a : arg_text) {
      ctx.args = views;
      ctx.args_outside = args_outside;
      std::string e;
      config::OutsideSpans spans;
      process_macros(a, ctx, k_strip_illegal, e, spans);
      expanded_args.push_back(e);
      args_outside.push_back(spans);
      views.assign(expanded_args.begin(), expanded_args.end());
    }
    ctx.args = views;
    ctx.args_outside = args_outside;
    std::string whole;
    config::OutsideSpans spans;
    process_macros(line, ctx, k_strip_illegal, whole, spans);
    bool shell = false;
    std::vector<config::EnvVar> env;
    const std::vector<std::string> argv = config::split_expanded_line(whole, spans, shell, env);
    if (shell != tmpl.needs_shell) ++resplits;
    if (!spans.empty()) ++outside;
    const auto where = [&] {
      return "line: " + line + " args: " + arg_text[0] + "|" + arg_text[1] + "|" + arg_text[2];
    };
    ASSERT_EQ(fast.shell, shell) << where();
    ASSERT_EQ(fast.argv, argv) << where();
    ASSERT_EQ(fast.env, env) << where();
  }
  main().illegal_macro_output_chars = "`~$&|'\"<>";
  EXPECT_GT(resplits, 100) << "the generator should exercise the slow path too";
  EXPECT_GT(outside, 2000) << "and values from outside";
}

// What the stand-in for mail(1) got from `line` run by /bin/sh (popen runs `/bin/sh -c line`).
std::string mail_after(const std::string& line, const fs::path& dir) {
  fs::remove(dir / "mail.out");
  FILE* pipe = ::popen(line.c_str(), "w");
  if (pipe == nullptr) return "<popen failed>";
  ::pclose(pipe);
  std::ifstream in(dir / "mail.out");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Issue 33: an acknowledgement comment or a custom notification's comment reaching a command without
// shell syntax stays plain words; Naemon runs `/usr/bin/logger looking; touch /tmp/x …` through /bin/sh.
TEST_F(MacroTest, CommentsNeverBringTheShell) {
  NotificationMacros n;
  n.type = "ACKNOWLEDGEMENT";
  n.author = "eve";
  n.comment = "looking; touch /tmp/x";
  n.acknowledgement = true;
  MacroContext ctx = service_ctx();
  ctx.notification = &n;
  const model::Model& m = model();
  const model::CommandTemplate& logger =
      m.commands[model::index(m.command_by_name.at("logger_like"))].compiled;
  ExpandedCommand c = expand_command(logger, ctx, {});
  EXPECT_FALSE(c.shell);
  EXPECT_EQ(c.argv,
            (Strings{"/usr/bin/logger", "looking;", "touch", "/tmp/x", "looking;", "touch", "/tmp/x"}));

  n.type = "CUSTOM";
  n.comment = "hello; touch /tmp/x $(reboot) `halt` 'q' \"d\" \\";
  n.acknowledgement = false;
  main().illegal_macro_output_chars.clear();
  c = expand_command(logger, ctx, {});
  main().illegal_macro_output_chars = "`~$&|'\"<>";
  EXPECT_FALSE(c.shell);
  EXPECT_EQ(c.argv, (Strings{"/usr/bin/logger", "hello;", "touch", "/tmp/x", "$(reboot)", "`halt`", "'q'",
                             "\"d\"", "\\"}));
}

// The same for every way an outside value reaches a command: the plugin output directly, inside an
// $ARGn$, inside a note, in an on-demand macro, and a custom variable CHANGE_CUSTOM_SVC_VAR set.
TEST_F(MacroTest, ValuesFromOutsideKeepTheirPlaceWhereverTheyComeFrom) {
  ServiceState& s = services_[model::index(http_)];
  s.plugin_output = "a;b c|d";
  auto changed = std::make_shared<state::Overrides>();
  changed->custom_variables.push_back({"SNMP_COMMUNITY", "x;y"});
  s.overrides = changed;
  main().illegal_macro_output_chars.clear();
  const struct {
    std::string_view arg;
    Strings argv;
  } cases[] = {
      {"$SERVICEOUTPUT$", {"/bin/echo", "a;b", "c|d"}},
      {"[$SERVICEOUTPUT$]", {"/bin/echo", "[a;b", "c|d]"}},
      {"$SERVICEOUTPUT:web01:HTTP$", {"/bin/echo", "a;b", "c|d"}},
      {"$SERVICENOTES$", {"/bin/echo", "last", "said:", "a;b", "c|d"}},
      {"$_SERVICESNMP_COMMUNITY$", {"/bin/echo", "x;y"}},
  };
  for (const auto& c : cases) {
    const ExpandedCommand e = run("echo_args", {c.arg});
    EXPECT_FALSE(e.shell) << c.arg;
    EXPECT_EQ(e.argv, c.argv) << c.arg;
  }
  // A configured argument keeps Naemon's meaning: its ';' asks for the shell, where the value is escaped.
  const ExpandedCommand e = run("echo_args", {"x;", "$SERVICEOUTPUT$"});
  EXPECT_TRUE(e.shell);
  EXPECT_EQ(e.argv, Strings{R"(/bin/echo x; a\;b c\|d )"});
  main().illegal_macro_output_chars = "`~$&|'\"<>";
  s.overrides = nullptr;
}

// Naemon's sample notification commands (printf … | mail): with an ordinary plugin output the line and
// what mail(1) gets are Naemon's; with a hostile one mail(1) gets the output as printf's argument had it
// verbatim, and nothing else runs.
TEST_F(MacroTest, SampleNotificationCommandsAsNaemonAndSafe) {
  main().illegal_macro_output_chars.clear();
  const std::string canary = (dir() / "pwned").string();
  const std::string touch = "touch " + canary;
  const std::vector<std::string> benign = {"PING OK - Packet loss = 0%, RTA = 0.80 ms",
                                           "DISK CRITICAL - free space: / 3% (it's full); inode=5%",
                                           "HTTP WARNING: 404 Not Found <html> & more * ? ~user"};
  const std::vector<std::string> hostile = {
      "\"; " + touch + "; \"", "$(" + touch + ")", "`" + touch + "`", "'; " + touch + "; '",
      "it's \\ \"x\"",         "a\nb; " + touch,   "$HOME ${PATH}",   "\\\"; " + touch + "; #"};
  NotificationMacros n;
  n.type = "PROBLEM";
  MacroContext ctx = service_ctx();
  ctx.notification = &n;
  ctx.contact = model().contact_by_name.at("admin");
  const model::Model& m = model();
  for (const char* command : {"notify-service-by-email", "notify-host-by-email"}) {
    const model::CommandTemplate& t = m.commands[model::index(m.command_by_name.at(command))].compiled;
    const bool host = std::string_view(command).starts_with("notify-host");
    std::string& output =
        host ? hosts_[model::index(web01_)].plugin_output : services_[model::index(http_)].plugin_output;
    const std::string_view macro = host ? "$HOSTOUTPUT$" : "$SERVICEOUTPUT$";

    for (const std::string& value : benign) {
      output = value;
      const ExpandedCommand c = expand_command(t, ctx, {});
      std::string naemon;
      process_macros(t.line, ctx, k_strip_illegal, naemon);
      ASSERT_TRUE(c.shell) << command;
      EXPECT_EQ(c.argv, Strings{naemon}) << "the same line as Naemon's";
      const std::string got = mail_after(c.argv.front(), dir());
      EXPECT_EQ(got, mail_after(naemon, dir()));
      EXPECT_NE(got.find(value), std::string::npos) << got;
    }
    for (const std::string& value : hostile) {
      output = value;
      const ExpandedCommand c = expand_command(t, ctx, {});
      ASSERT_TRUE(c.shell) << command;
      // The reference passes the value through the environment, where no shell reads it as syntax.
      std::string cleaned;
      process_macros(macro, ctx, k_strip_illegal, cleaned);
      std::string reference_line(t.line);
      reference_line.replace(reference_line.find(macro), macro.size(), "$${VEDETTE_VALUE}");
      std::string reference;
      process_macros(reference_line, ctx, k_strip_illegal, reference);
      ::setenv("VEDETTE_VALUE", cleaned.c_str(), 1);
      const std::string want = mail_after(reference, dir());
      ::unsetenv("VEDETTE_VALUE");
      ASSERT_NE(want.find("stdin:"), std::string::npos) << reference;
      EXPECT_EQ(mail_after(c.argv.front(), dir()), want) << "line: " << c.argv.front();
      ASSERT_FALSE(fs::exists(canary)) << "line: " << c.argv.front();
    }
  }
  main().illegal_macro_output_chars = "`~$&|'\"<>";
}

}  // namespace
}  // namespace vedette::engine
