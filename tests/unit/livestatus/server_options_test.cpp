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

TEST(LivestatusServerOptions, LimitsAndTcpCommands) {
  std::vector<std::string> notes;
  auto o = server_options(with_module("/opt/livestatus.o",
                                      "live max_connections=10 max_pending_bytes=2000 "
                                      "tcp_commands=no_process_file"),
                          notes);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->max_connections, 10u);
  EXPECT_EQ(o->max_pending_bytes, 2000u);
  EXPECT_EQ(o->tcp_commands, ServerOptions::TcpCommands::no_process_file);
  EXPECT_TRUE(notes.empty());
  o = server_options(with_module("/opt/livestatus.o", "live max_connections=0 tcp_commands=some"), notes);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->max_connections, 4096u);
  EXPECT_EQ(o->tcp_commands, ServerOptions::TcpCommands::all);
  EXPECT_EQ(notes.size(), 2u);
}

// A TCP listener other hosts can reach is warned about (at start, and by -v); a loopback one is not.
TEST(LivestatusServerOptions, ExposureWarning) {
  ServerOptions o;
  EXPECT_FALSE(exposure_warning(o));
  for (const char* loopback : {"127.0.0.1:6557", "127.1.2.3:6557", "localhost:6557", "[::1]:6557"}) {
    o.tcp_listen = loopback;
    EXPECT_FALSE(exposure_warning(o)) << loopback;
  }
  o.tcp_listen = ":6557";
  EXPECT_EQ(exposure_warning(o),
            "Livestatus listens on TCP :6557 (every address), which other hosts can reach: it has no "
            "authentication, every client may read all of the status, and COMMAND is accepted, PROCESS_FILE "
            "too (tcp_commands=none refuses them)");
  for (const char* open : {"0.0.0.0:6557", "[::]:6557", "10.0.0.5:6557", "monitor.example.com:6557"}) {
    o.tcp_listen = open;
    EXPECT_TRUE(exposure_warning(o)) << open;
  }
  o.tcp_commands = ServerOptions::TcpCommands::none;
  EXPECT_NE(exposure_warning(o)->find("COMMAND is refused (tcp_commands=none)"), std::string::npos);
  std::vector<std::string> notes;
  config::MainConfig main;
  main.livestatus_listen = ":6557";
  ASSERT_TRUE(server_options(main, notes));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("Warning: Livestatus listens on TCP :6557", 0), 0u);
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
