#include "app/cli.hpp"

#include "app/daemon.hpp"
#include "app/heap_prefault.hpp"
#include "app/native_check_cli.hpp"
#include "app/privileges.hpp"
#include "app/verify_report.hpp"
#include "config/loader.hpp"
#include "engine/checks/distribution.hpp"
#include "engine/world/reload.hpp"
#include "livestatus/server_options.hpp"
#include "metrics/http_server.hpp"
#include "retention/prefetch.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unistd.h>

namespace vedette::app {

namespace {

void print_usage(std::FILE* out, const char* argv0) {
  fmt::print(
      out,
      "Usage: {} [options] <main_config_file>\n\n"
      "Options:\n\n"
      "  -v, --verify-config          Verify all configuration data and exit\n"
      "  -p, --precache-objects       Write the objects, as objects.cache, to precached_object_file\n"
      "                               and exit (with -v: once verified)\n"
      "  -d, --daemon                 Start in daemon mode instead of in the foreground\n"
      "  --allow-root                 Run as root when started as root with no naemon_user set.\n"
      "                               NOT RECOMMENDED.\n"
      "  -h, --help                   Print this help and exit\n"
      "  -V, --version, -L, --license Print the version and exit\n"
      "  --native-check PLUGIN [ARG...]  Run one check_dummy/tcp/ping/icmp command line natively,\n"
      "                               print what the plugin would (docs/native-checks.md)\n\n"
      "Short options combine (-vp). Naemon's -u, -T, -x, -s and -W are accepted for compatibility and\n"
      "ignored (-u: the object files are always read, docs/compatibility.md).\n"
      "Started as root, Vedette switches to naemon_user/naemon_group from the main config file.\n"
      "The main config file is an unchanged naemon.cfg or nagios.cfg.\n",
      argv0);
}

// Appends each diagnostic and the refusal to the log, as "[epoch] text" lines; nothing if it cannot be
// opened (the report on stderr still says it all). A log this creates as root belongs to the user the
// daemon would switch to, who must write it at the next start.
void log_refusal(const config::MainConfig& main, bool allow_root, const config::Diagnostics& diags) {
  const std::string& log_file = main.log_file;
  if (log_file.empty()) return;
  const bool existed = ::access(log_file.c_str(), F_OK) == 0;
  std::FILE* log = std::fopen(log_file.c_str(), "a");
  if (log == nullptr) return;
  if (!existed && started_as_root()) {
    if (const PrivilegePlan plan = plan_privileges(main, allow_root, true); plan.switch_to)
      (void)::fchown(::fileno(log), plan.switch_to->uid, plan.switch_to->gid);
  }
  const long now = static_cast<long>(std::time(nullptr));
  for (const config::Diagnostic& d : diags.all())
    fmt::print(log, "[{}] {}\n", now, config::Diagnostics::format(d));
  fmt::print(log, "[{}] Bailing out due to {} error(s) in the configuration (PID={})\n", now,
             diags.error_count(), static_cast<int>(::getpid()));
  std::fclose(log);
}

struct Options {
  bool verify = false;
  bool precache = false;
  bool daemon_mode = false;
  bool allow_root = false;
  std::string config_path;
};

enum class Parsed { run, exit_ok, exit_error };

// As Naemon's getopt_long("hLVvdspuxTW"): short options may combine (-vp, -vv), -W takes the rest of its
// word or the next one; long options stand alone. Unlike getopt's "+", options may also follow the file.
Parsed parse_options(int argc, char** argv, Options& o) {
  const auto version = [] {
    fmt::print("Vedette {}\nA drop-in replacement for the Naemon monitoring core.\n", VEDETTE_VERSION);
    return Parsed::exit_ok;
  };
  const auto usage_error = [&](std::string_view message) {
    fmt::print(stderr, "vedette: {}\n\n", message);
    print_usage(stderr, argv[0]);
    return Parsed::exit_error;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--")) {
      if (arg == "--verify-config") {
        o.verify = true;
      } else if (arg == "--precache-objects") {
        o.precache = true;
      } else if (arg == "--daemon") {
        o.daemon_mode = true;
      } else if (arg == "--allow-root") {
        o.allow_root = true;
      } else if (arg == "--help") {
        print_usage(stdout, argv[0]);
        return Parsed::exit_ok;
      } else if (arg == "--version" || arg == "--license") {
        return version();
      } else if (arg == "--use-precached-objects" || arg == "--enable-timing-point" ||
                 arg == "--dont-verify-paths") {
      } else if (arg == "--worker") {
        ++i;
      } else if (arg.starts_with("--worker=")) {
      } else {
        return usage_error(fmt::format("unknown option '{}'", arg));
      }
      continue;
    }
    if (arg.size() < 2 || arg.front() != '-') {
      if (!o.config_path.empty())
        return usage_error(
            fmt::format("more than one main config file given ('{}' and '{}')", o.config_path, arg));
      o.config_path = arg;
      continue;
    }
    for (std::size_t k = 1; k < arg.size(); ++k) {
      switch (arg[k]) {
        case 'v':
          o.verify = true;
          break;
        case 'p':
          o.precache = true;
          break;
        case 'd':
          o.daemon_mode = true;
          break;
        case 'h':
          print_usage(stdout, argv[0]);
          return Parsed::exit_ok;
        case 'V':
        case 'L':
          return version();
        case 's':
        case 'x':
          fmt::print("Warning: -{} is deprecated and will be removed\n", arg[k]);
          break;
        case 'u':
        case 'T':
          break;
        case 'W':  // a worker socket: the rest of this word, or the next one
          if (k + 1 == arg.size()) ++i;
          k = arg.size();
          break;
        default:
          return usage_error(fmt::format("unknown option '-{}'", arg[k]));
      }
    }
  }
  if (o.config_path.empty()) {
    print_usage(stderr, argv[0]);
    return Parsed::exit_error;
  }
  return Parsed::run;
}

// -v's report, and with -p the precache file. Returns the exit status.
int report_verification(const Options& o, const config::Configuration& cfg,
                        const config::Diagnostics& diags) {
  // -p alone is quiet, as Naemon's, unless the configuration has errors.
  const int rc =
      o.verify || diags.has_errors() || cfg.model == nullptr ? print_verify_report(cfg, diags, stdout) : 0;
  if (rc != 0 || !o.precache) return rc;
  const std::string& path = cfg.main.precached_object_file;
  if (const std::string error = engine::write_object_cache(cfg.main, *cfg.model, std::time(nullptr), &path);
      !error.empty()) {
    fmt::print("Failed to precache objects to '{}': {}\n", path, error);
    return 1;
  }
  fmt::print("Object precache file created:\n{}\n", path);
  return 0;
}

}  // namespace

