#include "livestatus/request.hpp"

#include "livestatus/text_internal.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdio>
#include <utility>

namespace vedette::livestatus {
namespace {

// "!=" "<=" ...: the operator and whether it is negated; false for a name the module does not know.
bool parse_operator(std::string_view name, Operator& op, bool& negate) {
  negate = false;
  if (name.starts_with('!')) {
    negate = true;
    name.remove_prefix(1);
  }
  struct Entry {
    std::string_view name;
    Operator op;
    bool negated;
  };
  static constexpr std::array<Entry, 8> k_operators{{
      {"=", Operator::equal, false},
      {"~", Operator::regex, false},
      {"=~", Operator::equal_icase, false},
      {"~~", Operator::regex_icase, false},
      {">", Operator::greater, false},
      {"<", Operator::less, false},
      {">=", Operator::less, true},
      {"<=", Operator::greater, true},
  }};
  for (const Entry& e : k_operators) {
    if (e.name != name) continue;
    op = e.op;
    negate = negate != e.negated;
    return true;
  }
  return false;
}

// The module's unescape_newlines(): "\n" becomes a newline, a backslash before any other character
// stands for that character, and a backslash at the end is dropped.
std::string unescape_command(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 1 == text.size()) break;
    ++i;
    out.push_back(text[i] == 'n' ? '\n' : text[i]);
  }
  return out;
}

class HeaderParser {
 public:
  HeaderParser(Request& request, RequestError& error, std::time_t now, bool failed)
      : request_(request), error_(error), now_(now), failed_(failed) {}

  [[nodiscard]] bool failed() const { return failed_; }

  // Returns false at an unknown header: the module stops reading there.
  bool parse(std::string_view line) {
    struct Header {
      std::string_view name;
      void (HeaderParser::*parse)(std::string_view rest);
    };
    static constexpr std::array<Header, 28> k_headers{{
        {"Filter:", &HeaderParser::filter},
        {"Sort:", &HeaderParser::sort},
        {"Or:", &HeaderParser::filter_or},
        {"And:", &HeaderParser::filter_and},
        {"Negate:", &HeaderParser::filter_negate},
        {"StatsOr:", &HeaderParser::stats_or},
        {"StatsAnd:", &HeaderParser::stats_and},
        {"StatsNegate:", &HeaderParser::stats_negate},
        {"Stats:", &HeaderParser::stats},
        {"StatsGroupBy:", &HeaderParser::columns},
        {"Columns:", &HeaderParser::columns},
        {"ColumnHeaders:", &HeaderParser::column_headers},
        {"Limit:", &HeaderParser::limit},
        {"Offset:", &HeaderParser::offset},
        {"Timelimit:", &HeaderParser::timelimit},
        {"AuthUser:", &HeaderParser::auth_user},
        {"Separators:", &HeaderParser::separators},
        {"OutputFormat:", &HeaderParser::output_format},
        {"ResponseHeader:", &HeaderParser::response_header},
        {"KeepAlive:", &HeaderParser::keep_alive},
        {"WaitCondition:", &HeaderParser::wait_condition},
        {"WaitConditionAnd:", &HeaderParser::wait_and},
        {"WaitConditionOr:", &HeaderParser::wait_or},
        {"WaitConditionNegate:", &HeaderParser::wait_negate},
        {"WaitTrigger:", &HeaderParser::wait_trigger},
        {"WaitObject:", &HeaderParser::wait_object},
        {"WaitTimeout:", &HeaderParser::wait_timeout},
        {"Localtime:", &HeaderParser::localtime},
    }};
    for (const Header& h : k_headers) {
      if (!line.starts_with(h.name)) continue;
      (this->*h.parse)(lstrip(line.substr(h.name.size())));
      return true;
    }
    fail(400, fmt::format("Undefined request header '{}'", line));
    return false;
  }

  void finish() { request_.has_wait = !request_.wait_condition.empty() || trigger_given_; }

 private:
  // The module answers the first error only, but goes on reading headers.
  void fail(int code, std::string message) {
    if (failed_) return;
    failed_ = true;
    error_ = RequestError{.code = code, .message = std::move(message)};
  }

