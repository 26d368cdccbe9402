// NaemonLines against the formatter it replaced (std::string::append and fmt per value, kept here as
// ReferenceLines): the same calls on random values, ties, huge, negative and non-finite numbers, and
// strings with newlines must give the same bytes, since status.dat and retention.dat stay byte-identical.
#include "files/naemon_lines.hpp"

#include <fmt/compile.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::files {
namespace {

// The writer status.dat and retention.dat were made with before NaemonLines wrote through a pointer.
class ReferenceLines {
 public:
  explicit ReferenceLines(std::string& s) : s_(s) {}

  void raw(std::string_view text) { s_.append(text); }
  void str(std::string_view key, std::string_view value) {
    s_.append(key);
    escaped(value);
    s_.push_back('\n');
  }
  void num(std::string_view key, long long value) {
    s_.append(key);
    const fmt::format_int f(value);
    s_.append(f.data(), f.size());
    s_.push_back('\n');
  }
  void unum(std::string_view key, unsigned long value) {
    s_.append(key);
    const fmt::format_int f(value);
    s_.append(f.data(), f.size());
    s_.push_back('\n');
  }
  void uuid(std::string_view key, state::Uuid id) {
    s_.append(key);
    state::append_uuid(id, s_);
    s_.push_back('\n');
  }
  void time(std::string_view key, std::int64_t value) { unum(key, static_cast<unsigned long>(value)); }
  void flag(std::string_view key, bool value) {
    s_.append(key);
    s_.push_back(value ? '1' : '0');
    s_.push_back('\n');
  }
  template <int Decimals>
  void fixed(std::string_view key, double value) {
    s_.append(key);
    if (value >= 0 && value < 1e15 && value == static_cast<double>(static_cast<long long>(value))) {
      const fmt::format_int f(static_cast<long long>(value));
      s_.append(f.data(), f.size());
      s_.append(".000000", Decimals + 1);
    } else if constexpr (Decimals == 6) {
      fmt::format_to(std::back_inserter(s_), FMT_COMPILE("{:.6f}"), value);
    } else if constexpr (Decimals == 3) {
      fmt::format_to(std::back_inserter(s_), FMT_COMPILE("{:.3f}"), value);
    } else {
      fmt::format_to(std::back_inserter(s_), FMT_COMPILE("{:.2f}"), value);
    }
    s_.push_back('\n');
  }
  void timeval(std::string_view key, std::int64_t sec, std::int32_t usec) {
    s_.append(key);
    fmt::format_to(std::back_inserter(s_), FMT_COMPILE("{}.{:06}\n"), sec, usec);
  }
  template <typename Int>
  void list(std::string_view key, std::span<const Int> values) {
    s_.append(key);
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (i > 0) s_.push_back(',');
      const fmt::format_int f(static_cast<long long>(values[i]));
      s_.append(f.data(), f.size());
    }
    s_.push_back('\n');
  }
  void custom(std::string_view indent, std::string_view name, bool modified, std::string_view value) {
    s_.append(indent);
    s_.push_back('_');
    s_.append(name);
    s_.append(modified ? "=1;" : "=0;");
    escaped(value);
    s_.push_back('\n');
  }

 private:
  void escaped(std::string_view value) {
    for (;;) {
      const void* nl = value.empty() ? nullptr : std::memchr(value.data(), '\n', value.size());
      if (nl == nullptr) {
        s_.append(value);
        return;
      }
      const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(nl) - value.data());
      s_.append(value.data(), at);
      s_.append("\\n");
      value.remove_prefix(at + 1);
    }
  }

  std::string& s_;
};

// Random values, weighted towards the edges where a hand-written formatter goes wrong.
class Values {
 public:
  explicit Values(std::uint64_t seed) : rng_(seed) {}

