// The shell lexer and the escaping of values from outside, checked against the real /bin/sh: what it
// prints for the escaped line, and that a canary file hostile values try to create never appears.
#include "config/shell_quoting.hpp"

#include "config/command_compiler.hpp"
#include "expanded_line_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

namespace vedette::config {
namespace {

namespace fs = std::filesystem;
using model::ShellQuoting;
using After = ShellSlot::After;

ShellSlot slot_after(std::string_view prefix) {
  ShellLexer lexer;
  for (char c : prefix) lexer.feed(c);
  return lexer.slot();
}

std::string escaped(std::string_view value, ShellSlot at) {
  std::string out;
  append_shell_escaped(out, value, at);
  return out;
}

// What /bin/sh prints on stdout for `line` (popen runs `/bin/sh -c line`, as the executor does).
std::string run_sh(const std::string& line) {
  FILE* pipe = ::popen(line.c_str(), "r");
  if (pipe == nullptr) return "<popen failed>";
  std::string out;
  char buf[4096];
  while (const std::size_t n = std::fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  ::pclose(pipe);
  return out;
}

// The line /bin/sh gets for `line`; "" if it would run without the shell.
std::string for_shell(const ExpandedLine& line) {
  bool shell = false;
  std::vector<EnvVar> env;
  const std::vector<std::string> argv = split_expanded_line(line.text, line.outside, shell, env);
  return shell && argv.size() == 1 ? argv.front() : std::string();
}

class ShellQuotingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/vedette_shell_quoting_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    canary_ = (fs::path(dir_) / "pwned").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Values that would run `touch <canary>` if a shell read them as syntax, in every quoting.
  [[nodiscard]] std::vector<std::string> hostile() const {
    const std::string touch = "touch " + canary_;
    return {"; " + touch + "; ",
            "\"; " + touch + "; \"",
            "'; " + touch + "; '",
            "$(" + touch + ")",
            "`" + touch + "`",
            "\"$(" + touch + ")\"",
            "'$(" + touch + ")'",
            "\\'; " + touch + " #",
            "\\\"; " + touch + " #",
            "a\n" + touch,
            "| " + touch,
            "& " + touch + " &",
            ") ; " + touch + " ; (",
            "${x:-$(" + touch + ")}",
            "*",
            "~root",
            "#",
            "=x",
            "\\",
            "'",
            "\"",
            "$HOME",
            "{a,b}",
            "é ü"};
  }
  [[nodiscard]] bool canary_exists() const { return fs::exists(canary_); }

  std::string dir_;
  std::string canary_;
};

TEST(ShellLexer, FollowsQuotesAndWords) {
  const ShellSlot bare{ShellQuoting::bare, After::other};
  const ShellSlot sq{ShellQuoting::single_quoted, After::other};
  const ShellSlot dq{ShellQuoting::double_quoted, After::other};
  const ShellSlot assignment{ShellQuoting::bare_assignment, After::other};
  EXPECT_EQ(slot_after(""), bare);
  EXPECT_EQ(slot_after("/usr/bin/logger "), bare);
  EXPECT_EQ(slot_after("printf '"), sq);
  EXPECT_EQ(slot_after("printf \"%b\" \""), dq);
  EXPECT_EQ(slot_after("printf \"a'b"), dq);
  EXPECT_EQ(slot_after("printf 'a\"b"), sq);
  EXPECT_EQ(slot_after("printf \"a\\\"b"), dq) << "an escaped quote does not end \"…\"";
  EXPECT_EQ(slot_after("printf 'a\\'"), bare) << "a backslash does not escape inside '…'";
  EXPECT_EQ(slot_after("X="), assignment);
  EXPECT_EQ(slot_after("cmd --opt="), assignment)
      << "any unquoted '=' before, as the shell's rule is positional";
  EXPECT_EQ(slot_after("cmd a=b "), bare);
  EXPECT_EQ(slot_after("cmd \"a=b\""), bare);
  EXPECT_EQ(slot_after("X=$(date) "), bare);
  EXPECT_EQ(slot_after("X=$(date +%s)"), assignment) << "restored after the $(…)";
  EXPECT_EQ(slot_after("a ${HOME}/"), bare);
  EXPECT_EQ(slot_after("a | b; c && d "), bare);
  EXPECT_EQ(slot_after("a#"), bare) << "'#' inside a word is no comment";
}

TEST(ShellLexer, CommandSubstitutionHasItsOwnQuoting) {
  EXPECT_EQ(slot_after("echo \"$(echo '").quoting, ShellQuoting::single_quoted);
  EXPECT_EQ(slot_after("echo \"$(echo \"").quoting, ShellQuoting::double_quoted);
  EXPECT_EQ(slot_after("echo \"$(echo ").quoting, ShellQuoting::bare);
  EXPECT_EQ(slot_after("echo \"$(echo (a) b) ").quoting, ShellQuoting::double_quoted);
  EXPECT_EQ(slot_after("echo \"$(echo ')' b) ").quoting, ShellQuoting::double_quoted);
  EXPECT_EQ(slot_after("echo $(echo $(echo \"a\") '").quoting, ShellQuoting::single_quoted);
}

TEST(ShellLexer, GivesUpWhereItDoesNotFollowTheShell) {
  for (const char* prefix : {"# ", "a # ", "a `echo ", "a \"`echo ", "a ${x:-", "a ${#", "a $((", "a ((",
                             "cat <<", "a $'", "a $(case x in y) "}) {
    EXPECT_EQ(slot_after(prefix).quoting, ShellQuoting::opaque) << prefix;
  }
  EXPECT_EQ(slot_after("a `echo` ").quoting, ShellQuoting::bare) << "after the closing '`'";
  EXPECT_EQ(slot_after("a \"`echo \\` x` ").quoting, ShellQuoting::double_quoted);
  EXPECT_EQ(slot_after("a \"$'").quoting, ShellQuoting::double_quoted) << "$' means nothing inside \"…\"";
}

TEST(ShellLexer, BackslashAndDollarActOnTheValue) {
  EXPECT_EQ(slot_after("a \\"), (ShellSlot{ShellQuoting::bare, After::backslash}));
  EXPECT_EQ(slot_after("a \"\\"), (ShellSlot{ShellQuoting::double_quoted, After::backslash}));
  EXPECT_EQ(slot_after("a '\\"), (ShellSlot{ShellQuoting::single_quoted, After::other}));
  EXPECT_EQ(slot_after("a $"), (ShellSlot{ShellQuoting::bare, After::dollar}));
  EXPECT_EQ(slot_after("a \"$"), (ShellSlot{ShellQuoting::double_quoted, After::dollar}));
  EXPECT_EQ(slot_after("a \"$("), (ShellSlot{ShellQuoting::bare, After::dollar}));
  EXPECT_EQ(slot_after("a ${").quoting, ShellQuoting::opaque);

  // An empty value leaves the backslash to the next byte, as /bin/sh does.
  ShellLexer lexer;
  for (char c : std::string_view("a \\")) lexer.feed(c);
  lexer.fill_slot(0);
  lexer.feed('\'');
  EXPECT_EQ(lexer.slot().quoting, ShellQuoting::bare);
  lexer.fill_slot(1);
  lexer.feed('#');
  EXPECT_TRUE(lexer.saw_hash_after_slot());
  EXPECT_EQ(lexer.slot().quoting, ShellQuoting::opaque);
}

TEST(AppendShellEscaped, ForEachQuoting) {
  const ShellSlot bare{ShellQuoting::bare};
  EXPECT_EQ(escaped("looking at it", bare), "looking at it");
  EXPECT_EQ(escaped("hello; touch /tmp/x", bare), R"(hello\; touch /tmp/x)");
  EXPECT_EQ(escaped("a\nb\tc", bare), "a b\tc");
  EXPECT_EQ(escaped("$(x)`y`'\"\\*?~#=", bare), R"(\$\(x\)\`y\`\'\"\\\*\?\~\#\=)");
  EXPECT_EQ(escaped("load=0.5;1;2 rta=0.8ms", bare), R"(load\=0.5\;1\;2 rta\=0.8ms)");
  EXPECT_EQ(escaped(std::string_view("a\0b", 3), bare), "ab");
  EXPECT_EQ(escaped("a b", {ShellQuoting::bare_assignment}), R"(a\ b)");
  EXPECT_EQ(escaped("it's \"x\" $y", {ShellQuoting::single_quoted}), R"(it'\''s "x" $y)");
  EXPECT_EQ(escaped("it's \"x\" $y `z` \\", {ShellQuoting::double_quoted}), R"(it's \"x\" \$y \`z\` \\)");
  EXPECT_EQ(escaped("$(x)", {ShellQuoting::opaque}), "");
  EXPECT_EQ(escaped("x y", {ShellQuoting::bare, After::backslash}), R"(x y)")
      << "the configured '\\' escapes x";
  EXPECT_EQ(escaped("$x", {ShellQuoting::double_quoted, After::backslash}), R"($x)");
  EXPECT_EQ(escaped("PATH", {ShellQuoting::bare, After::dollar}), R"(\PATH)");
  EXPECT_EQ(escaped(" PATH", {ShellQuoting::bare, After::dollar}), R"( PATH)");
  EXPECT_EQ(escaped("PATH", {ShellQuoting::double_quoted, After::dollar}), R"(""PATH)");
}

TEST(IsShellInert, PerQuoting) {
  EXPECT_TRUE(is_shell_inert("/usr/lib/nagios/plugins", ShellQuoting::bare));
  EXPECT_TRUE(is_shell_inert("80%", ShellQuoting::bare_assignment));
  EXPECT_FALSE(is_shell_inert("", ShellQuoting::bare));
  EXPECT_FALSE(is_shell_inert("-w 80", ShellQuoting::bare));
  EXPECT_FALSE(is_shell_inert("a=b", ShellQuoting::bare));
  EXPECT_TRUE(is_shell_inert("", ShellQuoting::single_quoted));
  EXPECT_TRUE(is_shell_inert("a \"b\" $c", ShellQuoting::single_quoted));
  EXPECT_FALSE(is_shell_inert("it's", ShellQuoting::single_quoted));
  EXPECT_TRUE(is_shell_inert("it's a b", ShellQuoting::double_quoted));
  for (const char* bad : {"\"", "\\", "$", "`"})
    EXPECT_FALSE(is_shell_inert(bad, ShellQuoting::double_quoted));
  EXPECT_TRUE(is_shell_inert("'\"$", ShellQuoting::opaque));
  EXPECT_FALSE(is_shell_inert("`", ShellQuoting::opaque));
}

// Each quoting, each hostile value: /bin/sh prints the value's exact bytes and runs nothing.
TEST_F(ShellQuotingTest, TheShellReadsTheValueVerbatim) {
  struct Context {
    const char* before;
    const char* after;
  };
  const Context contexts[] = {
      {"printf '[%s]' \"", "\" | cat"},
      {"printf '[%s]' '", "' | cat"},
      {"printf '[%s]' \"a $(printf %s \"", "\") b\""},
      {"printf '[%s]' \"$(printf %s '", "')\""},
      {"printf '[%s]' X=", " | cat"},
      {"X=", " ; printf '[%s]' \"$X\""},
      {"printf '[%s]' \"`date +%Y`: ", "\""},
  };
  for (const Context& c : contexts) {
    for (const std::string& value : hostile()) {
      const std::string line =
          for_shell(ExpandedLine().configured(c.before).value(value).configured(c.after));
      ASSERT_FALSE(line.empty());
      const std::string expected =
          for_shell(ExpandedLine().configured(c.before).value("Q7Z").configured(c.after));
      std::string want = run_sh(expected);
      const std::size_t marker = want.find("Q7Z");
      ASSERT_NE(marker, std::string::npos) << expected;
      std::string text = value;
      if (std::string_view(c.before).ends_with("X=")) std::replace(text.begin(), text.end(), '\n', ' ');
      want.replace(marker, 3, text);
      EXPECT_EQ(run_sh(line), want) << "line: " << line;
      ASSERT_FALSE(canary_exists()) << "line: " << line;
    }
  }
}

// Unquoted, blanks keep separating words (a newline as a blank) and nothing else does.
TEST_F(ShellQuotingTest, UnquotedValuesSplitAtBlanksOnly) {
  for (const std::string& value : hostile()) {
    const std::string line =
        for_shell(ExpandedLine().configured("printf '[%s]' ").value(value).configured(" | cat"));
    std::string want;
    std::string word;
    bool in_word = false;
    for (char c : value + ' ') {
      if (c == ' ' || c == '\t' || c == '\n') {
        if (in_word) want += '[' + word + ']';
        word.clear();
        in_word = false;
        continue;
      }
      word += c;
      in_word = true;
    }
    if (want.empty()) want = "[]";
    EXPECT_EQ(run_sh(line), want) << "line: " << line;
    ASSERT_FALSE(canary_exists()) << "line: " << line;
  }
}

// "Q<k>Z": no value contains one, and none is a prefix of another.
std::string marker_for(std::size_t k) {
  std::string marker = "Q";
  marker += std::to_string(k);
  marker += 'Z';
  return marker;
}

// Random lines of quoted, unquoted and substituted words around several values: /bin/sh prints what it
// prints with harmless markers there, each marker replaced by its value, and runs nothing else.
TEST_F(ShellQuotingTest, RandomLinesKeepTheirStructure) {
  const std::vector<std::string> values = [&] {
    std::vector<std::string> v;
    for (const std::string& h : hostile())
      if (h.find_first_of(" \t\n") == std::string::npos) v.push_back(h);
    const std::string touch = "touch${IFS}" + canary_;
    for (const std::string& h : {";" + touch + ";", "$(" + touch + ")", "`" + touch + "`",
                                 "'$(" + touch + ")'", "\"`" + touch + "`\"", "\\\";" + touch + ";#"})
      v.push_back(h);
    return v;
  }();
  std::mt19937 rng(33);
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  for (int round = 0; round < 150; ++round) {
    std::vector<std::string> parts;  // configured text, or "\x01" for a value
    const int words = 1 + pick(4);
    parts.push_back("printf '<%s>'");
    for (int w = 0; w < words; ++w) {
      parts.push_back(" ");
      switch (pick(7)) {
        case 0:
          parts.insert(parts.end(), {"\x01"});
          break;
        case 1:
          parts.insert(parts.end(), {"'a", "\x01", "b'"});
          break;
        case 2:
          parts.insert(parts.end(), {"\"a ", "\x01", " \\\"b\\$\""});
          break;
        case 3:
          parts.insert(parts.end(), {"x", "\x01", "'y'\"", "\x01", "\""});
          break;
        case 4:
          parts.insert(parts.end(), {"\"$(printf %s '", "\x01", "' \"", "\x01", "\")\""});
          break;
        case 5:
          parts.insert(parts.end(), {"$(printf '%s-' ", "\x01", " k)"});
          break;
        default:
          parts.insert(parts.end(), {"k=", "\x01", "\"x\""});
          break;
      }
    }
    if (pick(2) == 0) parts.push_back(" | cat");
    ExpandedLine benign, hostile_line;
    std::string want;
    std::vector<std::string> chosen;
    for (const std::string& part : parts) {
      if (part != "\x01") {
        benign.configured(part);
        hostile_line.configured(part);
        continue;
      }
      const std::string marker = marker_for(chosen.size());
      chosen.push_back(values[static_cast<std::size_t>(pick(static_cast<int>(values.size())))]);
      benign.value(marker);
      hostile_line.value(chosen.back());
    }
    want = run_sh(for_shell(benign));
    for (std::size_t k = chosen.size(); k-- > 0;) {
      const std::string marker = marker_for(k);
      for (std::size_t at = want.find(marker); at != std::string::npos; at = want.find(marker, at)) {
        want.replace(at, marker.size(), chosen[k]);
        at += chosen[k].size();
      }
    }
    const std::string line = for_shell(hostile_line);
    ASSERT_EQ(run_sh(line), want) << "line: " << line;
    ASSERT_FALSE(canary_exists()) << "line: " << line;
  }
}

}  // namespace
}  // namespace vedette::config
