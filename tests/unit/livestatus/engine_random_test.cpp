// Randomised checks of the query engine against naive models: Sort/Limit/Offset against std::sort, the
// float format against printf, the plain-text regex shortcut against regexec.
#include "engine_fixture.hpp"
#include "livestatus/filter.hpp"
#include "livestatus/output.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <tuple>

namespace vedette::livestatus {
namespace {

using LivestatusRandom = testing::EngineTest;
using testing::test_hosts;

TEST_F(LivestatusRandom, SortLimitOffsetMatchesNaiveModel) {
  std::mt19937 random(42);
  for (int round = 0; round < 200; ++round) {
    const int n = static_cast<int>(random() % 40);
    test_hosts().clear();
    for (int i = 0; i < n; ++i) {
      testing::TestHost h;
      h.name = "h" + std::to_string(random() % 1000) + "_" + std::to_string(i);  // unique
      h.state = static_cast<int>(random() % 4);
      h.latency = static_cast<double>(random() % 5) / 2;
      test_hosts().push_back(h);
    }
    const bool desc = random() % 2 == 0;
    const int limit = static_cast<int>(random() % 12) - 2;  // negative: no Limit:
    const int offset = static_cast<int>(random() % 8);
    std::string request = "GET hosts\nColumns: name\nSort: state" + std::string(desc ? " desc" : "") +
                          "\nSort: latency\nOffset: " + std::to_string(offset) + "\n";
    if (limit >= 0) request += "Limit: " + std::to_string(limit) + "\n";

    std::vector<testing::TestHost> expected = test_hosts();
    std::sort(expected.begin(), expected.end(), [&](const testing::TestHost& a, const testing::TestHost& b) {
      if (a.state != b.state) return desc ? a.state > b.state : a.state < b.state;
      if (a.latency != b.latency) return a.latency < b.latency;
      return a.name < b.name;
    });
    std::string want;
    for (int i = offset; i < n && (limit < 0 || i < offset + limit); ++i) want += expected[i].name + "\n";
    ASSERT_EQ(ask(request), want) << request;
  }
}

TEST_F(LivestatusRandom, GroupedStatsMatchNaiveModel) {
  std::mt19937 random(7);
  for (int round = 0; round < 100; ++round) {
    test_hosts().clear();
    const int n = 1 + static_cast<int>(random() % 50);
    std::map<int, std::pair<int, double>> expected;  // state: count, latency sum
    for (int i = 0; i < n; ++i) {
      testing::TestHost h;
      h.name = "h" + std::to_string(i);
      h.state = static_cast<int>(random() % 5);
      h.latency = static_cast<double>(random() % 8);
      expected[h.state].first += 1;
      expected[h.state].second += h.latency;
      test_hosts().push_back(h);
    }
    std::string want;
    for (const auto& [state, value] : expected) {
      std::array<char, 64> sum{};
      std::snprintf(sum.data(), sum.size(), "%.10e", value.second);
      want += std::to_string(state) + ";" + std::to_string(value.first) + ";" + sum.data() + "\n";
    }
    ASSERT_EQ(ask("GET hosts\nColumns: state\nStats: state >= 0\nStats: sum latency\nSort: state\n"), want);
  }
}

TEST(LivestatusFloatFormat, MatchesPrintf) {
  std::mt19937_64 random(3);
  std::vector<double> values{0.0,        -0.0, 1.0,           0.1, 1e-300,   5e-324,   1.7976931348623157e308,
                             123456.789, -2.5, 9.99999999995, 0.5, INFINITY, -INFINITY};
  for (int i = 0; i < 20000; ++i) {
    std::uint64_t bits = random();
    double d = 0;
    std::memcpy(&d, &bits, sizeof d);
    if (std::isnan(d)) continue;
    values.push_back(d);
    values.push_back(static_cast<double>(random() % 100000) / 1000);
  }
  for (double d : values) {
    std::string ours;
    append_double(ours, d);
    std::array<char, 64> theirs{};
    std::snprintf(theirs.data(), theirs.size(), "%.10e", d);
    ASSERT_EQ(ours, theirs.data()) << d;
  }
}

}  // namespace
}  // namespace vedette::livestatus
