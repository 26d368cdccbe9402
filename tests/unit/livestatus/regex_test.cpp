#include "livestatus/regex.hpp"

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <random>
#include <regex.h>
#include <string>
#include <vector>

namespace vedette::livestatus {
namespace {

// What naemon-livestatus does with a pattern: glibc's regcomp and regexec, in the "C" locale the tests
// (and the daemon) run in. nullopt: regcomp refuses it.
std::optional<bool> glibc_matches(const std::string& pattern, const std::string& text, bool icase) {
  regex_t rx;
  if (regcomp(&rx, pattern.c_str(), REG_EXTENDED | REG_NOSUB | (icase ? REG_ICASE : 0)) != 0)
    return std::nullopt;
  const bool match = regexec(&rx, text.c_str(), 0, nullptr, 0) == 0;
  regfree(&rx);
  return match;
}

bool uses_what_vedette_refuses(const std::string& pattern) {
  for (std::size_t i = 0; i + 1 < pattern.size(); ++i) {
    if (pattern[i] != '\\') continue;
    const char next = pattern[i + 1];
    if ((next >= '1' && next <= '9') || next == '<' || next == '>') return true;
    ++i;
  }
  return false;
}

// glibc lets a ^ that follows part of the match match after a newline the match went over, and a $ that
// more of the match follows before one ("x$." matches "x\nb", though "^b" does not match it). Vedette's
// anchors match at the ends of the text only (docs/compatibility.md): such texts are not compared.
bool anchors_inside(const std::string& pattern) {
  const std::size_t last = pattern.size() - 1;
  return pattern.find('^', 1) != std::string::npos || pattern.find('$') < last;
}

// Random patterns of POSIX ERE pieces against random texts: Vedette accepts what regcomp accepts (except
// back references and \< \>) and matches where regexec matches, with and without REG_ICASE.
TEST(LivestatusRegex, MatchesAsGlibcOnRandomPatterns) {
  static constexpr std::array<const char*, 36> k_pieces = {
      "a",   "b",   "A",   "B",   "z",         "-",         "]",     "[",     "(",  ")",   "*",   "+",
      "?",   "|",   "^",   "$",   ".",         "\\",        ":",     "_",     " ",  "\n",  "\\w", "\\W",
      "\\s", "\\b", "\\B", "\\`", "[:alpha:]", "[:upper:]", "[.a.]", "[=b=]", "[^", "\\1", "\\.", "\x80"};
  static constexpr std::array<char, 11> k_text = {'a', 'A', 'b', 'B', '-', '_', ']', ' ', 'z', '\n', '\x80'};
  std::mt19937 rng(20);
  std::vector<std::string> texts = {""};
  for (int t = 0; t < 40; ++t) {
    std::string text;
    const int length = std::uniform_int_distribution<int>(1, 8)(rng);
    for (int i = 0; i < length; ++i)
      text += k_text[std::uniform_int_distribution<std::size_t>(0, k_text.size() - 1)(rng)];
    texts.push_back(text);
  }
  int compared = 0;
  for (int n = 0; n < 20000; ++n) {
    std::string pattern;
    const int length = std::uniform_int_distribution<int>(1, 7)(rng);
    for (int i = 0; i < length; ++i)
      pattern += k_pieces[std::uniform_int_distribution<std::size_t>(0, k_pieces.size() - 1)(rng)];
    for (const bool icase : {false, true}) {
      Regex ours;
      const std::optional<RegexError> refused = ours.compile(pattern, icase);
      const std::optional<bool> accepted_by_glibc = glibc_matches(pattern, "", icase);
      if (!accepted_by_glibc) {
        EXPECT_TRUE(refused.has_value()) << "regcomp refuses '" << pattern << "', Vedette takes it";
        continue;
      }
      if (refused) {
        EXPECT_TRUE(refused->unsupported && uses_what_vedette_refuses(pattern))
            << "regcomp takes '" << pattern << "' (icase " << icase
            << "), Vedette says: " << refused->message;
        continue;
      }
      for (const std::string& text : texts) {
        if (anchors_inside(pattern) && text.find('\n') != std::string::npos) continue;  // glibc's quirk
        ++compared;
        ASSERT_EQ(ours.matches(text), *glibc_matches(pattern, text, icase))
            << "pattern '" << pattern << "' icase " << icase << " text " << ::testing::PrintToString(text)
            << ", as RE2: '" << ours.translated() << "'";
      }
    }
  }
  EXPECT_GT(compared, 100000);
}

TEST(LivestatusRegex, PosixMeaningsThatDifferFromPerl) {
  Regex r;
  ASSERT_FALSE(r.compile("[\\d]", false));  // a backslash and a 'd', not a digit
  EXPECT_TRUE(r.matches("\\"));
  EXPECT_TRUE(r.matches("d"));
  EXPECT_FALSE(r.matches("7"));
  Regex d;
  ASSERT_FALSE(d.compile("^\\d$", false));  // GNU gives \d no meaning: a 'd'
  EXPECT_TRUE(d.matches("d"));
  EXPECT_FALSE(d.matches("7"));
  Regex dot;
  ASSERT_FALSE(dot.compile("a.b", false));  // without REG_NEWLINE '.' matches a newline
  EXPECT_TRUE(dot.matches("a\nb"));
  Regex space;
  ASSERT_FALSE(space.compile("a\\sb", false));  // isspace: \v too
  EXPECT_TRUE(space.matches("a\vb"));
  Regex range;
  ASSERT_FALSE(range.compile("^[B-b]$", true));  // glibc lowers the ends first: [b-b]
  EXPECT_TRUE(range.matches("B"));
  EXPECT_FALSE(range.matches("_"));
  Regex nul;
  ASSERT_FALSE(nul.compile("^ab$", false));
  EXPECT_TRUE(nul.matches(std::string_view("ab\0cd", 5)));  // regexec reads up to the NUL
}

TEST(LivestatusRegex, RefusesWhatHasNoLinearTimeMatch) {
  Regex r;
  std::optional<RegexError> e = r.compile("^(a+)\\1$", false);
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->unsupported);
  EXPECT_EQ(e->message, "back references (\\1) cannot be matched in linear time");
  e = r.compile("\\<web", false);
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->unsupported);
  e = r.compile("(a", false);
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->unsupported);
  EXPECT_EQ(e->message, "Unmatched ( or \\(");
}

