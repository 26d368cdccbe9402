// The load-time decision: does a compiled command run natively (docs/native-checks.md)? Once per command,
// never per check. Loader thread; pure apart from the access(2) on the plugin's path.
#pragma once

#include "model/command_template.hpp"
#include "model/native_plugin.hpp"

#include <span>
#include <string>
#include <string_view>

namespace vedette::native {

struct ClassifyContext {
  bool enabled = true;                            // native_checks
  std::span<const std::string_view> user_macros;  // $USER1$ first; $USER1$ is the plugin directory
  std::string locale_refusal;                     // plugins_locale_refusal(), taken once per load
};

struct NativeDecision {
  model::NativePlugin plugin = model::NativePlugin::none;
  std::string kind;    // "check_tcp", or "other commands" for programs that are no plugin of $USER1$
  std::string reason;  // why not native; empty when native
};

[[nodiscard]] NativeDecision classify_command(const model::CommandTemplate& tmpl, const ClassifyContext& ctx);

// The plugins call setlocale(LC_ALL, ""): a locale other than C/POSIX/English, taken from the environment
// they inherit, may translate their messages or change the decimal point. Non-empty: why checks stay
// processes.
[[nodiscard]] std::string plugins_locale_refusal();

}  // namespace vedette::native
