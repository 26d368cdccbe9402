// check_dummy without a process: the state of the first argument, the second as text. Pure; any thread.
#pragma once

#include "native/plugin_run.hpp"

#include <optional>
#include <span>
#include <string>

namespace vedette::native {

// argv[0] is the program. std::nullopt for -h/--help/-V/--version, which run as the process (the texts
// carry the installed version); everything else, usage errors included, is answered here.
[[nodiscard]] std::optional<PluginRun> run_check_dummy(std::span<const std::string> argv);

// Load time: why argv[1] (text when known) keeps the command a process, or "".
[[nodiscard]] std::string check_dummy_refusal(const std::string* first_argument);

}  // namespace vedette::native
