#include "config/main_config.hpp"

#include "config/mapped_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>

namespace vedette::config {
namespace {

// Naemon refuses these path options when the value is MAX_FILENAME_LENGTH (256) characters or longer.
constexpr std::size_t k_max_path_length = 255;
// Naemon's BROKER_EVERYTHING, what event_broker_options=-1 stands for.
constexpr unsigned long k_broker_everything = 1048575;
// Naemon has no guard against include cycles beyond its duplicate check; this one is ours.
constexpr int k_max_include_depth = 32;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

std::string_view strip(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// Collapses ".", ".." and repeated or trailing slashes, as Naemon's nspath_normalize does for absolute paths.
std::string normalize_absolute(std::string_view path) {
  std::vector<std::string_view> parts;
  while (!path.empty()) {
    const std::size_t slash = path.find('/');
    const std::string_view part = path.substr(0, slash);
    path = slash == std::string_view::npos ? std::string_view{} : path.substr(slash + 1);
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  std::string out;
  for (const std::string_view part : parts) {
    out += '/';
    out += part;
  }
  return out.empty() ? "/" : out;
}

std::string current_directory() {
  std::string buf(PATH_MAX, '\0');
  if (::getcwd(buf.data(), buf.size()) == nullptr) return "/";
  buf.resize(std::strlen(buf.c_str()));
  return buf;
}

// Naemon's nspath_absolute: absolute paths are kept, relative ones are joined to `base`.
std::string absolute_path(std::string_view path, std::string_view base) {
  if (!path.empty() && path.front() == '/') return normalize_absolute(path);
  return normalize_absolute(fmt::format("{}/{}", base, path));
}

std::string directory_of(const std::string& absolute) {
  const std::size_t slash = absolute.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : absolute.substr(0, slash);
}

struct LogicalLine {
  std::string text;
  std::uint32_t line;  // first physical line
};

// Joins backslash-continued lines the way Naemon's mmap_fgets_multiline does: a trailing "\" continues
// (the next line's leading blanks dropped), a trailing "\\" ends the line with one backslash.
std::vector<LogicalLine> split_lines(std::string_view content) {
  std::vector<LogicalLine> lines;
  std::uint32_t number = 0;
  bool continuing = false;
  while (!content.empty()) {
    std::size_t nl = content.find('\n');
    std::string_view physical = content.substr(0, nl);
    content = nl == std::string_view::npos ? std::string_view{} : content.substr(nl + 1);
    ++number;
    if (!physical.empty() && physical.back() == '\r') physical.remove_suffix(1);
    if (continuing) {
      while (!physical.empty() && (physical.front() == ' ' || physical.front() == '\t'))
        physical.remove_prefix(1);
      lines.back().text += physical;
    } else {
      lines.push_back({std::string(physical), number});
    }
    std::string& text = lines.back().text;
    continuing = false;
    if (text.size() >= 2 && text.ends_with("\\\\")) {
      text.pop_back();
    } else if (!text.empty() && text.back() == '\\') {
      text.pop_back();
      continuing = true;
    }
  }
  return lines;
}

bool is_comment_or_blank(std::string_view line) {
  return line.empty() || line.front() == '#' || line.front() == ';';
}

std::string error_text(int error) {
  return std::strerror(error);
}

class Loader;

// One option=value line, handed to the option's handler.
struct Directive {
  Loader& loader;
  MainConfig& cfg;
  std::string_view name;
  std::string value;
  SourcePos at;

  void invalid(std::string_view expected);
  void boolean(bool& out);
  void integer(int& out, int min = INT_MIN, int max = INT_MAX);
  void integer_above(int& out, int bound);  // strictly greater than bound
  void unsigned_long(unsigned long& out);
  // A number between two bounds, each excluded unless said.
  struct Range {
    double low = 0;
    bool low_inclusive = false;
    double high = 0;
    bool high_inclusive = false;
  };
  void real(double& out, Range range);
  void text(std::string& out) { out = value; }
  enum class Length { any, limited };  // limited: at most k_max_path_length, as Naemon's fixed buffers
  void path(std::string& out, Length length = Length::any);
  // For options Naemon ignores: parsed as atoi() would, never an error.
  void lenient_bool(bool& out) { out = std::atoi(value.c_str()) > 0; }
  void lenient_int(int& out) { out = std::atoi(value.c_str()); }
};

using Handler = void (*)(Directive&);
const std::unordered_map<std::string_view, Handler>& handlers();

class Loader {
 public:
  Loader(MainConfig& cfg, SourceFiles& files, Diagnostics& diags) : cfg_(cfg), files_(files), diags_(diags) {}

  void load(const std::string& path) {
    cfg_.main_config_file = absolute_path(path, current_directory());
    cfg_.config_rel_path = directory_of(cfg_.main_config_file);
    included_files_.push_back(cfg_.main_config_file);
    MappedFile file;
    if (!file.open(cfg_.main_config_file)) {
      diags_.error(fmt::format("cannot open main configuration file '{}' for reading: {}",
                               cfg_.main_config_file, file.failure()));
      return;
    }
    parse_config(files_.add(cfg_.main_config_file), file.text());
    finish();
  }

  void error(SourcePos at, std::string message) { diags_.error(std::move(message), at, PosKind::line); }
  void warning(SourcePos at, std::string message) { diags_.warning(std::move(message), at, PosKind::line); }

  const std::string& rel_path() const { return cfg_.config_rel_path; }

  void add_object_source(MainConfig::ObjectSource::Kind kind, const Directive& d) {
    const bool want_dir = kind == MainConfig::ObjectSource::Kind::dir;
    std::string path = absolute_path(d.value, cfg_.config_rel_path);
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      error(d.at, fmt::format("cannot open {} '{}': {}", d.name, path, error_text(errno)));
      return;
    }
    if (want_dir && !S_ISDIR(st.st_mode)) {
      error(d.at, fmt::format("{} '{}' is not a directory", d.name, path));
      return;
    }
    if (!want_dir && !S_ISREG(st.st_mode)) {
      error(d.at, fmt::format("{} '{}' is not a regular file", d.name, path));
      return;
    }
    if (::access(path.c_str(), want_dir ? (R_OK | X_OK) : R_OK) != 0) {
      error(d.at, fmt::format("cannot read {} '{}': {}", d.name, path, error_text(errno)));
      return;
    }
    cfg_.object_sources.push_back({kind, std::move(path), d.at});
  }

  void include_file(const Directive& d) {
    const std::string path = absolute_path(d.value, cfg_.config_rel_path);
    if (std::find(included_files_.begin(), included_files_.end(), path) != included_files_.end()) {
      error(d.at, fmt::format("file '{}' is included more than once", path));
      return;
    }
    included_files_.push_back(path);
    read_included(path, d);
  }

  // Naemon reads the *.cfg files of the directory (not its subdirectories), skipping hidden ones. It takes
  // them in readdir order; we sort them so that a load is reproducible.
  void include_dir(const Directive& d) {
    const std::string dir = absolute_path(d.value, cfg_.config_rel_path);
    if (std::find(included_dirs_.begin(), included_dirs_.end(), dir) != included_dirs_.end()) {
      error(d.at, fmt::format("directory '{}' is included more than once", dir));
      return;
    }
    included_dirs_.push_back(dir);
    DIR* dirp = ::opendir(dir.c_str());
    if (dirp == nullptr) {
      error(d.at, fmt::format("cannot open include_dir '{}': {}", dir, error_text(errno)));
      return;
    }
    std::vector<std::string> names;
    while (const dirent* entry = ::readdir(dirp)) {
      const std::string_view name = entry->d_name;
      if (name.front() == '.' || name.size() <= 4 || !name.ends_with(".cfg")) continue;
      names.emplace_back(name);
    }
    ::closedir(dirp);
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      const std::string path = dir + "/" + name;
      struct stat st {};
      if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) continue;
      read_included(path, d);
    }
  }

