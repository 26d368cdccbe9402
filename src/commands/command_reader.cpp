#include "commands/command_reader.hpp"

#include "commands/command_line.hpp"
#include "config/mapped_file.hpp"
#include "engine/core.hpp"
#include "model/name_order.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <unistd.h>
#include <utility>

namespace vedette::commands {

namespace {

// The program-wide switch a command turns on (true) or off.
std::optional<std::pair<engine::ProgramSwitch, bool>> program_switch(std::string_view name) {
  using S = engine::ProgramSwitch;
  struct Entry {
    std::string_view on, off;
    S which;
  };
  static constexpr Entry k_entries[] = {
      {"ENABLE_NOTIFICATIONS", "DISABLE_NOTIFICATIONS", S::notifications},
      {"START_EXECUTING_SVC_CHECKS", "STOP_EXECUTING_SVC_CHECKS", S::service_checks},
      {"START_ACCEPTING_PASSIVE_SVC_CHECKS", "STOP_ACCEPTING_PASSIVE_SVC_CHECKS", S::passive_service_checks},
      {"START_EXECUTING_HOST_CHECKS", "STOP_EXECUTING_HOST_CHECKS", S::host_checks},
      {"START_ACCEPTING_PASSIVE_HOST_CHECKS", "STOP_ACCEPTING_PASSIVE_HOST_CHECKS", S::passive_host_checks},
      {"ENABLE_EVENT_HANDLERS", "DISABLE_EVENT_HANDLERS", S::event_handlers},
      {"ENABLE_FLAP_DETECTION", "DISABLE_FLAP_DETECTION", S::flap_detection},
      {"START_OBSESSING_OVER_SVC_CHECKS", "STOP_OBSESSING_OVER_SVC_CHECKS", S::obsess_over_services},
      {"START_OBSESSING_OVER_HOST_CHECKS", "STOP_OBSESSING_OVER_HOST_CHECKS", S::obsess_over_hosts},
      {"ENABLE_SERVICE_FRESHNESS_CHECKS", "DISABLE_SERVICE_FRESHNESS_CHECKS", S::service_freshness},
      {"ENABLE_HOST_FRESHNESS_CHECKS", "DISABLE_HOST_FRESHNESS_CHECKS", S::host_freshness},
      {"ENABLE_PERFORMANCE_DATA", "DISABLE_PERFORMANCE_DATA", S::performance_data},
  };
  for (const Entry& e : k_entries) {
    if (name == e.on) return std::pair{e.which, true};
    if (name == e.off) return std::pair{e.which, false};
  }
  return std::nullopt;
}

// Where a per-object ENABLE_/DISABLE_ command applies its flag (Naemon's foreach_* helpers).
enum class Scope : std::uint8_t {
  service,
  host,
  host_services,
  hostgroup_hosts,
  hostgroup_services,
  servicegroup_hosts,  // each host with a service in the group, once
  servicegroup_services,
  host_and_children,  // the host and every host below it (…_HOST_AND_CHILD_NOTIFICATIONS)
  beyond_host,        // every host below the host and their services, not the host itself
};

struct FlagCommand {
  Scope scope;
  state::Flag flag;
  bool on;
};

std::optional<FlagCommand> flag_command(std::string_view name) {
  using F = state::Flag;
  struct Entry {
    std::string_view on, off;
    Scope scope;
    F flag;
  };
  static constexpr Entry k_entries[] = {
      {"ENABLE_SVC_CHECK", "DISABLE_SVC_CHECK", Scope::service, F::active_checks},
      {"ENABLE_HOST_CHECK", "DISABLE_HOST_CHECK", Scope::host, F::active_checks},
      {"ENABLE_HOST_SVC_CHECKS", "DISABLE_HOST_SVC_CHECKS", Scope::host_services, F::active_checks},
      {"ENABLE_HOSTGROUP_HOST_CHECKS", "DISABLE_HOSTGROUP_HOST_CHECKS", Scope::hostgroup_hosts,
       F::active_checks},
      {"ENABLE_HOSTGROUP_SVC_CHECKS", "DISABLE_HOSTGROUP_SVC_CHECKS", Scope::hostgroup_services,
       F::active_checks},
      {"ENABLE_SERVICEGROUP_HOST_CHECKS", "DISABLE_SERVICEGROUP_HOST_CHECKS", Scope::servicegroup_hosts,
       F::active_checks},
      {"ENABLE_SERVICEGROUP_SVC_CHECKS", "DISABLE_SERVICEGROUP_SVC_CHECKS", Scope::servicegroup_services,
       F::active_checks},
      {"ENABLE_PASSIVE_SVC_CHECKS", "DISABLE_PASSIVE_SVC_CHECKS", Scope::service, F::passive_checks},
      {"ENABLE_PASSIVE_HOST_CHECKS", "DISABLE_PASSIVE_HOST_CHECKS", Scope::host, F::passive_checks},
      {"ENABLE_HOSTGROUP_PASSIVE_HOST_CHECKS", "DISABLE_HOSTGROUP_PASSIVE_HOST_CHECKS",
       Scope::hostgroup_hosts, F::passive_checks},
      {"ENABLE_HOSTGROUP_PASSIVE_SVC_CHECKS", "DISABLE_HOSTGROUP_PASSIVE_SVC_CHECKS",
       Scope::hostgroup_services, F::passive_checks},
      {"ENABLE_SERVICEGROUP_PASSIVE_HOST_CHECKS", "DISABLE_SERVICEGROUP_PASSIVE_HOST_CHECKS",
       Scope::servicegroup_hosts, F::passive_checks},
      {"ENABLE_SERVICEGROUP_PASSIVE_SVC_CHECKS", "DISABLE_SERVICEGROUP_PASSIVE_SVC_CHECKS",
       Scope::servicegroup_services, F::passive_checks},
      {"ENABLE_SVC_NOTIFICATIONS", "DISABLE_SVC_NOTIFICATIONS", Scope::service, F::notifications},
      {"ENABLE_HOST_NOTIFICATIONS", "DISABLE_HOST_NOTIFICATIONS", Scope::host, F::notifications},
      {"ENABLE_HOST_SVC_NOTIFICATIONS", "DISABLE_HOST_SVC_NOTIFICATIONS", Scope::host_services,
       F::notifications},
      {"ENABLE_HOSTGROUP_HOST_NOTIFICATIONS", "DISABLE_HOSTGROUP_HOST_NOTIFICATIONS", Scope::hostgroup_hosts,
       F::notifications},
      {"ENABLE_HOSTGROUP_SVC_NOTIFICATIONS", "DISABLE_HOSTGROUP_SVC_NOTIFICATIONS", Scope::hostgroup_services,
       F::notifications},
      {"ENABLE_SERVICEGROUP_HOST_NOTIFICATIONS", "DISABLE_SERVICEGROUP_HOST_NOTIFICATIONS",
       Scope::servicegroup_hosts, F::notifications},
      {"ENABLE_SERVICEGROUP_SVC_NOTIFICATIONS", "DISABLE_SERVICEGROUP_SVC_NOTIFICATIONS",
       Scope::servicegroup_services, F::notifications},
      {"ENABLE_HOST_AND_CHILD_NOTIFICATIONS", "DISABLE_HOST_AND_CHILD_NOTIFICATIONS",
       Scope::host_and_children, F::notifications},
      {"ENABLE_ALL_NOTIFICATIONS_BEYOND_HOST", "DISABLE_ALL_NOTIFICATIONS_BEYOND_HOST", Scope::beyond_host,
       F::notifications},
      {"ENABLE_SVC_EVENT_HANDLER", "DISABLE_SVC_EVENT_HANDLER", Scope::service, F::event_handler},
      {"ENABLE_HOST_EVENT_HANDLER", "DISABLE_HOST_EVENT_HANDLER", Scope::host, F::event_handler},
      {"ENABLE_SVC_FLAP_DETECTION", "DISABLE_SVC_FLAP_DETECTION", Scope::service, F::flap_detection},
      {"ENABLE_HOST_FLAP_DETECTION", "DISABLE_HOST_FLAP_DETECTION", Scope::host, F::flap_detection},
      {"START_OBSESSING_OVER_SVC", "STOP_OBSESSING_OVER_SVC", Scope::service, F::obsess},
      {"START_OBSESSING_OVER_HOST", "STOP_OBSESSING_OVER_HOST", Scope::host, F::obsess},
  };
  for (const Entry& e : k_entries) {
    if (name == e.on) return FlagCommand{e.scope, e.flag, true};
    if (name == e.off) return FlagCommand{e.scope, e.flag, false};
  }
  return std::nullopt;
}

void set_flags(engine::Core& core, const ExternalCommand& cmd, const FlagCommand& f) {
  const model::Model& model = core.model();
  auto on_host = [&](model::HostId h) { core.set_flag(h, f.flag, f.on); };
  auto on_service = [&](model::ServiceId s) { core.set_flag(s, f.flag, f.on); };
  auto host = [&] { return model.host_by_name.find(cmd.args[0])->second; };
  auto hostgroup = [&]() -> const model::Hostgroup& {
    return model.hostgroups[model::index(model.hostgroup_by_name.find(cmd.args[0])->second)];
  };
  auto servicegroup = [&]() -> const model::Servicegroup& {
    return model.servicegroups[model::index(model.servicegroup_by_name.find(cmd.args[0])->second)];
  };
  switch (f.scope) {
    case Scope::service:
      on_service(model.find_service(cmd.args[0], cmd.args[1]));
      return;
    case Scope::host:
      on_host(host());
      return;
    case Scope::host_services:
      for (model::ServiceId s : model::host_services_naemon_order(model, host())) on_service(s);
      return;
    case Scope::hostgroup_hosts:
      for (model::HostId h : hostgroup().members) on_host(h);
      return;
    case Scope::hostgroup_services:
      for (model::HostId h : hostgroup().members)
        for (model::ServiceId s : model::host_services_naemon_order(model, h)) on_service(s);
      return;
    case Scope::servicegroup_hosts: {
      std::vector<model::HostId> hosts;
      for (model::ServiceId s : servicegroup().members) hosts.push_back(model.service(s).host);
      std::sort(hosts.begin(), hosts.end());
      hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
      for (model::HostId h : hosts) on_host(h);
      return;
    }
    case Scope::servicegroup_services:
      for (model::ServiceId s : servicegroup().members) on_service(s);
      return;
    case Scope::host_and_children:
    case Scope::beyond_host: {
      // Every host below, once, however the parents are wired (Naemon stops at nothing when they loop).
      const model::HostId top = host();
      if (f.scope == Scope::host_and_children) on_host(top);
      std::vector<bool> seen(model.hosts.size(), false);
      seen[model::index(top)] = true;
      std::vector<model::HostId> pending(model.host(top).children);
      while (!pending.empty()) {
        const model::HostId h = pending.back();
        pending.pop_back();
        if (seen[model::index(h)]) continue;
        seen[model::index(h)] = true;
        on_host(h);
        if (f.scope == Scope::beyond_host)
          for (model::ServiceId s : model::host_services_naemon_order(model, h)) on_service(s);
        for (model::HostId c : model.host(h).children) pending.push_back(c);
      }
      return;
    }
  }
}

// A CHANGE_* command on one host or service.
struct ChangeCommand {
  bool service;  // its first argument names a service (two fields), else a host
  engine::AttributeChange::Kind kind;
};

std::optional<ChangeCommand> change_command(std::string_view name) {
  using K = engine::AttributeChange::Kind;
  struct Entry {
    std::string_view name;
    ChangeCommand command;
  };
  static constexpr Entry k_entries[] = {
      {"CHANGE_NORMAL_SVC_CHECK_INTERVAL", {true, K::check_interval}},
      {"CHANGE_NORMAL_HOST_CHECK_INTERVAL", {false, K::check_interval}},
      {"CHANGE_RETRY_SVC_CHECK_INTERVAL", {true, K::retry_interval}},
      {"CHANGE_RETRY_HOST_CHECK_INTERVAL", {false, K::retry_interval}},
      {"CHANGE_MAX_SVC_CHECK_ATTEMPTS", {true, K::max_check_attempts}},
      {"CHANGE_MAX_HOST_CHECK_ATTEMPTS", {false, K::max_check_attempts}},
      {"CHANGE_SVC_CHECK_TIMEPERIOD", {true, K::check_period}},
      {"CHANGE_HOST_CHECK_TIMEPERIOD", {false, K::check_period}},
      {"CHANGE_SVC_NOTIFICATION_TIMEPERIOD", {true, K::notification_period}},
      {"CHANGE_HOST_NOTIFICATION_TIMEPERIOD", {false, K::notification_period}},
      {"CHANGE_CUSTOM_SVC_VAR", {true, K::custom_variable}},
      {"CHANGE_CUSTOM_HOST_VAR", {false, K::custom_variable}},
      {"CHANGE_SVC_MODATTR", {true, K::modified_attributes}},
      {"CHANGE_HOST_MODATTR", {false, K::modified_attributes}},
  };
  for (const Entry& e : k_entries)
    if (name == e.name) return e.command;
  return std::nullopt;
}

// A command on one contact or on each member of a contact group.
struct ContactCommand {
  enum class Action : std::uint8_t { host_notifications, service_notifications, change };
  bool group;  // its argument names a contact group
  Action action;
  bool on = false;                                                     // the notifications commands
  engine::ContactChange::Kind change = engine::ContactChange::Kind{};  // the CHANGE_ commands
};

std::optional<ContactCommand> contact_command(std::string_view name) {
  using A = ContactCommand::Action;
  using K = engine::ContactChange::Kind;
  struct Entry {
    std::string_view name;
    ContactCommand command;
  };
  static constexpr Entry k_entries[] = {
      {"ENABLE_CONTACT_HOST_NOTIFICATIONS", {false, A::host_notifications, true}},
      {"DISABLE_CONTACT_HOST_NOTIFICATIONS", {false, A::host_notifications, false}},
      {"ENABLE_CONTACT_SVC_NOTIFICATIONS", {false, A::service_notifications, true}},
      {"DISABLE_CONTACT_SVC_NOTIFICATIONS", {false, A::service_notifications, false}},
      {"ENABLE_CONTACTGROUP_HOST_NOTIFICATIONS", {true, A::host_notifications, true}},
      {"DISABLE_CONTACTGROUP_HOST_NOTIFICATIONS", {true, A::host_notifications, false}},
      {"ENABLE_CONTACTGROUP_SVC_NOTIFICATIONS", {true, A::service_notifications, true}},
      {"DISABLE_CONTACTGROUP_SVC_NOTIFICATIONS", {true, A::service_notifications, false}},
      {"CHANGE_CONTACT_HOST_NOTIFICATION_TIMEPERIOD", {false, A::change, false, K::host_notification_period}},
      {"CHANGE_CONTACT_SVC_NOTIFICATION_TIMEPERIOD",
       {false, A::change, false, K::service_notification_period}},
      {"CHANGE_CUSTOM_CONTACT_VAR", {false, A::change, false, K::custom_variable}},
      {"CHANGE_CONTACT_MODATTR", {false, A::change, false, K::modified_attributes}},
      {"CHANGE_CONTACT_MODHATTR", {false, A::change, false, K::modified_host_attributes}},
      {"CHANGE_CONTACT_MODSATTR", {false, A::change, false, K::modified_service_attributes}},
  };
  for (const Entry& e : k_entries)
    if (name == e.name) return e.command;
  return std::nullopt;
}

// The reader validated the contact or group and the timeperiod.
void run_contact_command(engine::Core& core, const ExternalCommand& cmd, const ContactCommand& c) {
  using A = ContactCommand::Action;
  const model::Model& model = core.model();
  std::vector<model::ContactId> contacts;
  if (c.group) {
    contacts =
        model.contactgroups[model::index(model.contactgroup_by_name.find(cmd.args[0])->second)].members;
  } else {
    contacts.push_back(model.contact_by_name.find(cmd.args[0])->second);
  }
  for (const model::ContactId id : contacts) {
    if (c.action != A::change) {
      core.set_contact_notifications(id, c.action == A::host_notifications, c.on);
      continue;
    }
    engine::ContactChange change{.kind = c.change, .name = cmd.args[1]};
    if (c.change == engine::ContactChange::Kind::custom_variable) change.value = cmd.args[2];
    change.bits = static_cast<unsigned long>(cmd.number(1));
    core.change_contact(id, change);
  }
}

// The arguments of ACKNOWLEDGE_*_PROBLEM(_EXPIRE) from the field after the object: sticky, notify,
// persistent, the end time (_EXPIRE only), author, comment. Naemon reads sticky as an int (2 in its docs):
// any value but 0 is sticky.
engine::Acknowledgement acknowledgement(const ExternalCommand& cmd, std::size_t first, bool expires) {
  engine::Acknowledgement a;
  a.sticky = cmd.number(first) != 0;
  a.notify = cmd.number(first + 1) != 0;
  a.persistent = cmd.number(first + 2) != 0;
  std::size_t next = first + 3;
  if (expires) a.end_time = cmd.number(next++);
  a.author = cmd.args[next];
  a.comment = cmd.args[next + 1];
  return a;
}

// The downtime of SCHEDULE_*_DOWNTIME from the field after the object: start, end, fixed, trigger_id,
// duration, author, comment.
engine::DowntimeRequest downtime_request(const ExternalCommand& cmd, std::size_t first) {
  return {.entry_time = cmd.entry_time,
          .start_time = cmd.number(first),
          .end_time = cmd.number(first + 1),
          .fixed = cmd.number(first + 2) != 0,
          .triggered_by = static_cast<unsigned long>(cmd.number(first + 3)),
          .duration = static_cast<unsigned long>(cmd.number(first + 4)),
          .author = cmd.args[first + 5],
          .comment = cmd.args[first + 6]};
}

// Naemon registers these but refuses them (a check command or handler set from outside would run arbitrary
// commands): "External command failed".
bool is_refused_by_naemon(std::string_view name) {
  return name == "CHANGE_SVC_CHECK_COMMAND" || name == "CHANGE_HOST_CHECK_COMMAND" ||
         name == "CHANGE_SVC_EVENT_HANDLER" || name == "CHANGE_HOST_EVENT_HANDLER" ||
         name == "CHANGE_GLOBAL_SVC_EVENT_HANDLER" || name == "CHANGE_GLOBAL_HOST_EVENT_HANDLER";
}

}  // namespace

CommandReader::CommandReader(engine::Core& core, bool open_fifo) : core_(core) {
  if (!open_fifo) return;
  FifoOpenResult opened = CommandFifo::open(core_.main_config().command_file);
  if (!opened.fifo) {
    error_ = std::move(opened.error);
    return;
  }
  fifo_ = std::move(opened.fifo);
  core_.loop().watch(fifo_->fd(), loop::Interest::read, *this);
}

CommandReader::~CommandReader() {
  close();
}

void CommandReader::close() {
  if (!fifo_) return;
  core_.loop().unwatch(fifo_->fd());
  fifo_->close_and_unlink();
  fifo_.reset();
}

void CommandReader::on_ready(int, loop::Interest) {
  if (!fifo_) return;
  DrainResult drained = fifo_->drain([this](std::string_view line) { process_line(line); });
  if (drained.overlong_dropped != 0)
    core_.log(fmt::format("Warning: {} external command line(s) longer than {} bytes were ignored",
                          drained.overlong_dropped, CommandFifo::k_max_line_bytes));
  // A flood may leave more for later; the fd stays readable and the next iteration comes back here.
}

void CommandReader::process_line(std::string_view line) {
  (void)run_line(line);
}

std::optional<std::string> CommandReader::run_line(std::string_view line) {
  // Blank lines are skipped silently, as Naemon does. Only "" is tested up front; a line of white space fails
  // the parse and is recognised after it, so a valid line is not stripped twice.
  if (line.empty()) return std::nullopt;
  ParsedLine parsed = parse_external_command(line);
  if (!parsed.ok()) {
    if (strip_command_line(line).empty()) return std::nullopt;
    core_.log(parse_warning_text(line, parsed.error()));
    return parsed.error().message;
  }
  const ExternalCommand& cmd = parsed.command();
  if (auto invalid = validate_objects(cmd, core_.model())) {
    core_.log(parse_warning_text(line, *invalid));
    return invalid->message;
  }
  const config::MainConfig& main = core_.main_config();
  if (is_logged(cmd, main.log_external_commands, main.log_passive_checks))
    core_.log(external_command_log_text(cmd));
  core_.count_external_command();
  dispatch(cmd);
  mark_target_updated(cmd);
  return std::nullopt;
}

// Naemon stamps last_update on the object a command changes. Its group commands stamp each member; Vedette
// stamps the host or service a command names. A passive result is stamped where it is applied (the result
// pipeline), so its command is not looked up and stamped a second time here.
void CommandReader::mark_target_updated(const ExternalCommand& cmd) {
  if (cmd.is_custom() || cmd.spec->params.empty() || cmd.args.empty()) return;
  if (cmd.name == "PROCESS_SERVICE_CHECK_RESULT" || cmd.name == "PROCESS_HOST_CHECK_RESULT") return;
  const model::Model& model = core_.model();
  if (cmd.spec->params[0].type == ArgType::host) {
    if (const auto host = model.host_by_name.find(cmd.args[0]); host != model.host_by_name.end())
      core_.mark_updated(host->second);
  } else if (cmd.spec->params[0].type == ArgType::service && cmd.args.size() > 1) {
    if (const model::ServiceId s = model.find_service(cmd.args[0], cmd.args[1]); model::is_set(s))
      core_.mark_updated(s);
  }
}

// Naemon's process_external_commands_from_file: every line as if it came through the command file, on the
// core thread; a failing line is logged once more with the file's wording.
void CommandReader::process_file(const std::string& path, bool remove) {
  // A file that names itself (or a cycle of files) would recurse forever.
  if (file_depth_ >= k_max_file_depth) {
    core_.log(
        fmt::format("Error: PROCESS_FILE nested more than {} deep; '{}' ignored", k_max_file_depth, path));
    return;
  }
  config::MappedFile file;
  // MappedFile never blocks: a FIFO named here would have stopped the core thread in open().
  if (!file.open(path)) {
    core_.log(
        fmt::format("Error: Cannot open file '{}' to process external commands! ({})", path, file.failure()));
    return;
  }
  ++file_depth_;
  std::string_view text = file.text();
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (auto error = run_line(line)) core_.log(fmt::format("External command from file error: {}", *error));
  }
  --file_depth_;
  if (remove) ::unlink(path.c_str());
}

