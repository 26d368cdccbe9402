#include "gearman/routing.hpp"

#include "gearman/transport.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace vedette::gearman {
namespace {

constexpr int k_max_include_depth = 10;  // read_config_file's limit

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}
char upper(char c) {
  return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == lower(y); });
}

// Options of Mod-Gearman's NEB module, worker and tools that Vedette reads without acting on them: the
// same file may serve both sides, and a logging or tuning option is no reason to refuse it.
constexpr std::string_view k_ignored_keys[] = {
    "debug",
    "logfile",
    "logmode",
    "log_stats_interval",
    "debug-result",
    "debug_result",
    "daemon",
    "d",
    "pidfile",
    "min-worker",
    "idle-timeout",
    "max-jobs",
    "spawn-rate",
    "load_limit1",
    "load_limit5",
    "load_limit15",
    "fork_on_exec",
    "show_error_output",
    "dup_results_are_passive",
    "workaround_rc_25",
    "restrict_path",
    "restrictpath",
    "restrict_command_characters",
    "enable_embedded_perl",
    "use_embedded_perl_implicitly",
    "use_perl_cache",
    "p1_file",
    "latency_flatten_window",
    "internal_check_dummy",
    "timeout",
    "t",
    "prometheus_server",
    "sink-rate",
    "backgrounding-threshold",
    "load_cpu_multi",
    "mem_limit",
    "active",
    "delimiter",
    "message",
};

struct Context {
  Options& options;
  std::string_view origin;
  OptionMessages& messages;

  void error(std::string text) const { messages.errors.push_back(fmt::format("{}: {}", origin, text)); }
  void warning(std::string text) const { messages.warnings.push_back(fmt::format("{}: {}", origin, text)); }
};

// parse_yes_or_no: yes/on/true/1 and no/off/false/0; a bare switch, or anything else, is the default.
bool parse_switch(const Context& cx, std::string_view key, std::optional<std::string_view> value, bool dflt) {
  if (!value) return dflt;
  std::string v(*value);
  std::transform(v.begin(), v.end(), v.begin(), lower);
  if (v == "yes" || v == "on" || v == "true" || v == "1") return true;
  if (v == "no" || v == "off" || v == "false" || v == "0") return false;
  cx.warning(fmt::format("{}: '{}' is neither yes nor no, taken as {}", key, *value, dflt ? "yes" : "no"));
  return dflt;
}

std::optional<int> parse_number(const Context& cx, std::string_view key, std::string_view value) {
  int n = 0;
  const char* end = value.data() + value.size();
  const auto [ptr, ec] = std::from_chars(value.data(), end, n);
  if (ec != std::errc() || ptr != end || value.empty()) {
    cx.error(fmt::format("{}: '{}' is not a number", key, value));
    return std::nullopt;
  }
  return n;
}

template <class F>
void for_each_item(std::string_view list, F&& f) {
  while (true) {
    const std::size_t comma = list.find(',');
    const std::string_view item = trim(list.substr(0, comma));
    if (!item.empty()) f(item);
    if (comma == std::string_view::npos) return;
    list.remove_prefix(comma + 1);
  }
}

void add_groups(const Context& cx, std::string_view key, std::string_view list,
                std::vector<std::string>& into, bool limit_length) {
  for_each_item(list, [&](std::string_view name) {
    if (limit_length && name.size() > k_max_group_name) {
      cx.error(fmt::format("{}: group name '{}' is longer than {} characters", key, name, k_max_group_name));
      return;
    }
    into.emplace_back(name);
    if (limit_length) ++cx.options.queues_set_by_hand;  // only hostgroups= and servicegroups= count
  });
}

void add_servers(const Context& cx, std::string_view list) {
  for_each_item(list, [&](std::string_view item) {
    Server server;
    const std::size_t colon = item.rfind(':');
    std::string_view host = colon == std::string_view::npos ? item : item.substr(0, colon);
    if (colon != std::string_view::npos) {
      const std::string_view port_text = item.substr(colon + 1);
      unsigned port = 0;
      const char* end = port_text.data() + port_text.size();
      const auto [ptr, ec] = std::from_chars(port_text.data(), end, port);
      if (ec != std::errc() || ptr != end || port == 0 || port > 65535) {
        cx.error(fmt::format("server: bad port in '{}'", item));
        return;
      }
      server.port = static_cast<std::uint16_t>(port);
    }
    server.host = host.empty() ? "0.0.0.0" : std::string(host);
    if (std::find(cx.options.servers.begin(), cx.options.servers.end(), server) != cx.options.servers.end()) {
      cx.warning(fmt::format("server: duplicate definition of {}:{}", server.host, server.port));
      return;
    }
    cx.options.servers.push_back(std::move(server));
  });
}

