#include "model/string_pool.hpp"

#include <gtest/gtest.h>

#include <string>

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

TEST(StringPool, StoresStringsLargerThanABlock) {
  StringPool pool;
  std::string big(200000, 'x');
  EXPECT_EQ(pool.intern(big), big);
}

}  // namespace
}  // namespace vedette::model
