// The command line scan of the monitoring-plugins programs: glibc getopt_long in "+" mode (stop at the first
// operand), so a native check reads exactly the options the plugin would. The same scan serves the load-time
// decision (words from macros are unknown then) and the run-time parse (every word known). Pure; any thread.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <sys/socket.h>
#include <vector>

namespace vedette::native {

// One argv word. known == false: it comes from a macro whose value only the check's run will tell.
struct ArgWord {
  std::string_view text;
  bool known = true;
};

struct LongOption {
  std::string_view name;
  bool has_arg;
  int key;                    // what getopt_long returns for it: the short letter, or a value above 255
  bool optional_arg = false;  // optional_argument: only "--name=value" gives it one
};

struct OptionTable {
  std::string_view short_options;  // getopt's optstring without the leading '+' ("S::": an optional argument)
  std::span<const LongOption> long_options;
};

// Called per option in order: `key` as getopt_long returns it, `value` its argument (null for a flag, or an
// optional argument not given).
// Returns why it cannot run natively, or "" to go on.
using OptionVisitor = std::function<std::string(int key, const ArgWord* value)>;

struct ScanResult {
  std::string reason;         // empty: every option was accepted
  std::size_t operand = 0;    // index of the first word after the options (words.size() if none)
  bool unknown_word = false;  // the scan stopped at words[operand], a word only the run will tell
};

// Scans words[first..]. An unknown option, a missing argument, an ambiguous long option or an option word
// that is not known at load time ends the scan with a reason: the plugin would print its usage, or might.
[[nodiscard]] ScanResult scan_options(std::span<const ArgWord> words, std::size_t first,
                                      const OptionTable& table, const OptionVisitor& visit);

// getopt_long without '+' (the plugins that do not stop at the first operand): options and operands in any
// order until "--", each operand handed to `operand` in order. At load time a word only the run will tell is
// taken as an operand. False (and `reason`) when the scan found what is not native.
[[nodiscard]] bool scan_permuted(std::span<const ArgWord> words, const OptionTable& table,
                                 const OptionVisitor& visit,
                                 const std::function<void(const ArgWord&)>& operand, std::string& reason);

// -4 and -6, the same in every plugin that takes them: true if `key` is one, with `family` set.
[[nodiscard]] inline bool family_option(int key, int& family) {
  if (key == '4') {
    family = AF_INET;
  } else if (key == '6') {
    family = AF_INET6;
  } else {
    return false;
  }
  return true;
}

// A word the plugin rewrites before getopt sees it, wherever it stands (values too): "-to" is "-t".
struct LegacySpelling {
  std::string_view old_word, word;
};
// `in` with the known words respelled.
[[nodiscard]] std::vector<ArgWord> respelled(std::span<const ArgWord> in,
                                             std::span<const LegacySpelling> table);
// Every word of argv (all known at run time), respelled.
[[nodiscard]] std::vector<ArgWord> respelled(std::span<const std::string> argv,
                                             std::span<const LegacySpelling> table);

// Whether getopt's `key` is a short option letter listed in `letters` ("H p w", blanks between).
[[nodiscard]] bool is_listed_key(int key, std::string_view letters);

// plugins/utils.c's is_intpos and is_intnonneg: only '-', digits and blanks, within int, then atoi > 0 or
// >= 0 (so "" and " " are non-negative integers to the plugins).
[[nodiscard]] bool is_intpos(const std::string& text);
[[nodiscard]] bool is_intnonneg(const std::string& text);

// Human-readable name of an option for reasons: "-S" or "--sni".
[[nodiscard]] std::string option_name(int key, const OptionTable& table);

}  // namespace vedette::native
