// Configurations whose shape once broke the loader: chains 100k deep (template `use` chains, group-in-group
// membership, timeperiod templates and exclusions) that overflowed the call stack, and shapes that made it
// quadratic (all services on one host, long dependency chains, template chains each adding a custom
// variable or a `+` value, members written one per line). Each loads, with the output the previous
// algorithms gave on small cases. Timing targets live in bench/config/load_bench.py, not here.
#include "config/loader.hpp"
#include "config_test_support.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace vedette::config {
namespace {

// Deep enough that one call per level overflowed the default 8 MB stack: each chain below crashed the
// loader at this depth.
constexpr int k_deep = 100000;

constexpr const char* k_base = R"(define command {
  command_name  check_dummy
  command_line  /bin/true
}
define contact {
  contact_name                   admin
  host_notification_commands     check_dummy
  service_notification_commands  check_dummy
}
define host {
  host_name           web01
  max_check_attempts  1
  contacts            admin
}
define service {
  host_name            web01
  service_description  svc
  check_command        check_dummy
  max_check_attempts   1
  contacts             admin
}
)";

std::string service_def(const std::string& host, const std::string& desc, const std::string& extra = "") {
  return "define service {\n  host_name " + host + "\n  service_description " + desc +
         "\n  check_command check_dummy\n  max_check_attempts 1\n  contacts admin\n" + extra + "}\n";
}

class HostileShapesTest : public test::TempDirTest {
 protected:
  // Loads k_base and `objects`; fails the test on any error.
  const model::Model& load(const std::string& objects) {
    write("base.cfg", k_base);
    write("objects.cfg", objects);
    const std::string main = write("naemon.cfg", "cfg_file=" + dir_ + "/base.cfg\ncfg_file=" + dir_ +
                                                     "/objects.cfg\nillegal_macro_output_chars=`~$&|'\"<>\n");
    cfg_ = load_configuration(main, files_, diags_);
    EXPECT_FALSE(diags_.has_errors()) << text();
    if (!cfg_.model) cfg_.model = std::make_unique<model::Model>();
    return *cfg_.model;
  }

  std::string text() const {
    std::string out;
    for (const Diagnostic& d : diags_.all()) out += Diagnostics::format(d) + "\n";
    return out.size() > 4000 ? out.substr(0, 4000) : out;
  }
  std::size_t warnings_with(const std::string& part) const {
    return static_cast<std::size_t>(
        std::count_if(diags_.all().begin(), diags_.all().end(), [&](const Diagnostic& d) {
          return d.severity == Severity::warning && d.message.find(part) != std::string::npos;
        }));
  }

  const model::Model& m() const { return *cfg_.model; }
  const model::Service& service(const std::string& host, const std::string& desc) const {
    const model::ServiceId id = m().find_service(host, desc);
    EXPECT_TRUE(model::is_set(id)) << host << ";" << desc;
    static const model::Service none{};
    return model::is_set(id) ? m().service(id) : none;
  }
  static std::vector<std::string> vars(const std::vector<model::CustomVariable>& list) {
    std::vector<std::string> out;
    for (const model::CustomVariable& v : list)
      out.push_back(std::string(v.name) + "=" + std::string(v.value));
    return out;
  }

  SourceFiles files_;
  Diagnostics diags_;
  Configuration cfg_;
};

using Names = std::vector<std::string>;

// ------------------------------------------------------------------------------------------ deep chains

TEST_F(HostileShapesTest, DeepUseChainOfHostTemplatesResolves) {
  // Defined last-used first, so resolving the first definition walks the whole chain.
  std::string objects;
  for (int i = k_deep - 1; i >= 0; --i) {
    objects += "define host {\n  name t" + std::to_string(i) + "\n  register 0\n";
    objects += i > 0 ? "  use t" + std::to_string(i - 1) + "\n" : "  notes from the root\n  _ROOT yes\n";
    objects += "}\n";
  }
  objects += "define host {\n  host_name h\n  use t" + std::to_string(k_deep - 1) +
             "\n  max_check_attempts 1\n  contacts admin\n}\n" + service_def("h", "svc");
  const model::Model& model = load(objects);
  const model::Host& h = model.host(model.host_by_name.at("h"));
  EXPECT_EQ(h.notes, "from the root");
  EXPECT_EQ(vars(h.custom_variables), (Names{"ROOT=yes"}));
}