  // Filter: and WaitCondition:. `depth` follows the size of the module's filter stack, so that And:, Or:
  // and Negate: fail where the module's do.
  void test(std::string_view rest, std::vector<FilterStep>& steps, int& depth) {
    std::string_view column;
    if (!next_field(rest, column)) return fail(400, "empty filter line");
    std::string_view op_name;
    if (!next_field(rest, op_name))
      return fail(400, fmt::format("invalid filter header: missing operator after table '{}'", column));
    FilterStep step;
    step.kind = FilterStep::Kind::test;
    if (!parse_operator(op_name, step.condition.op, step.condition.negate))
      return fail(400, fmt::format("invalid filter operator '{}'", op_name));
    step.condition.column = std::string(column);
    step.condition.value = std::string(lstrip(rest));
    steps.push_back(std::move(step));
    ++depth;
  }

  // Filter: and WaitCondition: lines build two stacks with the same rules but their own messages.
  enum class Stack { filter, wait_condition };

  // And: / Or: (kind all / any) over the top `count` entries of a stack.
  void combine(std::string_view rest, FilterStep::Kind kind, Stack stack, std::vector<FilterStep>& steps,
               int& depth) {
    const bool is_or = kind == FilterStep::Kind::any;
    const std::string_view header = is_or ? "Or" : "And";
    const std::string_view prefix = stack == Stack::filter ? "" : "WaitCondition";
    std::string_view value;
    if (!next_field(rest, value))
      return fail(400, fmt::format("Missing value for {}{}: need non-zero integer number", prefix, header));
    const std::optional<int> parsed = parse_count(value);
    if (!parsed)
      return fail(400,
                  fmt::format("Invalid value for {}{}: need non-negative integer number", prefix, header));
    const int count = *parsed;
    if (count > depth) {
      // The module words the WaitCondition case with the Filter: stack's (empty) message; we say why.
      return fail(
          400, fmt::format("error in {}{} header: Cannot combine {} filters with '{}': only {} are on stack",
                           prefix, header, count, is_or ? "OR" : "AND", depth));
    }
    steps.push_back(FilterStep{.kind = kind, .condition = {}, .count = count});
    depth = depth - count + 1;
  }

  void negate(std::string_view rest, Stack stack, std::vector<FilterStep>& steps, int depth) {
    const bool is_filter = stack == Stack::filter;
    std::string_view extra;
    if (next_field(rest, extra)) {
      return fail(400, is_filter ? "Negate: does not take any arguments"
                                 : "WaitConditionNegate: does not take any arguments");
    }
    if (depth == 0)
      return fail(400,
                  is_filter ? "Negate: no Filter: header to negate" : "Negate: no Wait:-condition negate");
    steps.push_back(FilterStep{.kind = FilterStep::Kind::negate, .condition = {}, .count = 0});
  }

  void filter(std::string_view rest) { test(rest, request_.filter, filter_depth_); }
  void filter_and(std::string_view rest) {
    combine(rest, FilterStep::Kind::all, Stack::filter, request_.filter, filter_depth_);
  }
  void filter_or(std::string_view rest) {
    combine(rest, FilterStep::Kind::any, Stack::filter, request_.filter, filter_depth_);
  }
  void filter_negate(std::string_view rest) { negate(rest, Stack::filter, request_.filter, filter_depth_); }
  void wait_condition(std::string_view rest) { test(rest, request_.wait_condition, wait_depth_); }
  void wait_and(std::string_view rest) {
    combine(rest, FilterStep::Kind::all, Stack::wait_condition, request_.wait_condition, wait_depth_);
  }
  void wait_or(std::string_view rest) {
    combine(rest, FilterStep::Kind::any, Stack::wait_condition, request_.wait_condition, wait_depth_);
  }
  void wait_negate(std::string_view rest) {
    negate(rest, Stack::wait_condition, request_.wait_condition, wait_depth_);
  }

