// Plugin output parsing: the raw text a plugin printed, as Naemon splits it into output, long output and
// performance data, and the verdict on a result carrying it.
#include "exec/plugin_output.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view raw(reinterpret_cast<const char*>(data), size);
  const vedette::exec::PluginOutput out = vedette::exec::parse_plugin_output(raw);
  // One line of output and an escaped long output: a raw newline would break status.dat and the log.
  if (out.output.find('\n') != std::string::npos) std::abort();
  if (out.long_output.find('\n') != std::string::npos) std::abort();
  if (out.output.size() + out.long_output.size() + out.perf_data.size() > 2 * size + 16) std::abort();

  vedette::exec::CheckResult result;
  result.outcome = vedette::exec::Outcome::exited;
  result.output.assign(raw);
  result.exit_code = size > 0 ? data[0] : 0;
  const vedette::exec::CheckVerdict verdict = vedette::exec::interpret_check_result(result, 2);
  (void)vedette::exec::check_warning_text(verdict, vedette::exec::CheckKind::service, "host", "service");
  return 0;
}
