#include "retention/reader.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <span>

namespace vedette::retention {
namespace {

struct KeyName {
  std::string_view name;
  std::uint8_t key;
};

template <typename Key>
constexpr KeyName k(std::string_view name, Key key) {
  return {name, static_cast<std::uint8_t>(key)};
}

static_assert(static_cast<std::size_t>(ProgramKey::count) <= k_max_keys);
static_assert(static_cast<std::size_t>(ContactKey::count) <= k_max_keys);
static_assert(static_cast<std::size_t>(CommentKey::count) <= k_max_keys);
static_assert(static_cast<std::size_t>(DowntimeKey::count) <= k_max_keys);

// Each table lists a block's keys in the order Naemon writes them, so the next key is almost always the one
// after the last match (see Parser::lookup). Keys Naemon reads but Vedette has no use for map to `ignore`.
constexpr std::uint8_t k_ignore = 0xff;

constexpr KeyName k_info_keys[] = {
    k("created", InfoKey::created),
    k("version", InfoKey::version),
    // Written by the Nagios update check; Naemon reads and drops them.
    {"last_update_check", k_ignore},
    {"update_available", k_ignore},
    {"last_version", k_ignore},
    {"new_version", k_ignore},
};

constexpr KeyName k_program_keys[] = {
    k("modified_host_attributes", ProgramKey::modified_host_attributes),
    k("modified_service_attributes", ProgramKey::modified_service_attributes),
    k("enable_notifications", ProgramKey::enable_notifications),
    k("active_service_checks_enabled", ProgramKey::active_service_checks_enabled),
    k("passive_service_checks_enabled", ProgramKey::passive_service_checks_enabled),
    k("active_host_checks_enabled", ProgramKey::active_host_checks_enabled),
    k("passive_host_checks_enabled", ProgramKey::passive_host_checks_enabled),
    k("enable_event_handlers", ProgramKey::enable_event_handlers),
    k("obsess_over_services", ProgramKey::obsess_over_services),
    k("obsess_over_hosts", ProgramKey::obsess_over_hosts),
    k("check_service_freshness", ProgramKey::check_service_freshness),
    k("check_host_freshness", ProgramKey::check_host_freshness),
    k("enable_flap_detection", ProgramKey::enable_flap_detection),
    k("process_performance_data", ProgramKey::process_performance_data),
    k("global_host_event_handler", ProgramKey::global_host_event_handler),
    k("global_service_event_handler", ProgramKey::global_service_event_handler),
    k("global_host_notification_handler", ProgramKey::global_host_notification_handler),
    k("global_service_notification_handler", ProgramKey::global_service_notification_handler),
    k("next_comment_id", ProgramKey::next_comment_id),
    k("next_downtime_id", ProgramKey::next_downtime_id),
    k("next_event_id", ProgramKey::next_event_id),
    // Written by some Nagios/Naemon versions, read by none.
    {"next_problem_id", k_ignore},
    {"next_notification_id", k_ignore},
};

using CK = CheckableKey;

constexpr KeyName k_host_keys[] = {
    k("host_name", CK::host_name),
    k("modified_attributes", CK::modified_attributes),
    k("check_command", CK::check_command),
    k("check_period", CK::check_period),
    k("notification_period", CK::notification_period),
    k("event_handler", CK::event_handler),
    k("has_been_checked", CK::has_been_checked),
    k("check_execution_time", CK::check_execution_time),
    k("check_latency", CK::check_latency),
    k("check_type", CK::check_type),
    k("current_state", CK::current_state),
    k("last_state", CK::last_state),
    k("last_hard_state", CK::last_hard_state),
    k("last_event_id", CK::last_event_id),
    k("current_event_id", CK::current_event_id),
    k("current_problem_id", CK::current_problem_id),
    k("last_problem_id", CK::last_problem_id),
    k("problem_start", CK::problem_start),
    k("problem_end", CK::problem_end),
    k("plugin_output", CK::plugin_output),
    k("long_plugin_output", CK::long_plugin_output),
    k("performance_data", CK::performance_data),
    k("last_check", CK::last_check),
    k("next_check", CK::next_check),
    k("check_options", CK::check_options),
    k("current_attempt", CK::current_attempt),
    k("max_attempts", CK::max_attempts),
    k("normal_check_interval", CK::normal_check_interval),
    k("retry_check_interval", CK::retry_check_interval),
    k("state_type", CK::state_type),
    k("last_state_change", CK::last_state_change),
    k("last_hard_state_change", CK::last_hard_state_change),
    k("last_time_up", CK::last_time_0),
    k("last_time_down", CK::last_time_1),
    k("last_time_unreachable", CK::last_time_2),
    k("notified_on_down", CK::notified_on_0),
    k("notified_on_unreachable", CK::notified_on_1),
    k("last_notification", CK::last_notification),
    k("current_notification_number", CK::current_notification_number),
    k("current_notification_id", CK::current_notification_id),
    k("config:notifications_enabled", CK::config_flag_0),
    k("notifications_enabled", CK::flag_0),
    k("problem_has_been_acknowledged", CK::problem_has_been_acknowledged),
    k("acknowledgement_type", CK::acknowledgement_type),
    k("acknowledgement_end_time", CK::acknowledgement_end_time),
    k("config:active_checks_enabled", CK::config_flag_1),
    k("active_checks_enabled", CK::flag_1),
    k("config:passive_checks_enabled", CK::config_flag_2),
    k("passive_checks_enabled", CK::flag_2),
    k("config:event_handler_enabled", CK::config_flag_3),
    k("event_handler_enabled", CK::flag_3),
    k("config:flap_detection_enabled", CK::config_flag_4),
    k("flap_detection_enabled", CK::flag_4),
    k("config:process_performance_data", CK::config_flag_5),
    k("process_performance_data", CK::flag_5),
    k("config:obsess", CK::config_flag_6),
    k("obsess", CK::flag_6),
    k("is_flapping", CK::is_flapping),
    k("percent_state_change", CK::percent_state_change),
    k("check_flapping_recovery_notification", CK::check_flapping_recovery_notification),
    k("last_update", CK::last_update),
    k("state_history", CK::state_history),
    // The name older cores wrote; Naemon still reads it.
    k("obsess_over_host", CK::flag_6),
};

constexpr KeyName k_service_keys[] = {
    k("host_name", CK::host_name),
    k("service_description", CK::service_description),
    k("modified_attributes", CK::modified_attributes),
    k("check_command", CK::check_command),
    k("check_period", CK::check_period),
    k("notification_period", CK::notification_period),
    k("event_handler", CK::event_handler),
    k("has_been_checked", CK::has_been_checked),
    k("check_execution_time", CK::check_execution_time),
    k("check_latency", CK::check_latency),
    k("check_type", CK::check_type),
    k("current_state", CK::current_state),
    k("last_state", CK::last_state),
    k("last_hard_state", CK::last_hard_state),
    k("last_event_id", CK::last_event_id),
    k("current_event_id", CK::current_event_id),
    k("current_problem_id", CK::current_problem_id),
    k("last_problem_id", CK::last_problem_id),
    k("problem_start", CK::problem_start),
    k("problem_end", CK::problem_end),
    k("current_attempt", CK::current_attempt),
    k("max_attempts", CK::max_attempts),
    k("normal_check_interval", CK::normal_check_interval),
    k("retry_check_interval", CK::retry_check_interval),
    k("state_type", CK::state_type),
    k("last_state_change", CK::last_state_change),
    k("last_hard_state_change", CK::last_hard_state_change),
    k("last_time_ok", CK::last_time_0),
    k("last_time_warning", CK::last_time_1),
    k("last_time_unknown", CK::last_time_2),
    k("last_time_critical", CK::last_time_3),
    k("plugin_output", CK::plugin_output),
    k("long_plugin_output", CK::long_plugin_output),
    k("performance_data", CK::performance_data),
    k("last_check", CK::last_check),
    k("next_check", CK::next_check),
    k("check_options", CK::check_options),
    k("notified_on_unknown", CK::notified_on_0),
    k("notified_on_warning", CK::notified_on_1),
    k("notified_on_critical", CK::notified_on_2),
    k("current_notification_number", CK::current_notification_number),
    k("current_notification_id", CK::current_notification_id),
    k("last_notification", CK::last_notification),
    k("config:notifications_enabled", CK::config_flag_0),
    k("notifications_enabled", CK::flag_0),
    k("config:active_checks_enabled", CK::config_flag_1),
    k("active_checks_enabled", CK::flag_1),
    k("config:passive_checks_enabled", CK::config_flag_2),
    k("passive_checks_enabled", CK::flag_2),
    k("config:event_handler_enabled", CK::config_flag_3),
    k("event_handler_enabled", CK::flag_3),
    k("problem_has_been_acknowledged", CK::problem_has_been_acknowledged),
    k("acknowledgement_type", CK::acknowledgement_type),
    k("acknowledgement_end_time", CK::acknowledgement_end_time),
    k("config:flap_detection_enabled", CK::config_flag_4),
    k("flap_detection_enabled", CK::flag_4),
    k("config:process_performance_data", CK::config_flag_5),
    k("process_performance_data", CK::flag_5),
    k("config:obsess", CK::config_flag_6),
    k("obsess", CK::flag_6),
    k("last_update", CK::last_update),
    k("is_flapping", CK::is_flapping),
    k("percent_state_change", CK::percent_state_change),
    k("check_flapping_recovery_notification", CK::check_flapping_recovery_notification),
    k("state_history", CK::state_history),
    k("obsess_over_service", CK::flag_6),
};

constexpr KeyName k_contact_keys[] = {
    k("contact_name", ContactKey::contact_name),
    k("modified_attributes", ContactKey::modified_attributes),
    k("modified_host_attributes", ContactKey::modified_host_attributes),
    k("modified_service_attributes", ContactKey::modified_service_attributes),
    k("host_notification_period", ContactKey::host_notification_period),
    k("service_notification_period", ContactKey::service_notification_period),
    k("last_host_notification", ContactKey::last_host_notification),
    k("last_service_notification", ContactKey::last_service_notification),
    k("config:host_notifications_enabled", ContactKey::config_host_notifications_enabled),
    k("host_notifications_enabled", ContactKey::host_notifications_enabled),
    k("config:service_notifications_enabled", ContactKey::config_service_notifications_enabled),
    k("service_notifications_enabled", ContactKey::service_notifications_enabled),
};

constexpr KeyName k_comment_keys[] = {
    k("host_name", CommentKey::host_name),
    k("service_description", CommentKey::service_description),
    k("entry_type", CommentKey::entry_type),
    k("comment_id", CommentKey::comment_id),
    k("source", CommentKey::source),
    k("persistent", CommentKey::persistent),
    k("entry_time", CommentKey::entry_time),
    k("expires", CommentKey::expires),
    k("expire_time", CommentKey::expire_time),
    k("author", CommentKey::author),
    k("comment_data", CommentKey::comment_data),
};

constexpr KeyName k_downtime_keys[] = {
    k("host_name", DowntimeKey::host_name),
    k("service_description", DowntimeKey::service_description),
    k("comment_id", DowntimeKey::comment_id),
    k("downtime_id", DowntimeKey::downtime_id),
    k("entry_time", DowntimeKey::entry_time),
    k("start_time", DowntimeKey::start_time),
    k("flex_downtime_start", DowntimeKey::flex_downtime_start),
    k("end_time", DowntimeKey::end_time),
    k("triggered_by", DowntimeKey::triggered_by),
    k("fixed", DowntimeKey::fixed),
    k("duration", DowntimeKey::duration),
    k("is_in_effect", DowntimeKey::is_in_effect),
    k("start_notification_sent", DowntimeKey::start_notification_sent),
    k("author", DowntimeKey::author),
    k("comment", DowntimeKey::comment),
};

struct BlockSpec {
  std::string_view opener;  // the whole trimmed line
  BlockKind kind;
  std::span<const KeyName> keys;
  bool has_custom_variables;
};

constexpr BlockSpec k_blocks[] = {
    {"info {", BlockKind::info, k_info_keys, false},
    {"program {", BlockKind::program, k_program_keys, false},
    {"host {", BlockKind::host, k_host_keys, true},
    {"service {", BlockKind::service, k_service_keys, true},
    {"contact {", BlockKind::contact, k_contact_keys, true},
    {"hostcomment {", BlockKind::host_comment, k_comment_keys, false},
    {"servicecomment {", BlockKind::service_comment, k_comment_keys, false},
    {"hostdowntime {", BlockKind::host_downtime, k_downtime_keys, false},
    {"servicedowntime {", BlockKind::service_downtime, k_downtime_keys, false},
};

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

class Parser {
 public:
  Parser(const std::function<void(const Block&)>& on_block, std::vector<Warning>& warnings)
      : on_block_(on_block), warnings_(warnings) {}

