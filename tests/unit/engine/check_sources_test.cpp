#include "engine/state/check_sources.hpp"

#include <gtest/gtest.h>

#include <string>

namespace vedette::engine {
namespace {

TEST(CheckSources, NaemonsNamesComeFirst) {
  CheckSources sources(4711);
  const auto names = sources.names();
  ASSERT_GE(names->size(), 4u);
  EXPECT_EQ((*names)[CheckSources::k_none], "");
  EXPECT_EQ((*names)[CheckSources::k_core_worker], "Core Worker 4711");
  EXPECT_EQ((*names)[CheckSources::k_command_file], "command file worker");
  EXPECT_EQ((*names)[CheckSources::k_mod_gearman], "Mod-Gearman Worker");
  EXPECT_EQ(sources.intern(""), CheckSources::k_none);
  EXPECT_EQ(sources.intern("command file worker"), CheckSources::k_command_file);
}

TEST(CheckSources, ANameKeepsItsIndexAndASnapshotItsTable) {
  CheckSources sources(1);
  const std::uint16_t a = sources.intern("Mod-Gearman Worker @ a");
  const auto before = sources.names();
  const std::uint16_t b = sources.intern("Mod-Gearman Worker @ b");
  EXPECT_NE(a, b);
  EXPECT_EQ(sources.intern("Mod-Gearman Worker @ a"), a);
  EXPECT_EQ(sources.intern("Mod-Gearman Worker @ b"), b);
  EXPECT_EQ(before->size(), static_cast<std::size_t>(b));  // the new name copied the table
  EXPECT_EQ((*sources.names())[b], "Mod-Gearman Worker @ b");
}

TEST(CheckSources, PastTheLimitNewNamesShareModGearmansName) {
  CheckSources sources(1);
  for (std::size_t i = sources.names()->size(); i < CheckSources::k_max_names; ++i)
    (void)sources.intern("worker " + std::to_string(i));
  EXPECT_EQ(sources.names()->size(), CheckSources::k_max_names);
  EXPECT_EQ(sources.intern("one too many"), CheckSources::k_mod_gearman);
  EXPECT_EQ(sources.intern("worker 10"), 10u);
}

}  // namespace
}  // namespace vedette::engine
