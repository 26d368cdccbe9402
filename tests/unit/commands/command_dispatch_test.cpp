#include "commands/command_dispatch.hpp"

#include "commands/command_id.hpp"
#include "commands/command_line.hpp"
#include "commands/command_reader.hpp"
#include "engine/core.hpp"
#include "loaded_config.hpp"
#include "loop/clock.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vedette::commands {
namespace {

// One object of each kind a command names, under the names valid_line() writes.
constexpr std::string_view k_objects = R"(define command {
  command_name  ok
  command_line  /bin/true
}
define timeperiod {
  timeperiod_name  24x7
  alias            always
  monday           00:00-24:00
}
define contact {
  contact_name                   alice
  host_notification_commands     ok
  service_notification_commands  ok
  host_notification_period       24x7
  service_notification_period    24x7
}
define contactgroup {
  contactgroup_name  admins
  members            alice
}
define host {
  host_name           web01
  address             127.0.0.1
  check_command       ok
  max_check_attempts  1
  hostgroups          hg
}
define hostgroup {
  hostgroup_name  hg
}
define service {
  host_name            web01
  service_description  HTTP
  check_command        ok
  max_check_attempts   1
  servicegroups        sg
}
define servicegroup {
  servicegroup_name  sg
}
)";

// A line that parses and validates for `spec`: each argument names the object above of its type, or is 0.
std::string valid_line(const CommandSpec& spec) {
  std::string line = "[1700000000] " + std::string(spec.name);
  for (const ArgSpec& arg : spec.params) {
    line += ';';
    switch (arg.type) {
      case ArgType::host:
        line += "web01";
        break;
      case ArgType::service:
        line += "web01;HTTP";
        break;
      case ArgType::hostgroup:
        line += "hg";
        break;
      case ArgType::servicegroup:
        line += "sg";
        break;
      case ArgType::contact:
        line += "alice";
        break;
      case ArgType::contactgroup:
        line += "admins";
        break;
      case ArgType::timeperiod:
        line += "24x7";
        break;
      case ArgType::str:
        line += spec.id == CommandId::process_file ? "/nonexistent/commands" : "x";
        break;
      case ArgType::boolean:
      case ArgType::integer:
      case ArgType::ulong:
      case ArgType::timestamp:
        line += "0";
        break;
    }
  }
  return line;
}

// A Core over k_objects (its loop not running) and a reader without the FIFO, as Livestatus uses it. The
// log is read once the core is gone, which flushes it.
class DispatchTest : public ::testing::Test {
 protected:
  DispatchTest() {
    loaded_.load(k_objects, "log_file=" + loaded_.dir.file("vedette.log") +
                                "\nstatus_file=/dev/null\ncheck_external_commands=0\n"
                                "retain_state_information=0\n");
    core_ = std::make_unique<engine::Core>(std::move(loaded_.config), clock_);
    reader_ = std::make_unique<CommandReader>(*core_, false);
  }

  std::optional<std::string> execute(std::string_view line) { return reader_->execute(line); }

  // Every line logged, without its "[time] " prefix; ends the core.
  std::vector<std::string> finish() {
    reader_.reset();
    core_.reset();
    std::ifstream in(loaded_.dir.file("vedette.log"));
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
      const std::size_t text = line.find("] ");
      lines.push_back(text == std::string::npos ? line : line.substr(text + 2));
    }
    return lines;
  }

  static bool contains(const std::vector<std::string>& lines, std::string_view wanted) {
    for (const std::string& line : lines)
      if (line == wanted) return true;
    return false;
  }

  test::LoadedConfig loaded_{"vedette_dispatch"};
  loop::ManualClock clock_;
  std::unique_ptr<engine::Core> core_;
  std::unique_ptr<CommandReader> reader_;
};

