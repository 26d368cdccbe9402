// One Livestatus request as its client wrote it: the method line and the headers, checked for syntax but
// not yet resolved against a table (Query::compile does that). Pure functions: any thread.
//
//   Request request;
//   RequestError error;
//   if (!parse_request("GET hosts\nColumns: name state\nFilter: state > 0\n", request, error))
//     frame_response(request.fixed16, error.code, error.message, answer);  // framed as the client asked
#pragma once

#include <chrono>
#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::livestatus {

struct Table;

enum class Method : std::uint8_t { get, command, logrotate };
// python3 is Check_MK's name for python without the u"" prefix; the module itself knows only python.
enum class OutputFormat : std::uint8_t { csv, json, python, python3, wrapped_json };
enum class WaitTrigger : std::uint8_t { all, check, state, log, downtime, comment, command, program };

// The message is the module's, without the newline it sends after it (frame_response adds it).
struct RequestError {
  int code = 400;
  std::string message;
};

// The operators of Filter:, Stats: and WaitCondition: headers. As in the module, `>=` is `<` negated and
// `<=` is `>` negated, and a '!' in front negates once more ("!>=" is `<`): a list column's `>=` (that is
// `<` negated) asks whether the list contains the value.
enum class Operator : std::uint8_t { equal, regex, equal_icase, regex_icase, greater, less };

struct Condition {
  std::string column;
  Operator op = Operator::equal;
  bool negate = false;
  std::string value;  // the rest of the line after the operator, leading spaces removed
};

// Filter:, And:, Or: and Negate: (or the WaitCondition ones) in request order: a program for a stack of
// filters, which the query finally ands.
struct FilterStep {
  enum class Kind : std::uint8_t { test, all, any, negate };
  Kind kind = Kind::test;
  Condition condition;  // test
  int count = 0;        // all, any: how many filters from the top of the stack they combine
};

enum class Aggregate : std::uint8_t { count, sum, min, max, avg, std, suminv, avginv };

// Stats:, StatsAnd:, StatsOr: and StatsNegate:, in request order: each Stats: pushes a stats column; the
// others combine the filters of the last counting ones into one.
struct StatsStep {
  enum class Kind : std::uint8_t { test, aggregate, all, any, negate };
  Kind kind = Kind::test;
  Condition condition;                     // test: count the rows that pass
  Aggregate aggregate = Aggregate::count;  // aggregate (never count)
  std::string column;                      // aggregate
  int count = 0;                           // all, any
};

struct SortSpec {
  std::string column;
  bool descending = false;
};

// Separators: dataset, field, list, host/service; CSV only. A number the header leaves out is byte 0.
struct Separators {
  char dataset = '\n';
  char field = ';';
  char list = ',';
  char host_service = '|';
};

struct Request {
  Method method = Method::get;
  std::string table;        // GET
  std::string command;      // COMMAND: the text after "COMMAND ", "\n" and "\x" unescaped as the module does
  bool keep_alive = false;  // KeepAlive: on (always for COMMAND, as the module)
  bool fixed16 = false;     // ResponseHeader: fixed16
  bool has_auth_user = false;
  std::string auth_user;  // AuthUser:; a name that is no contact sees nothing of the tables that check
  // Timelimit: seconds; has_timelimit with 0 fails at the first matching row, as the module does.
  int timelimit = 0;
  bool has_timelimit = false;
  // has_wait: the module would wait (a WaitCondition or a WaitTrigger). WaitTimeout 0: no limit.
  WaitTrigger wait_trigger = WaitTrigger::all;
  bool has_wait = false;
  std::chrono::milliseconds wait_timeout{0};
  bool has_wait_object = false;
  std::string wait_object;  // WaitObject: the rest of the line

  std::vector<std::string> columns;  // Columns: (and StatsGroupBy:), unknown names included
  // Whether a header row is printed, as the headers left it in request order (Columns: and Stats: turn it
  // off, ColumnHeaders: sets it); a query without Columns: and Stats: prints every column with headers.
  bool column_headers = true;
  std::vector<FilterStep> filter;
  std::vector<FilterStep> wait_condition;
  std::vector<StatsStep> stats;
  std::vector<SortSpec> sort;
  int limit = -1;  // none
  int offset = 0;
  OutputFormat output_format = OutputFormat::csv;
  Separators separators;
  int timezone_offset = 0;  // Localtime: seconds added to the time columns printed
};

// Parses one request: the text up to, not including, the empty line that ends it (lines end with \n;
// lines of white space alone are skipped, as the module does). On error returns false with `error` (code
// and message as naemon-livestatus words them: 400 bad header, 404 no such table, 452 bad method or missing
// table name) but still sets keep_alive and fixed16 as far as the module reads them: it goes on reading
// headers after an error (the first error is the one answered) and stops only at an unknown header.
// A request without any line returns false with code 0: the module answers nothing and closes.
// Looks the table up with find_table() (tables.hpp) and reads the clock for Localtime:.
bool parse_request(std::string_view text, Request& out, RequestError& error);

// The same with the table lookup and the time given (tests).
using TableLookup = const Table* (*)(std::string_view name);
bool parse_request(std::string_view text, Request& out, RequestError& error, TableLookup lookup,
                   std::time_t now);

// Frames an answer. With fixed16: the 16-byte header ("200          123\n": code, length padded to 11,
// newline) then the body. On an error (`code` not 200) `body` is the error message, which goes out with
// a newline after it, as the module sends it.
void frame_response(bool fixed16, int code, std::string_view body, std::string& out);

}  // namespace vedette::livestatus
