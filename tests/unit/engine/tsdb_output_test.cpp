#include "engine/perfdata/tsdb_output.hpp"

#include "tsdb/metric_names.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vedette::engine {
namespace {

struct Fixture {
  model::Model model;
  config::MainConfig main;
  std::vector<HostState> hosts{1};
  std::vector<ServiceState> services{1};

  Fixture() {
    model::Host h;
    h.name = "web01.example.com";
    model.hosts.push_back(h);
    model::Service s;
    s.host = model::HostId{0};
    s.description = "disk /var";
    s.check_command.raw = "check_disk!20%!10%!/var";
    model.services.push_back(s);
  }
  MacroContext ctx() const {
    return {.model = model,
            .main = main,
            .host = model::HostId{0},
            .service = model::ServiceId{0},
            .host_state = &hosts[0],
            .service_state = &services[0],
            .now = 1'700'000'000,
            .all_hosts = &hosts,
            .all_services = &services};
  }
};

TEST(NameTemplate, EscapesEachMacroValueAndKeepsTheTemplatesDots) {
  const Fixture f;
  std::string out;
  NameTemplate(f.main.perfdata_writers.graphite_service_template)
      .expand(f.ctx(), tsdb::append_graphite_component, out);
  EXPECT_EQ(out, "vedette.web01_example_com.services.disk__var.check_disk");
  out.clear();
  NameTemplate("a.$HOSTNAME$-$SERVICEDESC$.$UNKNOWNMACRO$.b$").expand(f.ctx(), nullptr, out);
  EXPECT_EQ(out, "a.web01.example.com-disk /var.$UNKNOWNMACRO$.b$");
  out.clear();
  NameTemplate("").expand(f.ctx(), nullptr, out);
  EXPECT_EQ(out, "");
}

// Icinga 2's check_command is the command's name: one rule for both writers, the arguments Naemon's macro
// carries are cut at the first '!' (a '!' elsewhere in a value, or in the template, stays).
TEST(NameTemplate, CheckCommandMacrosGiveTheCommandsName) {
  const Fixture f;
  std::string out;
  NameTemplate("$SERVICECHECKCOMMAND$|$SERVICEDESC$!x").expand(f.ctx(), nullptr, out);
  EXPECT_EQ(out, "check_disk|disk /var!x");
  out.clear();
  NameTemplate("$SERVICECHECKCOMMAND$").expand(f.ctx(), tsdb::append_graphite_component, out);
  EXPECT_EQ(out, "check_disk");
}

TEST(TsdbOutput, NoWritersUnlessConfigured) {
  const Fixture f;
  EXPECT_FALSE(TsdbOutput(f.main, [](std::string) {}).has_writers());
}

}  // namespace
}  // namespace vedette::engine
