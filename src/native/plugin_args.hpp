// The command line scan of the monitoring-plugins programs: glibc getopt_long in "+" mode (stop at the first
// operand), so a native check reads exactly the options the plugin would. The same scan serves the load-time
// decision (words from macros are unknown then) and the run-time parse (every word known). Pure; any thread.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>

namespace vedette::native {

// One argv word. known == false: it comes from a macro whose value only the check's run will tell.
struct ArgWord {
  std::string_view text;
  bool known = true;
};

struct LongOption {
  std::string_view name;
  bool has_arg;
  int key;  // what getopt_long returns for it: the short letter, or a value above 255
};

struct OptionTable {
  std::string_view short_options;  // getopt's optstring without the leading '+'
  std::span<const LongOption> long_options;
};

// Called per option in order: `key` as getopt_long returns it, `value` its argument (null for a flag).
// Returns why it cannot run natively, or "" to go on.
using OptionVisitor = std::function<std::string(int key, const ArgWord* value)>;

struct ScanResult {
  std::string reason;       // empty: every option was accepted
  std::size_t operand = 0;  // index of the first word after the options (words.size() if none)
};

// Scans words[first..]. An unknown option, a missing argument, an ambiguous long option or an option word
// that is not known at load time ends the scan with a reason: the plugin would print its usage, or might.
[[nodiscard]] ScanResult scan_options(std::span<const ArgWord> words, std::size_t first,
                                      const OptionTable& table, const OptionVisitor& visit);

// Human-readable name of an option for reasons: "-S" or "--sni".
[[nodiscard]] std::string option_name(int key, const OptionTable& table);

}  // namespace vedette::native