  void run(std::string_view text) {
    std::uint32_t line_no = 0;
    while (!text.empty()) {
      const void* nl = std::memchr(text.data(), '\n', text.size());
      const std::size_t len = nl == nullptr ? text.size() : static_cast<const char*>(nl) - text.data();
      const std::string_view line = trim(text.substr(0, len));
      text.remove_prefix(nl == nullptr ? len : len + 1);
      ++line_no;
      handle(line, line_no);
    }
    if (spec_ != nullptr) {
      warn(block_.line,
           fmt::format("{} block not closed at the end of the file; ignored", block_name(spec_->kind)));
    }
  }

 private:
  void handle(std::string_view line, std::uint32_t line_no) {
    if (line.empty() || line.front() == '#') return;
    if (line == "}") {
      if (spec_ == nullptr && !skipping_) {
        warn(line_no, "'}' outside a block; ignored");
        return;
      }
      if (spec_ != nullptr) on_block_(block_);
      spec_ = nullptr;
      skipping_ = false;
      return;
    }
    // Naemon recognises a block only by its whole line ("host {"); a value may end in '{'.
    const std::size_t eq = line.find('=');
    if (eq == std::string_view::npos && line.back() == '{') {
      open(line, line_no);
      return;
    }
    if (spec_ == nullptr) {
      if (skipping_) return;
      warn(line_no, "text outside a block; ignored");
      return;
    }
    if (eq == std::string_view::npos) {
      warn(line_no, fmt::format("line without '=' in a {} block; ignored", block_name(spec_->kind)));
      return;
    }
    const std::string_view key = line.substr(0, eq);
    const std::string_view value = line.substr(eq + 1);
    if (spec_->has_custom_variables && !key.empty() && key.front() == '_') {
      block_.custom_variables.push_back({key.substr(1), value});
      return;
    }
    const std::uint8_t id = lookup(key);
    if (id == k_unknown) {
      warn(line_no,
           fmt::format("unknown variable '{}' in a {} block; ignored", key, block_name(spec_->kind)));
      return;
    }
    if (id != k_ignore) block_.values[id] = value;
  }

