// Reads retention.dat in Naemon's syntax (xrddefault.c): `name {` opens a block, `key=value` lines fill it,
// `}` closes it; lines are trimmed, a value runs to the end of its line and is taken verbatim. The reader
// only splits the text: numbers are converted by apply(), with Naemon's atoi/strtoul/strtod leniency.
//
// Tolerant, as Naemon is, but not silent: an unknown key, an unknown block, text outside a block or a block
// that never closes (a truncated file) is a Warning with its line, and reading goes on. An unclosed block is
// dropped whole, so a torn record never half-applies.
//
//   Data data = read_file(main.state_retention_file);      // or parse_text(text) in tests
//   for (const Warning& w : data.warnings) log(format_warning(path, w));
//   ApplyResult r = apply(data, target, now);               // apply.hpp
//
// Any thread; nothing is shared. Views in a Block point into the text being read.
#pragma once

#include "config/mapped_file.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::retention {

enum class BlockKind : std::uint8_t {
  info,
  program,
  host,
  service,
  contact,
  host_comment,
  service_comment,
  host_downtime,
  service_downtime,
};

// "host", "servicecomment", …: the name written before " {".
[[nodiscard]] std::string_view block_name(BlockKind kind);

// The keys of each block kind. A Block stores a value per key, indexed by these numbers.
enum class InfoKey : std::uint8_t { created, version, count };

enum class ProgramKey : std::uint8_t {
  modified_host_attributes,
  modified_service_attributes,
  enable_notifications,
  active_service_checks_enabled,
  passive_service_checks_enabled,
  active_host_checks_enabled,
  passive_host_checks_enabled,
  enable_event_handlers,
  obsess_over_services,
  obsess_over_hosts,
  check_service_freshness,
  check_host_freshness,
  enable_flap_detection,
  process_performance_data,
  global_host_event_handler,
  global_service_event_handler,
  global_host_notification_handler,
  global_service_notification_handler,
  next_comment_id,
  next_downtime_id,
  next_event_id,
  count
};

// Host and service blocks share their keys. last_time_N and notified_on_N follow the order Naemon writes:
// hosts up/down/unreachable and down/unreachable, services ok/warning/unknown/critical and
// unknown/warning/critical. flag_N and config_flag_N follow state::Flag.
enum class CheckableKey : std::uint8_t {
  host_name,
  service_description,
  modified_attributes,
  check_command,
  check_period,
  notification_period,
  event_handler,
  has_been_checked,
  check_execution_time,
  check_latency,
  check_type,
  current_state,
  last_state,
  last_hard_state,
  last_event_id,
  current_event_id,
  current_problem_id,
  last_problem_id,
  problem_start,
  problem_end,
  plugin_output,
  long_plugin_output,
  performance_data,
  last_check,
  next_check,
  check_options,
  current_attempt,
  max_attempts,
  normal_check_interval,
  retry_check_interval,
  state_type,
  last_state_change,
  last_hard_state_change,
  last_time_0,
  last_time_1,
  last_time_2,
  last_time_3,
  notified_on_0,
  notified_on_1,
  notified_on_2,
  last_notification,
  current_notification_number,
  current_notification_id,
  problem_has_been_acknowledged,
  acknowledgement_type,
  acknowledgement_end_time,
  is_flapping,
  percent_state_change,
  check_flapping_recovery_notification,
  last_update,
  state_history,
  flag_0,
  flag_1,
  flag_2,
  flag_3,
  flag_4,
  flag_5,
  flag_6,
  config_flag_0,
  config_flag_1,
  config_flag_2,
  config_flag_3,
  config_flag_4,
  config_flag_5,
  config_flag_6,
  count
};

enum class ContactKey : std::uint8_t {
  contact_name,
  modified_attributes,
  modified_host_attributes,
  modified_service_attributes,
  host_notification_period,
  service_notification_period,
  last_host_notification,
  last_service_notification,
  config_host_notifications_enabled,
  host_notifications_enabled,
  config_service_notifications_enabled,
  service_notifications_enabled,
  count
};

enum class CommentKey : std::uint8_t {
  host_name,
  service_description,
  entry_type,
  comment_id,
  source,
  persistent,
  entry_time,
  expires,
  expire_time,
  author,
  comment_data,
  count
};

enum class DowntimeKey : std::uint8_t {
  host_name,
  service_description,
  comment_id,
  downtime_id,
  entry_time,
  start_time,
  flex_downtime_start,
  end_time,
  triggered_by,
  fixed,
  duration,
  is_in_effect,
  start_notification_sent,
  author,
  comment,
  count
};

inline constexpr std::size_t k_max_keys = static_cast<std::size_t>(CheckableKey::count);

// `_NAME=<modified>;<value>` in a host, service or contact block: `name` without the '_', `value` raw.
struct CustomValue {
  std::string_view name;
  std::string_view value;
};

// One complete block. A key not in the block has a null view (has() is false); `key=` gives an empty one.
// A key written twice keeps the last value, as Naemon's reader ends up with.
struct Block {
  BlockKind kind = BlockKind::info;
  std::uint32_t line = 0;  // of the "name {" line
  std::array<std::string_view, k_max_keys> values{};
  std::vector<CustomValue> custom_variables;  // in file order

  template <typename Key>
  [[nodiscard]] std::string_view get(Key key) const {
    return values[static_cast<std::size_t>(key)];
  }
  template <typename Key>
  [[nodiscard]] bool has(Key key) const {
    return get(key).data() != nullptr;
  }
};

struct Warning {
  std::uint32_t line = 0;
  std::string message;
};

// "<path>:<line>: <message>", the form Vedette's diagnostics use.
[[nodiscard]] std::string format_warning(std::string_view path, const Warning& w);

// Streams `text`: calls on_block for each complete block, in file order. The Block is reused for the next
// one, so on_block copies what it keeps; its views point into `text`.
void parse(std::string_view text, const std::function<void(const Block&)>& on_block,
           std::vector<Warning>& warnings);

// A whole file parsed into blocks; the views point into memory the Data owns (a mapping or a string).
struct Data {
  enum class Status { ok, missing, error };
  Status status = Status::ok;
  std::string error;  // Status::error: why the file could not be read (strerror)
  std::vector<Block> blocks;
  std::vector<Warning> warnings;

  Data() = default;
  Data(Data&&) = default;
  Data& operator=(Data&&) = default;

 private:
  friend Data parse_text(std::string text);
  friend Data read_file(const std::string& path, std::uint64_t max_size);
  std::unique_ptr<std::string> owned_;
  config::MappedFile mapped_;
};

// What retention.dat may weigh. The file is the core's own, so it must read back whatever it wrote: about
// 1.2 KB per service, 1.2 GB at a million services, above the 1 GiB a configuration file may weigh (a core
// that refused it would start without its state and overwrite the file at the next save).
inline constexpr std::uint64_t k_max_file_size = std::uint64_t{64} << 30;

[[nodiscard]] Data parse_text(std::string text);
// Status::missing when the file does not exist (the first start; Naemon says nothing then either).
[[nodiscard]] Data read_file(const std::string& path, std::uint64_t max_size = k_max_file_size);

}  // namespace vedette::retention
