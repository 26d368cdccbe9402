#include "native/plugin_args.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace vedette::native {
namespace {

// getopt_long: an exact name wins, else a unique prefix. glibc accepts an ambiguous prefix when every match
// means the same option; the plugins' tables have no such duplicates, so any ambiguity is refused here.
const LongOption* find_long(std::string_view name, const OptionTable& table, bool& ambiguous) {
  const LongOption* found = nullptr;
  ambiguous = false;
  for (const LongOption& opt : table.long_options) {
    if (opt.name == name) return &opt;
    if (opt.name.substr(0, name.size()) != name) continue;
    if (found != nullptr) ambiguous = true;
    found = &opt;
  }
  return ambiguous ? nullptr : found;
}

bool is_integer(const std::string& text) {
  if (std::strspn(text.c_str(), "-0123456789 ") != text.size()) return false;
  errno = 0;
  const long n = std::strtol(text.c_str(), nullptr, 10);
  return errno != ERANGE && n >= INT_MIN && n <= INT_MAX;
}

}  // namespace

std::vector<ArgWord> respelled(std::span<const ArgWord> in, std::span<const LegacySpelling> table) {
  std::vector<ArgWord> words(in.begin(), in.end());
  for (ArgWord& w : words) {
    if (!w.known) continue;
    for (const LegacySpelling& s : table)
      if (w.text == s.old_word) w.text = s.word;
  }
  return words;
}

std::vector<ArgWord> respelled(std::span<const std::string> argv, std::span<const LegacySpelling> table) {
  std::vector<ArgWord> raw;
  raw.reserve(argv.size());
  for (const std::string& a : argv) raw.push_back({a, true});
  return respelled(raw, table);
}

bool is_listed_key(int key, std::string_view letters) {
  return key > 0 && key < 256 && key != ' ' && letters.find(static_cast<char>(key)) != letters.npos;
}

bool is_intpos(const std::string& text) {
  return is_integer(text) && std::atoi(text.c_str()) > 0;
}

bool is_intnonneg(const std::string& text) {
  return is_integer(text) && std::atoi(text.c_str()) >= 0;
}

std::string option_name(int key, const OptionTable& table) {
  if (key > 0 && key < 256) return fmt::format("-{}", static_cast<char>(key));
  for (const LongOption& opt : table.long_options)
    if (opt.key == key) return fmt::format("--{}", opt.name);
  return "an option";
}

ScanResult scan_options(std::span<const ArgWord> words, std::size_t first, const OptionTable& table,
                        const OptionVisitor& visit) {
  ScanResult result;
  std::size_t i = first;
  auto stop = [&](std::string reason) {
    result.reason = std::move(reason);
    result.operand = i;
    return result;
  };
  while (i < words.size()) {
    const ArgWord& word = words[i];
    if (!word.known) {
      result.unknown_word = true;
      return stop("an option word comes from a macro");
    }
    const std::string_view text = word.text;
    if (text.size() < 2 || text[0] != '-') break;  // "+" mode: the first operand ends the options
    ++i;
    if (text == "--") break;
    if (text[1] == '-') {
      const std::string_view body = text.substr(2);
      const std::size_t eq = body.find('=');
      bool ambiguous = false;
      const LongOption* opt = find_long(body.substr(0, eq), table, ambiguous);
      if (opt == nullptr)
        return stop(fmt::format("unknown option {}", text.substr(0, eq == body.npos ? text.size() : eq + 2)));
      ArgWord value;
      const ArgWord* value_ptr = nullptr;
      if (opt->has_arg && opt->optional_arg) {
        if (eq != body.npos) {
          value = {body.substr(eq + 1), true};
          value_ptr = &value;
        }
      } else if (opt->has_arg) {
        if (eq != body.npos) {
          value = {body.substr(eq + 1), true};
        } else {
          if (i >= words.size()) return stop(fmt::format("--{} lacks its argument", opt->name));
          value = words[i++];
        }
        value_ptr = &value;
      } else if (eq != body.npos) {
        return stop(fmt::format("--{} takes no argument", opt->name));
      }
      if (std::string why = visit(opt->key, value_ptr); !why.empty()) return stop(std::move(why));
      continue;
    }
    for (std::size_t k = 1; k < text.size(); ++k) {
      const char c = text[k];
      const std::size_t at = c == ':' ? std::string_view::npos : table.short_options.find(c);
      if (at == std::string_view::npos) return stop(fmt::format("unknown option -{}", c));
      const bool has_arg = at + 1 < table.short_options.size() && table.short_options[at + 1] == ':';
      const bool optional =
          has_arg && at + 2 < table.short_options.size() && table.short_options[at + 2] == ':';
      if (!has_arg || (optional && k + 1 == text.size())) {
        if (std::string why = visit(c, nullptr); !why.empty()) return stop(std::move(why));
        continue;
      }
      ArgWord value;
      if (k + 1 < text.size()) {
        value = {text.substr(k + 1), true};
      } else {
        if (i >= words.size()) return stop(fmt::format("-{} lacks its argument", c));
        value = words[i++];
      }
      if (std::string why = visit(c, &value); !why.empty()) return stop(std::move(why));
      break;
    }
  }
  result.operand = i;
  return result;
}

bool scan_permuted(std::span<const ArgWord> words, const OptionTable& table, const OptionVisitor& visit,
                   const std::function<void(const ArgWord&)>& operand, std::string& reason) {
  std::size_t at = 0;
  while (at < words.size()) {
    const ScanResult scan = scan_options(words, at, table, visit);
    if (scan.unknown_word) {  // load time: a macro's word, an operand or an option the run will tell
      operand(words[scan.operand]);
      at = scan.operand + 1;
      continue;
    }
    if (!scan.reason.empty()) {
      reason = scan.reason;
      return false;
    }
    at = scan.operand;
    if (at > 0 && words[at - 1].known && words[at - 1].text == "--") {
      for (; at < words.size(); ++at) operand(words[at]);
      return true;
    }
    if (at < words.size()) operand(words[at++]);
  }
  return true;
}

}  // namespace vedette::native