void CommandReader::log_failed(const ExternalCommand& cmd) {
  core_.log(fmt::format("Error: External command failed -> {};{}", cmd.name, cmd.raw_args));
}

// SCHEDULE_*_DOWNTIME for each object of the command's scope. A single object's refused downtime fails the
// command, as in Naemon; in the group and host-services forms Naemon goes on with the others.
void CommandReader::schedule_downtimes(const ExternalCommand& cmd) {
  const model::Model& model = core_.model();
  const std::string_view name = cmd.name;
  if (name == "SCHEDULE_SVC_DOWNTIME") {
    if (core_.schedule_downtime(model.find_service(cmd.args[0], cmd.args[1]), downtime_request(cmd, 2)) == 0)
      log_failed(cmd);
    return;
  }
  const engine::DowntimeRequest r = downtime_request(cmd, 1);
  if (name == "SCHEDULE_HOST_DOWNTIME") {
    if (core_.schedule_downtime(model.host_by_name.find(cmd.args[0])->second, r) == 0) log_failed(cmd);
  } else if (name == "SCHEDULE_HOST_SVC_DOWNTIME") {
    for (model::ServiceId s :
         model::host_services_naemon_order(model, model.host_by_name.find(cmd.args[0])->second))
      (void)core_.schedule_downtime(s, r);
  } else if (name == "SCHEDULE_AND_PROPAGATE_HOST_DOWNTIME" ||
             name == "SCHEDULE_AND_PROPAGATE_TRIGGERED_HOST_DOWNTIME") {
    core_.schedule_propagated_downtime(model.host_by_name.find(cmd.args[0])->second, r,
                                       name == "SCHEDULE_AND_PROPAGATE_TRIGGERED_HOST_DOWNTIME");
  } else if (name == "SCHEDULE_HOSTGROUP_HOST_DOWNTIME" || name == "SCHEDULE_HOSTGROUP_SVC_DOWNTIME") {
    const model::Hostgroup& g =
        model.hostgroups[model::index(model.hostgroup_by_name.find(cmd.args[0])->second)];
    for (model::HostId h : g.members) {
      if (name == "SCHEDULE_HOSTGROUP_HOST_DOWNTIME") {
        (void)core_.schedule_downtime(h, r);
      } else {
        for (model::ServiceId s : model::host_services_naemon_order(model, h))
          (void)core_.schedule_downtime(s, r);
      }
    }
  } else if (name == "SCHEDULE_SERVICEGROUP_HOST_DOWNTIME" || name == "SCHEDULE_SERVICEGROUP_SVC_DOWNTIME") {
    const model::Servicegroup& g =
        model.servicegroups[model::index(model.servicegroup_by_name.find(cmd.args[0])->second)];
    std::vector<bool> host_done(model.hosts.size(), false);
    for (model::ServiceId s : g.listed_members) {
      if (name == "SCHEDULE_SERVICEGROUP_SVC_DOWNTIME") {
        (void)core_.schedule_downtime(s, r);
        continue;
      }
      const model::HostId h = model.service(s).host;
      if (host_done[model::index(h)]) continue;
      host_done[model::index(h)] = true;
      (void)core_.schedule_downtime(h, r);
    }
  }
}

