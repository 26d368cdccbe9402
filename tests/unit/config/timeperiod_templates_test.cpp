// Timeperiod templates as Naemon applies them: weekdays the timeperiod lacks come from the first template
// (depth first) that has them; exceptions are its own, then each template's list walked from its end,
// skipping dates already present (a template's own duplicates collapse to the one written last; the
// timeperiod's own are all kept). Orders are those the template-copying implementation gave.
#include "config/loader.hpp"
#include "config_test_support.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vedette::config {
namespace {

using timeperiod::DateRangeType;

class TimeperiodTemplatesTest : public test::TempDirTest {
 protected:
  // Loads the definitions; returns the rules of timeperiod `name`.
  const timeperiod::Rules& load(const std::string& objects, const std::string& name = "tp") {
    write("objects.cfg", objects);
    cfg_ = load_configuration(
        write("naemon.cfg", "cfg_file=" + path("objects.cfg") + "\nillegal_macro_output_chars=`~$&|'\"<>\n"),
        files_, diags_);
    EXPECT_FALSE(diags_.has_errors());
    static const timeperiod::Rules none;
    if (!cfg_.model || !cfg_.model->timeperiod_by_name.contains(name)) return none;
    return cfg_.model->timeperiods[model::index(cfg_.model->timeperiod_by_name.at(name))].rules;
  }

  // "day N" exceptions in order, each as "N@H" (its start hour), for one exception type.
  static std::vector<std::string> days(const timeperiod::Rules& rules,
                                       DateRangeType type = DateRangeType::month_day) {
    std::vector<std::string> out;
    for (const timeperiod::DateRange& r : rules.exceptions[static_cast<std::size_t>(type)])
      out.push_back(fmt::format("{}@{}", r.smday, r.ranges.empty() ? 99 : r.ranges[0].start / 3600));
    return out;
  }