  void read_resource_file(const Directive& d) {
    const std::string path = absolute_path(d.value, cfg_.config_rel_path);
    cfg_.resource_files.push_back(path);
    MappedFile mapped;
    if (!mapped.open(path)) {
      error(d.at, fmt::format("cannot open resource file '{}' for reading: {}", path, mapped.failure()));
      return;
    }
    const std::string* file = files_.add(path);
    for (const LogicalLine& line : split_lines(mapped.text())) {
      const std::string_view text = strip(line.text);
      if (is_comment_or_blank(text)) continue;
      const SourcePos at{file, line.line};
      const std::size_t eq = text.find('=');
      if (eq == std::string_view::npos) {
        error(at, fmt::format("expected $USERn$=value, got '{}'", text));
        continue;
      }
      const std::string_view name = strip(text.substr(0, eq));
      // Naemon keeps the value verbatim after '=' (only the line's ends are stripped).
      const std::string_view value = text.substr(eq + 1);
      if (value.empty()) {
        error(at, fmt::format("missing value for '{}'", name));
        continue;
      }
      set_user_macro(name, value, at);
    }
  }

 private:
  void set_user_macro(std::string_view name, std::string_view value, SourcePos at) {
    // Naemon silently ignores anything but $USERn$; we say so, but do not refuse what Naemon accepts.
    if (!name.starts_with("$USER")) {
      warning(at, fmt::format("ignoring '{}': resource files define only $USER1$ to $USER256$", name));
      return;
    }
    const std::string_view digits =
        name.ends_with('$') && name.size() > 6 ? name.substr(5, name.size() - 6) : std::string_view{};
    unsigned n = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size() || n < 1 ||
        n > cfg_.user_macros.size()) {
      error(at, fmt::format("invalid macro name '{}': expected $USER1$ to $USER256$", name));
      return;
    }
    cfg_.user_macros[n - 1] = value;
  }

