#include "engine/macros/macros.hpp"

#include "config/command_compiler.hpp"
#include "config/shell_quoting.hpp"
#include "engine/macros/macro_resolver.hpp"

#include <algorithm>
#include <array>

namespace vedette::engine {
namespace {

using macro_internal::expand_at_depth;
using macro_internal::is_summary_code;
using macro_internal::k_max_nesting;
using macro_internal::k_names;
using macro_internal::M;
using macro_internal::Resolver;
using macro_internal::Value;

// `out` rebuilt from `in` byte by byte by `emit`; `outside`, spans over `in`, become spans over `out` (each
// bound moves to where the byte it stands before went).
template <class Emit>
void rewrite(std::string_view in, std::string& out, config::OutsideSpans& outside, Emit&& emit) {
  out.clear();
  const std::size_t bounds = outside.size() * 2;
  const auto bound = [&](std::size_t k) -> std::size_t& {
    config::OutsideSpan& span = outside[k / 2];
    return k % 2 == 0 ? span.begin : span.end;
  };
  std::size_t next = 0;
  for (std::size_t i = 0; i <= in.size(); ++i) {
    for (; next < bounds && bound(next) == i; ++next) bound(next) = out.size();
    if (i < in.size()) emit(in[i], out);
  }
}

void url_encode(std::string_view in, std::string& out, config::OutsideSpans& outside) {
  static constexpr char k_hex[] = "0123456789ABCDEF";
  rewrite(in, out, outside, [](char c, std::string& to) {
    const auto u = static_cast<unsigned char>(c);
    if ((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '.' || c == '-' ||
        c == '_' || c == '~') {
      to += c;
    } else {
      to += '%';
      to += k_hex[u >> 4];
      to += k_hex[u & 0xF];
    }
  });
}

// Naemon's illegal_output_char_map: control bytes and DEL always, plus illegal_macro_output_chars.
bool is_illegal_output_char(char c, std::string_view configured) {
  const auto u = static_cast<unsigned char>(c);
  return u < 32 || u == 127 || configured.find(c) != std::string_view::npos;
}

// Buffers for one nesting level, reused from call to call so a check allocates nothing here once warm.
struct LevelBuffers {
  std::string value;
  std::string encoded;
  std::string cleaned;
  config::OutsideSpans outside;
};
LevelBuffers& level_buffers(int depth) {
  thread_local std::array<LevelBuffers, k_max_nesting + 2> levels;
  return levels[static_cast<std::size_t>(std::clamp(depth, 0, k_max_nesting + 1))];
}

// The text one `$name$` (or a trailing unterminated `$name`) becomes under `options`, and the spans of it
// that came from outside the configuration. Both point into the model, the state, or the level's buffers,
// and are valid until the next call at the same depth.
struct MacroText {
  std::string_view text;
  const config::OutsideSpans* outside = nullptr;  // null: none of it

  [[nodiscard]] bool all_outside() const {
    return outside->size() == 1 && outside->front().begin == 0 && outside->front().end == text.size();
  }
};

MacroText macro_text(std::string_view name, bool terminated, const MacroContext& ctx, unsigned options,
                     int depth) {
  LevelBuffers& b = level_buffers(depth);
  b.outside.clear();
  Value v{{}, b.value, false, false, &b.outside};
  bool cleanable = false;
  if (!Resolver(ctx, depth).resolve(name, v, cleanable)) {
    b.cleaned.clear();
    b.cleaned += '$';
    b.cleaned += name;
    if (terminated) b.cleaned += '$';
    return {b.cleaned};
  }
  std::string_view text = v.view;
  if (v.from_outside) b.outside.assign(1, {0, text.size()});
  if (options & k_url_encode) {
    url_encode(text, b.encoded, b.outside);
    text = b.encoded;
  }
  if (cleanable && (options & k_strip_illegal)) {
    const std::string_view illegal = ctx.main.illegal_macro_output_chars;
    if (std::any_of(text.begin(), text.end(), [&](char c) { return is_illegal_output_char(c, illegal); })) {
      rewrite(text, b.cleaned, b.outside, [&](char c, std::string& to) {
        if (!is_illegal_output_char(c, illegal)) to += c;
      });
      text = b.cleaned;
    }
  }
  return {text, b.outside.empty() ? nullptr : &b.outside};
}

}  // namespace

void macro_internal::expand_at_depth(std::string_view text, const MacroContext& ctx, unsigned options,
                                     std::string& out, int depth, config::OutsideSpans* outside,
                                     std::size_t max_bytes) {
  const std::size_t start = out.size();
  bool in_macro = false;
  std::size_t pos = 0;
  while (out.size() - start < max_bytes) {
    const std::size_t dollar = text.find('$', pos);
    const bool last = dollar == std::string_view::npos;
    const std::string_view segment = text.substr(pos, last ? std::string_view::npos : dollar - pos);
    if (!in_macro) {
      out += segment;
      in_macro = true;
    } else if (segment.empty()) {
      out += '$';
      in_macro = false;
    } else {
      const MacroText value = macro_text(segment, !last, ctx, options, depth);
      if (outside != nullptr && value.outside != nullptr)
        for (const config::OutsideSpan& span : *value.outside)
          outside->push_back({out.size() + span.begin, out.size() + span.end});
      out += value.text;
      in_macro = false;
    }
    if (last) break;
    pos = dollar + 1;
  }
}

namespace {

// Scratch for expand_command, reused from check to check (core thread; one per thread to stay safe).
struct ExpandScratch {
  std::vector<std::string> arg_buffers;
  std::vector<std::string_view> arg_values;
  std::vector<config::OutsideSpans> arg_outside;
  std::string line;
  config::OutsideSpans line_outside;
  std::vector<std::pair<std::string, std::string>> split_env;
};

// Appends a macro's value to `word` if it lands there as the template has it; false if the whole line must
// be expanded and split instead. `shell_settled` tracks, in a shell template, whether the configured values
// so far left /bin/sh's reading as compiled (piece.shell holds), which escaping a value from outside needs.
bool fill_slot(const model::CommandTemplate& tmpl, const model::CommandPiece& piece, const MacroText& value,
               bool& shell_settled, std::string& word) {
  if (value.outside == nullptr) {
    if (config::value_needs_resplit(value.text, piece)) return false;
    if (tmpl.needs_shell && shell_settled) shell_settled = config::is_shell_inert(value.text, piece.shell);
    word += value.text;
    return true;
  }
  if (!value.all_outside()) return false;  // an $ARGn$ or note mixing both: rare, the slow path sorts it
  if (!tmpl.needs_shell) {
    if (!config::outside_value_fits(value.text, piece)) return false;
    word += value.text;
    return true;
  }
  if (!shell_settled) return false;
  const std::size_t emitted = config::append_shell_escaped(word, value.text, {.quoting = piece.shell});
  // Nothing in unquoted text lets the bytes around meet, as an empty configured value does.
  if (emitted == 0 &&
      (piece.shell == model::ShellQuoting::bare || piece.shell == model::ShellQuoting::bare_assignment))
    shell_settled = false;
  return true;
}

void append_environment(const MacroContext& ctx, std::vector<std::pair<std::string, std::string>>& env) {
  if (!ctx.main.enable_environment_macros) return;
  std::vector<std::pair<std::string, std::string>> extra = environment_macros(ctx);
  env.insert(env.end(), std::make_move_iterator(extra.begin()), std::make_move_iterator(extra.end()));
}

}  // namespace

bool macro_value(std::string_view name, const MacroContext& ctx, std::string& out) {
  std::string buf;
  Value v{{}, buf};
  bool cleanable = false;
  if (!Resolver(ctx, 0).resolve(name, v, cleanable)) return false;
  out.assign(v.view);
  return true;
}

void process_macros(std::string_view text, const MacroContext& ctx, unsigned options, std::string& out) {
  expand_at_depth(text, ctx, options, out, 0);
}

void process_macros(std::string_view text, const MacroContext& ctx, unsigned options, std::string& out,
                    config::OutsideSpans& outside) {
  expand_at_depth(text, ctx, options, out, 0, &outside);
}

void expand_command(const model::CommandTemplate& tmpl, const MacroContext& ctx,
                    std::span<const std::string_view> raw_args, ExpandedCommand& out) {
  thread_local ExpandScratch s;

  // $ARGn$ are expanded first, in order, each seeing the ones before it (Naemon's get_raw_command_line_r).
  const std::size_t n_args = std::min(raw_args.size(), config::k_max_command_args);
  if (s.arg_buffers.size() < n_args) s.arg_buffers.resize(n_args);
  if (s.arg_outside.size() < n_args) s.arg_outside.resize(n_args);
  s.arg_values.clear();
  s.arg_values.reserve(n_args);
  std::size_t marked_args = 0;  // arg_outside below this index is up to date, the rest is stale
  MacroContext local = ctx;
  for (std::size_t i = 0; i < n_args; ++i) {
    const std::string_view raw = raw_args[i];
    if (raw.find('$') == std::string_view::npos) {  // plain text, as most arguments are
      s.arg_values.push_back(raw);
      continue;
    }
    local.args = std::span<const std::string_view>(s.arg_values.data(), i);
    local.args_outside = std::span<const config::OutsideSpans>(s.arg_outside.data(), marked_args);
    for (; marked_args <= i; ++marked_args) s.arg_outside[marked_args].clear();
    std::string& buf = s.arg_buffers[i];
    buf.clear();
    expand_at_depth(raw, local, k_strip_illegal, buf, 1, &s.arg_outside[i]);
    s.arg_values.push_back(buf);
  }
  local.args = std::span<const std::string_view>(s.arg_values.data(), s.arg_values.size());
  local.args_outside = std::span<const config::OutsideSpans>(s.arg_outside.data(), marked_args);

  out.env.clear();
  if (!tmpl.always_resplit) {
    std::size_t words = 0;
    bool fits = true;
    bool shell_settled = true;
    for (const model::CommandArg& arg : tmpl.argv) {
      if (words == out.argv.size()) out.argv.emplace_back();
      std::string& word = out.argv[words];
      word.clear();
      for (const model::CommandPiece& piece : arg.pieces) {
        if (piece.kind == model::CommandPiece::Kind::literal) {
          word += piece.text;
          continue;
        }
        const MacroText value = macro_text(piece.text, !piece.unterminated, local, k_strip_illegal, 0);
        if (!fill_slot(tmpl, piece, value, shell_settled, word)) {
          fits = false;
          break;
        }
      }
      if (!fits) break;
      if (arg.drop_if_empty && word.empty()) continue;
      ++words;
    }
    if (fits) {
      out.argv.resize(words);
      out.shell = tmpl.needs_shell;
      append_environment(local, out.env);
      for (const model::CommandEnv& e : tmpl.env) out.env.emplace_back(e.name, e.value);
      return;
    }
  }

  // A value changes the split: do what Naemon does, expand the whole line, then split it (where values from
  // outside are, the configured bytes alone decide).
  s.line.clear();
  s.line_outside.clear();
  expand_at_depth(tmpl.line, local, k_strip_illegal, s.line, 0, &s.line_outside);
  s.split_env.clear();
  bool shell = false;
  out.argv = config::split_expanded_line(s.line, s.line_outside, shell, s.split_env);
  out.shell = shell;
  append_environment(local, out.env);
  for (auto& e : s.split_env) out.env.push_back(std::move(e));
}

ExpandedCommand expand_command(const model::CommandTemplate& tmpl, const MacroContext& ctx,
                               std::span<const std::string_view> raw_args) {
  ExpandedCommand out;
  out.argv.reserve(tmpl.argv.size());
  expand_command(tmpl, ctx, raw_args, out);
  return out;
}

std::vector<std::pair<std::string, std::string>> environment_macros(const MacroContext& ctx) {
  std::vector<std::pair<std::string, std::string>> env;
  if (!ctx.main.enable_environment_macros) return env;
  const auto add = [&](std::string_view name, std::string_view value) {
    std::string key = "NAGIOS_";
    key += name;
    env.emplace_back(std::move(key), std::string(value));
  };
  std::string buf;
  for (std::size_t i = 0; i < k_names.size(); ++i) {
    const auto code = static_cast<M>(i);
    if (code == M::ISVALIDTIME || code == M::NEXTVALIDTIME) continue;  // need an argument
    if (ctx.main.use_large_installation_tweaks &&
        (is_summary_code(code) || code == M::HOSTGROUPMEMBERS || code == M::SERVICEGROUPMEMBERS))
      continue;
    Value v{{}, buf};
    bool cleanable = false;
    if (!Resolver(ctx, 0).resolve(k_names[i], v, cleanable)) continue;
    add(k_names[i], v.view);
  }
  for (std::size_t i = 0; i < ctx.args.size(); ++i) add("ARG" + std::to_string(i + 1), ctx.args[i]);

  const std::string_view illegal = ctx.main.illegal_macro_output_chars;
  const auto add_custom = [&](std::string_view prefix, const std::vector<model::CustomVariable>& vars) {
    for (const model::CustomVariable& cv : vars) {
      std::string cleaned;
      for (char c : cv.value)
        if (!is_illegal_output_char(c, illegal)) cleaned += c;
      if (cleaned.empty()) continue;
      std::string name(prefix);
      name += cv.name;
      add(name, cleaned);
    }
  };
  const model::Model& m = ctx.model;
  if (model::is_set(ctx.host)) add_custom("_HOST", m.host(ctx.host).custom_variables);
  if (model::is_set(ctx.service)) add_custom("_SERVICE", m.service(ctx.service).custom_variables);
  if (model::is_set(ctx.contact)) {
    const model::Contact& c = m.contacts[model::index(ctx.contact)];
    add_custom("_CONTACT", c.custom_variables);
    // Nagios numbers these from 0 although $CONTACTADDRESS1$ is the first address.
    for (std::size_t i = 0; i < c.addresses.size(); ++i)
      add("CONTACTADDRESS" + std::to_string(i), c.addresses[i]);
  }
  return env;
}

}  // namespace vedette::engine