  void open(std::string_view line, std::uint32_t line_no) {
    if (spec_ != nullptr) {
      warn(block_.line,
           fmt::format("{} block not closed before line {}; ignored", block_name(spec_->kind), line_no));
      spec_ = nullptr;
    }
    skipping_ = false;
    for (const BlockSpec& spec : k_blocks) {
      if (line != spec.opener) continue;
      spec_ = &spec;
      cursor_ = 0;
      block_.kind = spec.kind;
      block_.line = line_no;
      block_.values.fill({});
      block_.custom_variables.clear();
      return;
    }
    // Naemon skips a block it does not know; so do we, but say so.
    skipping_ = true;
    warn(line_no, fmt::format("unknown block '{}'; ignored", trim(line.substr(0, line.size() - 1))));
  }

  // Files written by Naemon or Vedette list a block's keys in table order, so the entry after the last match
  // is tried first: one comparison per line instead of a search.
  std::uint8_t lookup(std::string_view key) {
    const std::span<const KeyName> keys = spec_->keys;
    if (cursor_ < keys.size() && keys[cursor_].name == key) return keys[cursor_++].key;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (keys[i].name != key) continue;
      cursor_ = i + 1;
      return keys[i].key;
    }
    return k_unknown;
  }

  void warn(std::uint32_t line, std::string message) { warnings_.push_back({line, std::move(message)}); }

