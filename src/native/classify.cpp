#include "native/classify.hpp"

#include "native/dummy_check.hpp"
#include "native/http_options.hpp"
#include "native/icmp_options.hpp"
#include "native/ping_options.hpp"
#include "native/plugin_args.hpp"
#include "native/tcp_options.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <unistd.h>
#include <vector>

namespace vedette::native {
namespace {

constexpr std::string_view k_other = "other commands";

// $USERn$ is known at load; any other macro in the program path is not.
bool expand_program(const model::CommandArg& arg, std::span<const std::string_view> users, std::string& out) {
  for (const model::CommandPiece& piece : arg.pieces) {
    if (piece.kind == model::CommandPiece::Kind::literal) {
      out += piece.text;
      continue;
    }
    const std::string_view name = piece.text;
    if (name.size() < 5 || name.substr(0, 4) != "USER") return false;
    const int n = std::atoi(std::string(name.substr(4)).c_str());
    if (n < 1 || static_cast<std::size_t>(n) > users.size()) return false;
    out += users[static_cast<std::size_t>(n) - 1];
  }
  return true;
}

std::string_view trim_slashes(std::string_view dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
  return dir;
}

bool is_english_or_c(const char* value) {
  if (value == nullptr || *value == '\0') return true;
  const std::string_view v(value);
  return v == "C" || v == "POSIX" || v.substr(0, 2) == "C." || v.substr(0, 3) == "en_" || v == "en";
}

}  // namespace

std::string plugins_locale_refusal() {
  // POSIX precedence: LC_ALL, then the category, then LANG. GNU gettext also reads LANGUAGE.
  for (const char* category : {"LC_MESSAGES", "LC_NUMERIC", "LC_CTYPE"}) {
    const char* value = std::getenv("LC_ALL");
    if (value == nullptr || *value == '\0') value = std::getenv(category);
    if (value == nullptr || *value == '\0') value = std::getenv("LANG");
    if (!is_english_or_c(value)) return fmt::format("the plugins would run with the locale {}", value);
  }
  if (const char* language = std::getenv("LANGUAGE"); !is_english_or_c(language))
    return fmt::format("the plugins would run with LANGUAGE={}", language);
  return {};
}

NativeDecision classify_command(const model::CommandTemplate& tmpl, const ClassifyContext& ctx) {
  NativeDecision d;
  d.kind = k_other;
  auto refuse = [&](std::string reason) {
    d.plugin = model::NativePlugin::none;
    d.reason = std::move(reason);
    return d;
  };
  if (tmpl.argv.empty()) return refuse("empty command line");
  std::string program;
  if (!expand_program(tmpl.argv[0], ctx.user_macros, program))
    return refuse("the program comes from a macro");
  const std::size_t slash = program.rfind('/');
  const std::string_view plugin_dir = ctx.user_macros.empty() ? std::string_view() : ctx.user_macros[0];
  if (slash == std::string::npos || plugin_dir.empty() ||
      trim_slashes(std::string_view(program).substr(0, slash)) != trim_slashes(plugin_dir))
    return refuse("not a plugin of $USER1$");
  const std::string base = program.substr(slash + 1);
  model::NativePlugin plugin = model::NativePlugin::none;
  if (base == "check_dummy") plugin = model::NativePlugin::check_dummy;
  if (base == "check_tcp") plugin = model::NativePlugin::check_tcp;
  if (base == "check_ping") plugin = model::NativePlugin::check_ping;
  if (base == "check_icmp") plugin = model::NativePlugin::check_icmp;
  if (base == "check_http") plugin = model::NativePlugin::check_http;
  d.kind = base;
  if (plugin == model::NativePlugin::none) return refuse("no native implementation");
  if (!ctx.enabled) return refuse("native_checks=0");
  if (!ctx.locale_refusal.empty()) return refuse(ctx.locale_refusal);
  if (tmpl.needs_shell) return refuse("runs under /bin/sh");
  if (tmpl.always_resplit) return refuse("a macro steers how the line splits");
  if (!tmpl.env.empty()) return refuse("a leading NAME=value word, the per-command opt-out");
  if (::access(program.c_str(), X_OK) != 0)
    return refuse(fmt::format("{} is not an executable file", program));

  // The words after the program: literal text is known now, a word with a macro is not.
  std::vector<std::string> texts;
  std::vector<bool> known;
  for (std::size_t i = 1; i < tmpl.argv.size(); ++i) {
    std::string text;
    bool literal = true;
    for (const model::CommandPiece& piece : tmpl.argv[i].pieces) {
      if (piece.kind == model::CommandPiece::Kind::macro) literal = false;
      text += piece.text;
    }
    texts.push_back(std::move(text));
    known.push_back(literal);
  }
  std::vector<ArgWord> words;
  for (std::size_t i = 0; i < texts.size(); ++i) words.push_back({texts[i], known[i]});

  std::string why;
  if (plugin == model::NativePlugin::check_dummy)
    why = check_dummy_refusal(!words.empty() && words[0].known ? &texts[0] : nullptr);
  else if (plugin == model::NativePlugin::check_tcp)
    why = check_tcp_refusal(words);
  else if (plugin == model::NativePlugin::check_ping)
    why = check_ping_refusal(words);
  else if (plugin == model::NativePlugin::check_icmp)
    why = check_icmp_refusal(words);
  else
    why = check_http_refusal(words);
  if (!why.empty()) return refuse(std::move(why));
  d.plugin = plugin;
  return d;
}

}  // namespace vedette::native
