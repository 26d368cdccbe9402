#include "exec/plugin_output.hpp"

#include <gtest/gtest.h>

#include <string>

namespace vedette::exec {
namespace {

using namespace std::string_literals;

TEST(PluginOutput, FirstLineOnly) {
  const PluginOutput p = parse_plugin_output("OK - fine\n");
  EXPECT_FALSE(p.is_null);
  EXPECT_EQ(p.output, "OK - fine");
  EXPECT_EQ(p.long_output, "");
  EXPECT_EQ(p.perf_data, "");
}

TEST(PluginOutput, PerfDataOnFirstLine) {
  const PluginOutput p = parse_plugin_output("OK - fine|a=1 b=2");
  EXPECT_EQ(p.output, "OK - fine");
  EXPECT_EQ(p.perf_data, "a=1 b=2");
}

TEST(PluginOutput, LongOutputAndPerfDataOnLaterLinesAppended) {
  const PluginOutput p = parse_plugin_output("OK | a=1\nline2\nline3|b=2\nc=3\n\n d=4\n");
  EXPECT_EQ(p.output, "OK");
  EXPECT_EQ(p.long_output, "line2\\nline3");  // escaped as Naemon stores it
  EXPECT_EQ(p.perf_data, "a=1 b=2 c=3 d=4");
}

TEST(PluginOutput, PerfDataOnlyOnLaterLines) {
  const PluginOutput p = parse_plugin_output("OK\nlong\n|x=1\ny=2");
  EXPECT_EQ(p.output, "OK");
  EXPECT_EQ(p.long_output, "long\\n");  // Naemon keeps the newline before the '|'
  EXPECT_EQ(p.perf_data, "x=1 y=2");
}

TEST(PluginOutput, BarRightAfterFirstLineLeavesNoLongOutput) {
  const PluginOutput p = parse_plugin_output("OK\n|x=1\n y=2");
  EXPECT_EQ(p.long_output, "");
  EXPECT_EQ(p.perf_data, "x=1 y=2");
}

TEST(PluginOutput, LaterBarsStayInPerfData) {
  const PluginOutput p = parse_plugin_output("out|p0\nlong|p1|p2");
  EXPECT_EQ(p.long_output, "long");
  EXPECT_EQ(p.perf_data, "p0 p1|p2");
}

TEST(PluginOutput, LeadingNewlinesSkippedBlankLinesKeptInLongOutput) {
  const PluginOutput p = parse_plugin_output("\n\nfirst\n\nsecond");
  EXPECT_EQ(p.output, "first");
  EXPECT_EQ(p.long_output, "\\nsecond");
}

TEST(PluginOutput, TrimmingRules) {
  const PluginOutput p = parse_plugin_output("  \tspaced \t|  p=1  \r\n  long kept  \n");
  EXPECT_EQ(p.output, "spaced");
  EXPECT_EQ(p.perf_data, "p=1");
  EXPECT_EQ(p.long_output, "  long kept");  // long output is only right-trimmed (whole buffer)
  EXPECT_EQ(parse_plugin_output("OK\r\nlong\r\n").output, "OK");
  EXPECT_EQ(parse_plugin_output("OK\r\nlong\r\n").long_output, "long");
  // strip() leaves \v and \f at the start; the whole-buffer rstrip uses isspace.
  EXPECT_EQ(parse_plugin_output("\vOK\f\v").output, "\vOK");
}

TEST(PluginOutput, EmptyIsNullButABarIsNot) {
  EXPECT_TRUE(parse_plugin_output("").is_null);
  EXPECT_TRUE(parse_plugin_output(" \n\t\n ").is_null);
  const PluginOutput p = parse_plugin_output("|perf");
  EXPECT_FALSE(p.is_null);
  EXPECT_EQ(p.output, "");
  EXPECT_EQ(p.perf_data, "perf");
}

TEST(PluginOutput, StopsAtNul) {
  EXPECT_EQ(parse_plugin_output("OK\0junk|x=1"s).output, "OK");
  EXPECT_EQ(parse_plugin_output("OK\0junk|x=1"s).perf_data, "");
}

CheckResult exited(int code, std::string out, std::string err = {}, CheckKind kind = CheckKind::service) {
  CheckResult r;
  r.kind = kind;
  r.outcome = Outcome::exited;
  r.exit_code = code;
  r.output = std::move(out);
  r.error_output = std::move(err);
  r.start_us = 1'000'000;
  r.end_us = 2'500'000;
  return r;
}

TEST(PluginOutputVerdict, NormalExitParsesAndReplacesSemicolons) {
  const CheckVerdict v = interpret_check_result(exited(1, "WARN; disk 91%|/=91%;80;90\nmore; text"), 2);
  EXPECT_EQ(v.state, 1);
  EXPECT_EQ(v.problem, CheckProblem::none);
  EXPECT_EQ(v.output.output, "WARN: disk 91%");
  EXPECT_EQ(v.output.perf_data, "/=91%;80;90");
  EXPECT_EQ(v.output.long_output, "more; text");
  EXPECT_DOUBLE_EQ(v.execution_time, 1.5);
}

TEST(PluginOutputVerdict, StderrOnlyWhenStdoutEmpty) {
  EXPECT_EQ(interpret_check_result(exited(2, "", "boom\n"), 2).output.output,
            "(No output on stdout) stderr: boom");
  EXPECT_EQ(interpret_check_result(exited(2, "out", "boom"), 2).output.output, "out");
  // Naemon looks at stdout before trimming: a bare newline hides stderr and leaves no output.
  EXPECT_EQ(interpret_check_result(exited(0, "\n", "boom"), 2).output.output,
            "(No output returned from plugin)");
  EXPECT_EQ(interpret_check_result(exited(0, "", "", CheckKind::host), 2).output.output,
            "(No output returned from host check)");
}

TEST(PluginOutputVerdict, OutOfBoundsCodes) {
  CheckVerdict v = interpret_check_result(exited(4, "text|p=1"), 2);
  EXPECT_EQ(v.state, 2);
  EXPECT_EQ(v.problem, CheckProblem::return_code_out_of_bounds);
  EXPECT_EQ(v.output.output, "(Return code of 4 is out of bounds)");
  EXPECT_EQ(v.output.perf_data, "");
  EXPECT_EQ(interpret_check_result(exited(126, ""), 2).output.output,
            "(Return code of 126 is out of bounds - plugin may not be executable)");
  EXPECT_EQ(interpret_check_result(exited(127, ""), 2).output.output,
            "(Return code of 127 is out of bounds - plugin may be missing)");
  v = interpret_check_result(exited(126, "x|p=1\nlong", "", CheckKind::host), 2);
  EXPECT_EQ(v.state, 2);
  EXPECT_EQ(v.output.output, "(Return code of 126 is out of bounds - plugin may be missing)");
  EXPECT_EQ(v.output.long_output, "");
  EXPECT_EQ(v.output.perf_data, "");
  EXPECT_EQ(
      check_warning_text(interpret_check_result(exited(126, ""), 2), CheckKind::service, "web", "HTTP"),
      "Warning: Return code of 126 for check of service 'HTTP' on host 'web' was out of bounds.Make sure "
      "the plugin you're trying to run is executable.");
  EXPECT_EQ(
      check_warning_text(interpret_check_result(exited(127, ""), 2), CheckKind::service, "web", "HTTP"),
      "Warning: Return code of 127 for check of service 'HTTP' on host 'web' was out of bounds. Make sure "
      "the plugin you're trying to run actually exists.");
  EXPECT_EQ(
      check_warning_text(v, CheckKind::host, "web", ""),
      "Warning: Return code of 126 for check of host 'web' was out of bounds. Make sure the plugin you're "
      "trying to run actually exists.");
  EXPECT_EQ(check_warning_text(interpret_check_result(exited(5, ""), 2), CheckKind::service, "web", "HTTP"),
            "Warning: Return code of 5 for check of service 'HTTP' on host 'web' was out of bounds.");
}

TEST(PluginOutputVerdict, Timeouts) {
  CheckResult r = exited(0, "partial|p=1");
  r.outcome = Outcome::timed_out;
  CheckVerdict v = interpret_check_result(r, 3);
  EXPECT_EQ(v.state, 3);
  EXPECT_EQ(v.problem, CheckProblem::timed_out);
  EXPECT_EQ(v.output.output, "(Service check timed out after 1.50 seconds)");
  EXPECT_EQ(v.output.perf_data, "");
  EXPECT_EQ(interpret_check_result(r, 2).state, 2);
  r.kind = CheckKind::host;
  v = interpret_check_result(r, 2);
  EXPECT_EQ(v.state, 3);
  EXPECT_EQ(v.output.output, "(Host check timed out after 1.50 seconds)");
  EXPECT_EQ(check_warning_text(v, CheckKind::host, "web", ""), "");
}

TEST(PluginOutputVerdict, SignalIsUnknownWithParsedOutput) {
  CheckResult r = exited(0, "half done|p=1");
  r.outcome = Outcome::killed_by_signal;
  r.signal = 9;
  CheckVerdict v = interpret_check_result(r, 2);
  EXPECT_EQ(v.state, 3);
  EXPECT_EQ(v.return_code, 3);
  EXPECT_EQ(v.problem, CheckProblem::none);
  EXPECT_EQ(v.output.output, "half done");
  EXPECT_EQ(v.output.perf_data, "p=1");
}

TEST(PluginOutputVerdict, SpawnFailureDidNotExitProperly) {
  CheckResult r = exited(0, "");
  r.outcome = Outcome::spawn_failed;
  CheckVerdict v = interpret_check_result(r, 3);
  EXPECT_EQ(v.state, 2);
  EXPECT_EQ(v.output.output, "(Service check did not exit properly)");
  EXPECT_EQ(check_warning_text(v, CheckKind::service, "web", "HTTP"),
            "Warning:  Check of service 'HTTP' on host 'web' did not exit properly!");
  r.kind = CheckKind::host;
  v = interpret_check_result(r, 3);
  EXPECT_EQ(v.output.output, "(Host check did not exit properly)");
  EXPECT_EQ(check_warning_text(v, CheckKind::host, "web", ""),
            "Warning:  Check of host 'web' did not exit properly!");
}

TEST(PluginOutputVerdict, ExecFailureLooksLikeNaemonsChild) {
  CheckResult r = exited(2, "", "execvp(/nope, ...) failed. errno is 2: No such file or directory\n");
  r.outcome = Outcome::exec_failed;
  const CheckVerdict v = interpret_check_result(r, 3);
  EXPECT_EQ(v.state, 2);
  EXPECT_EQ(v.output.output,
            "(No output on stdout) stderr: execvp(/nope, ...) failed. errno is 2: No such file or directory");
}

TEST(PluginOutputVerdict, HostUpOrDown) {
  EXPECT_EQ(host_up_or_down(0, false), 0);
  EXPECT_EQ(host_up_or_down(1, false), 0);
  EXPECT_EQ(host_up_or_down(1, true), 1);
  EXPECT_EQ(host_up_or_down(2, false), 1);
  EXPECT_EQ(host_up_or_down(3, false), 1);
}

}  // namespace
}  // namespace vedette::exec
