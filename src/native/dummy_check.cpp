#include "native/dummy_check.hpp"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace vedette::native {
namespace {

bool is_help_or_version(const std::string& arg) {
  return arg == "-V" || arg == "--version" || arg == "-h" || arg == "--help";
}

// plugins/utils.c's is_integer(): digits, '-' and blanks only, and strtol's value fits an int. (The plugin
// does not clear errno first; nothing before it in check_dummy sets ERANGE.)
bool is_integer(const std::string& text) {
  if (std::strspn(text.c_str(), "-0123456789 ") != text.size()) return false;
  errno = 0;
  const long n = std::strtol(text.c_str(), nullptr, 10);
  return errno != ERANGE && n >= INT_MIN && n <= INT_MAX;
}

PluginRun usage(const char* message) {
  PluginRun run;
  run.exit_code = k_state_unknown;
  append_printf(run.output, "check_dummy: %s\nUsage:\n check_dummy <integer state> [optional text]\n",
                message);
  return run;
}

}  // namespace

std::optional<PluginRun> run_check_dummy(std::span<const std::string> argv) {
  if (argv.size() < 2) return usage("Could not parse arguments");
  if (is_help_or_version(argv[1])) return std::nullopt;
  if (!is_integer(argv[1])) return usage("Arguments to check_dummy must be an integer");
  const int state = std::atoi(argv[1].c_str());
  PluginRun run;
  run.exit_code = state;
  switch (state) {
    case k_state_ok:
    case k_state_warning:
    case k_state_critical:
    case k_state_unknown:
      run.output = state_text(state);
      break;
    default:
      append_printf(run.output, "UNKNOWN: Status %d is not a supported error state\n", state);
      run.exit_code = k_state_unknown;
      return run;
  }
  if (argv.size() >= 3) append_printf(run.output, ": %s", argv[2].c_str());
  run.output += '\n';
  return run;
}

std::string check_dummy_refusal(const std::string* first_argument) {
  if (first_argument != nullptr && is_help_or_version(*first_argument)) return "help or version text";
  return {};
}

}  // namespace vedette::native