  void stats(std::string_view rest) {
    std::string_view first;
    if (!next_field(rest, first)) return fail(400, "empty stats line");
    struct Entry {
      std::string_view name;
      Aggregate aggregate;
    };
    static constexpr std::array<Entry, 7> k_aggregates{{
        {"sum", Aggregate::sum},
        {"min", Aggregate::min},
        {"max", Aggregate::max},
        {"avg", Aggregate::avg},
        {"std", Aggregate::std},
        {"suminv", Aggregate::suminv},
        {"avginv", Aggregate::avginv},
    }};
    StatsStep step;
    for (const Entry& e : k_aggregates)
      if (e.name == first) step.aggregate = e.aggregate;
    if (step.aggregate != Aggregate::count) {
      std::string_view column;
      if (!next_field(rest, column)) return fail(400, "missing column name in stats header");
      step.kind = StatsStep::Kind::aggregate;
      step.column = std::string(column);
    } else {
      std::string_view op_name;
      if (!next_field(rest, op_name))
        return fail(400, fmt::format("invalid stats header: missing operator after table '{}'", first));
      if (!parse_operator(op_name, step.condition.op, step.condition.negate))
        return fail(400, fmt::format("invalid stats operator '{}'", op_name));
      step.kind = StatsStep::Kind::test;
      step.condition.column = std::string(first);
      step.condition.value = std::string(lstrip(rest));
    }
    stats_counting_.push_back(step.kind == StatsStep::Kind::test);
    request_.stats.push_back(std::move(step));
    request_.column_headers = false;
  }

