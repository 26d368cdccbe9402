#include "livestatus/log_entry.hpp"

#include "livestatus/text_internal.hpp"

#include <utility>

namespace vedette::livestatus {
namespace {

// A field of a line, or none: the module's null pointer, which some of its readings tell from "".
struct Token {
  std::string_view text;
  bool present = false;
};

// The rest of a message, split as the module's next_token() splits it: a token ends at the delimiter or
// the end; at the end there is no token (null), and a token ending at a delimiter leaves an empty rest.
class Scanner {
 public:
  explicit Scanner(std::string_view rest) : rest_(rest) {}
  Token next(char delim) {
    if (rest_.empty()) return {};
    const std::size_t end = rest_.find(delim);
    const std::string_view token = rest_.substr(0, end);
    rest_.remove_prefix(end == std::string_view::npos ? rest_.size() : end + 1);
    return Token{.text = token, .present = true};
  }
  // save_next_token(): "" instead of null.
  Token next_or_empty(char delim) { return Token{.text = next(delim).text, .present = true}; }

 private:
  std::string_view rest_;
};

// The module's serviceStateToInt(): by the last letter, before a closing parenthesis ("CUSTOM (OK)").
int service_state(Token s) {
  if (!s.present) return 3;
  std::string_view t = s.text;
  if (t.empty()) return 3;
  if (t.back() == ')') t.remove_suffix(1);
  switch (t.empty() ? '\0' : t.back()) {
    case 'K':  // OK
    case 'Y':  // RECOVERY
      return 0;
    case 'G':  // WARNING
      return 1;
    case 'L':  // CRITICAL
      return 2;
    case 'N':  // UNKNOWN
      return 3;
    default:
      return 4;
  }
}

// hostStateToInt(): as above, and 2 for a missing field (the module's choice).
int host_state(Token s) {
  if (!s.present) return 2;
  std::string_view t = s.text;
  if (t.empty()) return 3;
  if (t.back() == ')') t.remove_suffix(1);
  switch (t.empty() ? '\0' : t.back()) {
    case 'P':  // UP
    case 'Y':  // RECOVERY
      return 0;
    case 'N':  // DOWN
      return 1;
    case 'E':  // UNREACHABLE
      return 2;
    default:
      return 3;
  }
}

class Parser {
 public:
  Parser(std::string_view line, LogEntry& e) : line_(line), e_(e) {}

  bool run() {
    e_.size = static_cast<std::uint16_t>(line_.size());
    // options: after the first ':' of the whole line and the blanks after it (computed before validation).
    const std::size_t colon = line_.find(':');
    if (colon != std::string_view::npos) {
      std::size_t at = colon + 1;
      while (at < line_.size() && line_[at] == ' ') ++at;
      e_.options = field(line_.substr(at));
    }
    if (line_.size() < 13 || line_[0] != '[' || line_[11] != ']') return false;
    e_.time = parse_int(line_.substr(1, 10));
    text_ = line_.substr(13);
    e_.type_text = field(text_);
    if (status() || notification() || passive_check() || external_command() || note()) return true;
    if (!text_entry()) (void)program_entry();
    return true;
  }

 private:
  LogField field(std::string_view piece) const {
    if (piece.empty()) return {};
    return LogField{static_cast<std::uint16_t>(piece.data() - line_.data()),
                    static_cast<std::uint16_t>(piece.size())};
  }
  LogField field(Token t) const { return field(t.text); }

  // A message "PREFIX: fields": the `type` is the text before the colon, the fields follow ": ".
  bool starts(std::string_view prefix) const { return text_.starts_with(prefix); }
  Scanner fields(std::string_view prefix) {
    e_.type_text = field(text_.substr(0, prefix.size() - 2));
    return Scanner(text_.substr(prefix.size()));
  }
  void classify(LogClass c, LogType t) {
    e_.log_class = c;
    e_.type = t;
  }

