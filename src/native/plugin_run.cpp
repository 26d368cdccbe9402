#include "native/plugin_run.hpp"

#include "state/check_state.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace vedette::native {

// The plugins' state_text and Naemon's service state names are the same four words.
const char* state_text(int state) {
  return state::service_state_name(state);
}

void append_printf(std::string& out, const char* format, ...) {
  char small[256];
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(small, sizeof small, format, args);
  va_end(args);
  if (n < 0) {
    va_end(again);
    return;
  }
  if (static_cast<std::size_t>(n) < sizeof small) {
    out.append(small, static_cast<std::size_t>(n));
  } else {
    const std::size_t at = out.size();
    out.resize(at + static_cast<std::size_t>(n) + 1);
    std::vsnprintf(out.data() + at, static_cast<std::size_t>(n) + 1, format, again);
    out.resize(at + static_cast<std::size_t>(n));
  }
  va_end(again);
}

void append_fperfdata(std::string& out, const char* label, double value, const char* uom, bool has_warn,
                      double warn, bool has_crit, double crit, bool has_min, double min, bool has_max,
                      double max) {
  if (std::strpbrk(label, "'= ") != nullptr)
    append_printf(out, "'%s'=", label);
  else
    append_printf(out, "%s=", label);
  append_printf(out, "%f%s;", value, uom);
  if (has_warn) append_printf(out, "%f", warn);
  out += ';';
  if (has_crit) append_printf(out, "%f", crit);
  out += ';';
  if (has_min) append_printf(out, "%f", min);
  if (has_max) append_printf(out, ";%f", max);
}

void append_perfdata(std::string& out, const char* label, long value, const char* uom, bool has_warn,
                     long warn, bool has_crit, long crit, bool has_min, long min, bool has_max, long max) {
  if (std::strpbrk(label, "'= ") != nullptr)
    append_printf(out, "'%s'=%ld%s;", label, value, uom);
  else
    append_printf(out, "%s=%ld%s;", label, value, uom);
  if (has_warn) append_printf(out, "%ld", warn);
  out += ';';
  if (has_crit) append_printf(out, "%ld", crit);
  out += ';';
  if (has_min) append_printf(out, "%ld", min);
  out += ';';
  if (has_max) append_printf(out, "%ld", max);
}

}  // namespace vedette::native