// DEL_DOWNTIME_BY_HOST_NAME / _BY_HOSTGROUP_NAME / _BY_START_TIME_COMMENT: how many downtimes matched.
std::size_t CommandReader::delete_downtimes(const ExternalCommand& cmd) {
  const model::Model& model = core_.model();
  auto text = [](std::string_view v) { return v.empty() ? std::nullopt : std::optional<std::string>(v); };
  if (cmd.name == "DEL_DOWNTIME_BY_START_TIME_COMMENT") {
    if (cmd.number(0) == 0 && cmd.args[1].empty()) return 0;  // Naemon: no filter, an error
    return core_.delete_downtimes({.start_time = cmd.number(0), .comment = text(cmd.args[1])});
  }
  const bool by_group = cmd.name == "DEL_DOWNTIME_BY_HOSTGROUP_NAME";
  const std::size_t first = by_group ? 1 : 0;  // hostname;service_description;start_time;comment
  const std::string_view host_name = cmd.args[first];
  engine::DowntimeFilter filter{.service_description = text(cmd.args[first + 1]),
                                .start_time = cmd.number(first + 2),
                                .comment = text(cmd.args[first + 3])};
  if (!by_group) {
    if (!host_name.empty()) {
      const auto it = model.host_by_name.find(host_name);
      if (it == model.host_by_name.end()) return 0;
      filter.host = it->second;
    }
    return core_.delete_downtimes(filter);
  }
  // Each member of the group, or only the one named (Naemon skips the one named instead: a bug).
  std::size_t matched = 0;
  const model::Hostgroup& g =
      model.hostgroups[model::index(model.hostgroup_by_name.find(cmd.args[0])->second)];
  for (model::HostId h : g.members) {
    if (!host_name.empty() && model.host(h).name != host_name) continue;
    filter.host = h;
    matched += core_.delete_downtimes(filter);
  }
  return matched;
}

