#include "app/verify_report.hpp"

#include <fmt/format.h>

#include <map>
#include <string>
#include <string_view>

namespace vedette::app {

namespace {

void print_diagnostics(const config::Diagnostics& diags, std::FILE* out) {
  for (const config::Diagnostic& d : diags.all()) fmt::print(out, "{}\n", config::Diagnostics::format(d));
}

// One line per command kind (plugin name, or "other commands"): how many run natively, and why the others
// do not (docs/native-checks.md).
void print_native_summary(const model::Model& m, std::FILE* out) {
  struct Kind {
    std::size_t native = 0;
    std::map<std::string_view, std::size_t> reasons;
  };
  std::map<std::string_view, Kind> kinds;
  std::size_t native = 0;
  for (const model::Command& c : m.commands) {
    Kind& k = kinds[c.native_kind];
    if (c.native != model::NativePlugin::none) {
      ++k.native;
      ++native;
    } else {
      ++k.reasons[c.native_reason];
    }
  }
  fmt::print(out, "\t{} of {} commands run natively\n", native, m.commands.size());
  auto print_kind = [&](std::string_view name, const Kind& k) {
    std::string line = fmt::format("\t{}:", name);
    if (k.native != 0) line += fmt::format(" {} native", k.native);
    for (const auto& [reason, count] : k.reasons)
      line += fmt::format("{} {} as a process ({})", line.back() == ':' ? "" : ",", count, reason);
    fmt::print(out, "{}\n", line);
  };
  for (const auto& [name, k] : kinds)
    if (name != "other commands") print_kind(name, k);
  if (const auto it = kinds.find("other commands"); it != kinds.end()) print_kind(it->first, it->second);
}

void print_problems_footer(std::FILE* out, const char* stage) {
  fmt::print(out,
             "\n***> One or more problems was encountered while {}...\n\n"
             "     Check your configuration file(s) to ensure that they contain valid\n"
             "     directives and data definitions.  If you are upgrading from Naemon or\n"
             "     Nagios, see docs/compatibility.md for what Vedette does differently.\n\n",
             stage);
}

}  // namespace

int print_verify_report(const config::Configuration& cfg, const config::Diagnostics& diags, std::FILE* out) {
  fmt::print(out, "Reading configuration data...\n");
  if (!cfg.main_config_ok) {
    print_diagnostics(diags, out);
    fmt::print(out, "   Error processing main config file!\n\n");
    fmt::print(out, "Total Warnings: {}\nTotal Errors:   {}\n", diags.warning_count(), diags.error_count());
    return 1;
  }
  fmt::print(out, "   Read main config file okay...\n");
  if (cfg.model == nullptr) {
    print_diagnostics(diags, out);
    fmt::print(out, "   Error processing object config files!\n");
    fmt::print(out, "\nTotal Warnings: {}\nTotal Errors:   {}\n", diags.warning_count(), diags.error_count());
    print_problems_footer(out, "processing the config files");
    return 1;
  }
  fmt::print(out, "   Read object config files okay...\n\n");
  fmt::print(out, "Running pre-flight check on configuration data...\n\n");
  print_diagnostics(diags, out);
  const model::Model& m = *cfg.model;
  fmt::print(out, "Checking objects...\n");
  fmt::print(out, "\tChecked {} services.\n", m.services.size());
  fmt::print(out, "\tChecked {} hosts.\n", m.hosts.size());
  fmt::print(out, "\tChecked {} host groups.\n", m.hostgroups.size());
  fmt::print(out, "\tChecked {} service groups.\n", m.servicegroups.size());
  fmt::print(out, "\tChecked {} contacts.\n", m.contacts.size());
  fmt::print(out, "\tChecked {} contact groups.\n", m.contactgroups.size());
  fmt::print(out, "\tChecked {} commands.\n", m.commands.size());
  fmt::print(out, "\tChecked {} time periods.\n", m.timeperiods.size());
  fmt::print(out, "\tChecked {} host escalations.\n", m.host_escalations.size());
  fmt::print(out, "\tChecked {} service escalations.\n", m.service_escalations.size());
  fmt::print(out, "Checking for circular paths...\n");
  fmt::print(out, "\tChecked {} hosts\n", m.hosts.size());
  fmt::print(out, "\tChecked {} service dependencies\n", m.service_dependencies.size());
  fmt::print(out, "\tChecked {} host dependencies\n", m.host_dependencies.size());
  fmt::print(out, "\tChecked {} timeperiods\n", m.timeperiods.size());
  fmt::print(out, "Checking global event handlers...\n");
  fmt::print(out, "Checking obsessive compulsive processor commands...\n");
  fmt::print(out, "Checking misc settings...\n");
  fmt::print(out, "Checking native checks...\n");
  print_native_summary(m, out);
  fmt::print(out, "\nTotal Warnings: {}\nTotal Errors:   {}\n", diags.warning_count(), diags.error_count());
  if (diags.has_errors()) {
    print_problems_footer(out, "running the pre-flight check");
    return 1;
  }
  fmt::print(out, "\nThings look okay - No serious problems were detected during the pre-flight check\n");
  return 0;
}

}  // namespace vedette::app
