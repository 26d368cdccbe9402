#include "config/command_compiler.hpp"

#include "config/byte_set.hpp"
#include "config/shell_quoting.hpp"

#include <cstdint>
#include <optional>

namespace vedette::config {
namespace {

// The splitter below follows Naemon's runcmd state machine step by step, quirks included (an escaped '"' ends
// a double-quoted string; '>' and '<' are not shell syntax; '~' forces the shell even inside double quotes).
// One implementation serves both the load-time compile (input has macro slots) and the run-time fallback.

enum : unsigned {
  k_none = 0,
  k_in_arg = 1u << 1,
  k_in_sq = 1u << 2,
  k_in_dq = 1u << 3,
  k_special = 1u << 4,
  k_bslash = 1u << 5,
  k_in_var = 1u << 6,
  k_in_val = 1u << 7,
};

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_name_char(char c) {
  return is_alpha(c) || is_digit(c) || c == '_';
}

// Plain text: what the executor falls back to.
class TextInput {
 public:
  explicit TextInput(std::string_view text) : text_(text) {}
  [[nodiscard]] std::size_t size() const { return text_.size(); }
  [[nodiscard]] bool is_macro(std::size_t) const { return false; }
  [[nodiscard]] std::size_t macro(std::size_t) const { return 0; }
  [[nodiscard]] bool is_outside(std::size_t) const { return false; }
  [[nodiscard]] std::string_view outside(std::size_t) const { return {}; }
  [[nodiscard]] char at(std::size_t i) const { return text_[i]; }

 private:
  std::string_view text_;
};

// A line at load time: bytes, with slots where macro values will go.
struct Unit {
  char ch = 0;
  std::int32_t macro = -1;  // index into the line's macros when >= 0
};

class UnitInput {
 public:
  explicit UnitInput(const std::vector<Unit>& units) : units_(units) {}
  [[nodiscard]] std::size_t size() const { return units_.size(); }
  [[nodiscard]] bool is_macro(std::size_t i) const { return units_[i].macro >= 0; }
  [[nodiscard]] std::size_t macro(std::size_t i) const { return static_cast<std::size_t>(units_[i].macro); }
  [[nodiscard]] bool is_outside(std::size_t) const { return false; }
  [[nodiscard]] std::string_view outside(std::size_t) const { return {}; }
  [[nodiscard]] char at(std::size_t i) const { return units_[i].ch; }

 private:
  const std::vector<Unit>& units_;
};

// An expanded line at run time: configured bytes up to the first NUL among them, and each value from
// outside as one unit, its NUL bytes dropped. Read as placeholders, such a unit is one plain byte ('/': part
// of a word, never of a NAME=), so that the configured bytes alone decide what runcmd would do.
class SpanInput {
 public:
  SpanInput(std::string_view line, std::span<const OutsideSpan> outside) {
    std::size_t pos = 0;
    const auto take_configured = [&](std::size_t end) {
      for (; pos < end; ++pos) {
        if (line[pos] == '\0') return false;
        units_.push_back({line[pos], -1});
      }
      return true;
    };
    for (const OutsideSpan& span : outside) {
      if (!take_configured(span.begin)) return;
      std::string value;
      for (char c : line.substr(span.begin, span.end - span.begin))
        if (c != '\0') value += c;
      units_.push_back({0, static_cast<std::int32_t>(values_.size())});
      values_.push_back(std::move(value));
      pos = span.end;
    }
    take_configured(line.size());
  }

  void read_values_as_placeholders(bool on) { placeholders_ = on; }

  [[nodiscard]] std::size_t size() const { return units_.size(); }
  [[nodiscard]] bool is_macro(std::size_t) const { return false; }
  [[nodiscard]] std::size_t macro(std::size_t) const { return 0; }
  [[nodiscard]] bool is_outside(std::size_t i) const { return !placeholders_ && units_[i].macro >= 0; }
  [[nodiscard]] std::string_view outside(std::size_t i) const {
    return values_[static_cast<std::size_t>(units_[i].macro)];
  }
  [[nodiscard]] char at(std::size_t i) const { return units_[i].macro >= 0 ? '/' : units_[i].ch; }

