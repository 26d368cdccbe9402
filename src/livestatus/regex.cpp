#include "livestatus/regex.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bitset>
#include <re2/re2.h>
#include <vector>

namespace vedette::livestatus {

namespace {

using ByteSet = std::bitset<256>;

constexpr unsigned char to_lower(unsigned char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<unsigned char>(c - 'A' + 'a') : c;
}
constexpr unsigned char to_upper(unsigned char c) {
  return c >= 'a' && c <= 'z' ? static_cast<unsigned char>(c - 'a' + 'A') : c;
}

// The "C" locale's character classes, which glibc's regcomp uses in Naemon's (and Vedette's) default locale.
std::optional<ByteSet> class_named(std::string_view name, bool ignore_case) {
  // Under REG_ICASE glibc takes upper and lower for alpha.
  if (ignore_case && (name == "upper" || name == "lower")) name = "alpha";
  bool (*test)(int) = nullptr;
  if (name == "alpha")
    test = [](int c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; };
  else if (name == "upper")
    test = [](int c) { return c >= 'A' && c <= 'Z'; };
  else if (name == "lower")
    test = [](int c) { return c >= 'a' && c <= 'z'; };
  else if (name == "digit")
    test = [](int c) { return c >= '0' && c <= '9'; };
  else if (name == "xdigit")
    test = [](int c) { return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f'); };
  else if (name == "alnum")
    test = [](int c) { return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'); };
  else if (name == "space")
    test = [](int c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  else if (name == "blank")
    test = [](int c) { return c == ' ' || c == '\t'; };
  else if (name == "cntrl")
    test = [](int c) { return c < 32 || c == 127; };
  else if (name == "print")
    test = [](int c) { return c >= 32 && c < 127; };
  else if (name == "graph")
    test = [](int c) { return c > 32 && c < 127; };
  else if (name == "punct")
    test = [](int c) {
      return c > 32 && c < 127 && !((c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'));
    };
  if (test == nullptr) return std::nullopt;
  ByteSet set;
  for (int c = 0; c < 256; ++c) set[static_cast<std::size_t>(c)] = test(c);
  return set;
}

const ByteSet& word_bytes() {
  static const ByteSet set = [] {
    ByteSet s = *class_named("alnum", /*ignore_case=*/false);
    s.set('_');
    return s;
  }();
  return set;
}

// POSIX extended syntax in, RE2 syntax out, in one pass. Every literal and bracket expression becomes an
// explicit set of bytes, so that RE2 sees no escape, class or case rule of its own. Under REG_ICASE glibc
// upper-cases the pattern (but not a character after a backslash) and the text, then matches exactly:
// `[B-b]` is `[B-B]`, `[Z-a]` is an invalid range, `\z` matches nothing. A set here is what glibc builds
// from the upper-cased pattern, and emit() turns it into the bytes whose upper case is in it.
class Translator {
 public:
  Translator(std::string_view pattern, bool ignore_case) : p_(pattern), icase_(ignore_case) {}

  std::optional<RegexError> run(std::string& out) {
    out_.clear();
    while (i_ < p_.size()) {
      const char c = p_[i_++];
      switch (c) {
        case '(':
          groups_.push_back(out_.size());
          out_ += "(?:";
          atom_ = k_none;
          break;
        case ')':
          if (groups_.empty()) {  // glibc takes an unmatched ')' as itself
            literal(c);
            break;
          }
          out_ += ')';
          atom_ = groups_.back();
          groups_.pop_back();
          break;
        case '|':
          out_ += '|';
          atom_ = k_none;
          break;
        case '^':
        case '$':
          out_ += c;
          atom_ = k_none;  // an anchor takes no repetition
          break;
        case '*':
        case '+':
        case '?':
          if (atom_ == k_none) return invalid("Invalid preceding regular expression");
          // a** and a+? are a repetition of a repetition in POSIX; RE2 wants it spelt so.
          out_.insert(atom_, "(?:");
          out_ += ')';
          out_ += c;
          break;
        case '{':
        case '}':
          return unsupported("intervals ({ and }) are refused, as naemon-livestatus refuses them");
        case '.':
          atom_ = out_.size();
          out_ += '.';
          break;
        case '[': {
          ByteSet set;
          if (std::optional<RegexError> e = bracket(set)) return e;
          emit(set);
          break;
        }
        case '\\':
          if (std::optional<RegexError> e = escape()) return e;
          break;
        default:
          literal(c);
          break;
      }
    }
    if (!groups_.empty()) return invalid("Unmatched ( or \\(");
    out = std::move(out_);
    return std::nullopt;
  }

 private:
  static constexpr std::size_t k_none = std::string::npos;

  static RegexError invalid(std::string message) {
    return RegexError{.unsupported = false, .message = std::move(message)};
  }
  static RegexError unsupported(std::string message) {
    return RegexError{.unsupported = true, .message = std::move(message)};
  }

  void literal(char c) { literal_byte(cased(static_cast<unsigned char>(c))); }
  void literal_byte(unsigned char c) {
    ByteSet set;
    set.set(c);
    emit(set);
  }

  // GNU's operators after a backslash; any other character stands for itself.
  std::optional<RegexError> escape() {
    if (i_ == p_.size()) return invalid("Trailing backslash");
    const char c = p_[i_++];
    switch (c) {
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7':
      case '8':
      case '9':
        return unsupported(fmt::format("back references (\\{}) cannot be matched in linear time", c));
      case '<':
      case '>':
        return unsupported(fmt::format("the word anchor \\{} is not supported; \\b is", c));
      case 'b':
      case 'B':
        out_ += '\\';
        out_ += c;
        atom_ = k_none;
        return std::nullopt;
      case '`':
        out_ += "\\A";
        atom_ = k_none;
        return std::nullopt;
      case '\'':
        out_ += "\\z";
        atom_ = k_none;
        return std::nullopt;
      case 'w':
        emit(word_bytes());
        return std::nullopt;
      case 'W':
        emit(~word_bytes());
        return std::nullopt;
      case 's':
        emit(*class_named("space", /*ignore_case=*/false));
        return std::nullopt;
      case 'S':
        emit(~*class_named("space", /*ignore_case=*/false));
        return std::nullopt;
      default:
        literal_byte(static_cast<unsigned char>(c));  // as written, not upper-cased (see Translator)
        return std::nullopt;
    }
  }

  // One element of a bracket expression at i_: a byte, or a [.x.] or [=x=] of one byte (the "C" locale has
  // no longer ones). A [:class:] has no byte: its members go into `set`. Neither a class nor an equivalence
  // class may start or end a range (is_class).
  struct Element {
    std::optional<unsigned char> byte;
    bool is_class = false;
  };
  std::optional<RegexError> element(ByteSet& set, Element& e) {
    const char c = p_[i_];
    if (c == '[' && i_ + 1 < p_.size() && (p_[i_ + 1] == ':' || p_[i_ + 1] == '.' || p_[i_ + 1] == '=')) {
      const char kind = p_[i_ + 1];
      const std::size_t close = p_.find(std::string{kind, ']'}, i_ + 2);
      if (close == std::string_view::npos) return invalid("Unmatched [, [^, [:, [., or [=");
      const std::string_view name = p_.substr(i_ + 2, close - i_ - 2);
      i_ = close + 2;
      if (kind == ':') {
        const std::optional<ByteSet> members = class_named(name, icase_);
        if (!members) return invalid("Invalid character class name");
        set |= *members;
        e.is_class = true;
        return std::nullopt;
      }
      if (name.size() != 1) return invalid("Invalid collation character");
      e.byte = static_cast<unsigned char>(name[0]);
      e.is_class = kind == '=';  // an equivalence class starts or ends no range
      return std::nullopt;
    }
    ++i_;
    e.byte = static_cast<unsigned char>(c);
    return std::nullopt;
  }

  // After the '['. A backslash is itself here, a ']' first is a member, a '-' first or last is a member.
  std::optional<RegexError> bracket(ByteSet& out) {
    ByteSet set;
    const bool negate = i_ < p_.size() && p_[i_] == '^';
    if (negate) ++i_;
    bool first = true;
    bool after_range = false;
    for (;;) {
      if (i_ >= p_.size()) return invalid("Unmatched [, [^, [:, [., or [=");
      if (p_[i_] == ']' && !first) {
        ++i_;
        break;
      }
      first = false;
      if (after_range && p_[i_] == '-' && i_ + 1 < p_.size() && p_[i_ + 1] != ']')
        return invalid("Invalid range end");  // [a-c-e]
      after_range = false;
      Element start;
      if (std::optional<RegexError> e = element(set, start)) return e;
      const bool is_range = i_ + 1 < p_.size() && p_[i_] == '-' && p_[i_ + 1] != ']';
      if (!is_range) {
        if (start.byte) set.set(cased(*start.byte));
        continue;
      }
      if (start.is_class) return invalid("Invalid range end");
      ++i_;  // the '-'
      Element end;
      ByteSet ignored;
      if (std::optional<RegexError> e = element(ignored, end)) return e;
      if (end.is_class) return invalid("Invalid range end");
      const unsigned char lo = cased(*start.byte);
      const unsigned char hi = cased(*end.byte);
      if (hi < lo) return invalid("Invalid range end");
      for (unsigned c = lo; c <= hi; ++c) set.set(c);
      after_range = true;
    }
    out = negate ? ~set : set;
    return std::nullopt;
  }

  [[nodiscard]] unsigned char cased(unsigned char c) const { return icase_ ? to_upper(c) : c; }

  // A set of bytes as an RE2 class; under REG_ICASE glibc upper-cases the text before it looks a byte up.
  void emit(const ByteSet& set) {
    ByteSet matched = set;
    if (icase_)
      for (unsigned c = 0; c < 256; ++c) matched[c] = set[to_upper(static_cast<unsigned char>(c))];
    atom_ = out_.size();
    if (matched.none()) {
      out_ += "[^\\x00-\\x{ff}]";
      return;
    }
    const auto byte = [&](unsigned c) {
      if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
        out_ += static_cast<char>(c);
      } else {
        fmt::format_to(std::back_inserter(out_), "\\x{{{:02x}}}", c);
      }
    };
    if (matched.count() == 1) {
      for (unsigned c = 0; c < 256; ++c)
        if (matched[c]) byte(c);
      return;
    }
    out_ += '[';
    for (unsigned c = 0; c < 256;) {
      if (!matched[c]) {
        ++c;
        continue;
      }
      unsigned last = c;
      while (last + 1 < 256 && matched[last + 1]) ++last;
      byte(c);
      if (last > c) {
        if (last > c + 1) out_ += '-';
        byte(last);
      }
      c = last + 1;
    }
    out_ += ']';
  }

  std::string_view p_;
  bool icase_;
  std::size_t i_ = 0;
  std::string out_;
  std::size_t atom_ = k_none;  // where the last thing a repetition applies to begins in out_
  std::vector<std::size_t> groups_;
};

}  // namespace

Regex::Regex() = default;
Regex::~Regex() = default;

std::optional<RegexError> Regex::compile(std::string_view pattern, bool ignore_case) {
  pattern = pattern.substr(0, pattern.find('\0'));
  ignore_case_ = ignore_case;
  // What POSIX EREs give a meaning to; a pattern without them matches where its text occurs.
  if (pattern.find_first_of(".[]()*+?{}|^$\\") == std::string_view::npos) {
    literal_ = pattern;
    if (ignore_case) std::transform(literal_.begin(), literal_.end(), literal_.begin(), to_lower);
    return std::nullopt;
  }
  std::string translated;
  if (std::optional<RegexError> e = Translator(pattern, ignore_case).run(translated)) return e;
  // regexec in the "C" locale reads bytes. RE2 is given each byte as the code point of the same number
  // (matches() widens the text): its Latin-1 mode, which would do that itself, misses matches of
  // alternatives that share a leading byte above 0x7f (`\x80a|\x80b`, libre2 2022-06-01).
  RE2::Options options;
  options.set_dot_nl(true);         // without REG_NEWLINE '.' matches a newline
  options.set_never_capture(true);  // REG_NOSUB
  options.set_log_errors(false);
  // Anchored behind a lazy loop of whole code points, so that no match starts inside a widened byte (RE2's
  // own unanchored search steps by bytes, and \B would hold between the two halves of one).
  auto compiled = std::make_unique<RE2>("^(?s:.)*?(?:" + translated + ")", options);
  if (!compiled->ok()) return RegexError{.unsupported = true, .message = compiled->error()};
  compiled_ = std::move(compiled);
  translated_ = std::move(translated);
  return std::nullopt;
}

bool Regex::matches(std::string_view text) const {
  text = text.substr(0, text.find('\0'));
  if (compiled_ == nullptr) {
    if (literal_.empty()) return true;
    if (!ignore_case_) return text.find(literal_) != std::string_view::npos;
    const auto equal = [](char a, char b) {
      return to_lower(static_cast<unsigned char>(a)) == static_cast<unsigned char>(b);
    };
    return std::search(text.begin(), text.end(), literal_.begin(), literal_.end(), equal) != text.end();
  }
  const auto is_high = [](char c) { return static_cast<unsigned char>(c) >= 0x80; };
  if (std::none_of(text.begin(), text.end(), is_high))
    return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *compiled_);
  thread_local std::string widened;  // each byte as UTF-8 (Latin-1 decoded)
  widened.clear();
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x80) {
      widened.push_back(c);
    } else {
      widened.push_back(static_cast<char>(0xc0 | (byte >> 6)));
      widened.push_back(static_cast<char>(0x80 | (byte & 0x3f)));
    }
  }
  return RE2::PartialMatch(re2::StringPiece(widened.data(), widened.size()), *compiled_);
}

}  // namespace vedette::livestatus
