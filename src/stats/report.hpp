// naemonstats' two outputs from a StatusSummary: the human report and MRTG mode (-m -d VARS). Both
// take `now` so that ages and "last N minutes" are relative to one reading of the clock. Pure functions, on
// vedettestats' one thread.
#pragma once

#include "stats/status_summary.hpp"

#include <string>
#include <string_view>

namespace vedette::stats {

// The report from "CURRENT STATUS DATA" on; `status_file` is the path as shown on its first line.
std::string format_report(const StatusSummary& s, std::string_view status_file, std::int64_t now);

// One value per name of the comma-separated `variables`, each followed by `delimiter`; a name
// naemonstats does not know is printed as it is. A delimiter other than "\n" gets a final newline.
std::string format_mrtg(const StatusSummary& s, std::string_view variables, std::string_view delimiter,
                        std::int64_t now);

}  // namespace vedette::stats