bool has_group(std::span<const std::string_view> groups, std::string_view name) {
  return std::find(groups.begin(), groups.end(), name) != groups.end();
}

// The queue a custom variable names: nothing when the object does not set it, "" for "local" (or empty).
std::optional<std::string> queue_from_variables(std::span<const model::CustomVariable> variables,
                                                std::string_view name) {
  for (const model::CustomVariable& v : variables) {
    if (v.is_null || !equals_ignoring_case(v.name, name)) continue;
    if (v.value == "local") return std::string();
    return std::string(v.value);
  }
  return std::nullopt;
}

// set_target_queue: "" means locally.
std::string target_queue(const Options& o, bool is_service, const Target& t) {
  if (!o.queue_custom_variable.empty()) {
    if (is_service) {
      if (auto q = queue_from_variables(t.service_variables, o.queue_custom_variable)) return *q;
    }
    if (auto q = queue_from_variables(t.host_variables, o.queue_custom_variable)) return *q;
  }
  if (is_service) {
    for (const std::string& g : o.local_servicegroups)
      if (has_group(t.service_groups, g)) return {};
  }
  for (const std::string& g : o.local_hostgroups)
    if (has_group(t.host_groups, g)) return {};
  if (is_service) {
    for (const std::string& g : o.servicegroups)
      if (has_group(t.service_groups, g)) return "servicegroup_" + g;
  }
  for (const std::string& g : o.hostgroups)
    if (has_group(t.host_groups, g)) return "hostgroup_" + g;
  if (is_service) return o.services ? "service" : "";
  return o.hosts ? "host" : "";
}

}  // namespace

