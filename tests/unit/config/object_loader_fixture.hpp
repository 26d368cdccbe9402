// What the object loader's tests share (object_*_test.cpp): the base objects most of them load beside their
// own, and the fixture that loads them through the whole loader (load_configuration) and reads back the model
// and the diagnostics. Test thread only.
#pragma once

#include "config/loader.hpp"
#include "config_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::config::test {

// Objects most tests need: a command, a timeperiod, a contact and a contactgroup.
inline constexpr const char* k_base = R"(define command {
  command_name  check_dummy
  command_line  /bin/true
}
define timeperiod {
  timeperiod_name  24x7
  alias            always
  monday           00:00-24:00
}
define timeperiod {
  timeperiod_name  work
  alias            work hours
  monday           09:00-17:00
}
define contact {
  contact_name                   admin
  host_notification_commands     check_dummy
  service_notification_commands  check_dummy
  host_notification_period       24x7
  service_notification_period    24x7
}
define contact {
  contact_name                   oncall
  host_notification_commands     check_dummy
  service_notification_commands  check_dummy
  host_notification_period       24x7
  service_notification_period    24x7
}
define contactgroup {
  contactgroup_name  admins
  alias              admins
  members            admin
}
define contactgroup {
  contactgroup_name  ops
  alias              ops
}
)";

inline std::string host_def(const std::string& name, const std::string& extra = "") {
  return "define host {\n  host_name " + name + "\n  max_check_attempts 3\n" + extra + "}\n";
}

inline std::string service_def(const std::string& host, const std::string& desc,
                               const std::string& extra = "") {
  return "define service {\n  host_name " + host + "\n  service_description " + desc +
         "\n  check_command check_dummy\n  max_check_attempts 3\n" + extra + "}\n";
}

class ObjectLoaderTest : public TempDirTest {
 protected:
  // Writes base.cfg (k_base), objects.cfg (`objects`) and a main config naming both; loads it.
  const model::Model& load(const std::string& objects, const std::string& main_extra = "") {
    write("base.cfg", k_base);
    write("objects.cfg", objects);
    return load_main("cfg_file=" + path("base.cfg") + "\ncfg_file=" + path("objects.cfg") + "\n" +
                     main_extra);
  }

  // Loads a main config with the given text, no base objects.
  const model::Model& load_main(const std::string& main_text) {
    cfg_ = load_configuration(write("naemon.cfg", main_text), files_, diags_);
    if (!cfg_.model) cfg_.model = std::make_unique<model::Model>();
    return *cfg_.model;
  }

  std::vector<Diagnostic> errors() const {
    std::vector<Diagnostic> out;
    for (const Diagnostic& d : diags_.all())
      if (d.severity == Severity::error) out.push_back(d);
    return out;
  }
  std::string all_text() const {
    std::string out;
    for (const Diagnostic& d : diags_.all()) out += Diagnostics::format(d) + "\n";
    return out;
  }
  // The diagnostic with exactly this message, or null.
  const Diagnostic* find(const std::string& message) const {
    for (const Diagnostic& d : diags_.all())
      if (d.message == message) return &d;
    return nullptr;
  }
  // Asserts an error with this exact message at file:line.
  void expect_error(const std::string& message, const std::string& file, std::uint32_t line) const {
    const Diagnostic* d = find(message);
    ASSERT_NE(d, nullptr) << "missing: " << message << "\ngot:\n" << all_text();
    EXPECT_EQ(d->severity, Severity::error) << message;
    ASSERT_NE(d->at.file, nullptr) << message;
    EXPECT_EQ(*d->at.file, path(file)) << message;
    EXPECT_EQ(d->at.line, line) << message;
  }
  void expect_no_errors() const { EXPECT_FALSE(diags_.has_errors()) << all_text(); }

  const model::Model& m() const { return *cfg_.model; }
  const model::Host& host(const std::string& name) const {
    auto it = m().host_by_name.find(name);
    EXPECT_NE(it, m().host_by_name.end()) << "no host " << name << "\n" << all_text();
    static const model::Host none{};
    return it == m().host_by_name.end() ? none : m().host(it->second);
  }
  const model::Service& service(const std::string& h, const std::string& desc) const {
    model::ServiceId id = m().find_service(h, desc);
    EXPECT_TRUE(model::is_set(id)) << "no service " << h << ";" << desc << "\n" << all_text();
    static const model::Service none{};
    return model::is_set(id) ? m().service(id) : none;
  }
  std::vector<std::string> host_names(const std::vector<model::HostId>& ids) const {
    std::vector<std::string> out;
    for (model::HostId id : ids) out.emplace_back(m().host(id).name);
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<std::string> service_names(const std::vector<model::ServiceId>& ids) const {
    std::vector<std::string> out;
    for (model::ServiceId id : ids)
      out.push_back(std::string(m().service(id).host_name) + ";" + std::string(m().service(id).description));
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<std::string> contact_names(const std::vector<model::ContactId>& ids) const {
    std::vector<std::string> out;
    for (model::ContactId id : ids) out.emplace_back(m().contacts[model::index(id)].name);
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<std::string> contactgroup_names(const std::vector<model::ContactgroupId>& ids) const {
    std::vector<std::string> out;
    for (model::ContactgroupId id : ids) out.emplace_back(m().contactgroups[model::index(id)].name);
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<std::string> hostgroup_names(const std::vector<model::HostgroupId>& ids) const {
    std::vector<std::string> out;
    for (model::HostgroupId id : ids) out.emplace_back(m().hostgroups[model::index(id)].name);
    std::sort(out.begin(), out.end());
    return out;
  }
  const model::Hostgroup& hostgroup(const std::string& name) const {
    return m().hostgroups[model::index(m().hostgroup_by_name.at(name))];
  }
  const model::Contactgroup& contactgroup(const std::string& name) const {
    return m().contactgroups[model::index(m().contactgroup_by_name.at(name))];
  }
  std::string_view period_name(model::TimeperiodId id) const {
    return model::is_set(id) ? m().timeperiods[model::index(id)].name : std::string_view{};
  }
  std::string_view custom(const std::vector<model::CustomVariable>& vars, std::string_view name) const {
    for (const model::CustomVariable& v : vars)
      if (v.name == name) return v.value;
    return "<unset>";
  }
  std::size_t services_on(const std::string& h) const { return host(h).services.size(); }

  SourceFiles files_;
  Diagnostics diags_;
  Configuration cfg_;
};

using Names = std::vector<std::string>;

}  // namespace vedette::config::test
