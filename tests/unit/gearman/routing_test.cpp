#include "gearman/routing.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace vedette::gearman {
namespace {

Options parse_args(std::string_view args, OptionMessages* out = nullptr) {
  Options options;
  OptionMessages messages;
  parse_option_args(options, args, messages);
  finish_options(options, messages);
  if (out) *out = messages;
  return options;
}

// A host or service as select_queue sees it.
struct Object {
  bool is_service = false;
  std::vector<std::string_view> host_groups = {};
  std::vector<std::string_view> service_groups = {};
  std::vector<model::CustomVariable> host_vars = {};
  std::vector<model::CustomVariable> service_vars = {};

  [[nodiscard]] Target target() const {
    return Target{is_service, host_groups, service_groups, host_vars, service_vars};
  }
};

std::string queue(const Options& o, Work work, const Object& obj) {
  return select_queue(o, work, obj.target()).value_or("<local>");
}

TEST(GearmanOptions, DefaultsAreModGearmans) {
  OptionMessages messages;
  const Options o = parse_args("server=localhost key=should_be_changed", &messages);
  EXPECT_TRUE(messages.errors.empty());
  ASSERT_EQ(o.servers.size(), 1u);
  EXPECT_EQ(o.servers[0], (Server{"localhost", 4730}));
  EXPECT_TRUE(o.encryption);
  EXPECT_EQ(o.result_queue, "check_results");
  // Nothing chosen by hand: hosts, services and event handlers go out, notifications stay.
  EXPECT_TRUE(o.hosts);
  EXPECT_TRUE(o.services);
  EXPECT_TRUE(o.eventhandlers);
  EXPECT_FALSE(o.notifications);
  EXPECT_TRUE(o.use_uniq_jobs);
  EXPECT_EQ(o.orphan_return, 2);
  EXPECT_EQ(o.gearman_connection_timeout_ms, 5000);
}

TEST(GearmanOptions, ChoosingAnyQueueTurnsOffTheDefaults) {
  const Options o = parse_args("server=gm1 encryption=no hostgroups=dmz");
  EXPECT_FALSE(o.hosts);
  EXPECT_FALSE(o.services);
  EXPECT_FALSE(o.eventhandlers);
  EXPECT_EQ(o.hostgroups, std::vector<std::string>{"dmz"});
  EXPECT_EQ(o.queues_set_by_hand, 1);
}

TEST(GearmanOptions, ReadsTheNebModuleArgumentStyle) {
  OptionMessages messages;
  const Options o = parse_args(
      "server=gm1:4731,gm2 --encryption=no services=yes hosts eventhandler=off notifications=on "
      "servicegroups=web,db localhostgroups=local1 localservicegroups=lsg queue_custom_variable=worker "
      "result_queue=results2 do_hostchecks=no route_eventhandler_like_checks=yes accept_clear_results=yes "
      "use_uniq_jobs=off orphan_return=3",
      &messages);
  EXPECT_TRUE(messages.errors.empty()) << messages.errors.front();
  ASSERT_EQ(o.servers.size(), 2u);
  EXPECT_EQ(o.servers[0], (Server{"gm1", 4731}));
  EXPECT_EQ(o.servers[1], (Server{"gm2", 4730}));
  EXPECT_FALSE(o.encryption);
  EXPECT_TRUE(o.services);
  EXPECT_TRUE(o.hosts);  // a bare switch turns it on
  EXPECT_FALSE(o.eventhandlers);
  EXPECT_TRUE(o.notifications);
  EXPECT_EQ(o.servicegroups, (std::vector<std::string>{"web", "db"}));
  EXPECT_EQ(o.local_hostgroups, std::vector<std::string>{"local1"});
  EXPECT_EQ(o.local_servicegroups, std::vector<std::string>{"lsg"});
  EXPECT_EQ(o.queue_custom_variable, "WORKER");
  EXPECT_EQ(o.result_queue, "results2");
  EXPECT_FALSE(o.do_hostchecks);
  EXPECT_TRUE(o.route_eventhandler_like_checks);
  EXPECT_TRUE(o.accept_clear_results);
  EXPECT_FALSE(o.use_uniq_jobs);
  EXPECT_EQ(o.orphan_return, 3);
}

TEST(GearmanOptions, ReadsAConfigFileWithCommentsAndIncludes) {
  const auto dir = std::filesystem::temp_directory_path() / ("vedette-gmopts-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "conf.d");
  std::ofstream(dir / "key.txt") << "from-the-keyfile-1234\n";
  std::ofstream(dir / "conf.d" / "10-groups.cfg") << "hostgroups=dmz\nhostgroups = lan , wan\n";
  std::ofstream(dir / "conf.d" / "ignored.txt") << "hostgroups=never\n";
  std::ofstream(dir / "main.conf") << "# Mod-Gearman NEB module\n"
                                   << "debug=0\n"
                                   << "logfile=/var/log/mod_gearman/mod_gearman_neb.log\n"
                                   << "server=127.0.0.1:4730   # the local gearmand\n"
                                   << "\n"
                                   << "Encryption=yes\n"
                                   << "key=inline-key\n"
                                   << "keyfile=" << (dir / "key.txt").string() << "\n"
                                   << "config=" << (dir / "conf.d").string() << "\n"
                                   << "perfdata=no\n"
                                   << "latency_flatten_window=30\n";
  Options o;
  OptionMessages messages;
  ASSERT_TRUE(parse_option_file(o, (dir / "main.conf").string(), messages));
  finish_options(o, messages);
  EXPECT_TRUE(messages.errors.empty()) << messages.errors.front();
  EXPECT_TRUE(messages.warnings.empty()) << messages.warnings.front();
  ASSERT_EQ(o.servers.size(), 1u);
  EXPECT_EQ(o.servers[0], (Server{"127.0.0.1", 4730}));
  EXPECT_EQ(o.key, "from-the-keyfile-1234");  // keyfile= wins, as read_keyfile runs last
  EXPECT_EQ(o.hostgroups, (std::vector<std::string>{"dmz", "lan", "wan"}));
  EXPECT_FALSE(o.hosts);  // hostgroups= and perfdata= chose queues by hand
  std::filesystem::remove_all(dir);
}

TEST(GearmanOptions, PerfdataAsTheNebModuleReadsIt) {
  const Options off = parse_args("server=gm");
  EXPECT_TRUE(off.perfdata_queues.empty());
  EXPECT_TRUE(off.perfdata_overwrite);
  EXPECT_FALSE(off.perfdata_send_all);
  EXPECT_EQ(off.service_perfdata_template, k_default_service_perfdata_template);
  EXPECT_EQ(off.host_perfdata_template.substr(0, 32), "DATATYPE::HOSTPERFDATA\tTIMET::$T");

  OptionMessages messages;
  const Options on = parse_args("server=gm perfdata=yes", &messages);
  EXPECT_TRUE(messages.warnings.empty()) << messages.warnings.front();
  EXPECT_EQ(on.perfdata_queues, (std::vector<std::string>{"perfdata"}));
  EXPECT_FALSE(on.services);  // perfdata= chose the queues: checks stay here

  const Options named = parse_args(
      "server=gm perfdata=pnp,archive perfdata_mode=2 perfdata_send_all=yes "
      "service_perfdata_template=$SERVICEDESC$\\t$SERVICEPERFDATA$ host_perfdata_template=$HOSTNAME$");
  EXPECT_EQ(named.perfdata_queues, (std::vector<std::string>{"pnp", "archive"}));
  EXPECT_FALSE(named.perfdata_overwrite);
  EXPECT_TRUE(named.perfdata_send_all);
  EXPECT_EQ(named.service_perfdata_template, "$SERVICEDESC$\\t$SERVICEPERFDATA$");  // escapes: at send time
  EXPECT_EQ(named.host_perfdata_template, "$HOSTNAME$");

  EXPECT_TRUE(parse_args("server=gm perfdata=no").perfdata_queues.empty());
  EXPECT_FALSE(parse_args("server=gm perfdata=yes perfdata_mode=0").perfdata_overwrite);  // as atoi: not 1
  OptionMessages odd;
  EXPECT_TRUE(parse_args("server=gm perfdata=yes perfdata_mode=7", &odd).perfdata_overwrite);
  ASSERT_EQ(odd.warnings.size(), 1u);
  EXPECT_NE(odd.warnings[0].find("perfdata_mode"), std::string::npos) << odd.warnings[0];
}

TEST(GearmanOptions, ReportsErrorsWithTheirPlace) {
  Options o;
  OptionMessages messages;
  parse_option_text(o,
                    "server=gm1:notaport\n"
                    "hostgroups=" +
                        std::string(51, 'g') +
                        "\n"
                        "result_workers=many\n"
                        "no_such_option=1\n"
                        "hosts=perhaps\n",
                    "neb.cfg", messages);
  finish_options(o, messages);
  ASSERT_GE(messages.errors.size(), 4u);
  EXPECT_EQ(messages.errors[0], "neb.cfg:1: server: bad port in 'gm1:notaport'");
  EXPECT_NE(messages.errors[1].find("neb.cfg:2: hostgroups: group name"), std::string::npos);
  EXPECT_EQ(messages.errors[2], "neb.cfg:3: result_workers: 'many' is not a number");
  EXPECT_EQ(messages.errors[3], "no gearmand server given (server=host:port)");
  ASSERT_EQ(messages.warnings.size(), 2u);
  EXPECT_EQ(messages.warnings[0], "neb.cfg:4: unknown option 'no_such_option'");
  EXPECT_EQ(messages.warnings[1], "neb.cfg:5: hosts: 'perhaps' is neither yes nor no, taken as yes");
}

TEST(GearmanOptions, EncryptionNeedsAKey) {
  OptionMessages messages;
  (void)parse_args("server=gm1", &messages);
  ASSERT_EQ(messages.errors.size(), 1u);
  EXPECT_NE(messages.errors[0].find("key"), std::string::npos);
  OptionMessages clear;
  (void)parse_args("server=gm1 encryption=off", &clear);
  EXPECT_TRUE(clear.errors.empty());
  OptionMessages short_key;
  (void)parse_args("server=gm1 key=abc", &short_key);
  EXPECT_TRUE(short_key.errors.empty());
  ASSERT_EQ(short_key.warnings.size(), 1u);
}

TEST(GearmanOptions, DuplicateServersAndEmptyHosts) {
  OptionMessages messages;
  const Options o = parse_args("server=gm1,gm1:4730,:4731 encryption=no", &messages);
  ASSERT_EQ(o.servers.size(), 2u);
  EXPECT_EQ(o.servers[1], (Server{"0.0.0.0", 4731}));
  ASSERT_EQ(messages.warnings.size(), 1u);
}

TEST(GearmanRouting, GenericQueuesByDefault) {
  const Options o = parse_args("server=gm encryption=no");
  Object host;
  Object svc{.is_service = true};
  EXPECT_EQ(queue(o, Work::host_check, host), "host");
  EXPECT_EQ(queue(o, Work::service_check, svc), "service");
  EXPECT_EQ(queue(o, Work::eventhandler, svc), "eventhandler");
  EXPECT_EQ(queue(o, Work::eventhandler, host), "eventhandler");
  EXPECT_EQ(queue(o, Work::notification, svc), "<local>");  // notifications are off by default
}

TEST(GearmanRouting, ServicegroupsThenHostgroupsThenGeneric) {
  const Options o = parse_args(
      "server=gm encryption=no hosts=yes services=yes servicegroups=web,db "
      "hostgroups=dmz,lan");
  Object svc{.is_service = true, .host_groups = {"lan", "dmz"}, .service_groups = {"db", "web"}};
  // The first group listed in the options wins, not the object's first group.
  EXPECT_EQ(queue(o, Work::service_check, svc), "servicegroup_web");
  svc.service_groups = {"other"};
  EXPECT_EQ(queue(o, Work::service_check, svc), "hostgroup_dmz");
  svc.host_groups = {"nowhere"};
  EXPECT_EQ(queue(o, Work::service_check, svc), "service");
  // A host never looks at servicegroups.
  Object host{.host_groups = {"lan"}};
  EXPECT_EQ(queue(o, Work::host_check, host), "hostgroup_lan");
  host.host_groups = {};
  EXPECT_EQ(queue(o, Work::host_check, host), "host");
}

TEST(GearmanRouting, WithoutGenericQueuesUnmatchedWorkRunsLocally) {
  const Options o = parse_args("server=gm encryption=no hostgroups=dmz eventhandlers=yes");
  Object in_dmz{.is_service = true, .host_groups = {"dmz"}};
  Object elsewhere{.is_service = true, .host_groups = {"lan"}};
  EXPECT_EQ(queue(o, Work::service_check, in_dmz), "hostgroup_dmz");
  EXPECT_EQ(queue(o, Work::service_check, elsewhere), "<local>");
  EXPECT_EQ(queue(o, Work::host_check, Object{.host_groups = {"dmz"}}), "hostgroup_dmz");
  EXPECT_EQ(queue(o, Work::host_check, Object{}), "<local>");
  // Mod-Gearman's quirk: an event handler of an object no queue takes runs locally.
  EXPECT_EQ(queue(o, Work::eventhandler, in_dmz), "eventhandler");
  EXPECT_EQ(queue(o, Work::eventhandler, elsewhere), "<local>");
}

TEST(GearmanRouting, LocalGroupsRunLocally) {
  const Options o = parse_args(
      "server=gm encryption=no hosts=yes services=yes servicegroups=web localservicegroups=lsg "
      "localhostgroups=lhg");
  Object svc{.is_service = true, .service_groups = {"web", "lsg"}};
  EXPECT_EQ(queue(o, Work::service_check, svc), "<local>");  // local groups come first
  Object on_local_host{.is_service = true, .host_groups = {"lhg"}, .service_groups = {"web"}};
  EXPECT_EQ(queue(o, Work::service_check, on_local_host), "<local>");
  EXPECT_EQ(queue(o, Work::host_check, Object{.host_groups = {"lhg"}}), "<local>");
  // localservicegroups do not apply to hosts.
  EXPECT_EQ(queue(o, Work::host_check, Object{}), "host");
}

TEST(GearmanRouting, CustomVariableOverridesEverything) {
  const Options o = parse_args(
      "server=gm encryption=no services=yes hosts=yes hostgroups=dmz "
      "localhostgroups=dmz queue_custom_variable=_worker");
  EXPECT_EQ(o.queue_custom_variable, "WORKER");
  Object svc{.is_service = true, .host_groups = {"dmz"}};
  EXPECT_EQ(queue(o, Work::service_check, svc), "<local>");  // no variable: local group
  svc.host_vars = {{"WORKER", "hostgroup_edge"}};
  EXPECT_EQ(queue(o, Work::service_check, svc), "hostgroup_edge");  // inherited from the host
  svc.service_vars = {{"OTHER", "x"}, {"WORKER", "special"}};
  EXPECT_EQ(queue(o, Work::service_check, svc), "special");  // the service's own wins
  svc.service_vars = {{"WORKER", "local"}};
  EXPECT_EQ(queue(o, Work::service_check, svc), "<local>");
  svc.service_vars = {{"WORKER", "", true}};  // null: as if unset
  EXPECT_EQ(queue(o, Work::service_check, svc), "hostgroup_edge");
  // For a host's own work, service variables do not count.
  Object host{.host_vars = {{"WORKER", "h_queue"}}};
  EXPECT_EQ(queue(o, Work::host_check, host), "h_queue");
}

TEST(GearmanRouting, TheVariableAloneDistributesChecks) {
  const Options o = parse_args("server=gm encryption=no queue_custom_variable=WORKER notifications=yes");
  EXPECT_FALSE(o.services);
  Object svc{.is_service = true, .service_vars = {{"WORKER", "q1"}}};
  EXPECT_EQ(queue(o, Work::service_check, svc), "q1");
  EXPECT_EQ(queue(o, Work::service_check, Object{.is_service = true}), "<local>");
  EXPECT_EQ(queue(o, Work::notification, svc), "notification");
  EXPECT_EQ(queue(o, Work::notification, Object{.is_service = true}), "<local>");
}

TEST(GearmanRouting, EventHandlersFollowChecksWhenAsked) {
  Options o = parse_args(
      "server=gm encryption=no hosts=yes services=yes eventhandlers=yes hostgroups=dmz "
      "route_eventhandler_like_checks=yes");
  Object in_dmz{.is_service = true, .host_groups = {"dmz"}};
  EXPECT_EQ(queue(o, Work::eventhandler, in_dmz), "hostgroup_dmz");
  // The generic queues are never used for handlers.
  EXPECT_EQ(queue(o, Work::eventhandler, Object{.is_service = true}), "eventhandler");
  o.route_eventhandler_like_checks = false;
  EXPECT_EQ(queue(o, Work::eventhandler, in_dmz), "eventhandler");
}

TEST(GearmanRouting, DoHostchecksOffKeepsHostChecksLocal) {
  const Options o = parse_args("server=gm encryption=no do_hostchecks=no hostgroups=dmz hosts=yes");
  EXPECT_EQ(queue(o, Work::host_check, Object{.host_groups = {"dmz"}}), "<local>");
  EXPECT_EQ(queue(o, Work::service_check, Object{.is_service = true, .host_groups = {"dmz"}}),
            "hostgroup_dmz");
}

TEST(GearmanRouting, PrioritiesFollowTheNebModule) {
  EXPECT_EQ(priority_for(Work::service_check, false), Priority::low);
  EXPECT_EQ(priority_for(Work::service_check, true), Priority::high);
  EXPECT_EQ(priority_for(Work::host_check, false), Priority::normal);
  EXPECT_EQ(priority_for(Work::eventhandler, false), Priority::normal);
  EXPECT_EQ(priority_for(Work::notification, false), Priority::high);
}

}  // namespace
}  // namespace vedette::gearman