 private:
  std::vector<Unit> units_;  // macro: index into values_
  std::vector<std::string> values_;
  bool placeholders_ = false;
};

// The next unit from `i` on that is not an empty value from outside (such a value leaves a backslash before
// it to act on what follows).
template <class Input>
std::size_t skip_empty_values(const Input& in, std::size_t i) {
  while (i < in.size() && in.is_outside(i) && in.outside(i).empty()) ++i;
  return i;
}

bool escapes_in_double_quotes(char c) {
  return c == '"' || c == '\\' || c == '$' || c == '`';
}

// Sink interface used by split_like_runcmd (both sinks below implement it):
//   env(name, value)              a committed leading NAME=value
//   macro_in_env(index, at_start) the NAME=value scan reached a macro (at_start: between words)
//   macro_at(index, state, seen_space, shell)  a macro met by the argv scan, with the scan's state
//   unpredictable()               the split around a macro depends on its value beyond a per-value check
//   bare_equals_forced_shell()    an unquoted '=' before any counted blank asked for /bin/sh
//   start_arg(by_macro), touch(), append(c), append_macro(index)

// A value from outside in the argv scan: plain bytes of the current word; unquoted, its blanks end words as
// runcmd's do (but a first byte a configured backslash escaped).
template <class Sink>
void append_outside(std::string_view value, bool first_escaped, unsigned& state, Sink& sink) {
  const bool quoted = (state & (k_in_sq | k_in_dq)) != 0;
  for (std::size_t j = 0; j < value.size(); ++j) {
    const char c = value[j];
    if (!quoted && is_blank(c) && !(j == 0 && first_escaped)) {
      if (state == k_in_arg) state = k_none;
      continue;
    }
    if (state == k_none) {
      state = k_in_arg;
      sink.start_arg(/*by_macro=*/false);
    }
    sink.append(c);
  }
}

// Returns whether runcmd would fall back to /bin/sh; meaningless when the input has values from outside
// that are not read as placeholders (SpanInput).
template <class Input, class Sink>
bool split_like_runcmd(const Input& in, Sink& sink) {
  const std::size_t n = in.size();

  // Leading NAME=value words. Only a blank after a value commits it, and the argv scan then starts at that
  // blank.
  unsigned state = k_none;
  std::size_t argv_start = 0;
  std::string name;
  std::string value;
  for (std::size_t i = 0; i < n; ++i) {
    if (in.is_macro(i)) {
      sink.macro_in_env(in.macro(i), state == k_none);
      break;
    }
    if (in.is_outside(i)) {  // plain bytes of a value, never a name or an assignment of their own
      if ((state & k_in_val) == 0) break;
      value += in.outside(i);
      continue;
    }
    const char c = in.at(i);
    const bool quoted = (state & (k_in_sq | k_in_dq)) != 0;
    bool copy = false;
    bool stop = false;
    if (is_blank(c)) {
      if (quoted) {
        copy = true;
      } else if (state == k_in_var) {
        stop = true;
      } else if (state == k_in_val) {
        sink.env(name, value);
        state = k_none;
        argv_start = i;
      }
    } else if (c == '=') {
      if (!quoted && state == k_in_var) {
        state = k_in_val;
      } else {
        copy = true;
      }
    } else if (c == '$') {
      copy = (state & k_in_sq) != 0;
      stop = !copy;
    } else if (c == '\'') {
      if (state & k_in_dq) {
        copy = true;
      } else {
        state ^= k_in_sq;
      }
    } else if (c == '"') {
      if (state & k_in_sq) {
        copy = true;
      } else {
        state ^= k_in_dq;
      }
    } else if (quoted || (state & k_in_val) || ((state & k_in_var) && is_name_char(c))) {
      copy = true;
    } else if (is_alpha(c) || c == '_') {
      state = k_in_var;
      name.clear();
      value.clear();
      copy = true;
    } else {
      stop = true;
    }
    if (stop) break;
    if (copy && (state & k_in_var)) name += c;
    if (copy && (state & k_in_val)) value += c;
  }

  state = k_none;
  bool seen_space = false;
  bool shell = false;
  for (std::size_t i = argv_start; i < n; ++i) {
    if (in.is_macro(i)) {
      sink.macro_at(in.macro(i), state, seen_space, shell);
      state &= ~k_bslash;
      if (state == k_none) {
        state = k_in_arg;
        sink.start_arg(/*by_macro=*/true);
      }
      sink.append_macro(in.macro(i));
      continue;
    }
    if (in.is_outside(i)) {
      const std::string_view value = in.outside(i);
      if (value.empty()) continue;
      state &= ~k_bslash;
      append_outside(value, /*first_escaped=*/false, state, sink);
      continue;
    }
    char c = in.at(i);
    bool end_of_text = false;  // a trailing unquoted backslash escapes the terminating NUL
    const bool quoted = (state & (k_in_sq | k_in_dq)) != 0;
    switch (c) {
      case ' ':
      case '\t':
      case '\r':
      case '\n':
        if (state == k_in_arg) {
          state = k_none;
          continue;
        }
        seen_space = true;
        if (!quoted) continue;
        break;

      case '\\':
        if ((state & k_in_sq) || (state & k_bslash)) break;
        if (state & k_in_dq) {
          const std::size_t next_at = skip_empty_values(in, i + 1);
          if (next_at < n && in.is_macro(next_at)) {
            sink.unpredictable();
            break;
          }
          if (next_at < n && in.is_outside(next_at)) {
            // It acts on the value's first byte as on any byte there; that byte stays plain.
            const std::string_view value = in.outside(next_at);
            if (escapes_in_double_quotes(value.front())) {
              sink.touch();
            } else {
              sink.append('\\');
            }
            append_outside(value, /*first_escaped=*/true, state, sink);
            i = next_at;
            continue;
          }
          const char next = next_at < n ? in.at(next_at) : '\0';
          if (escapes_in_double_quotes(next)) {
            state |= k_bslash;
            sink.touch();
            continue;
          }
          break;
        }
        i = skip_empty_values(in, i + 1);
        if (i >= n) {
          end_of_text = true;
        } else if (in.is_macro(i)) {
          sink.unpredictable();
          --i;
          continue;
        } else if (in.is_outside(i)) {
          append_outside(in.outside(i), /*first_escaped=*/true, state, sink);
          continue;
        } else {
          c = in.at(i);
        }
        break;

      // runcmd has a case for each quote; they differ only in which quote opens and which one it is inside
      // (its fall-through from '\'' into '"' then always breaks).
      case '\'':
      case '"': {
        const unsigned own = c == '"' ? k_in_dq : k_in_sq;
        const unsigned other = c == '"' ? k_in_sq : k_in_dq;
        if (state & other) break;
        if (state & own) {
          state &= ~own;
          sink.touch();
          continue;
        }
        if (state == k_none || state == k_in_arg) {
          if (state == k_none) {
            sink.start_arg(/*by_macro=*/false);
          } else {
            sink.touch();
          }
          state = own | k_in_arg;
          continue;
        }
        break;
      }

      case '|':
      case '(':
      case ')':
      case '*':
      case '?':
        if (!quoted) shell = true;
        break;
      case '~':
        if (!(state & k_in_sq)) shell = true;
        break;
      case '&':
      case ';':
        if (!quoted) {
          state = k_special;
          shell = true;
        }
        break;
      case '`':
      case '$':
        if (!(state & k_in_sq) && !(state & k_bslash)) shell = true;
        break;
      case '=':
        if (!quoted && !seen_space) {
          shell = true;
          sink.bare_equals_forced_shell();
        }
        break;
      default:
        break;
    }

    state &= ~k_bslash;
    if (state == k_none) {
      state = k_in_arg;
      sink.start_arg(/*by_macro=*/false);
    }
    if (end_of_text) {
      sink.touch();
    } else {
      sink.append(c);
    }
  }
  if (state & (k_in_sq | k_in_dq)) shell = true;
  return shell;
}

class TextSink {
 public:
  explicit TextSink(std::vector<EnvVar>& env) : env_(env) {}

