#include "config/diagnostics.hpp"

#include <gtest/gtest.h>

namespace vedette::config {
namespace {

TEST(Diagnostics, FormatsLikeNaemon) {
  SourceFiles files;
  Diagnostics diags;
  diags.error("Could not find any host matching 'web01'", {files.add("/etc/x.cfg"), 12});
  diags.warning("Unknown option 'foo'", {files.add("/etc/naemon.cfg"), 3}, PosKind::line);
  diags.error("No object configuration files");
  ASSERT_EQ(diags.all().size(), 3u);
  EXPECT_EQ(diags.error_count(), 2u);
  EXPECT_EQ(diags.warning_count(), 1u);
  EXPECT_EQ(
      Diagnostics::format(diags.all()[0]),
      "Error: Could not find any host matching 'web01' (config file '/etc/x.cfg', starting on line 12)");
  EXPECT_EQ(Diagnostics::format(diags.all()[1]),
            "Warning: Unknown option 'foo' (config file '/etc/naemon.cfg', line 3)");
  EXPECT_EQ(Diagnostics::format(diags.all()[2]), "Error: No object configuration files");
}

}  // namespace
}  // namespace vedette::config