  // StatsAnd: / StatsOr: (kind all / any) over the top `count` Stats: filters.
  void stats_combine(std::string_view rest, StatsStep::Kind kind) {
    const std::string_view header = kind == StatsStep::Kind::any ? "Or" : "And";
    std::string_view value;
    if (!next_field(rest, value))
      return fail(400, fmt::format("Missing value for Stats{}: need non-zero integer number", header));
    const std::optional<int> parsed = parse_count(value);
    if (!parsed)
      return fail(400, fmt::format("Invalid value for Stats{}: need non-negative integer number", header));
    const int count = *parsed;
    for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) {
      if (i >= stats_counting_.size())
        return fail(400, fmt::format("Invalid count for Stats{}: too few Stats: headers available", header));
      if (!stats_counting_[stats_counting_.size() - 1 - i])
        return fail(400, fmt::format("Can use Stats{} only on Stats: headers of filter type", header));
    }
    stats_counting_.resize(stats_counting_.size() - static_cast<std::size_t>(count));
    stats_counting_.push_back(true);
    StatsStep step;
    step.kind = kind;
    step.count = count;
    request_.stats.push_back(std::move(step));
  }
  void stats_and(std::string_view rest) { stats_combine(rest, StatsStep::Kind::all); }
  void stats_or(std::string_view rest) { stats_combine(rest, StatsStep::Kind::any); }

  void stats_negate(std::string_view rest) {
    std::string_view extra;
    if (next_field(rest, extra)) return fail(400, "StatsNegate: does not take any arguments");
    if (stats_counting_.empty()) return fail(400, "StatsNegate: no Stats: headers available");
    if (!stats_counting_.back())
      return fail(400, "Can use StatsNegate only on Stats: headers of filter type");
    StatsStep step;
    step.kind = StatsStep::Kind::negate;
    request_.stats.push_back(std::move(step));
  }

  void columns(std::string_view rest) {
    std::string_view name;
    while (next_field(rest, name)) request_.columns.emplace_back(name);
    request_.column_headers = false;
  }

  void sort(std::string_view rest) {
    std::string_view column;
    std::string_view direction;
    if (!next_field(rest, column)) return;
    const bool descending = next_field(rest, direction) && equals_icase(direction, "desc");
    request_.sort.push_back(SortSpec{.column = std::string(column), .descending = descending});
  }

  // ColumnHeaders:, KeepAlive: "on" or "off".
  void on_off(std::string_view rest, std::string_view header, bool& flag) {
    std::string_view value;
    if (!next_field(rest, value))
      return fail(400, fmt::format("Missing value for {}: must be 'on' or 'off'", header));
    if (value == "on") {
      flag = true;
    } else if (value == "off") {
      flag = false;
    } else {
      fail(400, fmt::format("Invalid value for {}: must be 'on' or 'off'", header));
    }
  }
  void column_headers(std::string_view rest) { on_off(rest, "ColumnHeaders", request_.column_headers); }
  void keep_alive(std::string_view rest) { on_off(rest, "KeepAlive", request_.keep_alive); }

  void response_header(std::string_view rest) {
    std::string_view value;
    if (!next_field(rest, value))
      return fail(400, "Missing value for ResponseHeader: must be 'off' or 'fixed16'");
    if (value == "off") {
      request_.fixed16 = false;
    } else if (value == "fixed16") {
      request_.fixed16 = true;
    } else {
      fail(400, fmt::format("Invalid value '{}' for ResponseHeader: must be 'off' or 'fixed16'", value));
    }
  }

  void output_format(std::string_view rest) {
    std::string_view value;
    if (!next_field(rest, value))
      return fail(400, "Missing output format. Only 'csv' and 'json' are available.");
    struct Entry {
      std::string_view name;
      OutputFormat format;
    };
    static constexpr std::array<Entry, 5> k_formats{{
        {"csv", OutputFormat::csv},
        {"json", OutputFormat::json},
        {"python", OutputFormat::python},
        {"python3", OutputFormat::python3},
        {"wrapped_json", OutputFormat::wrapped_json},
    }};
    for (const Entry& e : k_formats) {
      if (e.name != value) continue;
      request_.output_format = e.format;
      return;
    }
    fail(400, "Invalid output format. Only 'csv', 'json' and 'wrapped_json' are available.");
  }

  // Limit:, Offset:, Timelimit:, WaitTimeout:: a count (parse_count).
  bool count_value(std::string_view rest, std::string_view missing, std::string_view invalid, int& out) {
    std::string_view value;
    if (!next_field(rest, value)) {
      fail(400, std::string(missing));
      return false;
    }
    const std::optional<int> number = parse_count(value);
    if (!number) {
      fail(400, std::string(invalid));
      return false;
    }
    out = *number;
    return true;
  }
  void limit(std::string_view rest) {
    count_value(rest, "Header Limit: missing value", "Invalid value for Limit: must be non-negative integer",
                request_.limit);
  }
  void offset(std::string_view rest) {
    count_value(rest, "Header Offset: missing value",
                "Invalid value for Offset: must be non-negative integer", request_.offset);
  }
  void timelimit(std::string_view rest) {
    if (count_value(rest, "Header Timelimit: missing value",
                    "Invalid value for Timelimit: must be non-negative integer (seconds)",
                    request_.timelimit))
      request_.has_timelimit = true;
  }
  void wait_timeout(std::string_view rest) {
    int ms = 0;
    if (count_value(rest, "WaitTimeout: missing value",
                    "Invalid value for WaitTimeout: must be non-negative integer", ms))
      request_.wait_timeout = std::chrono::milliseconds(ms);
  }

  void wait_trigger(std::string_view rest) {
    std::string_view value;
    if (!next_field(rest, value)) return fail(400, "WaitTrigger: missing keyword");
    static constexpr std::array<std::string_view, 8> k_names{"all",      "check",   "state",   "log",
                                                             "downtime", "comment", "command", "program"};
    for (std::size_t i = 0; i < k_names.size(); ++i) {
      if (k_names[i] != value) continue;
      request_.wait_trigger = static_cast<WaitTrigger>(i);
      trigger_given_ = true;
      return;
    }
    fail(400, fmt::format("WaitTrigger: invalid trigger '{}'. Allowed are all, check, state, log, downtime, "
                          "comment, command and program.",
                          value));
  }

  void wait_object(std::string_view rest) {
    request_.has_wait_object = true;
    request_.wait_object = std::string(rest);
  }

  void auth_user(std::string_view rest) {
    request_.has_auth_user = true;
    request_.auth_user = std::string(rest);
  }

  void separators(std::string_view rest) {
    std::array<char, 4> bytes{};
    std::string_view token;
    for (char& b : bytes) {
      if (!next_field(rest, token)) continue;
      // The module casts atoi's value to a char: 300 would be ','. A byte is 0 to 255.
      const std::optional<int> code = parse_count(token);
      if (!code || *code > 255)
        return fail(400,
                    fmt::format("Invalid value '{}' for Separators: need a byte value from 0 to 255", token));
      b = static_cast<char>(*code);
    }
    request_.separators =
        Separators{.dataset = bytes[0], .field = bytes[1], .list = bytes[2], .host_service = bytes[3]};
  }

  // The module takes the difference to its clock, rounded to half hours, as the client's time zone.
  void localtime(std::string_view rest) {
    std::string_view value;
    if (!next_field(rest, value)) return fail(400, "Header Localtime: missing value");
    // Read whole (the module's atoi wraps), compared before any arithmetic that could overflow.
    const std::int64_t given = parse_int64(value);
    constexpr std::int64_t k_day = 24 * 3600;
    if (given > static_cast<std::int64_t>(now_) + 2 * k_day ||
        given < static_cast<std::int64_t>(now_) - 2 * k_day)
      return fail(400, "Invalid Localtime header: timezone difference greater then 24 hours");
    const auto difference = static_cast<int>(given - static_cast<std::int64_t>(now_));
    int half_hours = difference / 1800;
    const int remainder = difference % 1800;
    if (remainder <= -900) {
      --half_hours;
    } else if (remainder >= 900) {
      ++half_hours;
    }
    if (half_hours >= 48 || half_hours <= -48)
      return fail(400, "Invalid Localtime header: timezone difference greater then 24 hours");
    request_.timezone_offset = half_hours * 1800;
  }

  Request& request_;
  RequestError& error_;
  std::time_t now_;
  bool failed_;
  int filter_depth_ = 0;
  int wait_depth_ = 0;
  std::vector<bool> stats_counting_;  // per stats column: whether it counts (may take StatsAnd:...)
  bool trigger_given_ = false;
};

}  // namespace