  void env(const std::string& name, const std::string& value) { env_.emplace_back(name, value); }
  void macro_in_env(std::size_t, bool) {}
  void macro_at(std::size_t, unsigned, bool, bool) {}
  void unpredictable() {}
  void bare_equals_forced_shell() {}
  void start_arg(bool) { argv_.emplace_back(); }
  void touch() {}
  // Bytes copied while no word is open only happen once the line needs the shell, where argv is unused.
  void append(char c) {
    if (!argv_.empty()) argv_.back() += c;
  }
  void append_macro(std::size_t) {}

  std::vector<std::string> take() { return std::move(argv_); }

 private:
  std::vector<EnvVar>& env_;
  std::vector<std::string> argv_;
};

struct MacroRef {
  std::string_view name;
  bool unterminated = false;
  model::MacroContext context = model::MacroContext::unquoted;
  bool before_space = false;
  bool env_start = false;
  bool blank_resplits = false;
  model::ShellQuoting shell = model::ShellQuoting::bare;
};

class TemplateSink {
 public:
  TemplateSink(std::vector<MacroRef>& macros, model::StringPool& pool) : macros_(macros), pool_(pool) {}

  void env(const std::string& name, const std::string& value) {
    env_.push_back({pool_.intern(name), pool_.intern(value)});
  }
  void macro_in_env(std::size_t index, bool at_start) {
    if (at_start) {
      macros_[index].env_start = true;
    } else {
      unpredictable_ = true;
    }
  }
  void macro_at(std::size_t index, unsigned state, bool seen_space, bool shell) {
    MacroRef& ref = macros_[index];
    ref.before_space = !seen_space;
    if (shell) {
      ref.context = model::MacroContext::settled;
    } else if (state & k_bslash) {
      unpredictable_ = true;
    } else if (state & k_in_sq) {
      ref.context = model::MacroContext::single_quoted;
    } else if (state & k_in_dq) {
      ref.context = model::MacroContext::double_quoted;
    }
  }
  void unpredictable() { unpredictable_ = true; }
  void bare_equals_forced_shell() {
    for (std::size_t index : early_blank_candidates_) macros_[index].blank_resplits = true;
  }
  void start_arg(bool by_macro) { words_.push_back({{}, {}, by_macro}); }
  void touch() {
    if (!words_.empty()) words_.back().only_macros = false;
  }
  void append(char c) {
    if (words_.empty()) return;
    Word& word = words_.back();
    word.only_macros = false;
    word.pending += c;
  }
  void append_macro(std::size_t index) {
    if (words_.empty()) return;
    Word& word = words_.back();
    const MacroRef& ref = macros_[index];
    const bool opens_word = word.only_macros && word.arg.pieces.empty() && word.pending.empty();
    const bool quoted = ref.context == model::MacroContext::single_quoted ||
                        ref.context == model::MacroContext::double_quoted;
    if (ref.before_space && (quoted || (opens_word && ref.context == model::MacroContext::unquoted))) {
      early_blank_candidates_.push_back(index);
    }
    flush(word);
    word.arg.pieces.push_back(macro_piece(macros_[index]));
  }

