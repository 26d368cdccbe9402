#include "livestatus/request.hpp"

#include "engine_fixture.hpp"

#include <gtest/gtest.h>

#include <string>

namespace vedette::livestatus {
namespace {

using testing::k_now;
using testing::test_lookup;

struct Parsed {
  bool ok = false;
  Request request;
  RequestError error;
};

Parsed parse(std::string_view text, std::time_t now = k_now) {
  Parsed p;
  p.ok = parse_request(text, p.request, p.error, &test_lookup, now);
  return p;
}

TEST(LivestatusRequest, ParsesGetWithHeaders) {
  const Parsed p = parse(
      "GET hosts\nColumns: name state\nFilter: state >= 1\nFilter: name !~~ ^w\nOr: 2\nSort: name desc\n"
      "Sort: state\nLimit: 10\nOffset: 2\nOutputFormat: json\nKeepAlive: on\nResponseHeader: fixed16\n"
      "AuthUser: alice smith\nSeparators: 10 59 44 124\nTimelimit: 5\n");
  ASSERT_TRUE(p.ok) << p.error.message;
  const Request& r = p.request;
  EXPECT_EQ(r.method, Method::get);
  EXPECT_EQ(r.table, "hosts");
  EXPECT_EQ(r.columns, (std::vector<std::string>{"name", "state"}));
  EXPECT_FALSE(r.column_headers);
  ASSERT_EQ(r.filter.size(), 3u);
  EXPECT_EQ(r.filter[0].condition.op, Operator::less);  // >= is < negated
  EXPECT_TRUE(r.filter[0].condition.negate);
  EXPECT_EQ(r.filter[0].condition.value, "1");
  EXPECT_EQ(r.filter[1].condition.op, Operator::regex_icase);
  EXPECT_TRUE(r.filter[1].condition.negate);
  EXPECT_EQ(r.filter[2].kind, FilterStep::Kind::any);
  EXPECT_EQ(r.filter[2].count, 2);
  ASSERT_EQ(r.sort.size(), 2u);
  EXPECT_TRUE(r.sort[0].descending);
  EXPECT_FALSE(r.sort[1].descending);
  EXPECT_EQ(r.limit, 10);
  EXPECT_EQ(r.offset, 2);
  EXPECT_EQ(r.output_format, OutputFormat::json);
  EXPECT_TRUE(r.keep_alive);
  EXPECT_TRUE(r.fixed16);
  EXPECT_TRUE(r.has_auth_user);
  EXPECT_EQ(r.auth_user, "alice smith");
  EXPECT_EQ(r.separators.dataset, '\n');
  EXPECT_EQ(r.separators.field, ';');
  EXPECT_EQ(r.separators.host_service, '|');
  EXPECT_TRUE(r.has_timelimit);
  EXPECT_EQ(r.timelimit, 5);
  EXPECT_FALSE(r.has_wait);
}

TEST(LivestatusRequest, OperatorsNegateAsTheModuleDoes) {
  const Parsed p =
      parse("GET hosts\nFilter: a != x\nFilter: a <= 1\nFilter: a !>= 1\nFilter: a !<= 1\nFilter: a =~ X\n");
  ASSERT_TRUE(p.ok) << p.error.message;
  const auto& f = p.request.filter;
  EXPECT_EQ(f[0].condition.op, Operator::equal);
  EXPECT_TRUE(f[0].condition.negate);
  EXPECT_EQ(f[1].condition.op, Operator::greater);
  EXPECT_TRUE(f[1].condition.negate);
  EXPECT_EQ(f[2].condition.op, Operator::less);  // "!>=" is "<"
  EXPECT_FALSE(f[2].condition.negate);
  EXPECT_EQ(f[3].condition.op, Operator::greater);  // "!<=" is ">"
  EXPECT_FALSE(f[3].condition.negate);
  EXPECT_EQ(f[4].condition.op, Operator::equal_icase);
}

TEST(LivestatusRequest, FilterValueIsTheRestOfTheLine) {
  const Parsed p = parse("GET hosts\nFilter:plugin_output =   two  words \t\nFilter: name =\n");
  ASSERT_TRUE(p.ok) << p.error.message;
  EXPECT_EQ(p.request.filter[0].condition.column, "plugin_output");
  EXPECT_EQ(p.request.filter[0].condition.value, "two  words");
  EXPECT_EQ(p.request.filter[1].condition.value, "");
}

TEST(LivestatusRequest, MethodErrors) {
  Parsed p = parse("GET nosuch\nKeepAlive: on\nResponseHeader: fixed16\nBogus: 1\n");
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error.code, 404);
  EXPECT_EQ(p.error.message, "Invalid GET request, no such table 'nosuch'");
  EXPECT_TRUE(p.request.keep_alive);
  EXPECT_TRUE(p.request.fixed16);

  p = parse("GET\nKeepAlive: on\n");
  EXPECT_EQ(p.error.code, 452);
  EXPECT_EQ(p.error.message, "Invalid GET request, missing tablename");
  EXPECT_TRUE(p.request.keep_alive);

