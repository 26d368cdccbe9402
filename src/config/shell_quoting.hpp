// How POSIX sh (dash, or bash as sh) reads a command line Vedette hands to `/bin/sh -c`, as far as a value
// from outside the configuration must be escaped where it lands, and that escaping (docs/compatibility.md,
// "Macros"). Pure; any thread.
//
//   ShellLexer lexer;  // fed the line left to right
//   configured byte c:  lexer.feed(c); line += c;
//   outside value v:    lexer.fill_slot(append_shell_escaped(line, v, lexer.slot()));
#pragma once

#include "model/command_template.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::config {

// Where a value lands, as the configured bytes before it left the shell's reader.
struct ShellSlot {
  model::ShellQuoting quoting = model::ShellQuoting::bare;
  // The byte before acts on the value's first byte: a backslash escapes it; a '$' (also "$(", "${", "${name")
  // would read it as the start of an expansion.
  enum class After : std::uint8_t { other, backslash, dollar } after = After::other;

  bool operator==(const ShellSlot&) const = default;
};

// Follows quotes, backslashes, $(…) (nested, each with its own quoting), where `…` ends, ${name}, word starts
// and unquoted '='. The rest of the line is opaque from what it does not follow, or where the shell would
// read a value twice: a comment, ${…} with an operator, $((…)) and ((…)), $'…' (bash's), a here-document, a
// `case` inside $(…) (its patterns' ')' would end the $(…) early). A '#' right after a value also counts
// as a comment: whether it starts one depends on the value ending its word.
class ShellLexer {
 public:
  // One configured byte.
  void feed(char c);
  // What a value placed now meets.
  [[nodiscard]] ShellSlot slot() const;
  // A value went at slot() and `emitted` bytes of it reached the line. An empty one leaves the reader as it
  // was: a pending backslash or '$' then acts on the next configured byte, as it does in /bin/sh.
  void fill_slot(std::size_t emitted);
  // A '#' came right after a value in unquoted text (see above).
  [[nodiscard]] bool saw_hash_after_slot() const { return hash_after_slot_; }

 private:
  enum class Quote : std::uint8_t { none, single, dual };
  enum class Dollar : std::uint8_t { none, seen, paren, brace, brace_name };
  // An open $(…). What the enclosing word had is restored at its ')'.
  struct Frame {
    Quote resume = Quote::none;
    bool word_has_equals = false;
    int parens = 0;  // '(' opened inside and not yet closed
  };

  bool feed_dollar(char c);
  void feed_unquoted(char c);
  void open_frame();
  void word_boundary();

  std::vector<Frame> frames_;
  Quote quote_ = Quote::none;
  Dollar dollar_ = Dollar::none;
  bool escape_ = false;  // a backslash waits for its byte
  bool in_backquote_ = false;
  bool opaque_ = false;
  bool word_start_ = true;
  bool word_has_equals_ = false;
  bool after_slot_ = false;
  bool hash_after_slot_ = false;
  char previous_ = 0;         // the previous unquoted configured byte, 0 after anything else
  std::uint32_t recent_ = 0;  // the last four unquoted configured bytes inside $(…), to spot `case`
};

// Appends `value` escaped for `at`, so /bin/sh reads exactly its bytes there:
// - bare: blanks (a newline as a blank) stay word separators; every other byte but [A-Za-z0-9%+,-./:@_] and
//   non-ASCII gets a backslash; bare_assignment: blanks get one too.
// - single_quoted: a quote becomes '\''; double_quoted: $ ` \ " get a backslash.
// - opaque: nothing is appended.
// After a backslash the first byte goes as it is (the configured backslash escapes it); after a '$' it is
// kept from extending the expansion. NUL bytes are dropped. Returns how many bytes were appended.
std::size_t append_shell_escaped(std::string& out, std::string_view value, ShellSlot at);

// Whether configured `value` at a slot with `quoting` leaves ShellLexer's reading of the rest of the line as
// it was when the slot was taken for word content: unquoted, the safe bytes above only; inside quotes, no
// byte that ends them or escapes; opaque, no '`' or '\' (which could end a `…`).
[[nodiscard]] bool is_shell_inert(std::string_view value, model::ShellQuoting quoting);

}  // namespace vedette::config
