#include "state/uuid.hpp"

#include <gtest/gtest.h>

#include <set>

namespace vedette::state {
namespace {

TEST(Uuid, TextRoundTripsInLowerCase) {
  const std::optional<Uuid> id = parse_uuid("2690E647-122d-4d72-8875-B8007E802958");
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(to_string(*id), "2690e647-122d-4d72-8875-b8007e802958");
  EXPECT_EQ(parse_uuid(to_string(*id)), id);
}

TEST(Uuid, EmptyIsNoIdAndNumbersStayNumbers) {
  EXPECT_EQ(parse_uuid(""), Uuid{});
  EXPECT_FALSE(parse_uuid("")->is_set());
  EXPECT_EQ(to_string(Uuid{}), "");
  const std::optional<Uuid> nagios = parse_uuid("1234");  // Nagios counted its problem ids
  ASSERT_TRUE(nagios.has_value());
  EXPECT_EQ(to_string(*nagios), "1234");
}

TEST(Uuid, AnythingElseIsRejected) {
  EXPECT_FALSE(parse_uuid("not-an-id").has_value());
  EXPECT_FALSE(parse_uuid("2690e647x122d-4d72-8875-b8007e802958").has_value());
  EXPECT_FALSE(parse_uuid("2690e647-122d-4d72-8875-b8007e80295g").has_value());
  EXPECT_FALSE(parse_uuid("12ab").has_value());
}

TEST(Uuid, GeneratedOnesAreVersion4AndDistinct) {
  UuidGenerator generator;
  std::set<std::string> seen;
  for (int i = 0; i < 10000; ++i) {
    const std::string text = to_string(generator.next());
    ASSERT_EQ(text.size(), 36u);
    EXPECT_EQ(text[14], '4');
    EXPECT_NE(std::string("89ab").find(text[19]), std::string::npos) << text;
    seen.insert(text);
  }
  EXPECT_EQ(seen.size(), 10000u);
}

}  // namespace
}  // namespace vedette::state
