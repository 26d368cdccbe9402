#include "model/string_pool.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vedette::model {
namespace {

TEST(StringPool, InternsOnceAndKeepsViewsStable) {
  StringPool pool;
  std::string a = "localhost";
  std::string_view first = pool.intern(a);
  a = "changed";
  for (int i = 0; i < 100000; ++i) pool.intern("name" + std::to_string(i));
  EXPECT_EQ(first, "localhost");
  EXPECT_EQ(pool.intern("localhost").data(), first.data());
  EXPECT_EQ(pool.size(), 100001u);
  EXPECT_TRUE(pool.intern("").empty());
}

TEST(StringPool, FindsEveryStringAgainAfterGrowing) {
  StringPool pool;
  std::vector<std::string_view> views;
  for (int i = 0; i < 50000; ++i) views.push_back(pool.intern("host" + std::to_string(i)));
  for (int i = 0; i < 50000; ++i) {
    const std::string text = "host" + std::to_string(i);
    ASSERT_EQ(pool.intern(text).data(), views[i].data()) << text;
    ASSERT_EQ(views[i], text);
  }
  EXPECT_EQ(pool.size(), 50000u);
  EXPECT_NE(pool.intern("host").data(), pool.intern("host0").data());  // a prefix is a string of its own
}

TEST(StringPool, StoresStringsLargerThanABlock) {
  StringPool pool;
  std::string big(200000, 'x');
  EXPECT_EQ(pool.intern(big), big);
}

}  // namespace
}  // namespace vedette::model
