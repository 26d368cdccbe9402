// What the core sends Mod-Gearman workers: the command line a worker splits back into the same argv, the
// module line and option sources, and the bookkeeping of checks out (orphans, reloads).
#include "engine/checks/distribution.hpp"

#include "config/command_compiler.hpp"
#include "config/loader.hpp"
#include "loaded_config.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace vedette::engine {
namespace {

using Strings = std::vector<std::string>;

// What a worker does with the line: runcmd's split (config::split_expanded_line).
ExpandedCommand split(const std::string& line) {
  ExpandedCommand out;
  out.argv = config::split_expanded_line(line, out.shell, out.env);
  return out;
}

TEST(RemoteCommandLine, AWorkerSplitsItBackIntoTheSameWords) {
  const std::vector<Strings> cases = {
      {"/usr/lib/nagios/plugins/check_ping", "-H", "127.0.0.1", "-w", "100.0,20%", "-c", "500.0,60%"},
      {"/bin/check_dummy", "1", "two words; and 'quotes'"},
      {"/bin/echo", "", "a\"b", "back\\slash", "$HOME", "`x`", "~", "a=b", "|", "(", "*", "?", "&", ";"},
      {"/bin/echo", "tab\there", "new\nline", "it's", "''", "'"},
      {"x=y", "z"},
  };
  for (const Strings& argv : cases) {
    const ExpandedCommand command{argv, false, {}};
    const std::string line = remote_command_line(command);
    const ExpandedCommand back = split(line);
    EXPECT_FALSE(back.shell) << line;
    EXPECT_EQ(back.argv, argv) << line;
    EXPECT_TRUE(back.env.empty()) << line;
  }
}

TEST(RemoteCommandLine, PlainWordsStayAsTheyAre) {
  EXPECT_EQ(remote_command_line({{"/bin/check_http", "-H", "example.org", "-u", "/a/b?c"}, false, {}}),
            "/bin/check_http -H example.org -u '/a/b?c'");
}

TEST(RemoteCommandLine, AShellLineGoesAsItIs) {
  EXPECT_EQ(remote_command_line({{"echo $HOME | cat"}, true, {}}), "echo $HOME | cat");
}

TEST(RemoteCommandLine, EnvironmentWordsComeFirst) {
  const ExpandedCommand command{{"/bin/env"}, false, {{"LANG", "C"}, {"GREETING", "hello world"}}};
  const ExpandedCommand back = split(remote_command_line(command));
  EXPECT_FALSE(back.shell);
  EXPECT_EQ(back.argv, command.argv);
  EXPECT_EQ(back.env, command.env);
}

// A worker splits the line itself (and runs /bin/sh if it sees shell syntax): a value from outside keeps its
// place there too, quoted among the words or escaped in the shell line.
TEST(RemoteCommandLine, ValuesFromOutsideKeepTheirPlaceOnTheWorker) {
  const auto expanded = [](std::string_view before, std::string_view value, std::string_view after) {
    std::string text(before);
    const config::OutsideSpans outside{{text.size(), text.size() + value.size()}};
    text.append(value).append(after);
    ExpandedCommand command;
    command.argv = config::split_expanded_line(text, outside, command.shell, command.env);
    return command;
  };
  const ExpandedCommand words = expanded("/usr/bin/logger ", "looking; touch /tmp/x 'q' $(id)", "");
  ASSERT_FALSE(words.shell);
  ExpandedCommand back = split(remote_command_line(words));
  EXPECT_FALSE(back.shell);
  EXPECT_EQ(back.argv, (Strings{"/usr/bin/logger", "looking;", "touch", "/tmp/x", "'q'", "$(id)"}));

  const ExpandedCommand line = expanded("/usr/bin/printf '%s' \"", "\"; touch /tmp/x; \"", "\" | /bin/cat");
  ASSERT_TRUE(line.shell);
  const std::string sent = remote_command_line(line);
  EXPECT_EQ(sent, R"(/usr/bin/printf '%s' "\"; touch /tmp/x; \"" | /bin/cat)");
  back = split(sent);
  EXPECT_TRUE(back.shell);
  EXPECT_EQ(back.argv, Strings{sent});
}

TEST(ModGearmanModule, RecognisedByItsFileName) {
  EXPECT_TRUE(is_mod_gearman_module("/usr/lib/mod_gearman/mod_gearman_naemon.o"));
  EXPECT_TRUE(is_mod_gearman_module("/usr/lib64/mod_gearman/mod_gearman2.o"));
  EXPECT_TRUE(is_mod_gearman_module("mod_gearman.so"));
  EXPECT_FALSE(is_mod_gearman_module("/usr/lib/naemon/livestatus.o"));
  EXPECT_FALSE(is_mod_gearman_module("/opt/mod_gearman/other.o"));
  EXPECT_FALSE(is_mod_gearman_module("/usr/lib/mod_gearman/mod_gearman_naemon.c"));
}

TEST(DistributionOptions, FromTheModuleLineAndGearmanOptions) {
  config::MainConfig main;
  gearman::OptionMessages messages;
  EXPECT_FALSE(distribution_options(main, messages).has_value());

  main.broker_modules.push_back({"/usr/lib/mod_gearman/mod_gearman_naemon.o",
                                 "server=127.0.0.1:4731 encryption=no hostgroups=dmz",
                                 {}});
  main.broker_modules.push_back({"/usr/lib/naemon/livestatus.o", "/tmp/live", {}});
  main.gearman_options = "result_queue=results_a gearmand_down=local";
  std::optional<gearman::Options> o = distribution_options(main, messages);
  ASSERT_TRUE(o.has_value());
  EXPECT_TRUE(messages.errors.empty());
  ASSERT_EQ(o->servers.size(), 1u);
  EXPECT_EQ(o->servers[0].port, 4731);
  EXPECT_FALSE(o->encryption);
  EXPECT_EQ(o->hostgroups, Strings{"dmz"});
  EXPECT_EQ(o->result_queue, "results_a");
  EXPECT_TRUE(o->run_locally_when_down);
  // hostgroups= chose the queues by hand: no generic host/service queues.
  EXPECT_FALSE(o->services);
  EXPECT_FALSE(o->hosts);
}

TEST(DistributionOptions, ErrorsNameTheProblem) {
  config::MainConfig main;
  main.gearman_options = "encryption=yes gearmand_down=maybe";
  gearman::OptionMessages messages;
  ASSERT_TRUE(distribution_options(main, messages).has_value());
  std::string all;
  for (const std::string& e : messages.errors) all += e + "\n";
  EXPECT_NE(all.find("gearmand_down: 'maybe'"), std::string::npos) << all;
  EXPECT_NE(all.find("server"), std::string::npos) << all;  // no server given
}

constexpr const char* k_objects = R"(define command {
  command_name  check_it
  command_line  /bin/true
}
define hostgroup {
  hostgroup_name  dmz
}
define host {
  host_name           inner
  check_command       check_it
  max_check_attempts  1
}
define host {
  host_name           outer
  hostgroups          dmz
  check_command       check_it
  max_check_attempts  1
}
define host {
  host_name           here
  check_command       check_it
  max_check_attempts  1
  _WORKER             local
}
define service {
  host_name            inner,outer,here
  service_description  ping
  check_command        check_it
  max_check_attempts   1
}
)";