TEST_F(HostileShapesTest, DeepUseChainOfTimeperiodTemplatesResolves) {
  std::string objects;
  for (int i = k_deep - 1; i >= 0; --i) {
    objects += "define timeperiod {\n  name p" + std::to_string(i) + "\n  register 0\n";
    objects += i > 0 ? "  use p" + std::to_string(i - 1) + "\n" : "  monday 01:00-02:00\n";
    objects += "}\n";
  }
  objects +=
      "define timeperiod {\n  timeperiod_name tp\n  alias tp\n  use p" + std::to_string(k_deep - 1) + "\n}\n";
  const model::Model& model = load(objects);
  const model::Timeperiod& tp = model.timeperiods[model::index(model.timeperiod_by_name.at("tp"))];
  ASSERT_EQ(tp.rules.weekdays[1].size(), 1u);
  EXPECT_EQ(tp.rules.weekdays[1][0].start, 3600u);
}

// g<n> includes g<n-1> ... g0, which has the member; each defined after the one it includes, so Naemon's
// order (newest definition first) starts at the top of the chain.
std::string group_chain(const std::string& type, const std::string& member) {
  std::string objects;
  for (int i = 0; i < k_deep; ++i) {
    objects += "define " + type + " {\n  " + type + "_name g" + std::to_string(i) + "\n";
    objects +=
        i > 0 ? "  " + type + "_members g" + std::to_string(i - 1) + "\n" : "  members " + member + "\n";
    objects += "}\n";
  }
  return objects;
}

TEST_F(HostileShapesTest, DeepHostgroupChainHasItsMembersAtEveryLevel) {
  const model::Model& model = load(group_chain("hostgroup", "web01"));
  for (const char* name : {"g0", "g1000", "g99999"}) {
    const model::Hostgroup& g = model.hostgroups[model::index(model.hostgroup_by_name.at(name))];
    ASSERT_EQ(g.members.size(), 1u) << name;
    EXPECT_EQ(model.host(g.members[0]).name, "web01");
  }
  EXPECT_EQ(model.hosts[0].hostgroups.size(), static_cast<std::size_t>(k_deep));
}

TEST_F(HostileShapesTest, DeepServicegroupChainHasItsMembersAtEveryLevel) {
  const model::Model& model = load(group_chain("servicegroup", "web01,svc"));
  const model::Servicegroup& top = model.servicegroups[model::index(model.servicegroup_by_name.at("g99999"))];
  ASSERT_EQ(top.listed_members.size(), 1u);
  EXPECT_EQ(model.service(top.listed_members[0]).description, "svc");
}

TEST_F(HostileShapesTest, DeepContactgroupChainHasItsMembersAtEveryLevel) {
  const model::Model& model = load(group_chain("contactgroup", "admin"));
  const model::Contactgroup& top = model.contactgroups[model::index(model.contactgroup_by_name.at("g99999"))];
  ASSERT_EQ(top.listed_members.size(), 1u);
  EXPECT_EQ(model.contacts[model::index(top.listed_members[0])].name, "admin");
}

// Exclusions were already checked without recursion; this keeps them so.
TEST_F(HostileShapesTest, LongTimeperiodExcludeChainLoads) {
  std::string objects;
  for (int i = 0; i < k_deep / 2; ++i) {
    objects += "define timeperiod {\n  timeperiod_name p" + std::to_string(i) +
               "\n  alias p\n  monday 00:00-24:00\n";
    if (i > 0) objects += "  exclude p" + std::to_string(i - 1) + "\n";
    objects += "}\n";
  }
  const model::Model& model = load(objects);
  const model::Timeperiod& last = model.timeperiods[model::index(model.timeperiod_by_name.at("p49999"))];
  ASSERT_EQ(last.exclusions.size(), 1u);
  EXPECT_EQ(model.timeperiods[model::index(last.exclusions[0])].name, "p49998");
}

// ----------------------------------------------------------------------------- one host, many services