int run_cli(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--native-check") return run_native_check(argc - i - 1, argv + i + 1);
  Options o;
  switch (parse_options(argc, argv, o)) {
    case Parsed::exit_ok:
      return 0;
    case Parsed::exit_error:
      return 1;
    case Parsed::run:
      break;
  }
  const bool verify = o.verify || o.precache;
  const bool daemon_mode = o.daemon_mode;
  const bool allow_root = o.allow_root;
  std::string config_path = o.config_path;

  // The daemon changes to / (as Naemon does): relative paths in the config must not depend on where it was
  // started, and they are resolved against the main config file's directory.
  if (daemon_mode && !verify)
    config_path = std::filesystem::absolute(config_path).lexically_normal().string();

  config::SourceFiles files;
  config::Diagnostics diags;
  // The core reads retention.dat back once the model is built; the kernel reads it ahead meanwhile.
  std::optional<retention::Prefetch> retention_prefetch;
  config::Configuration cfg;
  {
    // The loader's new memory is faulted in on the other core meanwhile.
    const HeapPrefault prefault;
    config::LoadOptions load;
    load.main_config_read = [&](const config::MainConfig& main) {
      if (!verify && main.retain_state_information) retention_prefetch.emplace(main.state_retention_file);
    };
    load.free_definitions = !verify;  // -v and -p exit once the report (or the precache file) is out
    cfg = config::load_configuration(config_path, files, diags, load);
  }
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
  if (verify) {
    const int rc = report_verification(o, cfg, diags);
    // The process ends right after: the model is left as it is rather than taken apart piece by piece
    // (6 % of `vedette -v` at 100k services, perf).
    (void)cfg.model.release();
    return rc;
  }

  // A configuration with errors is refused with the same report -v prints, as Naemon refuses to start;
  // and, as Naemon, the errors go to log_file too (with -d, stderr is often nowhere anyone looks).
  if (diags.has_errors() || cfg.model == nullptr) {
    log_refusal(cfg.main, allow_root, diags);
    return print_verify_report(cfg, diags, stderr);
  }
  for (const config::Diagnostic& d : diags.all()) fmt::print(stderr, "{}\n", config::Diagnostics::format(d));
  std::fflush(stderr);
  // Its thread has queued the reads long since; it must be gone before -d forks (a thread does not follow).
  retention_prefetch.reset();
  return run_daemon(std::move(cfg), DaemonOptions{.config_path = config_path,
                                                  .log_to_stdout = !daemon_mode,
                                                  .daemon_mode = daemon_mode,
                                                  .allow_root = allow_root});
}

}  // namespace vedette::app
