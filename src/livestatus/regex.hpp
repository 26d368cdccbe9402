// The regular expressions of the `~` and `~~` filters: naemon-livestatus hands them to glibc's regcomp
// (POSIX extended, REG_NOSUB, REG_ICASE for ~~, in the "C" locale), whose backtracking takes exponential time
// on patterns such as (a+)+$. Vedette reads the same syntax, translates it into RE2's and matches in time
// linear in the text, with glibc's answers. What has no linear-time meaning is refused instead: back
// references (\1 to \9) and the word anchors \< and \>. Compiled once on any thread; matches() is const and
// may run on several threads at once.
//
//   Regex r;
//   if (std::optional<RegexError> e = r.compile("^web[0-9]+$", /*ignore_case=*/false)) return
//   refuse(e->message); if (r.matches(text)) ...
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace vedette::livestatus {

struct RegexError {
  bool unsupported = false;  // valid for regcomp, but not matchable in linear time (else: regcomp refuses it)
  std::string message;       // regcomp's reason ("Unmatched ( or \\("), or what is not supported
};

class Regex {
 public:
  Regex();
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // Nothing when the pattern compiled. As regcomp, the pattern ends at a NUL.
  [[nodiscard]] std::optional<RegexError> compile(std::string_view pattern, bool ignore_case);
  // Whether the pattern occurs in `text` (up to its first NUL, as regexec reads a C string).
  [[nodiscard]] bool matches(std::string_view text) const;

  // The pattern in RE2's syntax, for tests; empty for a plain text search.
  [[nodiscard]] const std::string& translated() const { return translated_; }

 private:
  std::unique_ptr<re2::RE2> compiled_;  // null: a plain text search
  std::string literal_;
  std::string translated_;
  bool ignore_case_ = false;
};

}  // namespace vedette::livestatus