  p = parse("PUT hosts\nKeepAlive: on\n");
  EXPECT_EQ(p.error.code, 452);
  EXPECT_EQ(p.error.message, "Invalid request method");
  EXPECT_FALSE(p.request.keep_alive);

  p = parse("");
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error.code, 0);
  p = parse("  \n\t\n");
  EXPECT_EQ(p.error.code, 0);
}

TEST(LivestatusRequest, CommandAndLogrotate) {
  Parsed p = parse(
      "COMMAND [1700000000] PROCESS_HOST_CHECK_RESULT;web;0;line one\\nline two \\\\ \\x\nKeepAlive: off\n");
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.request.method, Method::command);
  EXPECT_EQ(p.request.command, "[1700000000] PROCESS_HOST_CHECK_RESULT;web;0;line one\nline two \\ x");
  EXPECT_TRUE(p.request.keep_alive);  // always, and the headers are not read
  EXPECT_FALSE(p.request.fixed16);

  p = parse("LOGROTATE\n");
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.request.method, Method::logrotate);
  EXPECT_FALSE(p.request.keep_alive);
}

TEST(LivestatusRequest, FirstErrorWinsButHeadersAreStillRead) {
  const Parsed p = parse("GET hosts\nLimit: x\nOffset: -1\nKeepAlive: on\nResponseHeader: fixed16\n");
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error.code, 400);
  EXPECT_EQ(p.error.message, "Invalid value for Limit: must be non-negative integer");
  EXPECT_TRUE(p.request.keep_alive);
  EXPECT_TRUE(p.request.fixed16);
}

TEST(LivestatusRequest, UnknownHeaderStopsReading) {
  const Parsed p = parse("GET hosts\nResponseHeader: fixed16\nFoo: bar  \nKeepAlive: on\n");
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error.message, "Undefined request header 'Foo: bar'");
  EXPECT_TRUE(p.request.fixed16);
  EXPECT_FALSE(p.request.keep_alive);
}

TEST(LivestatusRequest, HeaderErrorMessages) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"Filter:", "empty filter line"},
      {"Filter: name", "invalid filter header: missing operator after table 'name'"},
      {"Filter: name <> x", "invalid filter operator '<>'"},
      {"Filter: name = x\nAnd: 2",
       "error in And header: Cannot combine 2 filters with 'AND': only 1 are on stack"},
      {"Or:", "Missing value for Or: need non-zero integer number"},
      {"Or: x", "Invalid value for Or: need non-negative integer number"},
      {"WaitConditionOr: -1", "Invalid value for WaitConditionOr: need non-negative integer number"},
      {"Negate:", "Negate: no Filter: header to negate"},
      {"Filter: a = 1\nNegate: x", "Negate: does not take any arguments"},
      {"WaitConditionNegate:", "Negate: no Wait:-condition negate"},
      {"Stats:", "empty stats line"},
      {"Stats: sum", "missing column name in stats header"},
      {"Stats: state", "invalid stats header: missing operator after table 'state'"},
      {"Stats: state >> 1", "invalid stats operator '>>'"},
      {"StatsAnd: 1", "Invalid count for StatsAnd: too few Stats: headers available"},
      {"Stats: sum state\nStatsOr: 1", "Can use StatsOr only on Stats: headers of filter type"},
      {"StatsNegate:", "StatsNegate: no Stats: headers available"},
      {"Stats: avg state\nStatsNegate:", "Can use StatsNegate only on Stats: headers of filter type"},
      {"ColumnHeaders: yes", "Invalid value for ColumnHeaders: must be 'on' or 'off'"},
      {"KeepAlive:", "Missing value for KeepAlive: must be 'on' or 'off'"},
      {"ResponseHeader: http", "Invalid value 'http' for ResponseHeader: must be 'off' or 'fixed16'"},
      {"OutputFormat:", "Missing output format. Only 'csv' and 'json' are available."},
      {"OutputFormat: xml", "Invalid output format. Only 'csv', 'json' and 'wrapped_json' are available."},
      {"Limit:", "Header Limit: missing value"},
      {"Offset: +3", "Invalid value for Offset: must be non-negative integer"},
      {"Timelimit: x", "Invalid value for Timelimit: must be non-negative integer (seconds)"},
      {"WaitTimeout:", "WaitTimeout: missing value"},
      {"WaitTrigger: foo",
       "WaitTrigger: invalid trigger 'foo'. Allowed are all, check, state, log, downtime, comment, command "
       "and "
       "program."},
      {"Localtime:", "Header Localtime: missing value"},
      {"Localtime: 1700200000", "Invalid Localtime header: timezone difference greater then 24 hours"},
      // Out of range or not a number is a 400, where the module's atoi wrapped or stopped early.
      {"Filter: a = 1\nFilter: a = 1\nOr: 4294967298",
       "Invalid value for Or: need non-negative integer number"},
      {"Or: 99999999999", "Invalid value for Or: need non-negative integer number"},
      {"And: 2x", "Invalid value for And: need non-negative integer number"},
      {"Stats: a = 1\nStatsOr: 4294967297", "Invalid value for StatsOr: need non-negative integer number"},
      {"WaitTimeout: 1e30", "Invalid value for WaitTimeout: must be non-negative integer"},
      {"WaitTimeout: 2147483648", "Invalid value for WaitTimeout: must be non-negative integer"},
      {"Limit: 4294967296", "Invalid value for Limit: must be non-negative integer"},
      {"Offset: 10abc", "Invalid value for Offset: must be non-negative integer"},
      {"Separators: 10 300", "Invalid value '300' for Separators: need a byte value from 0 to 255"},
      {"Localtime: 4294967296", "Invalid Localtime header: timezone difference greater then 24 hours"},
      {"Localtime: -9223372036854775808",
       "Invalid Localtime header: timezone difference greater then 24 hours"},
  };
  for (const auto& [header, message] : cases) {
    const Parsed p = parse("GET hosts\n" + std::string(header) + "\n");
    EXPECT_FALSE(p.ok) << header;
    EXPECT_EQ(p.error.code, 400) << header;
    EXPECT_EQ(p.error.message, message) << header;
  }
}

