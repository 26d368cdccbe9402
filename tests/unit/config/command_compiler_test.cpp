#include "config/command_compiler.hpp"

#include "expanded_line_support.hpp"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace vedette::config {
namespace {

using model::CommandPiece;
using model::CommandTemplate;
using model::MacroContext;
using Strings = std::vector<std::string>;
using Values = std::map<std::string, std::string, std::less<>>;

// ---- helpers
// ---------------------------------------------------------------------------------------------------

Strings split(std::string_view line, bool expect_shell = false) {
  bool shell = !expect_shell;
  Strings argv = split_expanded_line(line, shell);
  EXPECT_EQ(shell, expect_shell) << "line: " << line;
  return argv;
}

bool needs_shell(std::string_view line) {
  bool shell = false;
  (void)split_expanded_line(line, shell);
  return shell;
}

// Naemon's macro pass over a whole line, written independently of the compiler: '$' alternates text and
// names,
// "$$" is '$', an unknown name stays as written.
std::string expand_line(std::string_view line, const Values& values) {
  std::string out;
  bool in_macro = false;
  std::size_t pos = 0;
  while (true) {
    const std::size_t dollar = line.find('$', pos);
    const std::string_view seg = line.substr(pos, dollar == line.npos ? line.npos : dollar - pos);
    if (!in_macro) {
      out += seg;
      in_macro = true;
    } else {
      in_macro = false;
      if (seg.empty()) {
        out += '$';
      } else if (auto it = values.find(seg); it != values.end()) {
        out += it->second;
      } else {
        out += '$';
        out += seg;
        if (dollar != line.npos) out += '$';
      }
    }
    if (dollar == line.npos) break;
    pos = dollar + 1;
  }
  return out;
}

std::string value_of(const CommandPiece& piece, const Values& values) {
  if (auto it = values.find(piece.text); it != values.end()) return it->second;
  std::string text = "$";
  text.append(piece.text);
  if (!piece.unterminated) text += '$';
  return text;
}

struct Outcome {
  std::vector<EnvVar> env;
  Strings argv;
  bool needs_shell = false;
  bool operator==(const Outcome&) const = default;
};

// The fast path the executor will take: fill the template's slots, no splitting. nullopt = must resplit.
std::optional<Outcome> expand_template(const CommandTemplate& t, const Values& values) {
  if (t.always_resplit) return std::nullopt;
  Outcome run;
  run.needs_shell = t.needs_shell;
  for (const auto& e : t.env) run.env.emplace_back(std::string(e.name), std::string(e.value));
  for (const auto& arg : t.argv) {
    std::string word;
    for (const auto& piece : arg.pieces) {
      if (piece.kind == CommandPiece::Kind::literal) {
        word += piece.text;
        continue;
      }
      const std::string value = value_of(piece, values);
      if (value_needs_resplit(value, piece)) return std::nullopt;
      word += value;
    }
    if (arg.drop_if_empty && word.empty()) continue;
    run.argv.push_back(std::move(word));
  }
  return run;
}

Outcome expand_then_split(std::string_view line, const Values& values) {
  Outcome run;
  run.argv = split_expanded_line(expand_line(line, values), run.needs_shell, run.env);
  return run;
}

std::string show(const Outcome& run) {
  std::string s = run.needs_shell ? "shell" : "exec";
  for (const auto& [k, v] : run.env) s += " {" + k + "=" + v + "}";
  for (const auto& a : run.argv) s += " [" + a + "]";
  return s;
}

CommandPiece lit(std::string_view text) {
  return {CommandPiece::Kind::literal, text};
}

// ---- "name!arg!arg"
// --------------------------------------------------------------------------------------------

TEST(SplitCommandCall, SplitsOnBangs) {
  const CommandCall call = split_command_call("check_ping!100.0,20%!500.0,60%");
  EXPECT_EQ(call.name, "check_ping");
  EXPECT_EQ(call.args, (Strings{"100.0,20%", "500.0,60%"}));
}

TEST(SplitCommandCall, NoArguments) {
  const CommandCall call = split_command_call("check-host-alive");
  EXPECT_EQ(call.name, "check-host-alive");
  EXPECT_TRUE(call.args.empty());
}

TEST(SplitCommandCall, BackslashBangIsABangOtherBackslashesStay) {
  const CommandCall call = split_command_call(R"(cmd!a\!b!c\d\\!e\)");
  // "\\!" is a backslash and an escaped bang: an argument cannot end in a backslash before a '!'.
  EXPECT_EQ(call.args, (Strings{"a!b", R"(c\d\!e\)"}));
}

TEST(SplitCommandCall, NameEndsAtFirstBangEvenIfEscaped) {
  const CommandCall call = split_command_call(R"(na\!me!x)");
  EXPECT_EQ(call.name, R"(na\)");
  EXPECT_EQ(call.args, (Strings{"me", "x"}));
}

TEST(SplitCommandCall, EmptyArgumentsAreKept) {
  EXPECT_EQ(split_command_call("c!!x").args, (Strings{"", "x"}));
  EXPECT_EQ(split_command_call("c!").args, (Strings{""}));
  EXPECT_EQ(split_command_call("c!a!").args, (Strings{"a", ""}));
  EXPECT_EQ(split_command_call("c!a!!").args, (Strings{"a", "", ""}));
}

TEST(SplitCommandCall, KeepsAtMost32Arguments) {
  std::string text = "c";
  for (int i = 1; i <= 40; ++i) text.append("!").append(std::to_string(i));
  const CommandCall call = split_command_call(text);
  ASSERT_EQ(call.args.size(), k_max_command_args);
  EXPECT_EQ(call.args.front(), "1");
  EXPECT_EQ(call.args.back(), "32");
}

TEST(SplitCommandCall, DollarsAndSpacesAreLeftForMacroExpansion) {
  EXPECT_EQ(split_command_call("c! a b !$HOSTNAME$$$").args, (Strings{" a b ", "$HOSTNAME$$$"}));
}

// ---- runcmd splitting of an expanded line
// ----------------------------------------------------------------------

TEST(SplitExpandedLine, Blanks) {
  EXPECT_EQ(split("foo bar nisse"), (Strings{"foo", "bar", "nisse"}));
  EXPECT_EQ(split("  foo \t\r\n bar  "), (Strings{"foo", "bar"}));
  EXPECT_EQ(split(""), Strings{});
  EXPECT_EQ(split("   "), Strings{});
}

TEST(SplitExpandedLine, SingleQuotesKeepEverything) {
  EXPECT_EQ(split(R"('a b' 'c\d' '' x'y z'w)"), (Strings{"a b", R"(c\d)", "", "xy zw"}));
  EXPECT_EQ(split(R"x('$x;|&*?()`"')x"), (Strings{R"x($x;|&*?()`")x"}));
  EXPECT_EQ(split(R"('te\\\st11')"), (Strings{R"(te\\\st11)"}));
}

TEST(SplitExpandedLine, DoubleQuotesEscapeOnlySome) {
  EXPECT_EQ(split(R"("a b" "c\d" "\\e" "\$f" "\`g")"), (Strings{"a b", R"(c\d)", R"(\e)", "$f", "`g"}));
  EXPECT_EQ(split(R"("te\\\st7")"), (Strings{R"(te\\st7)"}));
  EXPECT_EQ(split(R"x("it's;|&*?()")x"), (Strings{"it's;|&*?()"}));
  EXPECT_EQ(split(R"(a"b c"d)"), (Strings{"ab cd"}));
}

TEST(SplitExpandedLine, EscapedDoubleQuoteEndsTheQuotedString) {
  // runcmd does not honour \" inside double quotes: the quote closes, the backslash is gone.
  EXPECT_EQ(split(R"("a\" b)"), (Strings{"ab"}));
  EXPECT_TRUE(needs_shell(R"("a\"b")"));  // the last quote opens a new, unbalanced string
}

TEST(SplitExpandedLine, UnquotedBackslashEscapesAnything) {
  EXPECT_EQ(split(R"(foo\ bar nisse)"), (Strings{"foo bar", "nisse"}));
  EXPECT_EQ(split(R"(te\st1 te\\st2 te\\\st3)"), (Strings{"test1", R"(te\st2)", R"(te\st3)"}));
  EXPECT_EQ(split(R"(\$foo \; \| \& \* \? \( \) \` \~ \' \")"),
            (Strings{"$foo", ";", "|", "&", "*", "?", "(", ")", "`", "~", "'", "\""}));
  EXPECT_EQ(split("\\ \t \\\t  \\ "), (Strings{" ", "\t", " "}));
}

TEST(SplitExpandedLine, TrailingBackslashIsDropped) {
  EXPECT_EQ(split(R"(test0\)"), (Strings{"test0"}));
  EXPECT_EQ(split(R"(foo \)"), (Strings{"foo", ""}));
}

TEST(SplitExpandedLine, EachShellCharacterForcesTheShell) {
  for (const char* line : {"a | b", "~/x", "a & b", "a ; b", "a `b`", "a (b", "a )b", "echo $HOME", "a $(b)",
                           "ls /tmp/*", "ls /dev/tty?", "a=b", "a 'b", "a \"b", "foo \"~\""}) {
    bool shell = false;
    const Strings argv = split_expanded_line(line, shell);
    EXPECT_TRUE(shell) << line;
    EXPECT_EQ(argv, Strings{line}) << line;
  }
}

TEST(SplitExpandedLine, QuotedOrEscapedShellCharactersDoNot) {
  EXPECT_EQ(split("a '|' \"&\" '~' \\~ '$' '`' \"(\" '*' \"?\" \";\""),
            (Strings{"a", "|", "&", "~", "~", "$", "`", "(", "*", "?", ";"}));
}

TEST(SplitExpandedLine, RedirectionIsNotShellSyntaxForRuncmd) {
  EXPECT_EQ(split("check > /tmp/out 2>&1x", true), Strings{"check > /tmp/out 2>&1x"});
  EXPECT_EQ(split("check > /tmp/out < in #x"), (Strings{"check", ">", "/tmp/out", "<", "in", "#x"}));
}

TEST(SplitExpandedLine, EqualsBeforeACountedBlankForcesTheShell) {
  // A blank that ends a word does not count; only a blank seen between words (or quoted) does.
  EXPECT_TRUE(needs_shell("check --opt=val"));
  EXPECT_EQ(split("check  --opt=val"), (Strings{"check", "--opt=val"}));
  EXPECT_EQ(split(" check --opt=val"), (Strings{"check", "--opt=val"}));
  EXPECT_EQ(split("'a b' --opt=val"), (Strings{"a b", "--opt=val"}));
  EXPECT_EQ(split("check '--opt=val'"), (Strings{"check", "--opt=val"}));
}

TEST(SplitExpandedLine, LeadingAssignmentsBecomeEnvironment) {
  bool shell = true;
  std::vector<EnvVar> env;
  const Strings argv = split_expanded_line(
      R"(TEST=123 BL_AH='BLUB' foo="bar bar" EMPTY= EMPTY2='' /bin/true arg1 a=b)", shell, env);
  EXPECT_FALSE(shell);
  EXPECT_EQ(argv, (Strings{"/bin/true", "arg1", "a=b"}));
  EXPECT_EQ(env, (std::vector<EnvVar>{
                     {"TEST", "123"}, {"BL_AH", "BLUB"}, {"foo", "bar bar"}, {"EMPTY", ""}, {"EMPTY2", ""}}));
}

TEST(SplitExpandedLine, EnvironmentIsKeptWhenTheShellIsUsed) {
  bool shell = false;
  std::vector<EnvVar> env;
  const Strings argv = split_expanded_line("A=1 B=$x /bin/true", shell, env);
  EXPECT_TRUE(shell);
  EXPECT_EQ(argv, Strings{"A=1 B=$x /bin/true"});
  EXPECT_EQ(env, (std::vector<EnvVar>{{"A", "1"}}));
}

TEST(SplitExpandedLine, AssignmentOnlyCommitsOnABlank) {
  bool shell = false;
  std::vector<EnvVar> env;
  EXPECT_EQ(split_expanded_line("A=1 B=2", shell, env), Strings{"B=2"});
  EXPECT_EQ(env, (std::vector<EnvVar>{{"A", "1"}}));
  EXPECT_EQ(split_expanded_line("A=1 BC /x", shell, env), (Strings{"BC", "/x"}));
  EXPECT_EQ(env, (std::vector<EnvVar>{{"A", "1"}}));
  EXPECT_EQ(split_expanded_line("1A=1 /x", shell, env), Strings{"1A=1 /x"});
  EXPECT_TRUE(shell);
  EXPECT_TRUE(env.empty());
}

TEST(SplitExpandedLine, StopsAtNul) {
  EXPECT_EQ(split(std::string_view("a b\0 c", 6)), (Strings{"a", "b"}));
}

// ---- compiling
// -------------------------------------------------------------------------------------------------

TEST(CompileCommandLine, PlainWordsAndMacros) {
  model::StringPool pool;
  const CommandTemplate t =
      compile_command_line("$USER1$/check_ping -H $HOSTADDRESS$ -w $ARG1$ -c x$ARG2$y", pool);
  EXPECT_FALSE(t.needs_shell);
  EXPECT_FALSE(t.always_resplit);
  EXPECT_TRUE(t.env.empty());
  ASSERT_EQ(t.argv.size(), 7u);
  ASSERT_EQ(t.argv[0].pieces.size(), 2u);
  EXPECT_EQ(t.argv[0].pieces[0].kind, CommandPiece::Kind::macro);
  EXPECT_EQ(t.argv[0].pieces[0].text, "USER1");
  EXPECT_TRUE(t.argv[0].pieces[0].env_start);
  EXPECT_EQ(t.argv[0].pieces[1], lit("/check_ping"));
  EXPECT_FALSE(t.argv[0].drop_if_empty);
  EXPECT_EQ(t.argv[1].pieces, std::vector<CommandPiece>{lit("-H")});
  EXPECT_EQ(t.argv[2].pieces.at(0).text, "HOSTADDRESS");
  EXPECT_FALSE(t.argv[2].pieces.at(0).env_start);
  EXPECT_TRUE(t.argv[2].drop_if_empty);
  const auto& last = t.argv[6].pieces;
  ASSERT_EQ(last.size(), 3u);
  EXPECT_EQ(last[0], lit("x"));
  EXPECT_EQ(last[1].text, "ARG2");
  EXPECT_EQ(last[1].context, MacroContext::unquoted);
  EXPECT_EQ(last[2], lit("y"));
  EXPECT_EQ(t.line.data(), pool.intern(t.line).data());
}

TEST(CompileCommandLine, QuotedMacrosRecordTheirContext) {
  model::StringPool pool;
  const CommandTemplate t = compile_command_line(R"(/bin/x '$ARG1$' "a $ARG2$" -s\ $ARG3$)", pool);
  ASSERT_FALSE(t.needs_shell);
  ASSERT_EQ(t.argv.size(), 4u);
  EXPECT_EQ(t.argv[1].pieces.at(0).context, MacroContext::single_quoted);
  EXPECT_FALSE(t.argv[1].drop_if_empty);
  EXPECT_EQ(t.argv[2].pieces.at(0), lit("a "));
  EXPECT_EQ(t.argv[2].pieces.at(1).context, MacroContext::double_quoted);
  EXPECT_EQ(t.argv[3].pieces.at(0), lit("-s "));
  EXPECT_EQ(t.argv[3].pieces.at(1).context, MacroContext::unquoted);
}

TEST(CompileCommandLine, DoubleDollarIsALiteralDollar) {
  model::StringPool pool;
  const CommandTemplate t = compile_command_line("/bin/echo '$$HOME' x$$$ARG1$", pool);
  // '$$HOME' is single-quoted; the unquoted "x$" then forces the shell.
  EXPECT_TRUE(t.needs_shell);
  ASSERT_EQ(t.argv.size(), 1u);
  const auto& p = t.argv[0].pieces;
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0], lit("/bin/echo '$HOME' x$"));
  EXPECT_EQ(p[1].text, "ARG1");
  EXPECT_EQ(p[1].context, MacroContext::settled);

  const CommandTemplate q = compile_command_line("/bin/echo '$$HOME'", pool);
  EXPECT_FALSE(q.needs_shell);
  ASSERT_EQ(q.argv.size(), 2u);
  EXPECT_EQ(q.argv[1].pieces, std::vector<CommandPiece>{lit("$HOME")});
}

TEST(CompileCommandLine, UnterminatedDollar) {
  model::StringPool pool;
  const CommandTemplate t = compile_command_line("/bin/x -H $HOSTADDRESS", pool);
  ASSERT_FALSE(t.needs_shell);
  ASSERT_EQ(t.argv.size(), 3u);
  const CommandPiece& m = t.argv[2].pieces.at(0);
  EXPECT_EQ(m.text, "HOSTADDRESS");
  EXPECT_TRUE(m.unterminated);
  EXPECT_FALSE(value_needs_resplit("10.0.0.1", m));
  EXPECT_TRUE(value_needs_resplit("$HOSTADDRESS", m));  // unknown: stays as written, and '$' wants the shell

  // A lone '$' at the very end stays a '$' (and, unquoted, wants the shell).
  const CommandTemplate lone = compile_command_line("/bin/x cost$", pool);
  EXPECT_TRUE(lone.needs_shell);
  EXPECT_EQ(lone.argv.at(0).pieces, std::vector<CommandPiece>{lit("/bin/x cost$")});

  // In 'cost$' the closing quote is the name of an unterminated macro; unknown, it expands back to "$'".
  const CommandTemplate quoted = compile_command_line("/bin/x 'cost$'", pool);
  EXPECT_TRUE(quoted.needs_shell);  // as compiled, the quote looks unbalanced
  const CommandPiece& name = quoted.argv.at(0).pieces.at(1);
  EXPECT_EQ(name.text, "'");
  EXPECT_TRUE(name.unterminated);
  EXPECT_TRUE(value_needs_resplit("$'", name));
  EXPECT_EQ(expand_then_split(quoted.line, {}), (Outcome{{}, {"/bin/x", "cost$"}, false}));
}

TEST(CompileCommandLine, ShellFormIsTheWholeLine) {
  model::StringPool pool;
  const CommandTemplate t = compile_command_line("X=1 $USER1$/check_foo $ARG1$ | head -1", pool);
  EXPECT_TRUE(t.needs_shell);
  ASSERT_EQ(t.argv.size(), 1u);
  EXPECT_EQ(t.env, (std::vector<model::CommandEnv>{{"X", "1"}}));
  const auto& p = t.argv[0].pieces;
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(p[0], lit("X=1 "));
  EXPECT_EQ(p[1].text, "USER1");
  EXPECT_TRUE(p[1].env_start);
  EXPECT_EQ(p[2], lit("/check_foo "));
  EXPECT_EQ(p[3].context, MacroContext::unquoted);  // before the '|': a quote in it could hide the pipe
  EXPECT_EQ(p[4], lit(" | head -1"));
}

TEST(CompileCommandLine, EachShellCharacterForcesTheShell) {
  model::StringPool pool;
  for (const char* line : {"a | b", "~/x", "a & b", "a ; b", "a `b`", "a (b", "a )b", "a $$HOME", "a *",
                           "a ?", "a b=c", "a 'b", "a \"b"}) {
    const CommandTemplate t = compile_command_line(line, pool);
    EXPECT_TRUE(t.needs_shell) << line;
    ASSERT_EQ(t.argv.size(), 1u) << line;
  }
}

TEST(CompileCommandLine, MacroWhereTheSplitCannotBePredicted) {
  model::StringPool pool;
  EXPECT_TRUE(compile_command_line(R"(/bin/x \$ARG1$)", pool).always_resplit);
  EXPECT_TRUE(compile_command_line(R"(/bin/x "\$ARG1$")", pool).always_resplit);
  EXPECT_TRUE(compile_command_line(R"(A=$ARG1$ /bin/x)", pool).always_resplit);
  EXPECT_TRUE(compile_command_line(R"("$USER1$/x" -v)", pool).always_resplit);
  EXPECT_FALSE(compile_command_line(R"(/bin/x '\'$ARG1$)", pool).always_resplit);
}

TEST(CompileCommandLine, ShellLinesRecordHowTheShellReadsEachMacro) {
  model::StringPool pool;
  const CommandTemplate t = compile_command_line(
      R"(/usr/bin/printf "%b" "Info: $SERVICEOUTPUT$\n" | /usr/bin/mail -s '$HOSTNAME$ is $SERVICESTATE$' )"
      R"x($CONTACTEMAIL$ X=$ARG1$ `date $ARG2$` "$$(echo '$ARG3$')")x",
      pool);
  ASSERT_TRUE(t.needs_shell);
  ASSERT_FALSE(t.always_resplit);
  std::map<std::string, model::ShellQuoting, std::less<>> quoting;
  for (const CommandPiece& p : t.argv.at(0).pieces)
    if (p.kind == CommandPiece::Kind::macro) quoting[std::string(p.text)] = p.shell;
  EXPECT_EQ(quoting, (std::map<std::string, model::ShellQuoting, std::less<>>{
                         {"SERVICEOUTPUT", model::ShellQuoting::double_quoted},
                         {"HOSTNAME", model::ShellQuoting::single_quoted},
                         {"SERVICESTATE", model::ShellQuoting::single_quoted},
                         {"CONTACTEMAIL", model::ShellQuoting::bare},
                         {"ARG1", model::ShellQuoting::bare_assignment},
                         {"ARG2", model::ShellQuoting::opaque},
                         {"ARG3", model::ShellQuoting::single_quoted},
                     }));
  // Where the shell's reading of what follows depends on the value itself, the whole line is expanded.
  for (const char* line : {"/bin/x $$$ARG1$ | cat", "/bin/x \"\\$ARG1$\" | cat", "/bin/x $ARG1$# | cat",
                           "/bin/x \"$$$ARG1$\" | cat"}) {
    EXPECT_TRUE(compile_command_line(line, pool).always_resplit) << line;
  }
  EXPECT_FALSE(compile_command_line("/bin/x $ARG1$ # | cat", pool).always_resplit);
}

// ---- value checks
// ----------------------------------------------------------------------------------------------

TEST(ValueNeedsResplit, DependsOnTheQuoting) {
  CommandPiece m{CommandPiece::Kind::macro, "ARG1"};
  EXPECT_FALSE(value_needs_resplit("80%", m));
  EXPECT_TRUE(value_needs_resplit("-w 80% -c 90%", m));
  EXPECT_TRUE(value_needs_resplit("a'b", m));
  EXPECT_TRUE(value_needs_resplit("a;b", m));
  EXPECT_TRUE(value_needs_resplit(std::string_view("a\0b", 3), m));
  EXPECT_FALSE(value_needs_resplit("a=b", m));
  m.before_space = true;
  EXPECT_TRUE(value_needs_resplit("a=b", m));
  m.context = MacroContext::single_quoted;
  m.before_space = false;
  EXPECT_FALSE(value_needs_resplit("-w 80% ; $x \"`\\", m));
  EXPECT_TRUE(value_needs_resplit("it's", m));
  m.context = MacroContext::double_quoted;
  EXPECT_FALSE(value_needs_resplit("a b ; 'x' * |", m));
  for (const char* bad : {"\"", "\\", "$", "`", "~"}) EXPECT_TRUE(value_needs_resplit(bad, m)) << bad;
  m.context = MacroContext::settled;
  EXPECT_FALSE(value_needs_resplit("' \" ; $", m));
}

TEST(ValueNeedsResplit, AtTheStartOfTheLine) {
  CommandPiece m{CommandPiece::Kind::macro, "USER1"};
  m.env_start = true;
  m.before_space = true;
  EXPECT_FALSE(value_needs_resplit("/usr/lib/nagios/plugins", m));
  EXPECT_FALSE(value_needs_resplit("plugins/", m));
  EXPECT_FALSE(value_needs_resplit("9x", m));
  EXPECT_TRUE(value_needs_resplit("", m));
  EXPECT_TRUE(value_needs_resplit("plugins", m));  // "$USER1$=1 x" would become an assignment
}

TEST(ValueNeedsResplit, PositionFreeFormIsConservative) {
  EXPECT_FALSE(value_needs_resplit("10.0.0.1"));
  EXPECT_FALSE(value_needs_resplit("/usr/lib/nagios/plugins"));
  EXPECT_TRUE(value_needs_resplit(""));
  EXPECT_TRUE(value_needs_resplit("web01"));
  for (const char* bad : {" ", "\t", "'", "\"", "\\", "|", "~", "&", ";", "`", "(", ")", "$", "*", "?", "="})
    EXPECT_TRUE(value_needs_resplit(std::string("/") + bad)) << bad;
}

// ---- the template agrees with expand-then-split
// ----------------------------------------------------------------

void expect_equivalent(std::string_view line, const Values& values, int* checked = nullptr) {
  model::StringPool pool;
  const CommandTemplate t = compile_command_line(line, pool);
  const std::optional<Outcome> fast = expand_template(t, values);
  if (!fast) return;
  if (checked) ++*checked;
  const Outcome slow = expand_then_split(line, values);
  ASSERT_EQ(*fast, slow) << "line: " << line << "\nfast: " << show(*fast) << "\nslow: " << show(slow);
}

TEST(CommandTemplateEquivalence, TypicalLines) {
  const Values values{{"USER1", "/usr/lib/nagios/plugins"},
                      {"HOSTADDRESS", "10.0.0.1"},
                      {"HOSTNAME", "web01"},
                      {"ARG1", "80%"},
                      {"ARG2", ""},
                      {"ARG3", "it's a \"test\""},
                      {"SERVICEDESC", "HTTP check"}};
  int checked = 0;
  for (const char* line : {
           "$USER1$/check_ping -H $HOSTADDRESS$ -w $ARG1$ -c $ARG2$",
           "$USER1$/check_http -H $HOSTNAME$ -I $HOSTADDRESS$ -u '/index.html' $ARG2$",
           "$USER1$/check_dummy 0 \"$SERVICEDESC$ ok\" $ARG2$$ARG2$ x",
           "/bin/printf '%s\\n' '$SERVICEDESC$' \"$HOSTNAME$\"",
           "$USER1$/check_x $ARG2$ --opt=$ARG1$",
           "$USER1$/check_x --opt=$ARG1$ | cat",
           "FOO=bar $USER1$/check_x -H $HOSTADDRESS$",
           "/bin/x $UNKNOWN$ y",
           "/bin/x '$UNKNOWN$' y",
           "/bin/x -H $HOSTADDRESS",
           "/bin/x a$$b",
       }) {
    expect_equivalent(line, values, &checked);
  }
  EXPECT_GE(checked, 8);
}

TEST(CommandTemplateEquivalence, ValuesThatResplitAreCaught) {
  model::StringPool pool;
  const CommandTemplate t = compile_command_line("$USER1$/check_x -w $ARG1$ -c $ARG2$", pool);
  Values values{{"USER1", "/p"}, {"ARG1", "80% -c 90%"}, {"ARG2", "1"}};
  EXPECT_FALSE(expand_template(t, values).has_value());
  EXPECT_EQ(expand_then_split(t.line, values).argv,
            (Strings{"/p/check_x", "-w", "80%", "-c", "90%", "-c", "1"}));

  // An empty word-opening macro lets the following blank count, so the later bare '=' no longer needs a
  // shell.
  const CommandTemplate e = compile_command_line("/bin/x $ARG1$ a=b", pool);
  EXPECT_TRUE(e.needs_shell);
  EXPECT_FALSE(expand_template(e, {{"ARG1", ""}}).has_value());
  EXPECT_FALSE(expand_then_split(e.line, {{"ARG1", ""}}).needs_shell);
  EXPECT_TRUE(expand_template(e, {{"ARG1", "v"}}).has_value());

  // A quoted blank counts too, with the same effect.
  for (const char* line : {"/bin/x \"$ARG1$\" a=b", "/bin/x '$ARG1$' a=b"}) {
    const CommandTemplate q = compile_command_line(line, pool);
    EXPECT_TRUE(q.needs_shell) << line;
    EXPECT_FALSE(expand_template(q, {{"ARG1", "1 2"}}).has_value()) << line;
    EXPECT_FALSE(expand_then_split(q.line, {{"ARG1", "1 2"}}).needs_shell) << line;
    expect_equivalent(line, {{"ARG1", "12"}});
  }
  // Without a later bare '=', a quoted blank is harmless.
  expect_equivalent("/bin/x \"$ARG1$\" '$ARG1$'", {{"ARG1", "1 2"}});
  EXPECT_TRUE(
      expand_template(compile_command_line("/bin/x \"$ARG1$\"", pool), {{"ARG1", "1 2"}}).has_value());
}

// Random lines and values: whenever the template says no resplit is needed, it must match expand-then-split.
TEST(CommandTemplateEquivalence, RandomLines) {
  const std::vector<std::string> tokens = {
      "a",   "b",   "/x",  "-w",  "9",   "_",   "=", "FOO=", " ", " ",   "  ",  "\t",  "'",   "'",    "\"",
      "\"",  "\\",  "\\",  "|",   "~",   "&",   ";", "`",    "(", ")",   "*",   "?",   "$$",  "$A$",  "$A$",
      "$B$", "$B$", "$C$", "$E$", "$E$", "$U$", ">", "#",    "!", "\\!", "$A$", "$E$", "$E$", "$UNK$"};
  const std::vector<std::string> pool_values = {
      "",  "",      "v",  "web01", "-w 80", "a'b", "a\"b",   "x=y", "/usr/lib", "a\\b", "$",
      "~", "1",     "_x", " ",     "a;b",   "p*",  "FOO=1 ", "80%", "it's",     "a b",  "=",
      "-", "x y=z", "(",  "`",     "\t",    "AB",  "/p/q",   "9z",  "_",        "a|b"};
  std::mt19937 rng(20240601);
  auto pick = [&](const auto& v) {
    return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
  };
  int checked = 0;
  int exec_checked = 0;
  constexpr int k_rounds = 40000;
  for (int round = 0; round < k_rounds; ++round) {
    std::string line;
    const int length = std::uniform_int_distribution<int>(1, 12)(rng);
    for (int i = 0; i < length; ++i) line += pick(tokens);
    if (round % 7 == 0) line += "$A";  // unterminated at the end
    const Values values{{"A", pick(pool_values)},
                        {"B", pick(pool_values)},
                        {"C", pick(pool_values)},
                        {"E", pick(pool_values)},
                        {"U", pick(pool_values)}};
    model::StringPool pool;
    const CommandTemplate t = compile_command_line(line, pool);
    const std::optional<Outcome> fast = expand_template(t, values);
    if (!fast) continue;
    ++checked;
    if (!fast->needs_shell) ++exec_checked;
    const Outcome slow = expand_then_split(line, values);
    ASSERT_EQ(*fast, slow) << "line: " << line << "\nA=" << values.at("A") << " B=" << values.at("B")
                           << " C=" << values.at("C") << " E=" << values.at("E") << " U=" << values.at("U")
                           << "\nfast: " << show(*fast) << "\nslow: " << show(slow);
  }
  // The check must not pass by rejecting everything.
  EXPECT_GT(checked, k_rounds / 5);
  EXPECT_GT(exec_checked, k_rounds / 50);
}

// ---- values from outside the configuration
// ----------------------------------------------------------------------

// The line as the executor gets it.
Outcome split(const ExpandedLine& line) {
  Outcome run;
  run.argv = split_expanded_line(line.text, line.outside, run.needs_shell, run.env);
  return run;
}

TEST(OutsideValues, NeverBringTheShell) {
  // Issue 33: an acknowledgement comment reaching a notification command that has no shell syntax.
  const Outcome run = split(ExpandedLine()
                                .configured("/usr/bin/logger ")
                                .value("looking; touch /tmp/x")
                                .configured(" ")
                                .value("hello; touch /tmp/x"));
  EXPECT_EQ(
      run,
      (Outcome{{}, {"/usr/bin/logger", "looking;", "touch", "/tmp/x", "hello;", "touch", "/tmp/x"}, false}))
      << show(run);
  // Naemon's way (expand, then split) runs it through /bin/sh.
  EXPECT_TRUE(needs_shell("/usr/bin/logger looking; touch /tmp/x"));

  for (const char* hostile : {"$(touch${IFS}/tmp/x)", "`touch${IFS}/tmp/x`", "a|b", "a&b", "*", "~", "x=y",
                              "(", "$HOME", "'", "\\"}) {
    const Outcome run = split(ExpandedLine().configured("/bin/x -m ").value(hostile));
    EXPECT_EQ(run, (Outcome{{}, {"/bin/x", "-m", hostile}, false})) << show(run);
  }
}

TEST(OutsideValues, QuotesAndBackslashesInThemArePlainBytes) {
  const std::string value = R"(it's "quoted" \ and\ 'not' $x)";
  EXPECT_EQ(split(ExpandedLine()
                      .configured("/bin/x '")
                      .value(value)
                      .configured("' \"")
                      .value(value)
                      .configured("\"")),
            (Outcome{{}, {"/bin/x", value, value}, false}));
  EXPECT_EQ(split(ExpandedLine().configured("/bin/x ").value("a'b \"c d")),
            (Outcome{{}, {"/bin/x", "a'b", "\"c", "d"}, false}))
      << "unquoted, blanks split the value as runcmd splits; its quotes open nothing";
  EXPECT_EQ(split(ExpandedLine().configured("/bin/x a").value(" b ").configured("c")),
            (Outcome{{}, {"/bin/x", "a", "b", "c"}, false}));
  EXPECT_EQ(split(ExpandedLine().configured("/bin/x \"\"").value(" b")),
            (Outcome{{}, {"/bin/x", "", "b"}, false}));
  EXPECT_EQ(split(ExpandedLine().configured("/bin/x ").value("").configured(" y")),
            (Outcome{{}, {"/bin/x", "y"}, false}));
  EXPECT_EQ(split(ExpandedLine().configured("/bin/x ").value(std::string_view("a\0;b", 4)).configured(" y")),
            (Outcome{{}, {"/bin/x", "a;b", "y"}, false}))
      << "NUL bytes are dropped; the configured text after them stays";
}

TEST(OutsideValues, ABackslashBeforeOneEscapesItsFirstByte) {
  EXPECT_EQ(split(ExpandedLine().configured(R"(/bin/x \)").value(" a b")),
            (Outcome{{}, {"/bin/x", " a", "b"}, false}));
  EXPECT_EQ(split(ExpandedLine().configured(R"(/bin/x "\)").value("$a").configured("\"")),
            (Outcome{{}, {"/bin/x", "$a"}, false}));
  EXPECT_EQ(split(ExpandedLine().configured(R"(/bin/x "\)").value("a").configured("\"")),
            (Outcome{{}, {"/bin/x", R"(\a)"}, false}));
  EXPECT_EQ(split(ExpandedLine().configured(R"(/bin/x \)").value("").configured(" y")),
            (Outcome{{}, {"/bin/x", " y"}, false}))
      << "an empty value leaves it to the next byte";
}

TEST(OutsideValues, NeverMakeAnAssignment) {
  std::vector<EnvVar> env;
  bool shell = true;
  ExpandedLine line = ExpandedLine().value("LD_PRELOAD=/tmp/evil.so").configured(" /bin/x");
  EXPECT_EQ(split_expanded_line(line.text, line.outside, shell, env),
            (Strings{"LD_PRELOAD=/tmp/evil.so", "/bin/x"}));
  EXPECT_FALSE(shell);
  EXPECT_TRUE(env.empty());

  line = ExpandedLine().configured("MSG=").value("a b; c").configured(" /bin/x");
  EXPECT_EQ(split_expanded_line(line.text, line.outside, shell, env), Strings{"/bin/x"});
  EXPECT_EQ(env, (std::vector<EnvVar>{{"MSG", "a b; c"}})) << "inside an assignment a value is its value";

  line = ExpandedLine().configured("MSG=").value("a b").configured(" /bin/x | cat");
  EXPECT_EQ(split_expanded_line(line.text, line.outside, shell, env), Strings{R"(MSG=a\ b /bin/x | cat)"});
  EXPECT_TRUE(shell);
  EXPECT_EQ(env, (std::vector<EnvVar>{{"MSG", "a b"}}));
}

TEST(OutsideValues, TheConfiguredBytesAloneDecideTheShell) {
  // As configured, a bare '=' before any counted blank wants /bin/sh; an empty configured value there
  // would make the blank count, an empty value from outside does not.
  EXPECT_FALSE(split("/bin/x  a=b").empty());
  EXPECT_TRUE(split(ExpandedLine().configured("/bin/x ").value("").configured(" a=b")).needs_shell);
  EXPECT_TRUE(split(ExpandedLine().configured("/bin/x ").value("v").configured(" a=b")).needs_shell);
  EXPECT_FALSE(split(ExpandedLine().configured("/bin/x ").value("'").configured(" a b")).needs_shell)
      << "its quote leaves nothing unbalanced";

  // A configured value is the administrator's and keeps Naemon's meaning.
  const Outcome configured = split(ExpandedLine().configured("/bin/x a;b ").value("c;d"));
  EXPECT_EQ(configured, (Outcome{{}, {R"(/bin/x a;b c\;d)"}, true})) << show(configured);
}

TEST(OutsideValues, EscapedWhereTheLineRunsUnderTheShell) {
  const Outcome run = split(ExpandedLine()
                                .configured("/usr/bin/printf '%s\\n' ")
                                .value("hello; touch /tmp/x")
                                .configured(" '")
                                .value("it's")
                                .configured("' \"")
                                .value("$(id) `id` \"\\")
                                .configured("\" | /bin/cat"));
  EXPECT_EQ(
      run,
      (Outcome{{},
               {R"(/usr/bin/printf '%s\n' hello\; touch /tmp/x 'it'\''s' "\$(id) \`id\` \"\\" | /bin/cat)"},
               true}))
      << show(run);
}

}  // namespace
}  // namespace vedette::config