  void read_included(const std::string& path, const Directive& d) {
    if (depth_ >= k_max_include_depth) {
      error(d.at, fmt::format("includes nested deeper than {} levels at '{}'", k_max_include_depth, path));
      return;
    }
    MappedFile file;
    if (!file.open(path)) {
      error(d.at, fmt::format("cannot open {} '{}' for reading: {}", d.name, path, file.failure()));
      return;
    }
    ++depth_;
    parse_config(files_.add(path), file.text());
    --depth_;
  }

  void parse_config(const std::string* file, std::string_view content) {
    for (const LogicalLine& line : split_lines(content)) {
      const std::string_view text = strip(line.text);
      if (is_comment_or_blank(text)) continue;
      const SourcePos at{file, line.line};
      const std::size_t eq = text.find('=');
      if (eq == std::string_view::npos) {
        error(at, fmt::format("expected option=value, got '{}'", text));
        continue;
      }
      const std::string_view name = strip(text.substr(0, eq));
      const std::string_view value = strip(text.substr(eq + 1));
      if (value.empty()) {
        error(at, fmt::format("missing value for option '{}'", name));
        continue;
      }
      const auto& table = handlers();
      if (const auto it = table.find(name); it != table.end()) {
        Directive d{*this, cfg_, it->first, std::string(value), at};
        it->second(d);
        continue;
      }
      if (std::string problem;
          apply_perfdata_writer_option(cfg_.perfdata_writers, name, value, at, problem)) {
        if (!problem.empty()) error(at, std::move(problem));
        continue;
      }
      // Naemon skips every option starting with 'x' as data for external add-ons.
      if (name.starts_with('x')) continue;
      // Naemon's UNKNOWN VARIABLE: a misspelt option must not leave its feature at the default unnoticed.
      error(at, fmt::format("unknown option '{}'", name));
    }
  }

  // Naemon settles temp_file once temp_path is known: "./x" is relative to config_rel_path, a bare name
  // lives in temp_path.
  void finish() {
    if (cfg_.temp_file.starts_with('.')) {
      cfg_.temp_file = absolute_path(cfg_.temp_file, cfg_.config_rel_path);
    } else if (!cfg_.temp_file.starts_with('/')) {
      cfg_.temp_file = absolute_path(cfg_.temp_file, cfg_.temp_path);
    }
    // The perfdata writers' options that depend on each other, once all are read.
    for (auto& [at, problem] : check_perfdata_writers(cfg_.perfdata_writers)) error(at, std::move(problem));
  }

  MainConfig& cfg_;
  SourceFiles& files_;
  Diagnostics& diags_;
  std::vector<std::string> included_files_;
  std::vector<std::string> included_dirs_;
  int depth_ = 0;
};

void Directive::invalid(std::string_view expected) {
  loader.error(at, fmt::format("invalid value '{}' for option '{}': expected {}", value, name, expected));
}

// Naemon is strict ("0" or "1") for some booleans and takes atoi() > 0 for others; we are strict for all,
// so that "yes" does not silently mean "no".
void Directive::boolean(bool& out) {
  if (value == "0" || value == "1") {
    out = value == "1";
    return;
  }
  invalid("0 or 1");
}

bool parse_int(std::string_view s, long long& out) {
  if (s.starts_with('+')) s.remove_prefix(1);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return !s.empty() && ec == std::errc{} && end == s.data() + s.size();
}

void Directive::integer(int& out, int min, int max) {
  long long v = 0;
  if (parse_int(value, v) && v >= min && v <= max) {
    out = static_cast<int>(v);
    return;
  }
  if (min == INT_MIN && max == INT_MAX) return invalid("an integer");
  if (max == INT_MAX) return invalid(fmt::format("an integer >= {}", min));
  invalid(fmt::format("an integer from {} to {}", min, max));
}

void Directive::integer_above(int& out, int bound) {
  long long v = 0;
  if (parse_int(value, v) && v > bound && v <= INT_MAX) {
    out = static_cast<int>(v);
    return;
  }
  invalid(fmt::format("an integer > {}", bound));
}

// strtoul(value, NULL, 0) in Naemon: decimal, 0x hexadecimal or 0 octal.
void Directive::unsigned_long(unsigned long& out) {
  std::string_view s = value;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  } else if (s.size() > 1 && s[0] == '0') {
    base = 8;
    s.remove_prefix(1);
  }
  unsigned long v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (!s.empty() && ec == std::errc{} && end == s.data() + s.size()) {
    out = v;
    return;
  }
  invalid("a non-negative integer");
}