TEST(LivestatusRequest, ColumnHeadersFollowRequestOrder) {
  EXPECT_TRUE(parse("GET hosts\n").request.column_headers);
  EXPECT_FALSE(parse("GET hosts\nColumnHeaders: on\nColumns: name\n").request.column_headers);
  EXPECT_TRUE(parse("GET hosts\nColumns: name\nColumnHeaders: on\n").request.column_headers);
  EXPECT_FALSE(parse("GET hosts\nStats: state = 0\n").request.column_headers);
  EXPECT_TRUE(parse("GET hosts\nStatsAnd: 0\n").request.column_headers);  // only Stats: turns them off
}

TEST(LivestatusRequest, SeparatorsMissingNumbersAreZero) {
  const Parsed p = parse("GET hosts\nSeparators: 10 9\n");
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.request.separators.dataset, '\n');
  EXPECT_EQ(p.request.separators.field, '\t');
  EXPECT_EQ(p.request.separators.list, '\0');
  EXPECT_EQ(p.request.separators.host_service, '\0');
}

TEST(LivestatusRequest, LocaltimeRoundsToHalfHours) {
  EXPECT_EQ(parse("GET hosts\nLocaltime: 1700003600\n").request.timezone_offset, 3600);
  EXPECT_EQ(parse("GET hosts\nLocaltime: 1700001000\n").request.timezone_offset,
            1800);  // 1000 s: 900 or more
  EXPECT_EQ(parse("GET hosts\nLocaltime: 1700000899\n").request.timezone_offset, 0);
  EXPECT_EQ(parse("GET hosts\nLocaltime: 1699999100\n").request.timezone_offset, -1800);
}

TEST(LivestatusRequest, WaitHeaders) {
  Parsed p = parse(
      "GET hosts\nWaitObject: web  server\nWaitCondition: state = 0\nWaitTimeout: 1500\n"
      "WaitTrigger: state\n");
  ASSERT_TRUE(p.ok) << p.error.message;
  EXPECT_TRUE(p.request.has_wait);
  EXPECT_TRUE(p.request.has_wait_object);
  EXPECT_EQ(p.request.wait_object, "web  server");
  EXPECT_EQ(p.request.wait_timeout, std::chrono::milliseconds(1500));
  EXPECT_EQ(p.request.wait_trigger, WaitTrigger::state);
  EXPECT_EQ(p.request.wait_condition.size(), 1u);

  p = parse("GET hosts\nWaitTrigger: check\n");
  EXPECT_TRUE(p.request.has_wait);  // the module waits for one trigger
  p = parse("GET hosts\nWaitTimeout: 100\nWaitObject: web\n");
  EXPECT_FALSE(p.request.has_wait);
}

TEST(LivestatusRequest, WhitespaceLinesAreSkipped) {
  const Parsed p = parse("   \nGET hosts  \n \t \nColumns: name\n");
  ASSERT_TRUE(p.ok) << p.error.message;
  EXPECT_EQ(p.request.table, "hosts");
  EXPECT_EQ(p.request.columns.size(), 1u);
}

TEST(LivestatusFrame, Fixed16HeaderAndErrorNewline) {
  std::string out;
  frame_response(true, 200, "web;0\n", out);
  EXPECT_EQ(out, "200           6\nweb;0\n");
  out.clear();
  frame_response(true, 404, "Invalid GET request, no such table 'x'", out);
  EXPECT_EQ(out, "404          39\nInvalid GET request, no such table 'x'\n");
  EXPECT_EQ(out.find('\n'), 15u);
  out.clear();
  frame_response(false, 400, "bad", out);
  EXPECT_EQ(out, "bad\n");
  out.clear();
  frame_response(false, 200, "", out);
  EXPECT_EQ(out, "");
}

}  // namespace
}  // namespace vedette::livestatus
