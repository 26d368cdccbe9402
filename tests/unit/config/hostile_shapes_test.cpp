// Configurations whose shape once broke the loader: shapes that made it quadratic (all services on one
// host, long dependency chains). Each loads, with the output the previous algorithms gave on small cases.
// Timing targets live in bench/config/load_bench.py, not here.
#include "config/loader.hpp"
#include "config_test_support.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace vedette::config {
namespace {

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

}  // namespace
}  // namespace vedette::config
