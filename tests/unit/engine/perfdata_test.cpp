// Performance data as Naemon's perfdata.c ("xpddefault") produces it, against a model loaded by the real
// loader: which results count, the file line from a template (escapes, macros without cleaning), the perfdata
// and processing commands (expanded with cleaning, split as runcmd), the processing schedule, and one file
// processed end to end with files::PerfdataFile.
#include "engine/perfdata/perfdata.hpp"

#include "config/loader.hpp"
#include "loaded_config.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace vedette::engine {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using Strings = std::vector<std::string>;

constexpr const char* k_objects = R"(define command {
  command_name  check_ping
  command_line  /bin/true $HOSTADDRESS$
}
define command {
  command_name  echo_args
  command_line  /bin/echo $ARG1$ $ARG2$ $ARG3$
}
define command {
  command_name  quoted
  command_line  /bin/echo '$ARG1$' "$SERVICEOUTPUT$"
}
define command {
  command_name  process-service-perfdata
  command_line  /bin/mv $SERVICEPERFDATAFILE$ $SERVICEPERFDATAFILE$.$ARG1$
}
define command {
  command_name  count-host-perfdata
  command_line  cat $HOSTPERFDATAFILE$ | wc -l >> $ARG1$
}
define timeperiod {
  timeperiod_name  24x7
  alias            always
  monday           00:00-24:00
}
define contact {
  contact_name                   admin
  host_notification_commands     echo_args
  service_notification_commands  echo_args
  host_notification_period       24x7
  service_notification_period    24x7
}
define host {
  host_name           web01
  contacts            admin
  address             10.0.0.1
  check_command       check_ping
  max_check_attempts  3
}
define service {
  host_name           web01
  service_description HTTP
  contacts            admin
  check_command       check_ping
  max_check_attempts  4
}
)";

class PerfdataTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    loaded_ = new test::LoadedConfig("vedette_perfdata");
    const test::TempDir& dir = loaded_->dir;
    loaded_->load(k_objects,
                  "illegal_macro_output_chars=`~$&|'\"<>\n"
                  "process_performance_data=1\n"
                  "service_perfdata_file=" +
                      dir.file("service-perfdata") +
                      "\n"
                      "service_perfdata_file_processing_command=process-service-perfdata!done\n"
                      "service_perfdata_file_processing_interval=15\n"
                      "host_perfdata_file=" +
                      dir.file("host-perfdata") +
                      "\n"
                      "host_perfdata_file_mode=p\n"
                      "host_perfdata_file_processing_command=count-host-perfdata!/tmp/x\n"
                      "host_perfdata_file_processing_interval=30\n"
                      "host_perfdata_file_template=$HOSTNAME$\\t$HOSTSTATE$\\t$HOSTPERFDATA$\\x\n"
                      "perfdata_timeout=7\n",
                  test::Failing::warnings_too);
  }
  static void TearDownTestSuite() { delete loaded_; }
  static std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  void SetUp() override {
    const model::Model& m = model();
    hosts_.resize(m.hosts.size());
    services_.resize(m.services.size());
    web01_ = m.host_by_name.at("web01");
    http_ = m.find_service("web01", "HTTP");
    HostState& h = hosts_[model::index(web01_)];
    h.flags = state::configured_flags(m.host(web01_));  // as the core starts: process_perf_data on
    h.has_been_checked = true;
    h.execution_time = 0.25;
    h.plugin_output = "PING OK - rta 1ms";
    h.perf_data = "rta=1ms;100;500";
    ServiceState& s = services_[model::index(http_)];
    s.flags = state::configured_flags(m.service(http_));
    s.current_state = k_state_critical;
    s.execution_time = 0.0125;
    s.latency = 0.5;
    s.plugin_output = "HTTP `CRITICAL` | oops";
    s.perf_data = "time=5s;1;2";
    s.has_been_checked = true;
  }

  static const model::Model& model() { return loaded_->model(); }
  static config::MainConfig& main() { return loaded_->config.main; }
  static const fs::path& dir() { return loaded_->dir.path(); }

  MacroContext service_ctx() const {
    return MacroContext{.model = model(),
                        .main = main(),
                        .host = web01_,
                        .service = http_,
                        .now = now_,
                        .all_hosts = &hosts_,
                        .all_services = &services_};
  }
  MacroContext host_ctx() const {
    return MacroContext{.model = model(),
                        .main = main(),
                        .host = web01_,
                        .now = now_,
                        .all_hosts = &hosts_,
                        .all_services = &services_};
  }
  MacroContext global_ctx() const {
    return MacroContext{
        .model = model(), .main = main(), .now = now_, .all_hosts = &hosts_, .all_services = &services_};
  }

  static inline test::LoadedConfig* loaded_ = nullptr;
  std::vector<HostState> hosts_;
  std::vector<ServiceState> services_;
  model::HostId web01_{};
  model::ServiceId http_{};
  Time now_ = 1'700'000'000;
};