// Check ids as the core numbers them: the services first (in the model's order), then the hosts.
class DistributorTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    loaded_ = new test::LoadedConfig("vedette_distribution");
    loaded_->load(k_objects);  // warnings: no contacts, which these tests do not need
  }
  static void TearDownTestSuite() { delete loaded_; }

  static const model::Model& model() { return loaded_->model(); }
  static CheckId service(std::string_view host) {
    return CheckIds{model().services.size()}.of(model().find_service(host, "ping"));
  }
  static CheckId host(std::string_view name) {
    return CheckIds{model().services.size()}.of(model().host_by_name.at(name));
  }
  // Nothing listens on port 1: the link keeps retrying in the background, which these tests do not need.
  static gearman::Options options(std::string_view args) {
    gearman::Options o;
    gearman::OptionMessages messages;
    gearman::parse_option_args(o, fmt::format("server=127.0.0.1:1 encryption=no {}", args), messages);
    gearman::finish_options(o, messages);
    EXPECT_TRUE(messages.errors.empty());
    return o;
  }

  static inline test::LoadedConfig* loaded_ = nullptr;
};

TEST_F(DistributorTest, EachObjectsWorkGoesToItsQueue) {
  Distributor d(
      options("hostgroups=dmz services=yes hosts=yes eventhandlers=yes queue_custom_variable=WORKER"),
      model());
  using gearman::Work;
  ASSERT_NE(d.queue(Work::service_check, service("inner")), nullptr);
  EXPECT_EQ(*d.queue(Work::service_check, service("inner")), "service");
  EXPECT_EQ(*d.queue(Work::service_check, service("outer")), "hostgroup_dmz");
  EXPECT_EQ(*d.queue(Work::host_check, host("outer")), "hostgroup_dmz");
  EXPECT_EQ(*d.queue(Work::host_check, host("inner")), "host");
  EXPECT_EQ(d.queue(Work::service_check, service("here")), nullptr);  // _WORKER local
  EXPECT_EQ(d.queue(Work::host_check, host("here")), nullptr);
  EXPECT_EQ(*d.queue(Work::eventhandler, service("outer")), "eventhandler");
  EXPECT_EQ(d.queue(Work::notification, service("outer")), nullptr);  // notifications=no
  EXPECT_NE(d.describe().find("hostgroup_dmz"), std::string::npos) << d.describe();
}