void apply_option(Options& options, std::string_view line, std::string_view origin, OptionMessages& messages,
                  int depth) {
  const Context cx{options, origin, messages};
  line = trim(line);
  if (line.empty()) return;
  const std::size_t eq = line.find('=');
  std::string key(trim(line.substr(0, eq)));
  std::transform(key.begin(), key.end(), key.begin(), lower);
  const std::size_t dashes = key.find_first_not_of('-');
  key.erase(0, dashes == std::string::npos ? key.size() : dashes);
  const std::optional<std::string_view> value =
      eq == std::string_view::npos ? std::nullopt : std::optional(trim(line.substr(eq + 1)));

  // Switches: a bare key turns them on.
  const auto set_switch = [&](bool& field) { field = parse_switch(cx, key, value, /*dflt=*/true); };
  if (key == "hosts" || key == "services" || key == "eventhandler" || key == "eventhandlers" ||
      key == "notification" || key == "notifications") {
    ++options.queues_set_by_hand;
    if (key == "hosts") set_switch(options.hosts);
    if (key == "services") set_switch(options.services);
    if (key.starts_with("eventhandler")) set_switch(options.eventhandlers);
    if (key.starts_with("notification")) set_switch(options.notifications);
    return;
  }
  if (key == "encryption") return set_switch(options.encryption);
  if (key == "do_hostchecks") return set_switch(options.do_hostchecks);
  if (key == "route_eventhandler_like_checks") return set_switch(options.route_eventhandler_like_checks);
  if (key == "accept_clear_results") return set_switch(options.accept_clear_results);
  if (key == "use_uniq_jobs") return set_switch(options.use_uniq_jobs);
  if (key == "orphan_host_checks") return set_switch(options.orphan_host_checks);
  if (key == "orphan_service_checks") return set_switch(options.orphan_service_checks);
  if (key == "perfdata") {
    if (!value || value->empty()) return;
    ++options.queues_set_by_hand;  // as in Mod-Gearman, perfdata= counts as choosing queues
    std::string v(*value);
    std::transform(v.begin(), v.end(), v.begin(), lower);
    if (v == "no" || v == "off" || v == "false" || v == "0") return;
    // parse_yes_or_no: a yes means the default queue, anything else is a list of queue names.
    if (v == "yes" || v == "on" || v == "true" || v == "1") {
      options.perfdata_queues.emplace_back(k_default_perfdata_queue);
      return;
    }
    for (std::string_view rest = *value; !rest.empty();) {
      const std::size_t comma = rest.find(',');
      const std::string_view name = rest.substr(0, comma);
      if (!name.empty()) options.perfdata_queues.emplace_back(name);
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    return;
  }
  if (key == "perfdata_send_all") return set_switch(options.perfdata_send_all);
  if (std::find(std::begin(k_ignored_keys), std::end(k_ignored_keys), key) != std::end(k_ignored_keys))
    return;
  if (!value) return cx.warning(fmt::format("unknown switch '{}'", key));
  const std::string_view v = *value;

  if (key == "server") return add_servers(cx, v);
  if (key == "key" || key == "password") {
    options.key = std::string(v);
    return;
  }
  if (key == "keyfile" || key == "passwordfile") {
    options.keyfile = std::string(v);
    return;
  }
  if (key == "gearmand_down") {
    if (v == "local" || v == "unknown") {
      options.run_locally_when_down = v == "local";
      return;
    }
    return cx.error(fmt::format("gearmand_down: '{}' is neither 'local' nor 'unknown'", v));
  }
  if (key == "result_queue") {
    options.result_queue = std::string(v);
    return;
  }
  if (key == "host_perfdata_template" || key == "service_perfdata_template") {
    (key == "host_perfdata_template" ? options.host_perfdata_template : options.service_perfdata_template) =
        std::string(v);
    return;
  }
  if (key == "perfdata_mode") {
    const auto n = parse_number(cx, key, v);
    if (!n) return;
    // As the NEB module: out of range is overwrite, with a warning; 0 is, like 2, no unique id.
    if (*n < 0 || *n > 2) cx.warning(fmt::format("perfdata_mode: {} is not 1 or 2; 1 is used", *n));
    options.perfdata_overwrite = *n == 1 || *n < 0 || *n > 2;
    return;
  }
  if (key == "identifier") {
    options.identifier = std::string(v);
    return;
  }
  if (key == "hostgroups" || key == "hostgroup")
    return add_groups(cx, key, v, options.hostgroups, /*limit_length=*/true);
  if (key == "servicegroups" || key == "servicegroup")
    return add_groups(cx, key, v, options.servicegroups, /*limit_length=*/true);
  if (key == "localhostgroups" || key == "localhostgroup")
    return add_groups(cx, key, v, options.local_hostgroups, /*limit_length=*/false);
  if (key == "localservicegroups" || key == "localservicegroup")
    return add_groups(cx, key, v, options.local_servicegroups, /*limit_length=*/false);
  if (key == "queue_custom_variable") {
    // Naemon stores _WORKER as WORKER; Mod-Gearman wants the latter, we take either.
    std::string name(v.starts_with('_') ? v.substr(1) : v);
    std::transform(name.begin(), name.end(), name.begin(), upper);
    options.queue_custom_variable = std::move(name);
    return;
  }
  if (key == "config" || key == "configfile" || key == "include") {
    (void)parse_option_file(options, std::string(v), messages, depth + 1);
    return;
  }
  if (key == "orphan_return" || key == "timeout_return") {
    const auto n = parse_number(cx, key, v);
    if (!n) return;
    int code = *n;
    if (code < 0 || code > 3) {
      cx.warning(fmt::format("{}: {} is not a state from 0 to 3; 2 is used", key, code));
      code = 2;
    }
    (key == "orphan_return" ? options.orphan_return : options.timeout_return) = code;
    return;
  }
  if (key == "gearman_connection_timeout" || key == "result_workers" || key == "job_timeout" ||
      key == "max-age" || key == "max-worker") {
    const auto n = parse_number(cx, key, v);
    if (!n) return;
    if (key == "gearman_connection_timeout") options.gearman_connection_timeout_ms = *n;
    if (key == "result_workers") options.result_workers = std::max(0, *n);
    if (key == "job_timeout") options.job_timeout_s = std::max(1, *n);
    if (key == "max-age") options.max_age_s = std::max(0, *n);
    if (key == "max-worker") options.max_worker = std::max(1, *n);
    return;
  }
  if (key == "dupserver" || key == "export")
    return cx.warning(fmt::format("{}: not implemented; ignored", key));
  cx.warning(fmt::format("unknown option '{}'", key));
}

void parse_option_text(Options& options, std::string_view text, std::string_view origin,
                       OptionMessages& messages, int depth) {
  std::size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    if (trim(line).empty()) continue;
    apply_option(options, line, fmt::format("{}:{}", origin, line_no), messages, depth);
  }
}

