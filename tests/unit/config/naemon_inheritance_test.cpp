// What Naemon's template and dependency rules make of definitions whose meaning is not the obvious one:
// an "important" check command (`!name` in a service template) and failure criteria naming `n`.
#include "config/loader.hpp"
#include "config_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace vedette::config {
namespace {

constexpr const char* k_base = R"(define command {
  command_name  check_me
  command_line  /bin/true $ARG1$
}
define command {
  command_name  set_to_stale
  command_line  /bin/false
}
define contact {
  contact_name                   admin
  host_notification_commands     check_me
  service_notification_commands  check_me
}
define host {
  host_name           web01
  max_check_attempts  1
  contacts            admin
}
)";

class NaemonInheritanceTest : public test::TempDirTest {
 protected:
  const model::Model& load(const std::string& objects) {
    write("base.cfg", k_base);
    write("objects.cfg", objects);
    const std::string main =
        write("naemon.cfg", "cfg_file=" + dir_ + "/base.cfg\ncfg_file=" + dir_ + "/objects.cfg\n");
    cfg_ = load_configuration(main, files_, diags_);
    for (const Diagnostic& d : diags_.all())
      if (d.severity == Severity::error) ADD_FAILURE() << Diagnostics::format(d);
    if (!cfg_.model) cfg_.model = std::make_unique<model::Model>();
    return *cfg_.model;
  }
  std::string command_of(const std::string& desc) {
    const model::ServiceId id = cfg_.model->find_service("web01", desc);
    EXPECT_TRUE(model::is_set(id)) << desc;
    return model::is_set(id) ? std::string(cfg_.model->service(id).check_command.raw) : "";
  }
  std::size_t warnings_with(const std::string& part) const {
    return static_cast<std::size_t>(
        std::count_if(diags_.all().begin(), diags_.all().end(), [&](const Diagnostic& d) {
          return d.severity == Severity::warning && d.message.find(part) != std::string::npos;
        }));
  }

  SourceFiles files_;
  Diagnostics diags_;
  Configuration cfg_;
};

std::string service(const std::string& desc, const std::string& extra) {
  return "define service {\n  host_name web01\n  service_description " + desc +
         "\n  max_check_attempts 1\n  contacts admin\n" + extra + "}\n";
}

// Naemon's have_important_check_command: a template's `check_command !name!args` replaces the
// check_command of what uses it, where any other template value only fills in what is missing.
TEST_F(NaemonInheritanceTest, AnImportantCheckCommandOfATemplateOverridesTheServicesOwn) {
  load(R"(define service {
  name           distributed
  check_command  !set_to_stale
  register       0
}
define service {
  name           plain
  check_command  check_me!from the template
  register       0
}
define service {
  name           via_distributed
  use            distributed
  register       0
}
)" + service("OWN", "  check_command check_me!with some parameters\n  use distributed\n") +
       service("PLAIN", "  check_command check_me!own wins\n  use plain\n") +
       service("LATER", "  check_command check_me!x\n  use plain,distributed\n") +
       service("INHERITED", "  use distributed\n") +
       service("TWO_LEVELS", "  check_command check_me!own wins again\n  use via_distributed\n") +
       service("OWN_BANG", "  check_command !check_me!mine\n"));
  EXPECT_EQ(command_of("OWN"), "set_to_stale");
  EXPECT_EQ(command_of("PLAIN"), "check_me!own wins");
  EXPECT_EQ(command_of("LATER"), "set_to_stale");
  EXPECT_EQ(command_of("INHERITED"), "set_to_stale");
  // The importance is the template's own: a template that inherits such a command does not pass it on.
  EXPECT_EQ(command_of("TWO_LEVELS"), "check_me!own wins again");
  EXPECT_EQ(command_of("OWN_BANG"), "check_me!mine");
}

// A servicedependency's criteria naming `n` (or `none`) are no criteria: no dependency of that kind, or the
// template's; with neither kind left, Naemon ignores the "lame" dependency with a warning per pair.
TEST_F(NaemonInheritanceTest, CriteriaNamingNoneAreNoCriteria) {
  const model::Model& m =
      load(service("MASTER", "  check_command check_me\n") + service("DEP1", "  check_command check_me\n") +
           service("DEP2", "  check_command check_me\n") + R"(
define servicedependency {
  name                           criteria
  execution_failure_criteria     w
  register                       0
}
define servicedependency {
  host_name                      web01
  service_description            MASTER
  dependent_service_description  DEP1
  execution_failure_criteria     n
  notification_failure_criteria  c,u
}
define servicedependency {
  host_name                      web01
  service_description            MASTER
  dependent_service_description  DEP2
  execution_failure_criteria     none
  use                            criteria
}
define servicedependency {
  host_name                      web01
  service_description            MASTER
  dependent_service_description  DEP1,DEP2
  notification_failure_criteria  c,n
}
define host {
  host_name           db01
  max_check_attempts  1
  contacts            admin
}
define hostdependency {
  host_name                      db01
  dependent_host_name            web01
  execution_failure_criteria     n
  notification_failure_criteria  n
}
)");
  ASSERT_EQ(m.service_dependencies.size(), 2u);
  EXPECT_EQ(m.service_dependencies[0].kind, model::DependencyKind::notification);
  EXPECT_EQ(m.service_dependencies[0].dependent, m.find_service("web01", "DEP1"));
  EXPECT_EQ(m.service_dependencies[1].kind, model::DependencyKind::execution);  // the template's
  EXPECT_EQ(m.service_dependencies[1].dependent, m.find_service("web01", "DEP2"));
  EXPECT_EQ(warnings_with("Ignoring lame service dependency"), 2u);
  // A hostdependency's execution `n` is a dependency that never holds; its notification `n` is none.
  ASSERT_EQ(m.host_dependencies.size(), 1u);
  EXPECT_EQ(m.host_dependencies[0].kind, model::DependencyKind::execution);
  EXPECT_EQ(m.host_dependencies[0].failure_options, model::k_opt_nothing);
}

}  // namespace
}  // namespace vedette::config