void Directive::real(double& out, Range range) {
  const auto [low, low_inclusive, high, high_inclusive] = range;
  double v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  const bool parsed = ec == std::errc{} && end == value.data() + value.size();
  const bool above = low_inclusive ? v >= low : v > low;
  const bool below = high_inclusive ? v <= high : v < high;
  if (parsed && above && below) {
    out = v;
    return;
  }
  invalid(fmt::format("a number {} {} and {} {}", low_inclusive ? ">=" : ">", low,
                      high_inclusive ? "<=" : "<", high));
}

void Directive::path(std::string& out, Length length) {
  if (length == Length::limited && value.size() > k_max_path_length) {
    loader.error(at, fmt::format("value of option '{}' is too long ({} characters, at most {})", name,
                                 value.size(), k_max_path_length));
    return;
  }
  out = absolute_path(value, loader.rel_path());
}

void set_date_format(Directive& d) {
  // Naemon takes anything unrecognised as "us"; we do the same but say so.
  if (d.value == "euro") {
    d.cfg.date_format = DateFormat::euro;
  } else if (d.value == "iso8601") {
    d.cfg.date_format = DateFormat::iso8601;
  } else if (d.value == "strict-iso8601") {
    d.cfg.date_format = DateFormat::strict_iso8601;
  } else {
    d.cfg.date_format = DateFormat::us;
    if (d.value != "us")
      d.loader.warning(d.at, fmt::format("unknown date_format '{}', using 'us' (as Naemon does)", d.value));
  }
}

void set_object_cache_format(Directive& d) {
  if (d.value == "naemon") {
    d.cfg.object_cache_format = ObjectCacheFormat::naemon;
  } else if (d.value == "nagios") {
    d.cfg.object_cache_format = ObjectCacheFormat::nagios;
  } else {
    d.invalid("naemon or nagios");
  }
}

// host:port with a port from 1 to 65535; the host a name, an IPv4 address, an [IPv6] one, or empty (every
// address). Whether it can be listened on is seen at start, as for livestatus_listen.
void set_metrics_listen(Directive& d) {
  const std::string_view v = d.value;
  const std::size_t colon = v.rfind(':');
  const std::string_view host = colon == std::string_view::npos ? v : v.substr(0, colon);
  const std::string_view port = colon == std::string_view::npos ? std::string_view() : v.substr(colon + 1);
  int port_number = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), port_number);
  const bool bracketed = host.size() >= 2 && host.front() == '[' && host.back() == ']';
  if (v.empty()) {
    d.cfg.metrics_listen.clear();
  } else if (port.empty() || ec != std::errc{} || end != port.data() + port.size() || port_number < 1 ||
             port_number > 65535 || (!bracketed && host.find_first_of(":[]") != std::string_view::npos) ||
             host.find_first_of(" \t/") != std::string_view::npos) {
    d.invalid("host:port (such as 127.0.0.1:9645 or [::1]:9645) with a port from 1 to 65535");
  } else {
    d.cfg.metrics_listen = d.value;
  }
}

void set_timeout_state(Directive& d) {
  static constexpr std::string_view letters = "owcu";
  const std::size_t state = d.value.size() == 1 ? letters.find(d.value[0]) : std::string_view::npos;
  if (state == std::string_view::npos) return d.invalid("one of o, w, c, u");
  d.cfg.service_check_timeout_state = static_cast<int>(state);
}

// Naemon: a 'p' anywhere means pipe, else a 'w' means truncate, anything else appends.
PerfdataFileMode perfdata_mode(std::string_view value) {
  if (value.find('p') != std::string_view::npos) return PerfdataFileMode::pipe;
  if (value.find('w') != std::string_view::npos) return PerfdataFileMode::write;
  return PerfdataFileMode::append;
}

void set_broker_options(Directive& d) {
  if (d.value == "-1") {
    d.cfg.event_broker_options = k_broker_everything;
    return;
  }
  d.unsigned_long(d.cfg.event_broker_options);
}

// Naemon splits at the first blank: the module path, then its arguments.
void add_broker_module(Directive& d) {
  const std::string_view value = d.value;
  const std::size_t blank = value.find_first_of(" \t");
  const std::string_view module = value.substr(0, blank);
  const std::string_view args =
      blank == std::string_view::npos ? std::string_view{} : strip(value.substr(blank));
  d.cfg.broker_modules.push_back({absolute_path(module, d.loader.rel_path()), std::string(args), d.at});
}

void set_log_rotation_method(Directive& d) {
  if (d.value.size() == 1 && std::string_view("nhdwm").find(d.value[0]) != std::string_view::npos)
    d.cfg.log_rotation_method = d.value[0];
}

void set_sleep_time(Directive& d) {
  double v = 0;
  const auto [end, ec] = std::from_chars(d.value.data(), d.value.data() + d.value.size(), v);
  if (ec == std::errc{}) d.cfg.sleep_time = v;
}

using D = Directive;