  [[nodiscard]] bool unpredictable_seen() const { return unpredictable_; }
  std::vector<model::CommandEnv> take_env() { return std::move(env_); }

  std::vector<model::CommandArg> take_argv() {
    std::vector<model::CommandArg> argv;
    argv.reserve(words_.size());
    for (Word& word : words_) {
      flush(word);
      word.arg.drop_if_empty = word.only_macros;
      argv.push_back(std::move(word.arg));
    }
    return argv;
  }

  static model::CommandPiece macro_piece(const MacroRef& ref) {
    return {.kind = model::CommandPiece::Kind::macro,
            .text = ref.name,
            .context = ref.context,
            .before_space = ref.before_space,
            .env_start = ref.env_start,
            .unterminated = ref.unterminated,
            .blank_resplits = ref.blank_resplits,
            .shell = ref.shell};
  }

 private:
  struct Word {
    model::CommandArg arg;
    std::string pending;  // literal bytes not yet interned
    bool only_macros = false;
  };

  void flush(Word& word) {
    if (word.pending.empty()) return;
    word.arg.pieces.push_back({model::CommandPiece::Kind::literal, pool_.intern(word.pending)});
    word.pending.clear();
  }

  std::vector<MacroRef>& macros_;
  model::StringPool& pool_;
  std::vector<Word> words_;
  std::vector<model::CommandEnv> env_;
  // Macros before the first counted blank whose value could make one count: quoted ones, and word openers.
  std::vector<std::size_t> early_blank_candidates_;
  bool unpredictable_ = false;
};

// Naemon's macro scan: text and macro names alternate between '$'s; an empty name is a literal '$'.
void tokenize_macros(std::string_view line, std::vector<Unit>& units, std::vector<MacroRef>& macros) {
  bool in_macro = false;
  std::size_t pos = 0;
  while (true) {
    const std::size_t dollar = line.find('$', pos);
    const std::string_view segment =
        line.substr(pos, dollar == std::string_view::npos ? line.npos : dollar - pos);
    if (!in_macro) {
      for (char c : segment) units.push_back({c, -1});
      in_macro = true;
    } else if (segment.empty()) {
      units.push_back({'$', -1});
      in_macro = false;
    } else {
      units.push_back({0, static_cast<std::int32_t>(macros.size())});
      macros.push_back({.name = segment, .unterminated = dollar == std::string_view::npos});
      in_macro = false;
    }
    if (dollar == std::string_view::npos) break;
    pos = dollar + 1;
  }
}

// The whole line as pieces, for /bin/sh -c and for the resplit fallback.
model::CommandArg whole_line(const std::vector<Unit>& units, const std::vector<MacroRef>& macros,
                             model::StringPool& pool) {
  model::CommandArg arg;
  std::string pending;
  auto flush = [&] {
    if (pending.empty()) return;
    arg.pieces.push_back({model::CommandPiece::Kind::literal, pool.intern(pending)});
    pending.clear();
  };
  for (const Unit& unit : units) {
    if (unit.macro < 0) {
      pending += unit.ch;
      continue;
    }
    flush();
    arg.pieces.push_back(TemplateSink::macro_piece(macros[static_cast<std::size_t>(unit.macro)]));
  }
  flush();
  return arg;
}

// How /bin/sh reads each macro's spot of a line that runs under it. False if that depends on a value beyond
// is_shell_inert (a '$' or backslash right before a macro, a '#' right after one).
bool read_shell_quoting(const std::vector<Unit>& units, std::vector<MacroRef>& macros) {
  ShellLexer lexer;
  bool predictable = true;
  for (const Unit& unit : units) {
    if (unit.macro < 0) {
      lexer.feed(unit.ch);
      continue;
    }
    const ShellSlot at = lexer.slot();
    macros[static_cast<std::size_t>(unit.macro)].shell = at.quoting;
    if (at.after != ShellSlot::After::other) predictable = false;
    lexer.fill_slot(/*emitted=*/1);
  }
  return predictable && !lexer.saw_hash_after_slot();
}

// The line /bin/sh runs: configured bytes as they are, each value from outside escaped where it lands.
std::string shell_line(const SpanInput& in) {
  std::string line;
  ShellLexer lexer;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in.is_outside(i)) {
      lexer.fill_slot(append_shell_escaped(line, in.outside(i), lexer.slot()));
      continue;
    }
    lexer.feed(in.at(i));
    line += in.at(i);
  }
  return line;
}

