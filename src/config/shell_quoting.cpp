#include "config/shell_quoting.hpp"

#include "config/byte_set.hpp"

namespace vedette::config {
namespace {

using model::ShellQuoting;

using namespace std::string_view_literals;

// Bytes no POSIX shell (nor bash) gives a meaning to anywhere in a word.
constexpr ByteSet k_safe =
    ByteSet("%+,-./:@_").add_range('a', 'z').add_range('A', 'Z').add_range('0', '9').add_range(0x80, 0xFF);
constexpr ByteSet k_plain_bare = ByteSet(k_safe).add(" \t");
constexpr ByteSet k_plain_single_quoted = ByteSet("'\0"sv).complement();
constexpr ByteSet k_plain_double_quoted = ByteSet("$`\\\"\0"sv).complement();
constexpr ByteSet k_inert_opaque = ByteSet("`\\\0"sv).complement();

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The bytes that go into the line as they are where a value lands (append_special takes the others); for
// opaque text, what a configured value may hold without ending a `…`.
const ByteSet& plain_bytes(ShellQuoting quoting) {
  switch (quoting) {
    case ShellQuoting::bare:
      return k_plain_bare;
    case ShellQuoting::bare_assignment:
      return k_safe;
    case ShellQuoting::single_quoted:
      return k_plain_single_quoted;
    case ShellQuoting::double_quoted:
      return k_plain_double_quoted;
    case ShellQuoting::opaque:
      break;
  }
  return k_inert_opaque;
}

void append_special(std::string& out, char c, ShellQuoting quoting) {
  if (c == '\0') return;
  if (quoting == ShellQuoting::single_quoted) {
    out += "'\\''";
    return;
  }
  // Unquoted, a newline would end the value's command: it separates words as a blank.
  if (c == '\n' && quoting == ShellQuoting::bare) {
    out += ' ';
    return;
  }
  out += '\\';
  out += c == '\n' ? ' ' : c;
}

constexpr std::uint32_t k_case =
    (std::uint32_t{'c'} << 24) | (std::uint32_t{'a'} << 16) | (std::uint32_t{'s'} << 8) | std::uint32_t{'e'};

}  // namespace

void ShellLexer::feed(char c) {
  const bool after_slot = after_slot_;
  after_slot_ = false;
  if (opaque_) return;
  if (in_backquote_) {
    if (escape_) {
      escape_ = false;
    } else if (c == '\\') {
      escape_ = true;
    } else if (c == '`') {
      in_backquote_ = false;
    }
    return;
  }
  if (dollar_ != Dollar::none && feed_dollar(c)) return;
  if (escape_) {
    escape_ = false;
    word_start_ = false;
    previous_ = 0;
    return;
  }
  switch (quote_) {
    case Quote::single:
      if (c == '\'') quote_ = Quote::none;
      return;
    case Quote::dual:
      if (c == '"') {
        quote_ = Quote::none;
      } else if (c == '\\') {
        escape_ = true;
      } else if (c == '$') {
        dollar_ = Dollar::seen;
      } else if (c == '`') {
        in_backquote_ = true;
      }
      return;
    case Quote::none:
      if (c == '#' && (word_start_ || after_slot)) {
        opaque_ = true;
        hash_after_slot_ = hash_after_slot_ || after_slot;
        return;
      }
      feed_unquoted(c);
      return;
  }
}

// After a '$' (quote_ is none or dual). True if `c` was taken as part of what the '$' starts.
bool ShellLexer::feed_dollar(char c) {
  switch (dollar_) {
    case Dollar::seen:
      if (c == '(') {
        dollar_ = Dollar::paren;
        return true;
      }
      if (c == '{') {
        dollar_ = Dollar::brace;
        return true;
      }
      dollar_ = Dollar::none;
      if (c == '\'' && quote_ == Quote::none) {  // bash reads $'…' with escapes, dash as '$' and '…'
        opaque_ = true;
        return true;
      }
      return false;
    case Dollar::paren:
      dollar_ = Dollar::none;
      if (c == '(') {  // $((…)): bash evaluates the names in it again
        opaque_ = true;
        return true;
      }
      open_frame();
      return false;
    case Dollar::brace:
      if (is_name_char(c)) {
        dollar_ = Dollar::brace_name;
      } else {
        opaque_ = true;
      }
      return true;
    case Dollar::brace_name:
      if (c == '}') {
        dollar_ = Dollar::none;
      } else if (!is_name_char(c)) {
        opaque_ = true;
      }
      return true;
    case Dollar::none:
      break;
  }
  return false;
}

void ShellLexer::feed_unquoted(char c) {
  const char before = previous_;
  previous_ = c;
  if (!frames_.empty()) {
    recent_ = (recent_ << 8) | static_cast<unsigned char>(c);
    if (recent_ == k_case) {
      opaque_ = true;
      return;
    }
  }
  switch (c) {
    case ' ':
    case '\t':
    case '\n':
    case ';':
    case '&':
    case '|':
    case '>':
      word_boundary();
      return;
    case '<':
      if (before == '<') opaque_ = true;  // a here-document
      word_boundary();
      return;
    case '(':
      if (before == '(') {  // bash's ((…)) arithmetic
        opaque_ = true;
        return;
      }
      word_boundary();
      if (!frames_.empty()) ++frames_.back().parens;
      return;
    case ')':
      word_boundary();
      if (frames_.empty()) return;
      if (frames_.back().parens > 0) {
        --frames_.back().parens;
        return;
      }
      quote_ = frames_.back().resume;
      word_has_equals_ = frames_.back().word_has_equals;
      frames_.pop_back();
      word_start_ = false;
      previous_ = 0;
      recent_ = 0;
      return;
    case '\\':
      escape_ = true;
      break;
    case '\'':
      quote_ = Quote::single;
      previous_ = 0;
      recent_ = 0;
      break;
    case '"':
      quote_ = Quote::dual;
      previous_ = 0;
      recent_ = 0;
      break;
    case '$':
      dollar_ = Dollar::seen;
      break;
    case '`':
      in_backquote_ = true;
      break;
    case '=':
      word_has_equals_ = true;
      break;
    default:
      break;
  }
  word_start_ = false;
}

void ShellLexer::open_frame() {
  frames_.push_back({quote_, word_has_equals_, 0});
  quote_ = Quote::none;
  word_start_ = true;
  word_has_equals_ = false;
  previous_ = 0;
  recent_ = 0;
}

void ShellLexer::word_boundary() {
  word_start_ = true;
  word_has_equals_ = false;
}

ShellSlot ShellLexer::slot() const {
  ShellSlot s;
  if (opaque_ || in_backquote_ || dollar_ == Dollar::brace || dollar_ == Dollar::brace_name) {
    s.quoting = ShellQuoting::opaque;
    return s;
  }
  if (escape_) {
    s.after = ShellSlot::After::backslash;
  } else if (dollar_ != Dollar::none) {
    s.after = ShellSlot::After::dollar;
  }
  if (dollar_ == Dollar::paren) {  // the value starts the command of a new $(…)
    s.quoting = ShellQuoting::bare;
    return s;
  }
  switch (quote_) {
    case Quote::single:
      s.quoting = ShellQuoting::single_quoted;
      break;
    case Quote::dual:
      s.quoting = ShellQuoting::double_quoted;
      break;
    case Quote::none:
      s.quoting = word_has_equals_ ? ShellQuoting::bare_assignment : ShellQuoting::bare;
      break;
  }
  return s;
}

void ShellLexer::fill_slot(std::size_t emitted) {
  if (emitted == 0 || opaque_ || in_backquote_) return;
  escape_ = false;
  if (dollar_ == Dollar::paren) open_frame();
  dollar_ = Dollar::none;
  word_start_ = false;
  previous_ = 0;
  recent_ = 0;
  after_slot_ = quote_ == Quote::none;
}

std::size_t append_shell_escaped(std::string& out, std::string_view value, ShellSlot at) {
  if (at.quoting == ShellQuoting::opaque) return 0;
  const std::size_t start = out.size();
  std::size_t i = value.find_first_not_of('\0');
  if (i == std::string_view::npos) return 0;
  const bool unquoted = at.quoting == ShellQuoting::bare || at.quoting == ShellQuoting::bare_assignment;
  if (at.after == ShellSlot::After::backslash && at.quoting != ShellQuoting::single_quoted) {
    out += value[i] == '\n' && unquoted ? ' ' : value[i];  // the configured backslash escapes it
    ++i;
  } else if (at.after == ShellSlot::After::dollar) {
    if (at.quoting == ShellQuoting::double_quoted) {
      out += "\"\"";  // "$""x": a '$', then x
    } else if (unquoted && k_safe.contains(value[i])) {
      out += '\\';  // $\x: a '$' and an x, where $x would expand
      out += value[i++];
    }
  }
  const ByteSet& plain = plain_bytes(at.quoting);
  while (i < value.size()) {
    std::size_t plain_end = i;
    while (plain_end < value.size() && plain.contains(value[plain_end])) ++plain_end;
    out.append(value, i, plain_end - i);
    if (plain_end == value.size()) break;
    append_special(out, value[plain_end], at.quoting);
    i = plain_end + 1;
  }
  return out.size() - start;
}

bool is_shell_inert(std::string_view value, ShellQuoting quoting) {
  if (quoting != ShellQuoting::bare && quoting != ShellQuoting::bare_assignment)
    return plain_bytes(quoting).all_in(value);
  // Unquoted, a blank would end the word and an empty value none: the bytes around could then meet ("((",
  // "<<", "#").
  return !value.empty() && k_safe.all_in(value);
}

}  // namespace vedette::config