  SourceFiles files_;
  Diagnostics diags_;
  Configuration cfg_;
};

using Names = std::vector<std::string>;

std::string tmpl(const std::string& name, const std::string& lines, const std::string& use = "") {
  return "define timeperiod {\n  name " + name + "\n  register 0\n" + lines +
         (use.empty() ? "" : "  use " + use + "\n") + "}\n";
}

std::string period(const std::string& lines, const std::string& use) {
  return "define timeperiod {\n  timeperiod_name tp\n  alias tp\n" + lines + "  use " + use + "\n}\n";
}

TEST_F(TimeperiodTemplatesTest, WeekdaysComeFromTemplatesOnlyWhereTheTimeperiodHasNone) {
  const timeperiod::Rules& r = load(tmpl("t", "  monday 01:00-02:00\n  tuesday 03:00-04:00\n") +
                                    period("  monday 05:00-06:00\n", "t"));
  EXPECT_EQ(r.weekdays[1], (std::vector<timeperiod::TimeRange>{{5 * 3600, 6 * 3600}}));
  EXPECT_EQ(r.weekdays[2], (std::vector<timeperiod::TimeRange>{{3 * 3600, 4 * 3600}}));
  EXPECT_FALSE(r.has_weekday[0]);
}

TEST_F(TimeperiodTemplatesTest, FirstTemplateOfAUseListWinsForWeekdaysDepthFirst) {
  const timeperiod::Rules& r = load(tmpl("deep", "  monday 01:00-02:00\n") + tmpl("first", "", "deep") +
                                    tmpl("second", "  monday 03:00-04:00\n") + period("", "first,second"));
  EXPECT_EQ(r.weekdays[1], (std::vector<timeperiod::TimeRange>{{3600, 7200}}));
}

TEST_F(TimeperiodTemplatesTest, InheritedExceptionsFollowOwnOnesInReverseTemplateOrder) {
  const timeperiod::Rules& r =
      load(tmpl("t", "  day 1 01:00-24:00\n  day 2 02:00-24:00\n") + period("  day 9 09:00-24:00\n", "t"));
  EXPECT_EQ(days(r), (Names{"9@9", "2@2", "1@1"}));
}

TEST_F(TimeperiodTemplatesTest, ExceptionWithSameDatesIsNotInheritedEvenWithOtherRanges) {
  const timeperiod::Rules& r =
      load(tmpl("t", "  day 1 01:00-24:00\n") + period("  day 1 02:00-24:00\n", "t"));
  EXPECT_EQ(days(r), (Names{"1@2"}));
}

TEST_F(TimeperiodTemplatesTest, DifferentSkipIntervalIsADifferentException) {
  const timeperiod::Rules& r =
      load(tmpl("t", "  day 1 - 5 / 2 01:00-24:00\n") + period("  day 1 - 5 02:00-24:00\n", "t"));
  EXPECT_EQ(days(r), (Names{"1@2", "1@1"}));
}

TEST_F(TimeperiodTemplatesTest, TemplateDuplicatesCollapseToTheOneWrittenLast) {
  const timeperiod::Rules& r =
      load(tmpl("t", "  day 1 01:00-24:00\n  day 1 02:00-24:00\n") + period("", "t"));
  EXPECT_EQ(days(r), (Names{"1@2"}));
}

TEST_F(TimeperiodTemplatesTest, OwnDuplicatesAreKeptWhenInheriting) {
  const timeperiod::Rules& r =
      load(tmpl("t", "  day 1 03:00-24:00\n") + period("  day 1 01:00-24:00\n  day 1 02:00-24:00\n", "t"));
  EXPECT_EQ(days(r), (Names{"1@1", "1@2"}));
}

TEST_F(TimeperiodTemplatesTest, SecondTemplateExceptionsComeAfterFirstAndAreDeduplicatedAgainstIt) {
  const timeperiod::Rules& r =
      load(tmpl("first", "  day 1 01:00-24:00\n") +
           tmpl("second", "  day 1 02:00-24:00\n  day 3 03:00-24:00\n") + period("", "first,second"));
  EXPECT_EQ(days(r), (Names{"1@1", "3@3"}));
}

TEST_F(TimeperiodTemplatesTest, ExceptionTypesAreInheritedSeparately) {
  const timeperiod::Rules& r =
      load(tmpl("t", "  2030-01-01 01:00-24:00\n") + period("  day 1 02:00-24:00\n", "t"));
  EXPECT_EQ(r.exceptions[static_cast<std::size_t>(DateRangeType::calendar_date)].size(), 1u);
  EXPECT_EQ(days(r), (Names{"1@2"}));
}

TEST_F(TimeperiodTemplatesTest, EachLevelOfAChainReversesTheListBelowIt) {
  const timeperiod::Rules& r =
      load(tmpl("a", "  day 1 01:00-24:00\n  day 2 02:00-24:00\n") + tmpl("b", "  day 3 03:00-24:00\n", "a") +
           period("  day 4 04:00-24:00\n", "b"));
  EXPECT_EQ(days(r), (Names{"4@4", "1@1", "2@2", "3@3"}));
}

TEST_F(TimeperiodTemplatesTest, DeepChainEachAddingAnException) {
  // Copying each level's list into the next made this quadratic in memory and cubic in time.
  constexpr int k_levels = 3000;
  auto date = [](int i) {
    return fmt::format("{}-{:02}-{:02}", 2030 + i / 336, 1 + (i / 28) % 12, 1 + i % 28);
  };
  std::string objects;
  for (int i = 0; i < k_levels; ++i)
    objects += tmpl(fmt::format("t{}", i), fmt::format("  {} 00:00-24:00\n", date(i)),
                    i > 0 ? fmt::format("t{}", i - 1) : "");
  const timeperiod::Rules& r = load(objects + period("", fmt::format("t{}", k_levels - 1)));
  const auto& list = r.exceptions[static_cast<std::size_t>(DateRangeType::calendar_date)];
  ASSERT_EQ(list.size(), static_cast<std::size_t>(k_levels));
  // As for custom variables: every other level going down from the one below the top, then the others up.
  std::vector<int> want;
  for (int i = k_levels - 2; i >= 0; i -= 2) want.push_back(i);
  for (int i = (k_levels - 1) % 2; i < k_levels; i += 2) want.push_back(i);
  for (std::size_t k = 0; k < list.size(); ++k) {
    const int i = want[k];
    EXPECT_EQ(list[k].syear, 2030 + i / 336) << k;
    EXPECT_EQ(list[k].smon, (i / 28) % 12) << k;  // months count from 0
    EXPECT_EQ(list[k].smday, 1 + i % 28) << k;
  }
}

}  // namespace
}  // namespace vedette::config