const std::unordered_map<std::string_view, Handler>& handlers() {
  static const std::unordered_map<std::string_view, Handler> table = {
      // Where things come from.
      {"resource_file", [](D& d) { d.loader.read_resource_file(d); }},
      {"config_rel_path", [](D& d) { d.cfg.config_rel_path = absolute_path(d.value, current_directory()); }},
      {"cfg_file", [](D& d) { d.loader.add_object_source(MainConfig::ObjectSource::Kind::file, d); }},
      {"cfg_dir", [](D& d) { d.loader.add_object_source(MainConfig::ObjectSource::Kind::dir, d); }},
      {"include_file", [](D& d) { d.loader.include_file(d); }},
      {"include_dir", [](D& d) { d.loader.include_dir(d); }},
      {"broker_module", add_broker_module},

      // Files and paths.
      {"log_file", [](D& d) { d.path(d.cfg.log_file, D::Length::limited); }},
      {"log_archive_path", [](D& d) { d.path(d.cfg.log_archive_path, D::Length::limited); }},
      {"debug_file", [](D& d) { d.path(d.cfg.debug_file, D::Length::limited); }},
      {"command_file", [](D& d) { d.path(d.cfg.command_file, D::Length::limited); }},
      {"query_socket", [](D& d) { d.path(d.cfg.query_socket); }},
      {"status_file", [](D& d) { d.path(d.cfg.status_file); }},
      {"state_retention_file", [](D& d) { d.path(d.cfg.state_retention_file); }},
      {"object_cache_file", [](D& d) { d.path(d.cfg.object_cache_file); }},
      {"object_cache_format", set_object_cache_format},
      {"precached_object_file", [](D& d) { d.path(d.cfg.precached_object_file); }},
      {"lock_file", [](D& d) { d.path(d.cfg.lock_file, D::Length::limited); }},
      {"temp_path", [](D& d) { d.path(d.cfg.temp_path); }},
      {"temp_file", [](D& d) { d.text(d.cfg.temp_file); }},  // settled after the whole file is read
      {"check_result_path", [](D& d) { d.path(d.cfg.check_result_path, D::Length::limited); }},
      {"livestatus_socket", [](D& d) { d.path(d.cfg.livestatus_socket); }},
      {"livestatus_listen", [](D& d) { d.text(d.cfg.livestatus_listen); }},
      {"gearman_options", [](D& d) { d.text(d.cfg.gearman_options); }},
      {"metrics_listen", set_metrics_listen},

      // Logging.
      {"use_syslog", [](D& d) { d.boolean(d.cfg.use_syslog); }},
      {"log_notifications", [](D& d) { d.boolean(d.cfg.log_notifications); }},
      {"enable_notification_suppression_reason_logging",
       [](D& d) { d.boolean(d.cfg.enable_notification_suppression_reason_logging); }},
      {"log_service_retries", [](D& d) { d.boolean(d.cfg.log_service_retries); }},
      {"log_host_retries", [](D& d) { d.boolean(d.cfg.log_host_retries); }},
      {"log_event_handlers", [](D& d) { d.boolean(d.cfg.log_event_handlers); }},
      {"log_external_commands", [](D& d) { d.boolean(d.cfg.log_external_commands); }},
      {"log_passive_checks", [](D& d) { d.boolean(d.cfg.log_passive_checks); }},
      {"log_initial_states", [](D& d) { d.boolean(d.cfg.log_initial_states); }},
      {"log_current_states", [](D& d) { d.boolean(d.cfg.log_current_states); }},
      {"log_global_notifications", [](D& d) { d.boolean(d.cfg.log_global_notifications); }},
      {"debug_level", [](D& d) { d.integer(d.cfg.debug_level); }},
      {"debug_verbosity", [](D& d) { d.integer(d.cfg.debug_verbosity); }},
      {"max_debug_file_size", [](D& d) { d.unsigned_long(d.cfg.max_debug_file_size); }},

      // Timeouts.
      {"service_check_timeout", [](D& d) { d.integer(d.cfg.service_check_timeout, 1); }},
      {"service_check_timeout_state", set_timeout_state},
      {"host_check_timeout", [](D& d) { d.integer(d.cfg.host_check_timeout, 1); }},
      {"event_handler_timeout", [](D& d) { d.integer(d.cfg.event_handler_timeout, 1); }},
      {"notification_timeout", [](D& d) { d.integer(d.cfg.notification_timeout, 1); }},
      {"ocsp_timeout", [](D& d) { d.integer(d.cfg.ocsp_timeout, 1); }},
      {"ochp_timeout", [](D& d) { d.integer(d.cfg.ochp_timeout, 1); }},
      {"perfdata_timeout", [](D& d) { d.integer(d.cfg.perfdata_timeout); }},

      // Checks and scheduling.
      {"interval_length", [](D& d) { d.integer(d.cfg.interval_length, 1); }},
      {"max_concurrent_checks", [](D& d) { d.integer(d.cfg.max_concurrent_checks, 0); }},
      {"max_timing_out_checks", [](D& d) { d.integer(d.cfg.max_timing_out_checks, -1); }},
      {"check_result_reaper_frequency", [](D& d) { d.integer(d.cfg.check_result_reaper_frequency, 1); }},
      {"service_reaper_frequency", [](D& d) { d.integer(d.cfg.check_result_reaper_frequency, 1); }},
      {"max_check_result_reaper_time", [](D& d) { d.integer(d.cfg.max_check_result_reaper_time, 1); }},
      {"max_check_result_file_age", [](D& d) { d.unsigned_long(d.cfg.max_check_result_file_age); }},
      {"check_workers", [](D& d) { d.integer(d.cfg.check_workers); }},
      {"native_checks", [](D& d) { d.boolean(d.cfg.native_checks); }},
      {"execute_service_checks", [](D& d) { d.boolean(d.cfg.execute_service_checks); }},
      {"accept_passive_service_checks", [](D& d) { d.boolean(d.cfg.accept_passive_service_checks); }},
      {"execute_host_checks", [](D& d) { d.boolean(d.cfg.execute_host_checks); }},
      {"accept_passive_host_checks", [](D& d) { d.boolean(d.cfg.accept_passive_host_checks); }},
      {"use_aggressive_host_checking", [](D& d) { d.boolean(d.cfg.use_aggressive_host_checking); }},
      {"use_agressive_host_checking", [](D& d) { d.boolean(d.cfg.use_aggressive_host_checking); }},
      {"cached_host_check_horizon", [](D& d) { d.unsigned_long(d.cfg.cached_host_check_horizon); }},
      {"cached_service_check_horizon", [](D& d) { d.unsigned_long(d.cfg.cached_service_check_horizon); }},
      {"enable_predictive_host_dependency_checks",
       [](D& d) { d.boolean(d.cfg.enable_predictive_host_dependency_checks); }},
      {"enable_predictive_service_dependency_checks",
       [](D& d) { d.boolean(d.cfg.enable_predictive_service_dependency_checks); }},
      {"soft_state_dependencies", [](D& d) { d.boolean(d.cfg.soft_state_dependencies); }},
      {"translate_passive_host_checks", [](D& d) { d.boolean(d.cfg.translate_passive_host_checks); }},
      {"passive_host_checks_are_soft", [](D& d) { d.boolean(d.cfg.passive_host_checks_are_soft); }},
      {"host_down_disable_service_checks",
       [](D& d) { d.integer(d.cfg.host_down_disable_service_checks, 0); }},
      {"service_parents_disable_service_checks",
       [](D& d) { d.integer(d.cfg.service_parents_disable_service_checks, 0); }},
      {"service_skip_check_dependency_status",
       [](D& d) { d.integer(d.cfg.service_skip_check_dependency_status, -2, 3); }},
      {"service_skip_check_host_down_status",
       [](D& d) { d.integer(d.cfg.service_skip_check_host_down_status, -2, 3); }},
      {"host_skip_check_dependency_status",
       [](D& d) { d.integer(d.cfg.host_skip_check_dependency_status, -2, 3); }},
      // Naemon reads these two as atoi() > 0, so a configured 2 becomes 1.
      {"allow_empty_hostgroup_assignment",
       [](D& d) {
         d.integer(d.cfg.allow_empty_hostgroup_assignment, 0);
         d.cfg.allow_empty_hostgroup_assignment = d.cfg.allow_empty_hostgroup_assignment > 0 ? 1 : 0;
       }},
      {"allow_circular_dependencies", [](D& d) { d.integer(d.cfg.allow_circular_dependencies); }},

      // Freshness and orphans.
      {"check_for_orphaned_services", [](D& d) { d.boolean(d.cfg.check_for_orphaned_services); }},
      {"check_for_orphaned_hosts", [](D& d) { d.boolean(d.cfg.check_for_orphaned_hosts); }},
      {"check_service_freshness", [](D& d) { d.boolean(d.cfg.check_service_freshness); }},
      {"check_host_freshness", [](D& d) { d.boolean(d.cfg.check_host_freshness); }},
      {"service_freshness_check_interval",
       [](D& d) { d.integer(d.cfg.service_freshness_check_interval, 1); }},
      {"freshness_check_interval", [](D& d) { d.integer(d.cfg.service_freshness_check_interval, 1); }},
      {"host_freshness_check_interval", [](D& d) { d.integer(d.cfg.host_freshness_check_interval, 1); }},
      {"additional_freshness_latency", [](D& d) { d.integer(d.cfg.additional_freshness_latency); }},

      // Retention and status.
      {"retain_state_information", [](D& d) { d.boolean(d.cfg.retain_state_information); }},
      {"retention_update_interval", [](D& d) { d.integer(d.cfg.retention_update_interval, 0); }},
      {"use_retained_program_state", [](D& d) { d.boolean(d.cfg.use_retained_program_state); }},
      {"use_retained_scheduling_info", [](D& d) { d.boolean(d.cfg.use_retained_scheduling_info); }},
      {"retained_scheduling_randomize_window",
       [](D& d) { d.integer(d.cfg.retained_scheduling_randomize_window, 0); }},
      {"retention_scheduling_horizon", [](D& d) { d.integer(d.cfg.retention_scheduling_horizon, 1); }},
      {"retained_host_attribute_mask", [](D& d) { d.unsigned_long(d.cfg.retained_host_attribute_mask); }},
      {"retained_service_attribute_mask",
       [](D& d) { d.unsigned_long(d.cfg.retained_service_attribute_mask); }},
      {"retained_process_host_attribute_mask",
       [](D& d) { d.unsigned_long(d.cfg.retained_process_host_attribute_mask); }},
      {"retained_process_service_attribute_mask",
       [](D& d) { d.unsigned_long(d.cfg.retained_process_service_attribute_mask); }},
      {"retained_contact_host_attribute_mask",
       [](D& d) { d.unsigned_long(d.cfg.retained_contact_host_attribute_mask); }},
      {"retained_contact_service_attribute_mask",
       [](D& d) { d.unsigned_long(d.cfg.retained_contact_service_attribute_mask); }},
      {"status_update_interval", [](D& d) { d.integer(d.cfg.status_update_interval); }},
      {"time_change_threshold", [](D& d) { d.integer_above(d.cfg.time_change_threshold, 5); }},

      // Notifications, event handlers, obsessing.
      {"enable_notifications", [](D& d) { d.boolean(d.cfg.enable_notifications); }},
      {"enable_event_handlers", [](D& d) { d.boolean(d.cfg.enable_event_handlers); }},
      {"obsess_over_services", [](D& d) { d.boolean(d.cfg.obsess_over_services); }},
      {"obsess_over_hosts", [](D& d) { d.boolean(d.cfg.obsess_over_hosts); }},
      {"check_external_commands", [](D& d) { d.boolean(d.cfg.check_external_commands); }},
      {"global_host_event_handler", [](D& d) { d.text(d.cfg.global_host_event_handler); }},
      {"global_service_event_handler", [](D& d) { d.text(d.cfg.global_service_event_handler); }},
      {"global_host_notification_handler", [](D& d) { d.text(d.cfg.global_host_notification_handler); }},
      {"global_service_notification_handler",
       [](D& d) { d.text(d.cfg.global_service_notification_handler); }},
      {"ocsp_command", [](D& d) { d.text(d.cfg.ocsp_command); }},
      {"ochp_command", [](D& d) { d.text(d.cfg.ochp_command); }},

      // Flapping.
      {"enable_flap_detection", [](D& d) { d.boolean(d.cfg.enable_flap_detection); }},
      {"low_service_flap_threshold",
       [](D& d) { d.real(d.cfg.low_service_flap_threshold, {.low = 0, .high = 100}); }},
      {"high_service_flap_threshold",
       [](D& d) { d.real(d.cfg.high_service_flap_threshold, {.low = 0, .high = 100, .high_inclusive = true}); }},
      {"low_host_flap_threshold",
       [](D& d) { d.real(d.cfg.low_host_flap_threshold, {.low = 0, .high = 100}); }},
      {"high_host_flap_threshold",
       [](D& d) { d.real(d.cfg.high_host_flap_threshold, {.low = 0, .high = 100, .high_inclusive = true}); }},

      // Performance data.
      {"process_performance_data", [](D& d) { d.boolean(d.cfg.process_performance_data); }},
      {"host_perfdata_command", [](D& d) { d.text(d.cfg.host_perfdata_command); }},
      {"service_perfdata_command", [](D& d) { d.text(d.cfg.service_perfdata_command); }},
      {"host_perfdata_file", [](D& d) { d.path(d.cfg.host_perfdata_file); }},
      {"service_perfdata_file", [](D& d) { d.path(d.cfg.service_perfdata_file); }},
      {"host_perfdata_file_template", [](D& d) { d.text(d.cfg.host_perfdata_file_template); }},
      {"service_perfdata_file_template", [](D& d) { d.text(d.cfg.service_perfdata_file_template); }},
      {"host_perfdata_file_mode", [](D& d) { d.cfg.host_perfdata_file_mode = perfdata_mode(d.value); }},
      {"service_perfdata_file_mode", [](D& d) { d.cfg.service_perfdata_file_mode = perfdata_mode(d.value); }},
      {"host_perfdata_file_processing_interval",
       [](D& d) { d.unsigned_long(d.cfg.host_perfdata_file_processing_interval); }},
      {"service_perfdata_file_processing_interval",
       [](D& d) { d.unsigned_long(d.cfg.service_perfdata_file_processing_interval); }},
      {"host_perfdata_file_processing_command",
       [](D& d) { d.text(d.cfg.host_perfdata_file_processing_command); }},
      {"service_perfdata_file_processing_command",
       [](D& d) { d.text(d.cfg.service_perfdata_file_processing_command); }},
      {"host_perfdata_process_empty_results",
       [](D& d) { d.boolean(d.cfg.host_perfdata_process_empty_results); }},
      {"service_perfdata_process_empty_results",
       [](D& d) { d.boolean(d.cfg.service_perfdata_process_empty_results); }},

      // Miscellaneous.
      {"date_format", set_date_format},
      {"use_timezone", [](D& d) { d.text(d.cfg.use_timezone); }},
      {"event_broker_options", set_broker_options},
      {"illegal_object_name_chars", [](D& d) { d.text(d.cfg.illegal_object_name_chars); }},
      {"illegal_macro_output_chars", [](D& d) { d.text(d.cfg.illegal_macro_output_chars); }},
      {"use_regexp_matching", [](D& d) { d.boolean(d.cfg.use_regexp_matching); }},
      {"use_true_regexp_matching", [](D& d) { d.boolean(d.cfg.use_true_regexp_matching); }},
      {"admin_email", [](D& d) { d.text(d.cfg.admin_email); }},
      {"admin_pager", [](D& d) { d.text(d.cfg.admin_pager); }},

      // Privileges, resolved only when the daemon starts as root (app/privileges.hpp): never an error here.
      {"nagios_user", [](D& d) { d.text(d.cfg.nagios_user); }},
      {"naemon_user", [](D& d) { d.text(d.cfg.naemon_user); }},
      {"nagios_group", [](D& d) { d.text(d.cfg.nagios_group); }},
      {"naemon_group", [](D& d) { d.text(d.cfg.naemon_group); }},

      // Obsolete in Naemon, which only notes they are deprecated: never an error here.
      {"daemon_dumps_core", [](D& d) { d.lenient_bool(d.cfg.daemon_dumps_core); }},
      {"use_large_installation_tweaks", [](D& d) { d.lenient_bool(d.cfg.use_large_installation_tweaks); }},
      {"enable_environment_macros", [](D& d) { d.lenient_bool(d.cfg.enable_environment_macros); }},
      {"free_child_process_memory", [](D& d) { d.lenient_bool(d.cfg.free_child_process_memory); }},
      {"child_processes_fork_twice", [](D& d) { d.lenient_bool(d.cfg.child_processes_fork_twice); }},
      {"enable_embedded_perl", [](D& d) { d.lenient_bool(d.cfg.enable_embedded_perl); }},
      {"use_embedded_perl_implicitly", [](D& d) { d.lenient_bool(d.cfg.use_embedded_perl_implicitly); }},
      {"auth_file", [](D& d) { d.text(d.cfg.auth_file); }},
      {"p1_file", [](D& d) { d.text(d.cfg.p1_file); }},
      {"external_command_buffer_slots", [](D& d) { d.lenient_int(d.cfg.external_command_buffer_slots); }},
      {"check_for_updates", [](D& d) { d.lenient_bool(d.cfg.check_for_updates); }},
      {"bare_update_check", [](D& d) { d.lenient_bool(d.cfg.bare_update_check); }},
      {"log_rotation_method", set_log_rotation_method},
      {"service_inter_check_delay_method", [](D& d) { d.text(d.cfg.service_inter_check_delay_method); }},
      {"host_inter_check_delay_method", [](D& d) { d.text(d.cfg.host_inter_check_delay_method); }},
      {"max_service_check_spread", [](D& d) { d.lenient_int(d.cfg.max_service_check_spread); }},
      {"max_host_check_spread", [](D& d) { d.lenient_int(d.cfg.max_host_check_spread); }},
      {"service_interleave_factor", [](D& d) { d.text(d.cfg.service_interleave_factor); }},
      {"sleep_time", set_sleep_time},
      {"command_check_interval", [](D& d) { d.text(d.cfg.command_check_interval); }},
      {"auto_reschedule_checks", [](D& d) { d.lenient_bool(d.cfg.auto_reschedule_checks); }},
      {"auto_rescheduling_interval", [](D& d) { d.lenient_int(d.cfg.auto_rescheduling_interval); }},
      {"auto_rescheduling_window", [](D& d) { d.lenient_int(d.cfg.auto_rescheduling_window); }},
      {"enable_failure_prediction", [](D& d) { d.lenient_bool(d.cfg.enable_failure_prediction); }},
      // Nagios 4.4's own, which Naemon does not know: accepted and ignored, so nagios.cfg loads unchanged.
      {"website_url", [](D&) {}},
      {"loadctl_options", [](D&) {}},
  };
  return table;
}

}  // namespace

MainConfig load_main_config(const std::string& path, SourceFiles& files, Diagnostics& diags) {
  MainConfig cfg;
  Loader(cfg, files, diags).load(path);
  return cfg;
}

}  // namespace vedette::config
