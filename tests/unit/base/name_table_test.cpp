#include "base/name_table.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vedette::base {
namespace {

TEST(NameTable, FindsWhatWasAddedAndNothingElse) {
  NameTable<int> t;
  EXPECT_EQ(t.find("host"), nullptr);  // empty
  t.add("host", 1);
  t.add("host", 2);  // the first value stays
  t.add("", 3);
  ASSERT_NE(t.find("host"), nullptr);
  EXPECT_EQ(*t.find("host"), 1);
  EXPECT_EQ(*t.find(""), 3);
  EXPECT_EQ(t.find("hos"), nullptr);
  EXPECT_EQ(t.find("hosts"), nullptr);
}

// Names alike in length, head and tail (what the hash reads) are told apart by the whole name, across
// several growths of the table.
TEST(NameTable, KeepsEveryNameThroughGrowing) {
  std::vector<std::string> names;
  for (int i = 0; i < 1000; ++i) names.push_back("notification_" + std::to_string(1000 + i) + "_period");
  NameTable<int> t;
  for (int i = 0; i < 1000; ++i) t.add(names[i], i);
  for (int i = 0; i < 1000; ++i) {
    const int* v = t.find(names[i]);
    ASSERT_NE(v, nullptr) << names[i];
    EXPECT_EQ(*v, i);
  }
  EXPECT_EQ(t.find("notification_0999_period"), nullptr);
}

}  // namespace
}  // namespace vedette::base