TEST_F(DistributorTest, AChecksResultOrItsDeadlineEndsItsJob) {
  Distributor d(options("services=yes hosts=yes"), model());
  const loop::MonoTime t0{};
  using std::chrono::seconds;
  d.expect(service("inner"), 5, t0 + seconds(1));
  d.expect(service("outer"), 6, t0 + seconds(2));
  d.expect(host("inner"), 7, t0 + seconds(3));
  d.expect(host("inner"), 8, t0 + seconds(9));  // a newer job replaces the first
  EXPECT_TRUE(d.take(service("inner")));
  EXPECT_FALSE(d.take(service("inner")));
  EXPECT_EQ(d.next_deadline(), t0 + seconds(2));
  EXPECT_TRUE(d.orphans(t0 + seconds(1)).empty());
  const std::vector<Orphan> late = d.orphans(t0 + seconds(4));
  ASSERT_EQ(late.size(), 1u);
  EXPECT_EQ(late[0].check, service("outer"));
  EXPECT_EQ(late[0].queue, "service");
  EXPECT_FALSE(d.take(service("outer")));  // forgotten once reported
  EXPECT_EQ(d.next_deadline(), t0 + seconds(9));
  ASSERT_EQ(d.orphans(t0 + seconds(9)).size(), 1u);
  EXPECT_FALSE(d.next_deadline().has_value());
}

TEST_F(DistributorTest, AReloadKeepsTheChecksOutUnderTheirNewIds) {
  Distributor d(options("services=yes hosts=yes"), model());
  const loop::MonoTime t0{};
  d.expect(service("outer"), 5, t0 + std::chrono::seconds(1));
  d.expect(service("inner"), 6, t0 + std::chrono::seconds(1));
  const std::size_t checks = model().services.size() + model().hosts.size();
  ByCheck<CheckId> new_of_old(checks, k_no_check);
  new_of_old[service("outer")] = service("here");  // "inner" is gone
  d.reconfigure(options("services=yes hosts=yes"), model(), new_of_old);
  const std::vector<Orphan> late = d.orphans(t0 + std::chrono::seconds(2));
  ASSERT_EQ(late.size(), 1u);
  EXPECT_EQ(late[0].check, service("here"));
}

}  // namespace
}  // namespace vedette::engine