  std::uint64_t below(std::uint64_t n) { return rng_() % n; }
  long long integer() {
    switch (below(5)) {
      case 0:
        return static_cast<long long>(below(10));
      case 1:
        return static_cast<long long>(rng_());  // any 64 bits, negative half the time
      case 2:
        return std::numeric_limits<long long>::min() + static_cast<long long>(below(3));
      case 3:
        return 1'700'000'000 + static_cast<long long>(below(1'000'000));
      default:
        return static_cast<long long>(below(1'000'000)) - 500'000;
    }
  }
  double real(int decimals) {
    const double scale = std::pow(10.0, decimals);
    switch (below(12)) {
      case 0:
        return static_cast<double>(below(1000));  // whole
      case 1:
        return static_cast<double>(below(100'000)) / scale;
      case 2:
        return (static_cast<double>(below(100'000)) + 0.5) / scale;  // ties, or close to one
      case 3:
        return std::ldexp(static_cast<double>(below(1u << 20)), -static_cast<int>(below(24)));  // exact
      case 4:
        return std::uniform_real_distribution<double>(0, 1)(rng_);
      case 5:
        return std::uniform_real_distribution<double>(0, 5000)(rng_);
      case 6:
        return std::uniform_real_distribution<double>(0, 1e12)(rng_);
      case 7:
        return std::uniform_real_distribution<double>(-100, 100)(rng_);
      case 8:
        return std::nextafter(static_cast<double>(below(100'000)) + 0.5, below(2) ? 0.0 : 1e9) / scale;
      case 9: {
        constexpr std::array k_edges{0.0,
                                     -0.0,
                                     1e15,
                                     1e15 - 1,
                                     1e15 + 0.5,
                                     4294.967296,
                                     4294967.296,
                                     42949672.96,
                                     1e300,
                                     -1e300,
                                     5e-324,
                                     std::numeric_limits<double>::infinity(),
                                     -std::numeric_limits<double>::infinity(),
                                     std::numeric_limits<double>::quiet_NaN()};
        return k_edges[below(k_edges.size())];
      }
      case 10:
        return std::uniform_real_distribution<double>(0, 1e-6)(rng_);
      default: {
        double v;  // any bit pattern
        const std::uint64_t bits = rng_();
        std::memcpy(&v, &bits, sizeof v);
        return v;
      }
    }
  }
  std::string text() {
    static constexpr std::string_view k_alphabet = "ab \\n\n;=\t%é0";
    std::string s(below(40), ' ');
    for (char& c : s) c = k_alphabet[below(k_alphabet.size())];
    return s;
  }

 private:
  std::mt19937_64 rng_;
};

// One random call, made on both writers.
template <typename A, typename B>
void same_call(Values& v, A& a, B& b) {
  switch (v.below(11)) {
    case 0: {
      const std::string text = v.text();
      a.raw(text), b.raw(text);
      break;
    }
    case 1: {
      const std::string value = v.text();
      a.str("\tplugin_output=", value), b.str("\tplugin_output=", value);
      break;
    }
    case 2: {
      const long long n = v.integer();
      a.num("\tcurrent_state=", n), b.num("\tcurrent_state=", n);
      break;
    }
    case 3: {
      const auto n = static_cast<unsigned long>(v.integer());
      a.unum("\tmodified_attributes=", n), b.unum("\tmodified_attributes=", n);
      break;
    }
    case 4: {
      const state::Uuid id{v.below(3) == 0 ? 0 : static_cast<std::uint64_t>(v.integer()),
                           v.below(3) == 0 ? 0 : static_cast<std::uint64_t>(v.integer())};
      a.uuid("\tcurrent_problem_id=", id), b.uuid("\tcurrent_problem_id=", id);
      break;
    }
    case 5: {
      const auto t = static_cast<std::int64_t>(v.integer());
      a.time("\tlast_check=", t), b.time("\tlast_check=", t);
      break;
    }
    case 6: {
      const bool f = v.below(2) == 0;
      a.flag("\tis_flapping=", f), b.flag("\tis_flapping=", f);
      break;
    }
    case 7: {
      const int decimals = std::array{2, 3, 6}[v.below(3)];
      const double x = v.real(decimals);
      if (decimals == 2)
        a.template fixed<2>("\tpercent_state_change=", x), b.template fixed<2>("\tpercent_state_change=", x);
      if (decimals == 3)
        a.template fixed<3>("\tcheck_latency=", x), b.template fixed<3>("\tcheck_latency=", x);
      if (decimals == 6)
        a.template fixed<6>("\tcheck_interval=", x), b.template fixed<6>("\tcheck_interval=", x);
      break;
    }
    case 8: {
      const auto sec = static_cast<std::int64_t>(v.integer());
      const auto usec = static_cast<std::int32_t>(
          v.below(4) == 0 ? v.integer() : static_cast<long long>(v.below(1'000'000)));
      a.timeval("last_update=", sec, usec), b.timeval("last_update=", sec, usec);
      break;
    }
    case 9: {
      std::vector<int> values(v.below(22));
      for (int& x : values) x = static_cast<int>(v.integer());
      a.list("state_history=", std::span<const int>(values)),
          b.list("state_history=", std::span<const int>(values));
      break;
    }
    default: {
      const std::string name = v.text();
      const std::string value = v.text();
      const bool modified = v.below(2) == 0;
      a.custom("\t", name, modified, value), b.custom("\t", name, modified, value);
      break;
    }
  }
}

}  // namespace

// Many random calls appended to text already there, with the text taken away now and then as the writers'
// chunks are: the same bytes as the reference, call for call.
TEST(NaemonLines, SameBytesAsTheFormatterItReplaced) {
  Values values(20'261'204);
  for (int round = 0; round < 200; ++round) {
    std::string expected = "prefix\n";
    std::string actual = expected;
    ReferenceLines reference(expected);
    {
      NaemonLines lines(actual);
      std::size_t checked = expected.size();  // the text before is the same already
      for (int call = 0; call < 2000; ++call) {
        same_call(values, reference, lines);
        ASSERT_EQ(lines.text().substr(checked), std::string_view(expected).substr(checked))
            << "round " << round << ", call " << call;
        checked = expected.size();
        if (values.below(500) == 0) {
          lines.clear();
          expected.clear();
          checked = 0;
        }
      }
    }
    ASSERT_EQ(actual, expected) << "round " << round;
  }
}

// The values the fast path of fixed<> rounds itself and those it leaves to fmt, one by one.
TEST(NaemonLines, FixedRoundsAsPrintf) {
  constexpr std::array k_values{0.0005,       0.0015,    0.0025, 0.125,  0.375,        1.0625,
                                2.675,        0.1 + 0.2, 1e-7,   0.9995, 0.9994999999, 4294.9672955,
                                4294967.2955, 99.995,    1234.5, -0.0,   -0.0004,      1e15 - 0.5};
  for (const double x : k_values) {
    std::string expected;
    std::string actual;
    ReferenceLines reference(expected);
    {
      NaemonLines lines(actual);
      lines.fixed<2>("a=", x), reference.fixed<2>("a=", x);
      lines.fixed<3>("b=", x), reference.fixed<3>("b=", x);
      lines.fixed<6>("c=", x), reference.fixed<6>("c=", x);
    }
    EXPECT_EQ(actual, expected) << fmt::format("{:.17g}", x);
  }
}

}  // namespace vedette::files