TEST(PerfdataRules, GlobalSwitchObjectFlagAndEmptyResults) {
  static_assert(wants_perfdata(true, true, true, ""));
  static_assert(wants_perfdata(true, true, true, "a=1"));
  static_assert(wants_perfdata(true, true, false, "a=1"));
  static_assert(!wants_perfdata(true, true, false, ""));
  static_assert(!wants_perfdata(false, true, true, "a=1"));
  static_assert(!wants_perfdata(true, false, true, "a=1"));
  static_assert(!wants_perfdata(false, false, false, ""));
}

TEST(PerfdataRules, FromTheLiveState) {
  config::MainConfig main;
  main.process_performance_data = true;
  CheckState st;
  st.set_enabled(state::Flag::process_perf_data, true);
  EXPECT_TRUE(wants_perfdata(main, PerfdataObject::service, st));  // empty results count by default
  main.service_perfdata_process_empty_results = false;
  EXPECT_FALSE(wants_perfdata(main, PerfdataObject::service, st));
  EXPECT_TRUE(wants_perfdata(main, PerfdataObject::host, st));  // the host option is separate
  st.perf_data = "x=1";
  EXPECT_TRUE(wants_perfdata(main, PerfdataObject::service, st));
  st.set_enabled(state::Flag::process_perf_data, false);  // DISABLE_SVC_PERFDATA
  EXPECT_FALSE(wants_perfdata(main, PerfdataObject::service, st));
  st.set_enabled(state::Flag::process_perf_data, true);
  main.process_performance_data = false;  // DISABLE_PERFORMANCE_DATA
  EXPECT_FALSE(wants_perfdata(main, PerfdataObject::service, st));
}

TEST(PerfdataTemplate, EscapesAsXpddefaultPreprocess) {
  EXPECT_EQ(prepare_perfdata_template(""), "\n");
  EXPECT_EQ(prepare_perfdata_template(R"(a\tb\nc\rd)"), "a\tb\nc\rd\n");
  EXPECT_EQ(prepare_perfdata_template(R"(\x\\t\)"), "\\x\\\t\\\n");  // only \t \r \n; "\\t" is '\' + tab
  EXPECT_EQ(prepare_perfdata_template("real\ttab"), "real\ttab\n");
  config::MainConfig defaults;
  EXPECT_EQ(prepared_perfdata_template(defaults, PerfdataObject::host),
            "[HOSTPERFDATA]\t$TIMET$\t$HOSTNAME$\t$HOSTEXECUTIONTIME$\t$HOSTOUTPUT$\t$HOSTPERFDATA$\n");
  EXPECT_EQ(prepared_perfdata_template(defaults, PerfdataObject::service),
            "[SERVICEPERFDATA]\t$TIMET$\t$HOSTNAME$\t$SERVICEDESC$\t$SERVICEEXECUTIONTIME$\t$SERVICELATENCY$"
            "\t$SERVICEOUTPUT$\t$SERVICEPERFDATA$\n");
}

