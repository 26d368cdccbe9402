#include "app/cli.hpp"

#include "app/daemon.hpp"
#include "app/native_check_cli.hpp"
#include "app/verify_report.hpp"
#include "config/loader.hpp"
#include "engine/distribution.hpp"
#include "livestatus/server_options.hpp"
#include "metrics/http_server.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

namespace vedette::app {

namespace {

void print_usage(std::FILE* out, const char* argv0) {
  fmt::print(out,
             "Usage: {} [options] <main_config_file>\n\n"
             "Options:\n\n"
             "  -v, --verify-config          Verify all configuration data and exit\n"
             "  -d, --daemon                 Start in daemon mode instead of in the foreground\n"
             "  --allow-root                 Run as root when started as root with no naemon_user set.\n"
             "                               NOT RECOMMENDED.\n"
             "  -h, --help                   Print this help and exit\n"
             "  -V, --version                Print the version and exit\n"
             "  --native-check PLUGIN [ARG...]  Run one check_dummy/tcp/ping/icmp command line natively,\n"
             "                               print what the plugin would (docs/native-checks.md)\n\n"
             "Naemon's -T, -x, -p, -u and -W are accepted for compatibility and ignored.\n"
             "Started as root, Vedette switches to naemon_user/naemon_group from the main config file.\n"
             "The main config file is an unchanged naemon.cfg or nagios.cfg.\n",
             argv0);
}

}  // namespace

int run_cli(int argc, char** argv) {
  bool verify = false;
  bool daemon_mode = false;
  bool allow_root = false;
  std::string config_path;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--native-check") return run_native_check(argc - i - 1, argv + i + 1);
    if (arg == "-v" || arg == "--verify-config" || arg == "-vv") {
      verify = true;
    } else if (arg == "-h" || arg == "--help") {
      print_usage(stdout, argv[0]);
      return 0;
    } else if (arg == "-V" || arg == "--version") {
      fmt::print("Vedette {}\nA drop-in replacement for the Naemon monitoring core.\n", VEDETTE_VERSION);
      return 0;
    } else if (arg == "-d" || arg == "--daemon") {
      daemon_mode = true;
    } else if (arg == "--allow-root") {
      allow_root = true;
    } else if (arg == "-T" || arg == "--enable-timing-point" || arg == "-x" || arg == "--dont-verify-paths" ||
               arg == "-p" || arg == "--precache-objects" || arg == "-u" ||
               arg == "--use-precached-objects") {
      // Accepted for command-line compatibility; nothing to do yet.
    } else if (arg == "-W" || arg == "--worker") {
      ++i;
    } else if (!arg.empty() && arg.front() == '-') {
      fmt::print(stderr, "vedette: unknown option '{}'\n\n", arg);
      print_usage(stderr, argv[0]);
      return 1;
    } else if (config_path.empty()) {
      config_path = arg;
    } else {
      fmt::print(stderr, "vedette: more than one main config file given ('{}' and '{}')\n", config_path, arg);
      return 1;
    }
  }
  if (config_path.empty()) {
    print_usage(stderr, argv[0]);
    return 1;
  }

  // The daemon changes to / (as Naemon does): relative paths in the config must not depend on where it was
  // started, and they are resolved against the main config file's directory.
  if (daemon_mode && !verify)
    config_path = std::filesystem::absolute(config_path).lexically_normal().string();

  config::SourceFiles files;
  config::Diagnostics diags;
  config::Configuration cfg = config::load_configuration(config_path, files, diags);
  // The options of Mod-Gearman's module line are part of the configuration: -v reports them, and unusable
  // ones stop the start like any other error (warnings are logged again by the core when it starts).
  if (gearman::OptionMessages messages; engine::distribution_options(cfg.main, messages)) {
    for (const std::string& e : messages.errors) diags.error("gearman: " + e);
    if (verify)
      for (const std::string& w : messages.warnings) diags.warning("gearman: " + w);
  }
  // Likewise a Livestatus TCP listener other hosts can reach, which the daemon warns about at start.
  if (std::vector<std::string> notes; verify && cfg.main_config_ok) {
    if (const std::optional<livestatus::ServerOptions> o = livestatus::server_options(cfg.main, notes))
      if (std::optional<std::string> warning = livestatus::exposure_warning(*o))
        diags.warning(std::move(*warning));
  }
  if (verify && cfg.main_config_ok)
    if (std::optional<std::string> warning = metrics::exposure_warning(cfg.main.metrics_listen))
      diags.warning(std::move(*warning));
  if (verify) return print_verify_report(cfg, diags, stdout);

  // A configuration with errors is refused with the same report -v prints, as Naemon refuses to start.
  if (diags.has_errors() || cfg.model == nullptr) return print_verify_report(cfg, diags, stderr);
  for (const config::Diagnostic& d : diags.all()) fmt::print(stderr, "{}\n", config::Diagnostics::format(d));
  std::fflush(stderr);
  return run_daemon(std::move(cfg), DaemonOptions{.config_path = config_path,
                                                  .log_to_stdout = !daemon_mode,
                                                  .daemon_mode = daemon_mode,
                                                  .allow_root = allow_root});
}

}  // namespace vedette::app