TEST(CommandIds, EachSpecIsFoundByItsIdAndItsName) {
  ASSERT_EQ(command_specs().size(), k_command_count);
  for (std::size_t i = 0; i < command_specs().size(); ++i) {
    const CommandSpec& spec = command_specs()[i];
    EXPECT_EQ(index(spec.id), i) << spec.name;
    EXPECT_EQ(&command_spec(spec.id), &spec) << spec.name;
    EXPECT_EQ(find_command_spec(spec.name), &spec) << spec.name;
  }
}

// Every command Naemon knows reaches a handler of its own: only the two Vedette does not carry out yet say
// so, and every other one is logged and carried out without that warning.
TEST_F(DispatchTest, EveryCommandReachesItsHandler) {
  for (const CommandSpec& spec : command_specs()) {
    const std::string line = valid_line(spec);
    EXPECT_EQ(execute(line), std::nullopt) << line;
  }
  const std::vector<std::string> log = finish();
  std::set<std::string> unsupported;
  constexpr std::string_view k_warning = "Warning: External command '";
  for (const std::string& line : log)
    if (line.starts_with(k_warning))
      unsupported.insert(line.substr(k_warning.size(), line.find('\'', 27) - 27));
  EXPECT_EQ(unsupported,
            (std::set<std::string>{"SET_HOST_NOTIFICATION_NUMBER", "SET_SVC_NOTIFICATION_NUMBER"}));
  for (const CommandSpec& spec : command_specs()) {
    if (spec.id == CommandId::log) continue;  // LOG writes its own line instead
    const std::string line = valid_line(spec);
    const std::string args =
        line.substr(line.find(';') == std::string::npos ? line.size() : line.find(';') + 1);
    EXPECT_TRUE(contains(log, "EXTERNAL COMMAND: " + std::string(spec.name) + ";" + args)) << spec.name;
  }
}

TEST_F(DispatchTest, AnUnknownNameIsAParseWarning) {
  EXPECT_EQ(execute("[1700000000] NO_SUCH_COMMAND;web01"), "Unknown command 'NO_SUCH_COMMAND'");
  const std::vector<std::string> log = finish();
  EXPECT_TRUE(contains(log,
                       "Warning: External command parse error [1700000000] NO_SUCH_COMMAND;web01 "
                       "(Unknown command 'NO_SUCH_COMMAND')"));
}

TEST_F(DispatchTest, ACustomCommandIsLoggedAndNotSupported) {
  EXPECT_EQ(execute("[1700000000] _MY_COMMAND;a;b"), std::nullopt);
  const std::vector<std::string> log = finish();
  EXPECT_TRUE(contains(log, "EXTERNAL COMMAND: _MY_COMMAND;a;b"));
  EXPECT_TRUE(
      contains(log, "Warning: External command '_MY_COMMAND' is not supported by Vedette yet; ignored"));
}

TEST_F(DispatchTest, CommandsNaemonRefusesFail) {
  for (std::string_view line :
       {"[1700000000] CHANGE_HOST_CHECK_COMMAND;web01;ok", "[1700000000] CHANGE_GLOBAL_SVC_EVENT_HANDLER;ok"})
    EXPECT_EQ(execute(line), std::nullopt);
  const std::vector<std::string> log = finish();
  EXPECT_TRUE(contains(log, "Error: External command failed -> CHANGE_HOST_CHECK_COMMAND;web01;ok"));
  EXPECT_TRUE(contains(log, "Error: External command failed -> CHANGE_GLOBAL_SVC_EVENT_HANDLER;ok"));
}

TEST_F(DispatchTest, AnUnknownObjectIsRefusedBeforeDispatch) {
  EXPECT_EQ(execute("[1700000000] ENABLE_HOST_CHECK;nosuchhost"),
            "Failed validation of host_name as type host (argument 0)");
  const std::vector<std::string> log = finish();
  EXPECT_FALSE(contains(log, "EXTERNAL COMMAND: ENABLE_HOST_CHECK;nosuchhost"));
}

}  // namespace
}  // namespace vedette::commands