bool parse_request(std::string_view text, Request& out, RequestError& error, TableLookup lookup,
                   std::time_t now) {
  out = Request{};
  std::string_view method;
  std::string_view rest = text;
  while (method.empty() && !rest.empty()) method = rstrip(next_line(rest));
  if (method.empty()) {
    error = RequestError{.code = 0, .message = {}};
    return false;
  }

  bool failed = false;
  if (method.starts_with("COMMAND ")) {
    // The module reads no header after COMMAND, and always keeps the connection.
    out.method = Method::command;
    out.command = unescape_command(lstrip(method.substr(8)));
    out.keep_alive = true;
    return true;
  }
  if (method.starts_with("LOGROTATE")) {
    out.method = Method::logrotate;
    return true;
  }
  if (method.starts_with("GET ")) {
    out.table = std::string(lstrip(method.substr(4)));
    if (lookup(out.table) == nullptr) {
      failed = true;
      error = RequestError{.code = 404,
                           .message = fmt::format("Invalid GET request, no such table '{}'", out.table)};
    }
  } else if (method == "GET") {
    failed = true;
    error = RequestError{.code = 452, .message = "Invalid GET request, missing tablename"};
  } else {
    error = RequestError{.code = 452, .message = "Invalid request method"};
    return false;
  }

  HeaderParser parser(out, error, now, failed);
  while (!rest.empty()) {
    const std::string_view line = rstrip(next_line(rest));
    if (line.empty()) continue;
    if (!parser.parse(line)) break;
  }
  parser.finish();
  return !parser.failed();
}

void frame_response(bool fixed16, int code, std::string_view body, std::string& out) {
  const bool is_error = code != 200;
  const std::size_t size = body.size() + (is_error ? 1 : 0);
  if (fixed16) {
    std::array<char, 32> header{};
    const int n = std::snprintf(header.data(), header.size(), "%03d %11zu\n", code, size);
    out.append(header.data(), static_cast<std::size_t>(n));
  }
  out.append(body);
  if (is_error) out.push_back('\n');
}

}  // namespace vedette::livestatus
