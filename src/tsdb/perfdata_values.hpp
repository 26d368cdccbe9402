// The values of a plugin's performance data, `'label'=value[UOM];[warn];[crit];[min];[max]` separated by
// blanks (Nagios plugin guidelines), read one at a time without copying. Pure; any thread.
//
//   PerfdataReader reader(state.perf_data);
//   for (PerfdataValue v; reader.next(v);) use(v.label, v.value);
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace vedette::tsdb {

struct PerfdataValue {
  std::string label;  // unquoted: 'a b' gives a b, and '' inside quotes gives '
  double value = 0;
  std::string_view unit;  // as written after the number ("s", "%", "KB", "c"); a view into the input
  // Thresholds only when written as a plain number ("10", "10:" is a range and is left out, as Icinga 2's
  // writers leave ranges out); min and max likewise.
  std::optional<double> warn, crit, min, max;
};

class PerfdataReader {
 public:
  // `perf_data` must outlive the reader.
  explicit PerfdataReader(std::string_view perf_data) : rest_(perf_data) {}

  // The next well-formed value into `out`. Fields without '=', without a label, or whose value is not a
  // number ("U", the plugins' unknown) are skipped, as Icinga 2 skips what it cannot parse. False at the end.
  [[nodiscard]] bool next(PerfdataValue& out);

 private:
  std::string_view rest_;
};

}  // namespace vedette::tsdb