TEST_F(PerfdataTest, DefaultServiceLineKeepsOutputUncleaned) {
  std::string line;
  append_perfdata_line(prepared_perfdata_template(main(), PerfdataObject::service), service_ctx(), line);
  // process_macros_r with options 0: the ` of the output stays although illegal_macro_output_chars has it.
  EXPECT_EQ(
      line,
      "[SERVICEPERFDATA]\t1700000000\tweb01\tHTTP\t0.013\t0.500\tHTTP `CRITICAL` | oops\ttime=5s;1;2\n");
}

TEST_F(PerfdataTest, ConfiguredHostTemplateWithEscapes) {
  std::string line = "kept:";
  append_perfdata_line(prepared_perfdata_template(main(), PerfdataObject::host), host_ctx(), line);
  EXPECT_EQ(line, "kept:web01\tUP\trta=1ms;100;500\\x\n");  // appends
}

TEST_F(PerfdataTest, UnknownAndUnterminatedMacrosStayAsWritten) {
  std::string line;
  append_perfdata_line(prepare_perfdata_template("$NOSUCH$ $$ $HOSTNAME"), host_ctx(), line);
  // Naemon appends the newline before expanding: "$HOSTNAME\n" is no macro name.
  EXPECT_EQ(line, "$NOSUCH$ $ $HOSTNAME\n");
}

TEST_F(PerfdataTest, EmptyPerfdataStillGivesALineByDefault) {
  services_[model::index(http_)].perf_data.clear();
  EXPECT_TRUE(wants_perfdata(main(), PerfdataObject::service, services_[model::index(http_)]) ==
              main().service_perfdata_process_empty_results);
  std::string line;
  append_perfdata_line(prepare_perfdata_template("$SERVICEDESC$|$SERVICEPERFDATA$|"), service_ctx(), line);
  EXPECT_EQ(line, "HTTP||\n");
}

TEST_F(PerfdataTest, FindsCommandsAsFindBangCommand) {
  const std::optional<PerfdataCommand> c = find_perfdata_command(model(), "echo_args!a\\!b!$HOSTNAME$");
  ASSERT_TRUE(c);
  EXPECT_EQ(model().commands[model::index(c->command)].name, "echo_args");
  EXPECT_EQ(c->args, (Strings{"a!b", "$HOSTNAME$"}));
  EXPECT_EQ(c->text, "echo_args!a\\!b!$HOSTNAME$");
  EXPECT_FALSE(find_perfdata_command(model(), "nosuch!x"));
  EXPECT_FALSE(find_perfdata_command(model(), ""));
  EXPECT_EQ(
      perfdata_command_missing_warning(PerfdataObject::service, false, "nosuch!x"),
      "Warning: Service performance command 'nosuch!x' was not found - service performance data will not "
      "be processed!");
  EXPECT_EQ(
      perfdata_command_missing_warning(PerfdataObject::host, true, "nosuch"),
      "Warning: Host performance file processing command 'nosuch' was not found - host performance data file "
      "will not be processed!");
}

TEST_F(PerfdataTest, PerfdataCommandIsExpandedWithCleaningAndSplitAsRuncmd) {
  const std::optional<PerfdataCommand> c = find_perfdata_command(model(), "echo_args!$HOSTNAME$!-w 1 -c 2");
  ASSERT_TRUE(c);
  const ExpandedPerfdataCommand e = expand_perfdata_command(*c, service_ctx());
  EXPECT_EQ(e.command.argv, (Strings{"/bin/echo", "web01", "-w", "1", "-c", "2"}));
  EXPECT_FALSE(e.command.shell);
  EXPECT_EQ(e.line, "/bin/echo web01 -w 1 -c 2 ");  // $ARG3$ was not given: empty

  // The output macro loses the illegal characters here (STRIP_ILLEGAL_MACRO_CHARS), unlike in the file.
  const std::optional<PerfdataCommand> q = find_perfdata_command(model(), "quoted!x y");
  ASSERT_TRUE(q);
  const ExpandedPerfdataCommand eq = expand_perfdata_command(*q, service_ctx());
  EXPECT_EQ(eq.command.argv, (Strings{"/bin/echo", "x y", "HTTP CRITICAL  oops"}));
  EXPECT_EQ(eq.line, "/bin/echo 'x y' \"HTTP CRITICAL  oops\"");
}

