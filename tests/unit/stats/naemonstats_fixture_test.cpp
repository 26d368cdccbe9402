// vedettestats' report and MRTG values against naemonstats 1.5.2's on the same status.dat
// (tests/fixtures/naemonstats/: record.py recorded them, and the second they ran in, used here as now).
#include "stats/report.hpp"
#include "stats/status_summary.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace vedette::stats {
namespace {

const std::string k_fixtures = std::string(VEDETTE_SOURCE_DIR) + "/tests/fixtures/naemonstats/";

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// naemonstats' banner (a blank line, four lines naming Naemon, a blank line) is the one part of its
// report vedettestats does not copy; the rest must be identical.
std::string without_banner(const std::string& report) {
  std::size_t at = 0;
  for (int line = 0; line < 6; ++line) at = report.find('\n', at) + 1;
  return report.substr(at);
}

class NaemonstatsFixture : public testing::TestWithParam<const char*> {
 protected:
  std::string dir() const { return k_fixtures + GetParam() + "/"; }
  std::int64_t now() const { return std::stoll(read(dir() + "now")); }
  StatusSummary summary() const {
    const SummaryResult result = read_status_summary(dir() + "status.dat", now());
    EXPECT_EQ(result.error, 0);
    return result.summary;
  }
};

TEST_P(NaemonstatsFixture, ReportIsNaemonstatsReport) {
  EXPECT_EQ(format_report(summary(), "status.dat", now()), without_banner(read(dir() + "report.txt")));
}

TEST_P(NaemonstatsFixture, MrtgValuesOfEveryVariableAreNaemonstats) {
  const std::string variables = trimmed(read(k_fixtures + "variables.txt"));
  EXPECT_EQ(format_mrtg(summary(), variables, "\n", now()), read(dir() + "mrtg.txt"));
  EXPECT_EQ(format_mrtg(summary(), variables, "|", now()), read(dir() + "mrtg-delimited.txt"));
}

INSTANTIATE_TEST_SUITE_P(Recorded, NaemonstatsFixture, testing::Values("vedette", "edge"));

TEST(NaemonstatsMissingFile, ReportsErrno) {
  EXPECT_EQ(read_status_summary(k_fixtures + "no-such-dir/status.dat", 0).error, ENOENT);
}

}  // namespace
}  // namespace vedette::stats