void CommandReader::dispatch(const ExternalCommand& cmd) {
  const model::Model& model = core_.model();
  const std::string_view name = cmd.name;
  auto host = [&](std::size_t field) { return model.host_by_name.find(cmd.args[field])->second; };
  if (name == "PROCESS_SERVICE_CHECK_RESULT") {
    engine::PassiveResult r;
    r.host_name = cmd.args[0];
    r.service_description = cmd.args[1];
    r.return_code = static_cast<int>(cmd.number(2));
    r.output = cmd.args[3];
    r.check_time = cmd.entry_time;
    r.service = model.find_service(r.host_name, r.service_description);  // validated: it exists
    if (!core_.submit_passive_result(r)) log_failed(cmd);
  } else if (name == "PROCESS_HOST_CHECK_RESULT") {
    engine::PassiveResult r;
    r.host_name = cmd.args[0];
    r.return_code = static_cast<int>(cmd.number(1));
    r.output = cmd.args[2];
    r.check_time = cmd.entry_time;
    if (!core_.submit_passive_result(r)) log_failed(cmd);
  } else if (name == "SCHEDULE_SVC_CHECK" || name == "SCHEDULE_FORCED_SVC_CHECK") {
    core_.schedule_service_check(model.find_service(cmd.args[0], cmd.args[1]), cmd.number(2),
                                 name == "SCHEDULE_FORCED_SVC_CHECK");
  } else if (name == "SCHEDULE_HOST_CHECK" || name == "SCHEDULE_FORCED_HOST_CHECK") {
    core_.schedule_host_check(host(0), cmd.number(1), name == "SCHEDULE_FORCED_HOST_CHECK");
  } else if (name == "SCHEDULE_HOST_SVC_CHECKS" || name == "SCHEDULE_FORCED_HOST_SVC_CHECKS") {
    for (const model::ServiceId s : model::host_services_naemon_order(model, host(0)))
      core_.schedule_service_check(s, cmd.number(1), name == "SCHEDULE_FORCED_HOST_SVC_CHECKS");
  } else if (const auto program = program_switch(name)) {
    core_.set_program_switch(program->first, program->second);
  } else if (const auto flag = flag_command(name)) {
    set_flags(core_, cmd, *flag);
  } else if (const auto change = change_command(name)) {
    engine::AttributeChange c{.kind = change->kind};
    const std::size_t first = change->service ? 2 : 1;  // the field after the object
    switch (change->kind) {
      case engine::AttributeChange::Kind::check_period:
      case engine::AttributeChange::Kind::notification_period:
        c.name = cmd.args[first];
        break;
      case engine::AttributeChange::Kind::custom_variable:
        c.name = cmd.args[first];
        c.value = cmd.args[first + 1];
        break;
      case engine::AttributeChange::Kind::modified_attributes:
        c.bits = static_cast<unsigned long>(cmd.number(first));
        break;
      default:
        c.number = static_cast<double>(cmd.number(first));
        break;
    }
    if (change->service) {
      core_.change_attribute(model.find_service(cmd.args[0], cmd.args[1]), c);
    } else {
      core_.change_attribute(host(0), c);
    }
  } else if (name == "ACKNOWLEDGE_SVC_PROBLEM" || name == "ACKNOWLEDGE_SVC_PROBLEM_EXPIRE") {
    // service;sticky;notify;persistent;[end_time;]author;comment
    const bool expires = name.ends_with("_EXPIRE");
    core_.acknowledge(model.find_service(cmd.args[0], cmd.args[1]), acknowledgement(cmd, 2, expires));
  } else if (name == "ACKNOWLEDGE_HOST_PROBLEM" || name == "ACKNOWLEDGE_HOST_PROBLEM_EXPIRE") {
    const bool expires = name.ends_with("_EXPIRE");
    core_.acknowledge(host(0), acknowledgement(cmd, 1, expires));
  } else if (name == "REMOVE_SVC_ACKNOWLEDGEMENT") {
    core_.remove_acknowledgement(model.find_service(cmd.args[0], cmd.args[1]));
  } else if (name == "REMOVE_HOST_ACKNOWLEDGEMENT") {
    core_.remove_acknowledgement(host(0));
  } else if (name == "SEND_CUSTOM_SVC_NOTIFICATION") {  // service;options;author;comment
    core_.send_custom_notification(model.find_service(cmd.args[0], cmd.args[1]),
                                   static_cast<unsigned>(cmd.number(2)), cmd.args[3], cmd.args[4]);
  } else if (name == "SEND_CUSTOM_HOST_NOTIFICATION") {
    core_.send_custom_notification(host(0), static_cast<unsigned>(cmd.number(1)), cmd.args[2], cmd.args[3]);
  } else if (const auto contact = contact_command(name)) {
    run_contact_command(core_, cmd, *contact);
  } else if (name == "DELAY_SVC_NOTIFICATION") {
    core_.delay_notification(model.find_service(cmd.args[0], cmd.args[1]), cmd.number(2));
  } else if (name == "DELAY_HOST_NOTIFICATION") {
    core_.delay_notification(host(0), cmd.number(1));
  } else if (name == "ADD_SVC_COMMENT" || name == "ADD_HOST_COMMENT") {
    // object;persistent;author;comment
    const bool service = name == "ADD_SVC_COMMENT";
    const std::size_t first = service ? 2 : 1;
    const engine::UserComment c{.persistent = cmd.number(first) != 0,
                                .author = cmd.args[first + 1],
                                .text = cmd.args[first + 2],
                                .entry_time = cmd.entry_time};
    if (service) {
      core_.add_comment(model.find_service(cmd.args[0], cmd.args[1]), c);
    } else {
      core_.add_comment(host(0), c);
    }
  } else if (name == "DEL_SVC_COMMENT" || name == "DEL_HOST_COMMENT") {
    if (!core_.delete_comment(
            name == "DEL_SVC_COMMENT" ? engine::ObjectKind::service : engine::ObjectKind::host,
            static_cast<unsigned long>(cmd.number(0))))
      log_failed(cmd);
  } else if (name == "DEL_ALL_SVC_COMMENTS") {
    core_.delete_all_comments(model.find_service(cmd.args[0], cmd.args[1]));
  } else if (name == "DEL_ALL_HOST_COMMENTS") {
    core_.delete_all_comments(host(0));
  } else if (name.starts_with("SCHEDULE_") && name.ends_with("_DOWNTIME")) {
    schedule_downtimes(cmd);
  } else if (name == "DEL_SVC_DOWNTIME" || name == "DEL_HOST_DOWNTIME") {
    if (!core_.delete_downtime(
            name == "DEL_SVC_DOWNTIME" ? engine::ObjectKind::service : engine::ObjectKind::host,
            static_cast<unsigned long>(cmd.number(0))))
      log_failed(cmd);
  } else if (name.starts_with("DEL_DOWNTIME_BY_")) {
    if (delete_downtimes(cmd) == 0) log_failed(cmd);
  } else if (is_refused_by_naemon(name)) {
    log_failed(cmd);
  } else if (name == "PROCESS_FILE") {
    process_file(std::string(cmd.args[0]), cmd.number(1) != 0);
  } else if (name == "LOG") {
    core_.log(cmd.raw_args);  // Naemon's way for scripts to write a line of their own into the log
  } else if (name == "SAVE_STATE_INFORMATION") {
    core_.save_state();
  } else if (name == "READ_STATE_INFORMATION") {
    if (!core_.read_state()) log_failed(cmd);
  } else if (name == "RESTART_PROGRAM" || name == "RESTART_PROCESS") {  // Naemon: the same handler
    core_.restart();
  } else if (name == "SHUTDOWN_PROGRAM" || name == "SHUTDOWN_PROCESS") {
    core_.stop({});
  } else {
    // The full command set arrives with the operations issue; until then say so rather than pretend.
    core_.log(fmt::format("Warning: External command '{}' is not supported by Vedette yet; ignored", name));
  }
}

}  // namespace vedette::commands