TEST_F(HostileShapesTest, ManyServicesOnOneHostKeepNaemonsDuplicateRules) {
  // More services than a host's instances are scanned for: the host's lookup by description decides.
  std::string objects = "define hostgroup {\n  hostgroup_name all\n  members web01\n}\n";
  for (int i = 0; i < 200; ++i) {
    const std::string d = fmt::format("s{}", i);
    objects += "define service {\n  hostgroup_name all\n  service_description " + d +
               "\n  check_command check_dummy!group\n  max_check_attempts 1\n  contacts admin\n}\n";
    if (i % 2 == 0) objects += service_def("web01", d, "  notes on the host\n");  // overrides the group's
    if (i % 50 == 0) objects += service_def("web01", d, "  notes second\n");      // a duplicate: warned
  }
  const model::Model& model = load(objects);
  EXPECT_EQ(model.hosts[0].services.size(), 201u);
  EXPECT_EQ(service("web01", "s0").notes, "on the host");
  EXPECT_EQ(service("web01", "s1").notes, "");
  EXPECT_EQ(service("web01", "s150").notes, "on the host");
  EXPECT_EQ(warnings_with("Duplicate definition found for service"), 4u) << text();
}

TEST_F(HostileShapesTest, DependencyChainOnOneHostIsOrderedByDependentName) {
  // Each service's parent and its dependency master is the one before it.
  constexpr int k_services = 300;
  auto name = [](std::size_t i) { return fmt::format("s{:04}", i); };
  std::string objects;
  for (int i = 0; i < k_services; ++i) {
    objects += service_def("web01", name(i), i > 0 ? fmt::format("  parents {}\n", name(i - 1)) : "");
    if (i > 0)
      objects += fmt::format(
          "define servicedependency {{\n  host_name web01\n  service_description {}\n"
          "  dependent_service_description {}\n  execution_failure_criteria c\n"
          "  notification_failure_criteria w,c\n}}\n",
          name(i - 1), name(i));
  }
  const model::Model& model = load(objects);
  ASSERT_EQ(model.service_dependencies.size(), 2u * (k_services - 1));
  for (std::size_t i = 0; i < model.service_dependencies.size(); ++i) {
    const model::ServiceDependency& dep = model.service_dependencies[i];
    EXPECT_EQ(model.service(dep.dependent).description, name(i / 2 + 1)) << i;
    EXPECT_EQ(model.service(dep.master).description, name(i / 2)) << i;
    // objects.cache order: each service's execution dependency before its notification one.
    EXPECT_EQ(dep.kind, i % 2 == 0 ? model::DependencyKind::execution : model::DependencyKind::notification);
  }
  const model::Service& s5 = service("web01", name(5));
  ASSERT_EQ(s5.parents.size(), 1u);
  EXPECT_EQ(model.service(s5.parents[0]).description, name(4));
  ASSERT_EQ(s5.children.size(), 1u);
  EXPECT_EQ(model.service(s5.children[0]).description, name(6));
}

// ---------------------------------------------------------------------------------- template chains

TEST_F(HostileShapesTest, CustomVariablesKeepNaemonsOrderThroughTemplateGraphs) {
  // The order Naemon's prepend-and-reverse copying gives (and the copying implementation gave before).
  const model::Model& model = load(R"(
define host {
  name t_a
  register 0
  _A a1
  _B b1
}
define host {
  name t_b
  use t_a
  register 0
  _C c1
  _A a2
}
define host {
  name t_c
  use t_a
  register 0
  _D d1
  _B b2
}
define host {
  name t_d
  use t_b,t_c
  register 0
  _E e1
}
define host {
  host_name h
  use t_d,t_c
  _F f1
  _A a3
  max_check_attempts 1
  contacts admin
}
define service {
  name s0
  register 0
  _L0 0
}
define service {
  name s1
  use s0
  register 0
  _L1 1
}
define service {
  name s2
  use s1
  register 0
  _L2 2
}
define service {
  name s3
  use s2
  register 0
  _L3 3
}
define service {
  name s4
  use s3
  register 0
  _L4 4
  _L1 override
}
define service {
  host_name h
  service_description svc
  use s4
  check_command check_dummy
  max_check_attempts 1
  contacts admin
}
)");
  EXPECT_EQ(vars(model.host(model.host_by_name.at("h")).custom_variables),
            (Names{"F=f1", "A=a3", "D=d1", "C=c1", "B=b1", "E=e1"}));
  EXPECT_EQ(vars(service("h", "svc").custom_variables),
            (Names{"L3=3", "L0=0", "L2=2", "L1=override", "L4=4"}));
}

