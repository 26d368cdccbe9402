#include "livestatus/server_options.hpp"

#include <gtest/gtest.h>

namespace vedette::livestatus {
namespace {

config::MainConfig with_module(std::string path, std::string args) {
  config::MainConfig main;
  main.config_rel_path = "/etc/naemon";
  main.broker_modules.push_back({std::move(path), std::move(args), {}});
  return main;
}

TEST(LivestatusServerOptions, NoLivestatusWithoutTheModuleOrOptions) {
  std::vector<std::string> notes;
  EXPECT_FALSE(server_options(config::MainConfig{}, notes));
  EXPECT_FALSE(server_options(with_module("/usr/lib/naemon/mod_gearman.o", "config=/etc/x"), notes));
}

TEST(LivestatusServerOptions, NaemonsModuleLineWithItsOptions) {
  std::vector<std::string> notes;
  auto o = server_options(with_module("/usr/lib/naemon/naemon-livestatus/livestatus.so",
                                      "live idle_timeout=2000 query_timeout=0 max_response_size=1000 "
                                      "num_client_threads=8 service_authorization=strict "
                                      "group_authorization=loose pnp_path=/var/pnp debug=1 frobnicate=2 "
                                      "max_cached_messages=1000 max_lines_per_logfile=20"),
                          notes);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->unix_socket, "/etc/naemon/live");  // relative to the main config, as the module does
  EXPECT_EQ(o->idle_timeout, std::chrono::milliseconds(2000));
  EXPECT_EQ(o->query_timeout, std::chrono::milliseconds(0));
  EXPECT_EQ(o->max_response_size, 1000u);
  EXPECT_EQ(o->threads, 8);
  EXPECT_EQ(o->settings.service_authorization, Authorization::strict);
  EXPECT_EQ(o->settings.group_authorization, Authorization::loose);
  EXPECT_EQ(o->settings.pnp_path, "/var/pnp/");
  EXPECT_EQ(o->settings.max_cached_messages, 1000u);
  EXPECT_EQ(o->settings.max_lines_per_logfile, 20u);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("frobnicate=2"), std::string::npos);
}

TEST(LivestatusServerOptions, InetAddrAndVedettesOwnOptions) {
  std::vector<std::string> notes;
  auto o = server_options(with_module("/opt/livestatus.o", "inet_addr=127.0.0.1:6557"), notes);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->tcp_listen, "127.0.0.1:6557");
  EXPECT_TRUE(o->unix_socket.empty());

  config::MainConfig main;
  main.livestatus_socket = "/run/live";
  main.livestatus_listen = "[::1]:6557";
  o = server_options(main, notes);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->unix_socket, "/run/live");
  EXPECT_EQ(o->tcp_listen, "[::1]:6557");
}

TEST(LivestatusServerOptions, BadValuesAreNotedAndTheDefaultsKept) {
  std::vector<std::string> notes;
  auto o =
      server_options(with_module("/x/livestatus.o",
                                 "/run/live idle_timeout=soon num_client_threads=0 max_cached_messages=lots"),
                     notes);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->idle_timeout, std::chrono::milliseconds(300'000));
  EXPECT_EQ(o->threads, 4);
  EXPECT_EQ(o->settings.max_cached_messages, 500'000u);
  EXPECT_EQ(notes.size(), 3u);
}

}  // namespace
}  // namespace vedette::livestatus
