// One line of Naemon's log as naemon-livestatus reads it for the log and statehist tables: its time, its
// class (alert, program, notification, ...) and the fields its message type carries (host, service, state,
// output, ...), each a piece of the line. A pure function of the line; any thread.
//
//   const std::string_view line = "[1700000000] SERVICE ALERT: web;HTTP;CRITICAL;HARD;3;timeout";
//   LogEntry e;
//   if (parse_log_line(line, e)) assert(e.log_class == LogClass::alert && text_of(line, e.host_name) ==
//   "web");
#pragma once

#include <cstdint>
#include <string_view>

namespace vedette::livestatus {

// The module's log classes, the `class` column.
enum class LogClass : std::uint8_t {
  info = 0,          // every line no other class takes
  alert = 1,         // host and service alerts, downtime, flapping and acknowledgement alerts
  program = 2,       // starting, shutting down, LOG VERSION, logging initial states
  notification = 3,  // HOST/SERVICE NOTIFICATION
  passive = 4,       // PASSIVE HOST/SERVICE CHECK
  command = 5,       // EXTERNAL COMMAND
  state = 6,         // INITIAL/CURRENT HOST/SERVICE STATE, TIMEPERIOD TRANSITION
  text = 7,          // defined by the module, given to no line
};
inline constexpr std::uint32_t k_all_log_classes = 0xFFFFu;

// The module's message types, which the statehist table reads.
enum class LogType : std::uint8_t {
  none,
  alert_host,
  alert_service,
  downtime_alert_host,
  downtime_alert_service,
  state_host,
  state_host_initial,
  state_service,
  state_service_initial,
  flapping_host,
  flapping_service,
  timeperiod_transition,
  core_starting,
  core_stopping,
  log_version,
  log_initial_states,
  acknowledge_alert_host,
  acknowledge_alert_service,
};

// A piece of the line: `size` bytes from `at`. The module's absent fields (a null pointer) read as empty.
struct LogField {
  std::uint16_t at = 0;
  std::uint16_t size = 0;
};

// The module reads a log with fgets() into 65536 bytes, so a longer line comes as several lines of at most
// this many bytes (newline included); offsets within one fit 16 bits.
inline constexpr std::size_t k_max_log_line = 65535;

struct LogEntry {
  std::int64_t time = 0;
  std::uint32_t offset = 0;  // where the line starts in the text it was parsed from (LogChunk's)
  std::uint32_t lineno = 0;  // 1 for the file's first line, as the module counts them
  std::int32_t state = 0;
  std::int32_t attempt = 0;
  std::uint16_t size = 0;  // the line without its newline: the `message` column
  LogClass log_class = LogClass::info;
  LogType type = LogType::none;
  LogField type_text;  // the `type` column: the text before the colon, or the whole message
  LogField options;    // after the first ':' and the blanks after it
  LogField comment;
  LogField plugin_output;
  LogField state_type;
  LogField host_name;
  LogField service_description;
  LogField contact_name;
  LogField command_name;
};

// Parses one line (without its newline; at most k_max_log_line bytes) as the module's LogEntry does.
// False for a line the module drops: shorter than 13 bytes, or not starting "[dddddddddd]". The result's
// offset and lineno are left 0 for the caller.
[[nodiscard]] bool parse_log_line(std::string_view line, LogEntry& out);

[[nodiscard]] inline std::string_view text_of(std::string_view line, LogField field) {
  return line.substr(field.at, field.size);
}

}  // namespace vedette::livestatus