// glibc takes tens of seconds on these; RE2 answers at once.
TEST(LivestatusRegex, CatastrophicPatternsRunInLinearTime) {
  const std::string text = std::string(100000, 'a') + "!";
  const auto start = std::chrono::steady_clock::now();
  for (const char* pattern : {"(a+)+$", "(a|aa)*b", "(a*)*b", "((a+)+)+c", "(.*a){1}"}) {
    Regex r;
    if (r.compile(pattern, false)) continue;  // {1}: refused as the module refuses it
    EXPECT_FALSE(r.matches(text)) << pattern;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

// A pattern without special characters is searched for as text; the answer is regexec's.
TEST(LivestatusRegex, PlainTextShortcutMatchesRegexec) {
  std::mt19937 random(11);
  const std::string alphabet = "abAB-_ \xc3\xa9";
  const auto word = [&](int max) {
    std::string s;
    const int n = static_cast<int>(random() % static_cast<unsigned>(max + 1));
    for (int i = 0; i < n; ++i) s.push_back(alphabet[random() % alphabet.size()]);
    return s;
  };
  for (int i = 0; i < 5000; ++i) {
    const std::string pattern = word(3);
    const std::string text = word(8);
    for (const bool icase : {false, true}) {
      Regex ours;
      ASSERT_FALSE(ours.compile(pattern, icase));
      regex_t theirs;
      ASSERT_EQ(regcomp(&theirs, pattern.c_str(), REG_EXTENDED | REG_NOSUB | (icase ? REG_ICASE : 0)), 0);
      const bool want = regexec(&theirs, text.c_str(), 0, nullptr, 0) == 0;
      regfree(&theirs);
      ASSERT_EQ(ours.matches(text), want) << "'" << pattern << "' in '" << text << "' icase " << icase;
    }
  }
}

}  // namespace
}  // namespace vedette::livestatus