  bool status() {
    if (starts("INITIAL HOST STATE: ") || starts("CURRENT HOST STATE: ") || starts("HOST ALERT: ")) {
      if (text_[0] == 'H') {
        classify(LogClass::alert, LogType::alert_host);
      } else {
        classify(LogClass::state, text_[0] == 'I' ? LogType::state_host_initial : LogType::state_host);
      }
      Scanner s = fields(text_[0] == 'H' ? "HOST ALERT: " : "INITIAL HOST STATE: ");
      e_.host_name = field(s.next(';'));
      e_.state = host_state(s.next_or_empty(';'));
      e_.state_type = field(s.next(';'));
      e_.attempt = parse_int(s.next_or_empty(';').text);
      e_.plugin_output = field(s.next(';'));
      return true;
    }
    if (starts("HOST DOWNTIME ALERT: ") || starts("HOST FLAPPING ALERT: ")) {
      const bool downtime = text_[5] == 'D';
      classify(LogClass::alert, downtime ? LogType::downtime_alert_host : LogType::flapping_host);
      Scanner s = fields("HOST DOWNTIME ALERT: ");
      e_.host_name = field(s.next(';'));
      e_.state_type = field(s.next(';'));
      e_.comment = field(s.next(';'));
      return true;
    }
    if (starts("HOST ACKNOWLEDGE ALERT: ")) {
      classify(LogClass::alert, LogType::acknowledge_alert_host);
      Scanner s = fields("HOST ACKNOWLEDGE ALERT: ");
      e_.host_name = field(s.next(';'));
      e_.state_type = field(s.next(';'));
      e_.contact_name = field(s.next(';'));
      e_.comment = field(s.next(';'));
      return true;
    }
    if (starts("HOST NOTIFICATION SUPPRESSED: ") || starts("HOST INFO: ")) {
      classify(LogClass::info, LogType::none);
      Scanner s = fields(text_[5] == 'N' ? "HOST NOTIFICATION SUPPRESSED: " : "HOST INFO: ");
      e_.host_name = field(s.next(';'));
      e_.comment = field(s.next(';'));
      return true;
    }
    if (starts("INITIAL SERVICE STATE: ") || starts("CURRENT SERVICE STATE: ") || starts("SERVICE ALERT: ")) {
      if (text_[0] == 'S') {
        classify(LogClass::alert, LogType::alert_service);
      } else {
        classify(LogClass::state, text_[0] == 'I' ? LogType::state_service_initial : LogType::state_service);
      }
      Scanner s = fields(text_[0] == 'S' ? "SERVICE ALERT: " : "INITIAL SERVICE STATE: ");
      e_.host_name = field(s.next(';'));
      e_.service_description = field(s.next(';'));
      e_.state = service_state(s.next_or_empty(';'));
      e_.state_type = field(s.next(';'));
      e_.attempt = parse_int(s.next_or_empty(';').text);
      e_.plugin_output = field(s.next(';'));
      return true;
    }
    if (starts("SERVICE DOWNTIME ALERT: ") || starts("SERVICE FLAPPING ALERT: ")) {
      const bool downtime = text_[8] == 'D';
      classify(LogClass::alert, downtime ? LogType::downtime_alert_service : LogType::flapping_service);
      Scanner s = fields("SERVICE DOWNTIME ALERT: ");
      e_.host_name = field(s.next(';'));
      e_.service_description = field(s.next(';'));
      e_.state_type = field(s.next(';'));
      e_.comment = field(s.next(';'));
      return true;
    }
    if (starts("SERVICE ACKNOWLEDGE ALERT: ")) {
      classify(LogClass::alert, LogType::acknowledge_alert_service);
      Scanner s = fields("SERVICE ACKNOWLEDGE ALERT: ");
      e_.host_name = field(s.next(';'));
      e_.service_description = field(s.next(';'));
      e_.state_type = field(s.next(';'));
      e_.contact_name = field(s.next(';'));
      e_.comment = field(s.next(';'));
      return true;
    }
    if (starts("SERVICE NOTIFICATION SUPPRESSED: ") || starts("SERVICE INFO: ")) {
      classify(LogClass::info, LogType::none);
      Scanner s = fields(text_[8] == 'N' ? "SERVICE NOTIFICATION SUPPRESSED: " : "SERVICE INFO: ");
      e_.host_name = field(s.next(';'));
      e_.service_description = field(s.next(';'));
      e_.comment = field(s.next(';'));
      return true;
    }
    if (starts("TIMEPERIOD TRANSITION: ")) {
      // Not split: the type is the whole message.
      classify(LogClass::state, LogType::timeperiod_transition);
      return true;
    }
    return false;
  }

