#include "commands/command_line.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::commands {
namespace {

using Fields = std::vector<std::string_view>;

ExternalCommand parse_ok(std::string_view line) {
  ParsedLine parsed = parse_external_command(line);
  EXPECT_TRUE(parsed.ok()) << line << " -> " << (parsed.ok() ? "" : parsed.error().message);
  return parsed.ok() ? parsed.command() : ExternalCommand{};
}

CommandError parse_error(std::string_view line) {
  ParsedLine parsed = parse_external_command(line);
  EXPECT_FALSE(parsed.ok()) << line;
  return parsed.ok() ? CommandError{} : parsed.error();
}

TEST(CommandLine, ServiceCheckResultOutputKeepsSemicolons) {
  const ExternalCommand c =
      parse_ok("[1700000000] PROCESS_SERVICE_CHECK_RESULT;web01;HTTP;2;CRITICAL - a;b;c | time=1s;2;3\n");
  EXPECT_EQ(c.entry_time, 1700000000);
  EXPECT_EQ(c.name, "PROCESS_SERVICE_CHECK_RESULT");
  EXPECT_EQ(c.args, (Fields{"web01", "HTTP", "2", "CRITICAL - a;b;c | time=1s;2;3"}));
  EXPECT_EQ(c.raw_args, "web01;HTTP;2;CRITICAL - a;b;c | time=1s;2;3");
  EXPECT_EQ(c.number(2), 2);
  ASSERT_NE(c.spec, nullptr);
  EXPECT_EQ(c.spec->naemon_id, 30);
  EXPECT_FALSE(c.is_custom());
}

TEST(CommandLine, HostCheckResult) {
  const ExternalCommand c = parse_ok("[5] PROCESS_HOST_CHECK_RESULT;db;1;DOWN;really; |x=1");
  EXPECT_EQ(c.args, (Fields{"db", "1", "DOWN;really; |x=1"}));
  const ExternalCommand trailing = parse_ok("[5] PROCESS_HOST_CHECK_RESULT;db;0;out;");
  EXPECT_EQ(trailing.args[2], "out;");
}

TEST(CommandLine, WhitespaceAroundTheLineIsStripped) {
  const ExternalCommand c = parse_ok(" \t\r\n[42] DISABLE_NOTIFICATIONS \r\n");
  EXPECT_EQ(c.entry_time, 42);
  EXPECT_EQ(c.name, "DISABLE_NOTIFICATIONS");
  EXPECT_TRUE(c.args.empty());
  EXPECT_EQ(c.raw_args, "");
  // Only Naemon's four strip characters: a vertical tab stays and makes the name unknown.
  EXPECT_EQ(parse_error("[1] DISABLE_NOTIFICATIONS\v").code, CommandErrorCode::unknown_command);
}

TEST(CommandLine, TimestampRules) {
  EXPECT_EQ(parse_ok("[ +7] SAVE_STATE_INFORMATION").entry_time, 7);  // strtoul: leading space and sign
  EXPECT_EQ(parse_ok("[0] SAVE_STATE_INFORMATION").entry_time, 0);
  EXPECT_EQ(parse_ok("junk before [9] SAVE_STATE_INFORMATION").entry_time, 9);  // Naemon ignores it
  EXPECT_EQ(parse_ok("[-1] SAVE_STATE_INFORMATION").entry_time, -1);            // strtoul wraps to (time_t)-1

  CommandError e = parse_error("[] SAVE_STATE_INFORMATION");
  EXPECT_EQ(e.code, CommandErrorCode::malformed_command);
  EXPECT_EQ(e.message, "Failed to parse command timestamp: No digits found in ulong ''");
  e = parse_error("[12a] SAVE_STATE_INFORMATION");
  EXPECT_EQ(e.message, "Failed to parse command timestamp: Invalid characters (a) in ulong '12a'");
  e = parse_error("[99999999999999999999] SAVE_STATE_INFORMATION");
  EXPECT_EQ(e.message,
            "Failed to parse command timestamp: 'Numerical result out of range' while parsing ulong "
            "'99999999999999999999'");
}

TEST(CommandLine, MissingBracketsOrName) {
  const std::string no_timestamp = "Commands must begin with a timestamp inside square brackets";
  for (std::string_view line : {"", "   \n", "DISABLE_NOTIFICATIONS", "1234 DISABLE_NOTIFICATIONS", "x["}) {
    const CommandError e = parse_error(line);
    EXPECT_EQ(e.code, CommandErrorCode::malformed_command) << line;
    EXPECT_EQ(e.message, no_timestamp) << line;
  }
  // No ']': the rest is the timestamp (Naemon's test "[1234567890 A_MALFORMED_COMMAND").
  CommandError e = parse_error("[1234567890 A_MALFORMED_COMMAND");
  EXPECT_EQ(e.code, CommandErrorCode::malformed_command);
  EXPECT_EQ(e.message,
            "Failed to parse command timestamp: Invalid characters ( A_MALFORMED_COMMAND) in ulong "
            "'1234567890 A_MALFORMED_COMMAND'");
  for (std::string_view line : {"[1]", "[1]  \n", "[1"}) {
    e = parse_error(line);
    EXPECT_EQ(e.code, CommandErrorCode::malformed_command) << line;
    EXPECT_EQ(e.message, "Couldn't find command name: missing semicolon in command string") << line;
  }
}

TEST(CommandLine, NameStartsOneByteAfterTheBracket) {
  // Naemon skips exactly one byte after ']', whatever it is.
  EXPECT_EQ(parse_ok("[1]\tSAVE_STATE_INFORMATION").name, "SAVE_STATE_INFORMATION");
  CommandError e = parse_error("[1]SAVE_STATE_INFORMATION");
  EXPECT_EQ(e.code, CommandErrorCode::unknown_command);
  EXPECT_EQ(e.message, "Unknown command 'AVE_STATE_INFORMATION'");
  e = parse_error("[1]  SAVE_STATE_INFORMATION");
  EXPECT_EQ(e.message, "Unknown command ' SAVE_STATE_INFORMATION'");
}

TEST(CommandLine, UnknownCommandIsReportedWithItsName) {
  const std::string line = "[1234567890] NOT_A_REGISTERED_COMMAND;a;b\n";
  const CommandError e = parse_error(line);
  EXPECT_EQ(e.code, CommandErrorCode::unknown_command);
  EXPECT_EQ(e.message, "Unknown command 'NOT_A_REGISTERED_COMMAND'");
  EXPECT_EQ(parse_warning_text(line, e),
            "Warning: External command parse error [1234567890] NOT_A_REGISTERED_COMMAND;a;b "
            "(Unknown command 'NOT_A_REGISTERED_COMMAND')");
  EXPECT_EQ(parse_error("[1] disable_notifications").code,
            CommandErrorCode::unknown_command);  // case matters
}

TEST(CommandLine, CustomCommandsPassUnchecked) {
  const ExternalCommand c = parse_ok("[3] _MY_THING;a;b;;c");
  EXPECT_TRUE(c.is_custom());
  EXPECT_EQ(c.name, "_MY_THING");
  EXPECT_EQ(c.raw_args, "a;b;;c");
  EXPECT_TRUE(c.args.empty());
  EXPECT_EQ(external_command_log_text(c), "EXTERNAL COMMAND: _MY_THING;a;b;;c");
}

TEST(CommandLine, ServiceArgumentTakesTwoFields) {
  const ExternalCommand c = parse_ok("[1] SCHEDULE_SVC_DOWNTIME;h;s;100;200;1;0;3600;admin;maint;window");
  EXPECT_EQ(c.args, (Fields{"h", "s", "100", "200", "1", "0", "3600", "admin", "maint;window"}));
  EXPECT_EQ(c.args.size(), c.spec->field_count);
  EXPECT_EQ(c.number(3), 200);

  CommandError e = parse_error("[1] ENABLE_SVC_CHECK;just_a_host");
  EXPECT_EQ(e.code, CommandErrorCode::type_mismatch);
  EXPECT_EQ(e.message, "No service description provided at argument 1");
  // An empty description is left to the dispatcher's lookup, as Naemon leaves it to its validator.
  EXPECT_EQ(parse_ok("[1] ENABLE_SVC_CHECK;h;").args, (Fields{"h", ""}));
  e = parse_error("[1] ENABLE_SVC_CHECK;h;s;extra");
  EXPECT_EQ(e.code, CommandErrorCode::excess_argument);
  EXPECT_EQ(e.message, "Too many arguments to command - expected 1");
}

TEST(CommandLine, MissingAndEmptyArguments) {
  CommandError e = parse_error("[1] ACKNOWLEDGE_HOST_PROBLEM");
  EXPECT_EQ(e.code, CommandErrorCode::missing_argument);
  EXPECT_EQ(e.message, "No value for argument host_name provided, and no default found");
  e = parse_error("[1] ADD_HOST_COMMENT;;1");
  EXPECT_EQ(e.code, CommandErrorCode::missing_argument);
  e = parse_error("[1] PROCESS_HOST_CHECK_RESULT;db;0");
  EXPECT_EQ(e.code, CommandErrorCode::missing_argument);
  EXPECT_EQ(e.message, "Missing argument: expected 3 arguments, found 2");
  // An empty last string is an empty argument: Naemon rejects a passive result with no output.
  e = parse_error("[1] PROCESS_SERVICE_CHECK_RESULT;h;s;0;");
  EXPECT_EQ(e.code, CommandErrorCode::missing_argument);
  EXPECT_EQ(e.message, "No value for argument plugin_output provided, and no default found");
  e = parse_error("[1] PROCESS_SERVICE_CHECK_RESULT;;s;0;out");
  EXPECT_EQ(e.message, "No value for argument service provided, and no default found");
}

TEST(CommandLine, ExcessArguments) {
  CommandError e = parse_error("[1] DEL_HOST_COMMENT;10;Excess argument;snurre");
  EXPECT_EQ(e.code, CommandErrorCode::excess_argument);
  e = parse_error("[1] DEL_HOST_COMMENT;10;");  // even an empty one
  EXPECT_EQ(e.code, CommandErrorCode::excess_argument);
  // A command without arguments ignores anything after its name, as Naemon does.
  const ExternalCommand c = parse_ok("[1] SHUTDOWN_PROGRAM;whatever;else");
  EXPECT_TRUE(c.args.empty());
  EXPECT_EQ(c.raw_args, "whatever;else");
}

TEST(CommandLine, DefaultsFillEmptyAndTrailingArguments) {
  ExternalCommand c = parse_ok("[1] DEL_DOWNTIME_BY_HOST_NAME;web01");
  EXPECT_EQ(c.args, (Fields{"web01", "", "0", ""}));
  c = parse_ok("[1] DEL_DOWNTIME_BY_HOST_NAME");
  EXPECT_EQ(c.args, (Fields{"", "", "0", ""}));
  c = parse_ok("[1] DEL_DOWNTIME_BY_HOSTGROUP_NAME;g;;svc;;maint;x");
  EXPECT_EQ(c.args, (Fields{"g", "", "svc", "0", "maint;x"}));
  EXPECT_EQ(parse_error("[1] DEL_DOWNTIME_BY_HOSTGROUP_NAME").code, CommandErrorCode::missing_argument);
}

TEST(CommandLine, NumericArguments) {
  CommandError e = parse_error("[1] ACKNOWLEDGE_HOST_PROBLEM;host1;author;comment;2;0;fillet knife");
  EXPECT_EQ(e.code, CommandErrorCode::type_mismatch);
  EXPECT_EQ(e.message,
            "Couldn't parse integer argument sticky (argument 1): No digits found in integer 'author'");
  e = parse_error("[1] ADD_HOST_COMMENT;h;1x;me;text");
  EXPECT_EQ(e.message,
            "Couldn't parse bool argument persistent (argument 1): Invalid characters (x) in integer '1x'");
  e = parse_error("[1] ADD_HOST_COMMENT;h;4;me;text");
  EXPECT_EQ(e.code, CommandErrorCode::validation_failure);
  EXPECT_EQ(e.message, "Failed validation of persistent as type bool (argument 1)");
  e = parse_error("[1] DEL_SVC_DOWNTIME;14:49");
  EXPECT_EQ(
      e.message,
      "Couldn't parse ulong argument downtime_id (argument 0): Invalid characters (:49) in ulong '14:49'");
  e = parse_error("[1] SCHEDULE_HOST_CHECK;h;soon");
  EXPECT_EQ(e.message,
            "Couldn't parse timestamp argument check_time (argument 1): No digits found in ulong 'soon'");
  e = parse_error("[1] PROCESS_HOST_CHECK_RESULT;h;9223372036854775808;x");
  EXPECT_EQ(e.code, CommandErrorCode::type_mismatch);
  EXPECT_EQ(parse_ok("[1] PROCESS_HOST_CHECK_RESULT;h;-9223372036854775808;x").number(1), INT64_MIN);
  EXPECT_EQ(parse_ok("[1] PROCESS_HOST_CHECK_RESULT;h; -3;x").number(1), -3);
}

TEST(CommandLine, NulEndsTheLine) {
  using namespace std::string_literals;
  const std::string line = "[1] PROCESS_HOST_CHECK_RESULT;h;0;out\0ignored"s;
  EXPECT_EQ(parse_ok(line).args[2], "out");
}

TEST(CommandLine, LogTextAndWhetherItIsLogged) {
  ExternalCommand c = parse_ok("[1] DISABLE_NOTIFICATIONS");
  EXPECT_EQ(external_command_log_text(c), "EXTERNAL COMMAND: DISABLE_NOTIFICATIONS;");  // Naemon's ';'
  EXPECT_TRUE(is_logged(c, true, false));
  EXPECT_FALSE(is_logged(c, false, true));
  c = parse_ok("[1] PROCESS_HOST_CHECK_RESULT;h;0;ok");
  EXPECT_EQ(external_command_log_text(c), "EXTERNAL COMMAND: PROCESS_HOST_CHECK_RESULT;h;0;ok");
  EXPECT_TRUE(is_logged(c, false, true));
  EXPECT_FALSE(is_logged(c, true, false));
  c = parse_ok("[1] LOG;anything");
  EXPECT_FALSE(is_logged(c, true, true));
}

TEST(CommandLine, TableHasEveryNaemonCommandOnce) {
  const auto specs = command_specs();
  EXPECT_EQ(specs.size(), 162u);
  std::set<std::string_view> names;
  std::set<int> ids;
  for (const CommandSpec& spec : specs) {
    EXPECT_TRUE(names.insert(spec.name).second) << spec.name;
    if (spec.naemon_id >= 0) {
      EXPECT_TRUE(ids.insert(spec.naemon_id).second) << spec.name;
    }
    EXPECT_EQ(find_command_spec(spec.name), &spec);
    std::size_t fields = 0;
    for (const ArgSpec& arg : spec.params) fields += arg.type == ArgType::service ? 2 : 1;
    EXPECT_EQ(fields, spec.field_count) << spec.name;
  }
  EXPECT_EQ(find_command_spec("NO_SUCH"), nullptr);
  const CommandSpec* ack = find_command_spec("ACKNOWLEDGE_SVC_PROBLEM_EXPIRE");
  ASSERT_NE(ack, nullptr);
  EXPECT_EQ(ack->params.size(), 7u);
  EXPECT_EQ(ack->field_count, 8u);
  EXPECT_EQ(ack->params[4].type, ArgType::timestamp);
  EXPECT_EQ(ack->params[4].name, "end_time");
  for (std::string_view name :
       {"RESTART_PROGRAM", "SHUTDOWN_PROGRAM", "PROCESS_FILE", "CHANGE_CUSTOM_SVC_VAR",
        "SCHEDULE_AND_PROPAGATE_TRIGGERED_HOST_DOWNTIME", "CHANGE_CONTACT_MODSATTR"}) {
    EXPECT_NE(find_command_spec(name), nullptr) << name;
  }
}

TEST(CommandLine, EveryCommandParsesWithPlausibleArguments) {
  for (const CommandSpec& spec : command_specs()) {
    std::string line = "[1700000000] " + std::string(spec.name);
    for (const ArgSpec& arg : spec.params) {
      switch (arg.type) {
        case ArgType::service:
          line += ";h;s";
          break;
        case ArgType::boolean:
          line += ";1";
          break;
        case ArgType::integer:
        case ArgType::ulong:
        case ArgType::timestamp:
          line += ";12";
          break;
        default:
          line += ";x";
          break;
      }
    }
    const ParsedLine parsed = parse_external_command(line);
    ASSERT_TRUE(parsed.ok()) << line << ": " << parsed.error().message;
    EXPECT_EQ(parsed.command().args.size(), spec.field_count) << line;
  }
}

}  // namespace
}  // namespace vedette::commands
