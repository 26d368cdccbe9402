#include "config/loader.hpp"

#include "config/command_compiler.hpp"
#include "config/model_builder.hpp"
#include "config/object_reader.hpp"
#include "config/template_resolver.hpp"

#include <fmt/format.h>

namespace vedette::config {

namespace {

// The commands the main config names (global handlers, OCSP/OCHP) must exist, as Naemon checks.
void check_global_commands(const MainConfig& main, const model::Model& model, Diagnostics& diags) {
  struct Named {
    const std::string& value;
    const char* what;
  };
  const Named commands[] = {
      {main.global_host_event_handler, "Global host event handler command"},
      {main.global_service_event_handler, "Global service event handler command"},
      {main.global_host_notification_handler, "Global host notification handler command"},
      {main.global_service_notification_handler, "Global service notification handler command"},
      {main.ocsp_command, "OCSP command"},
      {main.ochp_command, "OCHP command"},
  };
  for (const Named& c : commands) {
    if (c.value.empty()) continue;
    CommandCall call = split_command_call(c.value);
    if (!model.command_by_name.contains(call.name))
      diags.error(fmt::format("{} '{}' is not defined anywhere!", c.what, call.name));
  }
}

}  // namespace

Configuration load_configuration(const std::string& main_config_path, SourceFiles& files, Diagnostics& diags,
                                 const LoadOptions& load_options) {
  Configuration cfg;
  cfg.main = load_main_config(main_config_path, files, diags);
  // As Naemon: a main config with errors names the wrong objects, so they are not read at all.
  if (diags.has_errors()) return cfg;
  cfg.main_config_ok = true;
  if (load_options.main_config_read) load_options.main_config_read(cfg.main);

  // Released at once when the caller exits right after: the definitions are then never freed.
  auto owned_store = std::make_unique<ObjectStore>();
  ObjectStore& store = load_options.free_definitions ? *owned_store : *owned_store.release();
  const std::size_t errors_before_objects = diags.error_count();
  ObjectReader reader(store, files, diags);
  std::vector<ObjectSourceSpan> spans;
  auto store_sizes = [&] {
    std::array<std::uint32_t, k_object_type_count> sizes{};
    for (std::size_t t = 0; t < k_object_type_count; ++t)
      sizes[t] = static_cast<std::uint32_t>(store.of(static_cast<ObjectType>(t)).size());
    return sizes;
  };
  for (const MainConfig::ObjectSource& source : cfg.main.object_sources) {
    ObjectSourceSpan& span = spans.emplace_back();
    span.is_dir = source.kind != MainConfig::ObjectSource::Kind::file;
    span.begin = store_sizes();
    if (source.kind == MainConfig::ObjectSource::Kind::file)
      reader.read_file(source.path, source.at);
    else
      reader.read_dir(source.path, source.at);
    span.end = store_sizes();
  }
  // Definitions that could not be read would only cause confusing follow-up errors: stop here, as Naemon
  // does, with every syntax error of every file reported.
  if (diags.error_count() != errors_before_objects) return cfg;

  resolve_templates(store, diags);
  clean_additive_values(store);

  BuildOptions options;
  options.host_check_timeout = cfg.main.host_check_timeout;
  options.service_check_timeout = cfg.main.service_check_timeout;
  options.use_regexp_matches = cfg.main.use_regexp_matching;
  options.use_true_regexp_matching = cfg.main.use_true_regexp_matching;
  options.allow_empty_hostgroup_assignment = cfg.main.allow_empty_hostgroup_assignment;
  options.allow_circular_dependencies = cfg.main.allow_circular_dependencies != 0;
  options.illegal_object_name_chars = cfg.main.illegal_object_name_chars;
  for (const std::string& value : cfg.main.user_macros) options.user_macros.push_back(value);
  options.native_checks = cfg.main.native_checks;
  options.sources = std::move(spans);
  cfg.model = build_model(store, options, diags);
  check_global_commands(cfg.main, *cfg.model, diags);
  if (cfg.main.illegal_macro_output_chars.empty())
    diags.warning("Nothing specified for illegal_macro_output_chars variable!");
  return cfg;
}

}  // namespace vedette::config
