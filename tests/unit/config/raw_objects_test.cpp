// RawObjects: definitions of one type at stable addresses, in reading order, across its blocks.
#include "config/raw_object.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace vedette::config {
namespace {

TEST(RawObjects, KeepsAddressesAndOrderAcrossBlocks) {
  RawObjects objects;
  EXPECT_TRUE(objects.empty());
  std::vector<const RawObject*> addresses;
  std::vector<std::string> names;
  names.reserve(1000);
  for (int i = 0; i < 1000; ++i) {
    names.push_back(std::to_string(i));
    RawObject& obj = objects.emplace_back();
    obj.template_name = names.back();
    obj.attrs.push_back(RawAttr{names.back(), k_custom_variable, false});
    addresses.push_back(&obj);
  }
  ASSERT_EQ(objects.size(), 1000u);
  for (std::size_t i = 0; i < objects.size(); ++i) {
    EXPECT_EQ(&objects[i], addresses[i]);
    EXPECT_EQ(objects[i].template_name, names[i]);
  }
  std::size_t i = 0;
  for (const RawObject& obj : std::as_const(objects)) EXPECT_EQ(&obj, addresses[i++]);
  EXPECT_EQ(i, 1000u);
  for (RawObject& obj : objects) obj.registered = false;
  EXPECT_FALSE(objects[999].registered);
}

}  // namespace
}  // namespace vedette::config
