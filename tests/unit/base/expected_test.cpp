#include "base/expected.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vedette::base {
namespace {

Expected<int> half(int n) {
  if (n % 2 != 0) return Error{"odd"};
  return n / 2;
}

TEST(BaseExpected, HoldsTheValue) {
  Expected<int> e = half(8);
  ASSERT_TRUE(e);
  EXPECT_TRUE(e.has_value());
  EXPECT_EQ(*e, 4);
  EXPECT_EQ(e.value(), 4);
}

TEST(BaseExpected, HoldsTheError) {
  Expected<int> e = half(3);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error(), "odd");
}

TEST(BaseExpected, StringTellsValueFromError) {
  const Expected<std::string> value = std::string("odd");
  const Expected<std::string> error = Error{"odd"};
  ASSERT_TRUE(value);
  EXPECT_EQ(*value, "odd");
  EXPECT_EQ(value->size(), 3u);
  ASSERT_FALSE(error);
  EXPECT_EQ(error.error(), "odd");
}

TEST(BaseExpected, MovesTheValueOut) {
  Expected<std::vector<int>> e = std::vector<int>{1, 2, 3};
  const std::vector<int> v = std::move(e).value();
  EXPECT_EQ(v.size(), 3u);
}

Status check_even(int n) {
  if (n % 2 != 0) return Error{"odd"};
  return Status::ok();
}

TEST(BaseStatus, OkOrError) {
  EXPECT_TRUE(check_even(2));
  if (Status s = check_even(3); !s) {
    EXPECT_EQ(s.error(), "odd");
  } else {
    ADD_FAILURE() << "3 is odd";
  }
}

}  // namespace
}  // namespace vedette::base
