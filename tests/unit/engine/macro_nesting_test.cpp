#include "engine/macros/macros.hpp"
#include "world_fixture.hpp"

#include <gtest/gtest.h>

#include <string>

namespace vedette::engine {
namespace {

// A note is expanded inside itself, as Naemon expands it (which recurses until its stack overflows on a
// note naming itself). Vedette stops at 8 levels; a note naming itself ten times would still cost 10^8
// expansions and gigabytes at the last level, so each nested expansion also stops at 64 KiB.
TEST(MacroNesting, ANoteNamingItselfManyTimesStaysSmall) {
  std::string notes;
  for (int i = 0; i < 10; ++i) notes += "$HOSTNOTES$ ";
  testing::WorldFixture f(
      "define host {\n  host_name loop01\n  address 127.0.0.1\n  max_check_attempts 1\n"
      "  notes " +
          notes + "\n  notes_url http://x/$HOSTNOTESURL$$HOSTNOTESURL$\n}\n",
      "");
  const MacroContext ctx =
      f.world().object_macros(f.world().check_of(model::HostId{0}), f.world().now_epoch());
  std::string value;
  ASSERT_TRUE(macro_value("HOSTNOTES", ctx, value));
  EXPECT_GE(value.size(), 64u * 1024);
  EXPECT_LE(value.size(), 2u * 64 * 1024);
  EXPECT_TRUE(value.starts_with("$HOSTNOTES$ $HOSTNOTES$")) << "the last level is left as written";
  value.clear();
  ASSERT_TRUE(macro_value("HOSTNOTESURL", ctx, value));
  EXPECT_LE(value.size(), 2u * 64 * 1024);
}

}  // namespace
}  // namespace vedette::engine
