// What a native check produces: what the plugin would have written to stdout and its exit code. Plain value;
// any thread.
#pragma once

#include <string>

namespace vedette::native {

inline constexpr int k_state_ok = 0;
inline constexpr int k_state_warning = 1;
inline constexpr int k_state_critical = 2;
inline constexpr int k_state_unknown = 3;

struct PluginRun {
  int exit_code = k_state_unknown;
  std::string output;  // stdout, byte for byte; the plugins write nothing to stderr on these paths
};

// lib/utils_base.c's state_text(): "OK", "WARNING", "CRITICAL", else "UNKNOWN" (DEPENDENT is never used).
[[nodiscard]] const char* state_text(int state);

// plugins/utils.c's fperfdata(): label=VALUEuom;[warn];[crit];[min][;max], each number with "%f". Appended to
// `out`. A label with a quote, '=' or blank is quoted as the plugin quotes it.
void append_fperfdata(std::string& out, const char* label, double value, const char* uom, bool has_warn,
                      double warn, bool has_crit, double crit, bool has_min, double min, bool has_max,
                      double max);

// plugins/utils.c's perfdata(), the integer one: label=VALUEuom;[warn];[crit];[min];[max] (its ';' after the
// minimum is always there).
void append_perfdata(std::string& out, const char* label, long value, const char* uom, bool has_warn,
                     long warn, bool has_crit, long crit, bool has_min, long min, bool has_max, long max);

// printf into a std::string, appending; the plugins format with the C library's printf, so do we.
void append_printf(std::string& out, const char* format, ...) __attribute__((format(printf, 2, 3)));

}  // namespace vedette::native