  // HOST NOTIFICATION: contact;host;state;command;output[;author;comment]. CUSTOM and ACKNOWLEDGEMENT
  // notifications of some cores swap state and command; the module tells them by a state it cannot read.
  bool notification() {
    const bool service = starts("SERVICE NOTIFICATION: ");
    if (!service && !starts("HOST NOTIFICATION: ")) return false;
    e_.log_class = LogClass::notification;
    Scanner s = fields(service ? "SERVICE NOTIFICATION: " : "HOST NOTIFICATION: ");
    e_.contact_name = field(s.next(';'));
    e_.host_name = field(s.next(';'));
    if (service) e_.service_description = field(s.next(';'));
    Token state_type = s.next_or_empty(';');
    Token command = s.next(';');
    const auto state_of = [&](Token t) { return service ? service_state(t) : host_state(t); };
    e_.state = state_of(state_type);
    if (e_.state == (service ? 4 : 3)) {
      std::swap(state_type, command);
      e_.state = state_of(state_type);
    }
    e_.state_type = field(state_type);
    e_.command_name = field(command);
    e_.plugin_output = field(s.next(';'));
    return true;
  }

  bool passive_check() {
    const bool service = starts("PASSIVE SERVICE CHECK: ");
    if (!service && !starts("PASSIVE HOST CHECK: ")) return false;
    e_.log_class = LogClass::passive;
    Scanner s = fields(service ? "PASSIVE SERVICE CHECK: " : "PASSIVE HOST CHECK: ");
    e_.host_name = field(s.next(';'));
    if (service) e_.service_description = field(s.next(';'));
    e_.state = parse_int(s.next_or_empty(';').text);
    e_.plugin_output = field(s.next(';'));
    return true;
  }

  // The object of a command, by its name: *_HOST* (not *_HOSTGROUP*) names a host, *_SVC* a host and a
  // service. PROCESS_SERVICE_CHECK_RESULT says neither, so the module gives its line no host.
  bool external_command() {
    if (!starts("EXTERNAL COMMAND: ")) return false;
    e_.log_class = LogClass::command;
    Scanner s = fields("EXTERNAL COMMAND: ");
    const Token command = s.next(';');
    if (!command.present) return true;
    if (command.text.find("_HOST") != std::string_view::npos &&
        command.text.find("_HOSTGROUP") == std::string_view::npos) {
      e_.host_name = field(s.next(';'));
    } else if (command.text.find("_SVC") != std::string_view::npos) {
      e_.host_name = field(s.next(';'));
      e_.service_description = field(s.next(';'));
    }
    return true;
  }

  bool note() {
    const bool service = starts("SERVICE NOTE: ");
    if (!service && !starts("HOST NOTE: ")) return false;
    e_.log_class = LogClass::info;
    Scanner s = fields(service ? "SERVICE NOTE: " : "HOST NOTE: ");
    e_.host_name = field(s.next(';'));
    if (service) e_.service_description = field(s.next(';'));
    return true;
  }

  bool text_entry() {
    if (starts("LOG VERSION: 2.0")) {
      classify(LogClass::program, LogType::log_version);
      return true;
    }
    if (starts("logging initial states") || starts("logging intitial states")) {
      classify(LogClass::program, LogType::log_initial_states);
      return true;
    }
    return false;
  }

  // Anywhere in the message, as the module's strstr(); "restarting..." contains "starting...".
  bool program_entry() {
    const auto has = [&](std::string_view s) { return text_.find(s) != std::string_view::npos; };
    if (has("starting...") || has("shutting down...") || has("Bailing out") || has("standby mode...")) {
      classify(LogClass::program, LogType::core_stopping);
      return true;
    }
    if (has("restarting...")) {
      e_.log_class = LogClass::program;
      return true;
    }
    return false;
  }

  std::string_view line_;
  std::string_view text_;  // after "[time] "
  LogEntry& e_;
};

}  // namespace

bool parse_log_line(std::string_view line, LogEntry& out) {
  out = LogEntry{};
  if (line.size() > k_max_log_line) line = line.substr(0, k_max_log_line);
  return Parser(line, out).run();
}

}  // namespace vedette::livestatus