TEST_F(HostileShapesTest, DeepTemplateChainEachAddingACustomVariable) {
  constexpr int k_levels = 3000;  // every level's variable reaches the host, in Naemon's order
  std::string objects;
  for (int i = 0; i < k_levels; ++i) {
    objects += "define host {\n  name t" + std::to_string(i) + "\n  register 0\n  _V" + std::to_string(i) +
               " " + std::to_string(i) + "\n";
    if (i > 0) objects += "  use t" + std::to_string(i - 1) + "\n";
    objects += "}\n";
  }
  objects += "define host {\n  host_name h\n  use t" + std::to_string(k_levels - 1) +
             "\n  max_check_attempts 1\n  contacts admin\n}\n" + service_def("h", "svc");
  const model::Model& model = load(objects);
  const std::vector<std::string> got = vars(model.host(model.host_by_name.at("h")).custom_variables);
  ASSERT_EQ(got.size(), static_cast<std::size_t>(k_levels));
  // Each level's list is its own variable, then its template's list reversed, and the host takes the top
  // level's list reversed: every other level going down from the one below the top, then the others
  // going up to the top.
  std::vector<std::string> want;
  for (int i = k_levels - 2; i >= 0; i -= 2) want.push_back(fmt::format("V{}={}", i, i));
  for (int i = (k_levels - 1) % 2; i < k_levels; i += 2) want.push_back(fmt::format("V{}={}", i, i));
  EXPECT_EQ(got, want);
}

TEST_F(HostileShapesTest, DeepTemplateChainEachExtendingAList) {
  constexpr int k_levels = 3000;
  std::string objects;
  for (int i = 0; i < 10; ++i)
    objects += "define hostgroup {\n  hostgroup_name g" + std::to_string(i) + "\n}\n";
  objects += "define host {\n  name t0\n  register 0\n  hostgroups g0\n}\n";  // a plain list below the `+`s
  for (int i = 1; i < k_levels; ++i)
    objects += "define host {\n  name t" + std::to_string(i) + "\n  register 0\n  use t" +
               std::to_string(i - 1) + "\n  hostgroups +g" + std::to_string(i % 10) + "\n}\n";
  objects += "define host {\n  host_name h\n  use t" + std::to_string(k_levels - 1) +
             "\n  max_check_attempts 1\n  contacts admin\n}\n" + service_def("h", "svc");
  objects +=
      "define host {\n  host_name h2\n  use t5\n  hostgroups +g9\n  max_check_attempts 1\n  contacts "
      "admin\n}\n" +
      service_def("h2", "svc");
  const model::Model& model = load(objects);
  EXPECT_EQ(model.host(model.host_by_name.at("h")).hostgroups.size(), 10u);
  EXPECT_EQ(model.host(model.host_by_name.at("h2")).hostgroups.size(), 7u);  // g0..g5, g9
}

TEST_F(HostileShapesTest, MembersWrittenOnePerLineAccumulate) {
  std::string objects = "define hostgroup {\n  hostgroup_name many\n";
  constexpr int k_hosts = 5000;
  for (int i = 0; i < k_hosts; ++i) objects += "  members h" + std::to_string(i) + "\n";
  objects += "}\ndefine hostgroup {\n  hostgroup_name reset\n  members h0\n  members null\n  members h1\n}\n";
  for (int i = 0; i < k_hosts; ++i)
    objects += "define host {\n  host_name h" + std::to_string(i) +
               "\n  max_check_attempts 1\n  contacts admin\n}\n";
  const model::Model& model = load(objects);
  EXPECT_EQ(model.hostgroups[model::index(model.hostgroup_by_name.at("many"))].members.size(),
            static_cast<std::size_t>(k_hosts));
  const model::Hostgroup& reset = model.hostgroups[model::index(model.hostgroup_by_name.at("reset"))];
  ASSERT_EQ(reset.members.size(), 1u);
  EXPECT_EQ(model.host(reset.members[0]).name, "h1");
}

}  // namespace
}  // namespace vedette::config