// Does the NAME=value scan, entering `value` between words, stop inside it as it stops at the slot? Otherwise
// it could go on into the following text and commit an assignment the template does not have.
bool env_scan_stops_within(std::string_view value) {
  if (value.empty()) return false;
  const char first = value.front();
  if (is_blank(first) || first == '\'' || first == '"' || first == '=') return false;
  if (!is_alpha(first) && first != '_') return true;
  std::size_t i = 1;
  while (i < value.size() && is_name_char(value[i])) ++i;
  if (i == value.size()) return false;
  const char after = value[i];
  return after != '=' && after != '\'' && after != '"';
}

}  // namespace

CommandCall split_command_call(std::string_view check_command) {
  CommandCall call;
  std::size_t i = check_command.find('!');
  call.name = check_command.substr(0, i);
  const std::size_t n = check_command.size();
  while (i < n && call.args.size() < k_max_command_args) {
    ++i;  // past the '!'
    std::string arg;
    for (; i < n; ++i) {
      if (check_command[i] == '\\' && i + 1 < n && check_command[i + 1] == '!') {
        ++i;
      } else if (check_command[i] == '!') {
        break;
      }
      arg += check_command[i];
    }
    call.args.push_back(std::move(arg));
  }
  return call;
}

model::CommandTemplate compile_command_line(std::string_view line, model::StringPool& pool) {
  model::CommandTemplate out;
  out.line = pool.intern(line);

  std::vector<Unit> units;
  std::vector<MacroRef> macros;
  tokenize_macros(out.line, units, macros);

  TemplateSink sink(macros, pool);
  out.needs_shell = split_like_runcmd(UnitInput(units), sink);
  out.always_resplit = sink.unpredictable_seen();
  out.env = sink.take_env();
  if (out.needs_shell && !out.always_resplit && !read_shell_quoting(units, macros)) out.always_resplit = true;
  if (out.needs_shell || out.always_resplit) {
    out.argv.push_back(whole_line(units, macros, pool));
  } else {
    out.argv = sink.take_argv();
  }
  return out;
}

