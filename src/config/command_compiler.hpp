// Compiles command lines into model::CommandTemplate at load time, splitting them exactly as Naemon's runcmd
// would split the expanded text. split_command_call/compile_command_line: loader thread only. The value
// checks and split_expanded_line are pure and may run on any thread (the executor uses them).
//
// Run-time expansion must respect one rule to stay Naemon-compatible: Naemon substitutes macros into the line
// first and splits the result afterwards. A value such as $ARG1$ = "-w 80% -c 90%" therefore becomes several
// argv words, and a value with quotes, backslashes or shell metacharacters may merge words or force /bin/sh.
// The template is only valid when no value does that: for each macro piece call value_needs_resplit(value,
// piece); if any says true (or the template has always_resplit), expand the whole line into one string and
// use split_expanded_line on it.
//
// Values from outside the configuration (plugin output, comments, …: docs/compatibility.md, "Macros") are
// the exception Vedette makes: they never change how the line is split nor whether it runs under /bin/sh.
// Where the template runs without the shell, such a value fits if outside_value_fits; in a shell template it
// goes in escaped by append_shell_escaped for the piece's `shell` quoting, provided every configured value
// before it is_shell_inert. Otherwise expand the line with its OutsideSpans and split that.
#pragma once

#include "model/command_template.hpp"
#include "model/string_pool.hpp"

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vedette::config {

// Naemon keeps at most this many $ARGn$; further `!` arguments are dropped.
inline constexpr std::size_t k_max_command_args = 32;

// "name!arg1!arg2" split as Naemon does: the name ends at the first '!' (no escaping there), in arguments
// `\!` stands for '!' and every other backslash stays. Empty arguments are kept ("c!!x" has "" and "x"; "c!"
// has one ""). Arguments are raw: Naemon runs macro expansion on each one ($$ too) before substituting
// $ARGn$.
struct CommandCall {
  std::string_view name;  // points into the argument of split_command_call
  std::vector<std::string> args;
};
[[nodiscard]] CommandCall split_command_call(std::string_view check_command);

// Splits `line` into macros (`$NAME$`, `$$` is a '$', a lone trailing '$' stays, "$NAME" at the end is still
// a macro) and then into words by runcmd's rules, treating each macro as plain bytes. Pieces intern into
// `pool`.
[[nodiscard]] model::CommandTemplate compile_command_line(std::string_view line, model::StringPool& pool);

// Exact: would `value`, put in place of `macro`, make Naemon split the expanded line differently from the
// template? False means the value just lands inside its word (an empty value may drop the word, see
// CommandArg::drop_if_empty). An unknown macro's value is its own text, "$NAME$" ("$NAME" if unterminated).
[[nodiscard]] bool value_needs_resplit(std::string_view value, const model::CommandPiece& macro);

// Position-free and conservative: false only if the value is safe wherever a macro may sit, which rules out
// blanks, quotes, backslashes, shell metacharacters, '=', NUL, and also "" and plain identifiers (those can
// matter at env_start). Prefer the exact form above when the piece is at hand.
[[nodiscard]] bool value_needs_resplit(std::string_view value);

// Exact, for a value from outside the configuration in a template that runs without the shell: does it land
// inside its word, as the template has it? Unquoted, a blank in it would split the word (as runcmd splits
// such a value); everything else it holds is plain bytes.
[[nodiscard]] bool outside_value_fits(std::string_view value, const model::CommandPiece& macro);

using EnvVar = std::pair<std::string, std::string>;

// Bytes [begin, end) of an expanded line whose text came from outside the configuration. Sorted, disjoint;
// an empty one marks where an empty value went.
struct OutsideSpan {
  std::size_t begin = 0;
  std::size_t end = 0;

  bool operator==(const OutsideSpan&) const = default;
};
using OutsideSpans = std::vector<OutsideSpan>;

// Exactly what Naemon's runcmd does with an expanded command line: leading NAME=value words go to `env`, the
// rest becomes argv; if the line has shell syntax (needs_shell), the result is instead one element, the line
// itself, for `/bin/sh -c` (env is still filled: Naemon exports it to the shell too). Bytes from a NUL on are
// ignored.
[[nodiscard]] std::vector<std::string> split_expanded_line(std::string_view expanded, bool& needs_shell,
                                                           std::vector<EnvVar>& env);
// As above, where the bytes in `outside` came from outside the configuration. Whether the shell is needed is
// decided by the configured bytes alone, each outside span read as one plain byte of a word. Without the
// shell, outside bytes are literal: unquoted, blanks among them split words as runcmd splits; quotes,
// backslashes and metacharacters are plain bytes; NUL bytes are dropped; they never start a NAME=value
// word. With the shell, the one element is the line with each outside span escaped where it lands
// (append_shell_escaped); the configured bytes are as they are.
[[nodiscard]] std::vector<std::string> split_expanded_line(std::string_view expanded,
                                                           std::span<const OutsideSpan> outside,
                                                           bool& needs_shell, std::vector<EnvVar>& env);
// As above for callers that know there is no leading NAME=value word; such words are discarded here.
[[nodiscard]] std::vector<std::string> split_expanded_line(std::string_view expanded, bool& needs_shell);

}  // namespace vedette::config
