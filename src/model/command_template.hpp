// A command_line compiled once at load time (config::compile_command_line): argv words of literal bytes and
// macro slots, so run time only fills in values. Built single-threaded; read-only from any thread once the
// model is published. Every string_view points into the model's StringPool and lives as long as it does.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace vedette::model {

// Where a macro sits in the line's quoting. Naemon expands macros into the text first and splits afterwards,
// so this decides which bytes of a value would change the split (config::value_needs_resplit).
enum class MacroContext : std::uint8_t {
  unquoted,
  single_quoted,
  double_quoted,
  settled,  // a shell metacharacter came earlier: the line runs under /bin/sh whatever this value holds
};

// How /bin/sh reads the bytes at a macro of a line that runs under the shell, which decides how a value from
// outside the configuration is escaped there (config/shell_quoting.hpp, docs/compatibility.md "Macros").
enum class ShellQuoting : std::uint8_t {
  bare,
  bare_assignment,  // unquoted in a word with an unquoted '=' before it (`X=$SERVICEOUTPUT$`)
  single_quoted,
  double_quoted,
  // Where the lexer does not follow the shell, or the shell would read the value twice: inside `…`, a
  // comment, ${…} with an operator, $((…)), a here-document.
  opaque,
};

struct CommandPiece {
  enum class Kind : std::uint8_t { literal, macro } kind;
  // literal: bytes as the plugin sees them (quotes and escapes removed), or the raw line bytes in the
  // whole-line form; `$$` is already folded to `$`. macro: the name between the dollars ("HOSTADDRESS",
  // "ARG1", "USER1", "HOSTSTATE:web01", "_HOSTfoo"); whether the name exists is decided at run time.
  std::string_view text;

  // Macro pieces only.
  MacroContext context = MacroContext::unquoted;
  bool before_space = false;  // runcmd has counted no blank yet: a bare '=' here would force the shell
  bool env_start = false;     // Naemon's scan for leading NAME=value words reaches this macro
  bool unterminated = false;  // "$NAME" ended the line without a closing '$'; if unknown it stays "$NAME"
  // A later bare '=' forces the shell only because runcmd had counted no blank yet (a blank that ends a word
  // does not count). A value that makes a blank count here, a quoted blank or a "" that drops the word,
  // undoes that.
  bool blank_resplits = false;
  // Templates that need the shell only: how /bin/sh reads this spot, given every configured value before it
  // is config::is_shell_inert there.
  ShellQuoting shell = ShellQuoting::bare;

  bool operator==(const CommandPiece&) const = default;
};

// One argv element.
struct CommandArg {
  std::vector<CommandPiece> pieces;
  // Only macros, no literal byte and no quote: when they all expand to "", Naemon has no word here at all.
  bool drop_if_empty = false;

  bool operator==(const CommandArg&) const = default;
};

// A leading `NAME=value` word. Naemon exports it into the plugin's environment, even when it runs /bin/sh.
struct CommandEnv {
  std::string_view name;
  std::string_view value;

  bool operator==(const CommandEnv&) const = default;
};

// How to run it, given every configured macro value passes config::value_needs_resplit(value, piece) == false
// (for values from outside the configuration, see config/command_compiler.hpp):
// - needs_shell == false: argv holds the words; exec argv[0] with argv, environment plus `env`.
// - needs_shell == true: argv holds exactly one element, the whole line (every byte from the start, env words
//   and quotes included); run `/bin/sh -c <that element expanded>`, environment plus `env`.
// If any value needs a resplit, or always_resplit is set, expand argv (then always the whole-line form) into
// one string and use config::split_expanded_line on it instead: that path may choose the shell or not.
struct CommandTemplate {
  std::string_view line;  // the command_line as written
  std::vector<CommandArg> argv;
  bool needs_shell = false;
  std::vector<CommandEnv> env;
  // A macro sits where its value steers the split in ways no per-value check covers (after a backslash, or
  // inside the leading NAME=value scan; in a shell line also right after a '$' or before a '#'); rare in real
  // configurations.
  bool always_resplit = false;
};

}  // namespace vedette::model