void parse_option_args(Options& options, std::string_view args, OptionMessages& messages,
                       std::string_view origin) {
  while (!args.empty()) {
    const std::size_t space = args.find(' ');
    const std::string_view item = args.substr(0, space);
    args.remove_prefix(space == std::string_view::npos ? args.size() : space + 1);
    if (!trim(item).empty()) apply_option(options, item, origin, messages, 0);
  }
}

bool parse_option_file(Options& options, const std::string& path, OptionMessages& messages, int depth) {
  namespace fs = std::filesystem;
  if (depth > k_max_include_depth) {
    messages.errors.push_back(
        fmt::format("{}: config files nested more than {} deep", path, k_max_include_depth));
    return false;
  }
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      const auto ext = entry.path().extension();
      if (entry.is_directory(ec) || ext == ".cfg" || ext == ".conf") files.push_back(entry.path());
    }
    if (ec) {
      messages.errors.push_back(fmt::format("{}: cannot read directory: {}", path, ec.message()));
      return false;
    }
    std::sort(files.begin(), files.end());  // readdir's order is arbitrary; ours is stable
    bool ok = true;
    for (const auto& f : files) ok = parse_option_file(options, f.string(), messages, depth + 1) && ok;
    return ok;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    messages.errors.push_back(fmt::format("{}: cannot open config file", path));
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  parse_option_text(options, text.str(), path, messages, depth);
  return true;
}

void finish_options(Options& options, OptionMessages& messages, Side side) {
  if (options.servers.empty()) messages.errors.emplace_back("no gearmand server given (server=host:port)");
  if (options.result_queue.empty()) options.result_queue = k_default_result_queue;
  if (options.queues_set_by_hand == 0) {
    options.hosts = true;
    options.services = true;
    options.eventhandlers = true;
    if (side == Side::worker) options.notifications = true;
  }
  if (side == Side::worker && worker_queues(options).empty())
    messages.errors.emplace_back(
        "a worker without any queue is useless (hosts=, services=, hostgroups=, ...)");
  if (!options.keyfile.empty()) {
    auto key = read_key_file(options.keyfile);
    if (key)
      options.key = std::move(*key);
    else
      messages.errors.push_back(key.error());
  }
  if (!options.encryption) return;
  if (options.key.empty()) {
    messages.errors.emplace_back("encryption is on but neither key= nor keyfile= gives a key");
    return;
  }
  if (options.key.size() < 8) messages.warnings.emplace_back("the encryption key should be at least 8 bytes");
  if (options.key.size() > k_key_bytes)
    messages.warnings.push_back(
        fmt::format("only the first {} bytes of the encryption key are used", k_key_bytes));
}

std::optional<std::string> select_queue(const Options& o, Work work, const Target& t) {
  const bool by_variable = !o.queue_custom_variable.empty();
  bool is_service = t.is_service;
  switch (work) {
    case Work::host_check:
      if (!o.do_hostchecks || (o.hostgroups.empty() && !o.hosts && !by_variable)) return std::nullopt;
      is_service = false;
      break;
    case Work::service_check:
      if (o.servicegroups.empty() && o.hostgroups.empty() && !o.services && !by_variable) return std::nullopt;
      is_service = true;
      break;
    case Work::eventhandler:
      if (!o.eventhandlers) return std::nullopt;
      break;
    case Work::notification:
      if (!o.notifications) return std::nullopt;
      break;
  }
  std::string queue = target_queue(o, is_service, t);
  if (queue.empty()) return std::nullopt;
  if (work == Work::eventhandler &&
      (!o.route_eventhandler_like_checks || queue == "host" || queue == "service"))
    return "eventhandler";
  if (work == Work::notification) return "notification";
  return queue;
}

std::vector<std::string> worker_queues(const Options& o) {
  std::vector<std::string> queues;
  if (o.hosts) queues.emplace_back("host");
  if (o.services) queues.emplace_back("service");
  if (o.eventhandlers) queues.emplace_back("eventhandler");
  if (o.notifications) queues.emplace_back("notification");
  for (const std::string& g : o.hostgroups) queues.push_back("hostgroup_" + g);
  for (const std::string& g : o.servicegroups) queues.push_back("servicegroup_" + g);
  return queues;
}

Priority priority_for(Work work, bool forced_check) {
  switch (work) {
    case Work::host_check:
      return Priority::normal;
    case Work::service_check:
      return forced_check ? Priority::high : Priority::low;
    case Work::eventhandler:
      return Priority::normal;
    case Work::notification:
      return Priority::high;
  }
  return Priority::normal;
}

}  // namespace vedette::gearman