TEST_F(PerfdataTest, ProcessingCommandSeesOnlyGlobalMacros) {
  const std::optional<PerfdataCommand> c =
      find_perfdata_command(model(), main().service_perfdata_file_processing_command);
  ASSERT_TRUE(c);
  const std::string file = main().service_perfdata_file;
  const files::PerfdataProcessing p = to_processing(expand_perfdata_command(*c, global_ctx()));
  EXPECT_EQ(p.argv, (Strings{"/bin/mv", file, file + ".done"}));
  EXPECT_FALSE(p.shell);
  EXPECT_EQ(p.command_line, "/bin/mv " + file + " " + file + ".done");

  const std::optional<PerfdataCommand> h = find_perfdata_command(model(), "count-host-perfdata!/tmp/counts");
  ASSERT_TRUE(h);
  const files::PerfdataProcessing hp = to_processing(expand_perfdata_command(*h, global_ctx()));
  EXPECT_TRUE(hp.shell);  // '|' makes runcmd use /bin/sh ('<' and '>' alone would not)
  EXPECT_EQ(hp.argv, (Strings{"cat " + main().host_perfdata_file + " | wc -l >> /tmp/counts"}));
  EXPECT_EQ(hp.command_line, hp.argv[0]);
}

TEST_F(PerfdataTest, ScheduleAndFileOptionsFollowTheConfiguration) {
  const ProcessingSchedule service = processing_schedule(main(), PerfdataObject::service);
  EXPECT_EQ(service.interval, 15u);
  EXPECT_EQ(service.warning, "");
  const ProcessingSchedule host = processing_schedule(main(), PerfdataObject::host);
  EXPECT_EQ(host.interval, 0u);
  EXPECT_EQ(host.warning,
            "Warning: Host performance file is configured to be a pipe - ignoring "
            "host_perfdata_file_processing_interval");
  config::MainConfig none;
  EXPECT_EQ(processing_schedule(none, PerfdataObject::service).interval, 0u);
  none.service_perfdata_file_processing_interval = 10;  // no command: nothing
  EXPECT_EQ(processing_schedule(none, PerfdataObject::service).interval, 0u);

  const files::PerfdataFileOptions so = perfdata_file_options(main(), PerfdataObject::service);
  EXPECT_EQ(so.path, (dir() / "service-perfdata").string());
  EXPECT_EQ(so.mode, files::PerfdataFileMode::append);
  EXPECT_EQ(so.object, PerfdataObject::service);
  EXPECT_EQ(so.timeout_seconds, 7);
  const files::PerfdataFileOptions ho = perfdata_file_options(main(), PerfdataObject::host);
  EXPECT_EQ(ho.path, (dir() / "host-perfdata").string());
  EXPECT_EQ(ho.mode, files::PerfdataFileMode::pipe);
  EXPECT_EQ(ho.object, PerfdataObject::host);
}

TEST_F(PerfdataTest, EndToEndServiceFileWithProcessing) {
  const std::string path = main().service_perfdata_file;
  const std::optional<PerfdataCommand> c =
      find_perfdata_command(model(), main().service_perfdata_file_processing_command);
  ASSERT_TRUE(c);
  const std::string tmpl = prepared_perfdata_template(main(), PerfdataObject::service);
  std::string first, second;
  {
    files::PerfdataFile file(perfdata_file_options(main(), PerfdataObject::service));
    if (wants_perfdata(main(), PerfdataObject::service, services_[model::index(http_)])) {
      append_perfdata_line(tmpl, service_ctx(), first);
      file.write(first);
    }
    file.flush();
    file.process(to_processing(expand_perfdata_command(*c, global_ctx())));
    services_[model::index(http_)].perf_data = "time=6s;1;2";
    append_perfdata_line(tmpl, service_ctx(), second);
    file.write(second);
    ASSERT_TRUE(file.wait_idle(10s));
  }
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(read(path + ".done"), first);
  EXPECT_EQ(read(path), second);
}

}  // namespace
}  // namespace vedette::engine