namespace {

using namespace std::string_view_literals;
// The bytes that steer runcmd's split in each context; NUL everywhere, as runcmd would cut the line there.
// `blank` variants: where a counted blank undoes a later '=' (CommandPiece::blank_resplits).
constexpr ByteSet k_resplits_unquoted{" \t\r\n\\'\"|~&;`()$*?\0"sv};
constexpr ByteSet k_resplits_unquoted_before_space{" \t\r\n\\'\"|~&;`()$*?=\0"sv};
constexpr ByteSet k_resplits_single_quoted{"'\0"sv};
constexpr ByteSet k_resplits_single_quoted_blank{"' \t\r\n\0"sv};
constexpr ByteSet k_resplits_double_quoted{"\"\\$`~\0"sv};
constexpr ByteSet k_resplits_double_quoted_blank{"\"\\$`~ \t\r\n\0"sv};
constexpr ByteSet k_nul{"\0"sv};

const ByteSet& resplitting_bytes(const model::CommandPiece& macro) {
  switch (macro.context) {
    case model::MacroContext::unquoted:
      return macro.before_space ? k_resplits_unquoted_before_space : k_resplits_unquoted;
    case model::MacroContext::single_quoted:
      return macro.blank_resplits ? k_resplits_single_quoted_blank : k_resplits_single_quoted;
    case model::MacroContext::double_quoted:
      return macro.blank_resplits ? k_resplits_double_quoted_blank : k_resplits_double_quoted;
    case model::MacroContext::settled:
      break;
  }
  return k_nul;
}

}  // namespace

bool value_needs_resplit(std::string_view value, const model::CommandPiece& macro) {
  if (macro.env_start && !env_scan_stops_within(value)) return true;
  if (macro.blank_resplits && value.empty() && macro.context == model::MacroContext::unquoted) return true;
  return resplitting_bytes(macro).any_in(value);
}

bool outside_value_fits(std::string_view value, const model::CommandPiece& macro) {
  if (value.find('\0') != std::string_view::npos) return false;  // dropped on the slow path
  return macro.context != model::MacroContext::unquoted ||
         value.find_first_of(" \t\r\n") == std::string_view::npos;
}

bool value_needs_resplit(std::string_view value) {
  model::CommandPiece worst{.kind = model::CommandPiece::Kind::macro,
                            .text = {},
                            .context = model::MacroContext::unquoted,
                            .before_space = true,
                            .env_start = true,
                            .unterminated = false,
                            .blank_resplits = true};
  if (value_needs_resplit(value, worst)) return true;
  worst.context = model::MacroContext::single_quoted;
  if (value_needs_resplit(value, worst)) return true;
  worst.context = model::MacroContext::double_quoted;
  return value_needs_resplit(value, worst);
}

std::vector<std::string> split_expanded_line(std::string_view expanded, bool& needs_shell,
                                             std::vector<EnvVar>& env) {
  env.clear();
  expanded = expanded.substr(0, expanded.find('\0'));
  TextSink sink(env);
  needs_shell = split_like_runcmd(TextInput(expanded), sink);
  if (needs_shell) return {std::string(expanded)};
  return sink.take();
}

std::vector<std::string> split_expanded_line(std::string_view expanded, std::span<const OutsideSpan> outside,
                                             bool& needs_shell, std::vector<EnvVar>& env) {
  if (outside.empty()) return split_expanded_line(expanded, needs_shell, env);
  SpanInput input(expanded, outside);
  input.read_values_as_placeholders(true);
  std::vector<EnvVar> same_env;
  TextSink decision(same_env);
  needs_shell = split_like_runcmd(input, decision);

  input.read_values_as_placeholders(false);
  env.clear();
  TextSink sink(env);
  (void)split_like_runcmd(input, sink);
  if (needs_shell) return {shell_line(input)};
  return sink.take();
}

std::vector<std::string> split_expanded_line(std::string_view expanded, bool& needs_shell) {
  std::vector<EnvVar> env;
  return split_expanded_line(expanded, needs_shell, env);
}

}  // namespace vedette::config