  static constexpr std::uint8_t k_unknown = 0xfe;

  const std::function<void(const Block&)>& on_block_;
  std::vector<Warning>& warnings_;
  const BlockSpec* spec_ = nullptr;  // the open block, if any
  bool skipping_ = false;            // inside an unknown block
  std::size_t cursor_ = 0;
  Block block_;
};

}  // namespace

std::string_view block_name(BlockKind kind) {
  switch (kind) {
    case BlockKind::info:
      return "info";
    case BlockKind::program:
      return "program";
    case BlockKind::host:
      return "host";
    case BlockKind::service:
      return "service";
    case BlockKind::contact:
      return "contact";
    case BlockKind::host_comment:
      return "hostcomment";
    case BlockKind::service_comment:
      return "servicecomment";
    case BlockKind::host_downtime:
      return "hostdowntime";
    case BlockKind::service_downtime:
      return "servicedowntime";
  }
  return "unknown";
}

std::string format_warning(std::string_view path, const Warning& w) {
  return fmt::format("{}:{}: {}", path, w.line, w.message);
}

void parse(std::string_view text, const std::function<void(const Block&)>& on_block,
           std::vector<Warning>& warnings) {
  Parser(on_block, warnings).run(text);
}

namespace {

void collect(std::string_view text, Data& data) {
  parse(
      text, [&](const Block& b) { data.blocks.push_back(b); }, data.warnings);
}

}  // namespace

Data parse_text(std::string text) {
  Data data;
  data.owned_ = std::make_unique<std::string>(std::move(text));
  collect(*data.owned_, data);
  return data;
}

Data read_file(const std::string& path, std::uint64_t max_size) {
  Data data;
  if (!data.mapped_.open(path, max_size)) {
    const int error = errno;
    data.status = error == ENOENT ? Data::Status::missing : Data::Status::error;
    data.error = data.mapped_.failure();
    return data;
  }
  collect(data.mapped_.text(), data);
  return data;
}

}  // namespace vedette::retention
