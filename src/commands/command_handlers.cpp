#include "commands/command_handlers.hpp"

#include "engine/annotations/annotations.hpp"
#include "engine/checks/check_scheduler.hpp"
#include "engine/core.hpp"
#include "engine/object_commands.hpp"
#include "engine/world/world.hpp"
#include "model/name_order.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace vedette::commands {

namespace {

using Id = CommandId;

const model::Hostgroup& hostgroup_named(const model::Model& model, std::string_view name) {
  return model.hostgroups[model::index(model.hostgroup_by_name.find(name)->second)];
}

const model::Servicegroup& servicegroup_named(const model::Model& model, std::string_view name) {
  return model.servicegroups[model::index(model.servicegroup_by_name.find(name)->second)];
}

// ObjectCommands changes the setting; a change that asks for it reschedules the check.
void follow(const engine::CoreCommands& core, engine::CheckId check, engine::Reschedule reschedule) {
  if (reschedule == engine::Reschedule::within_interval) core.scheduler.within_interval(check);
}

template <typename ObjectId>
void set_flag(const engine::CoreCommands& core, ObjectId object, state::Flag flag, bool on) {
  const engine::CheckId check = core.world.check_of(object);
  follow(core, check, core.objects.set_flag(check, flag, on));
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

template <typename ObjectId>
unsigned long schedule_downtime(const engine::CoreCommands& core, ObjectId object,
                                const engine::DowntimeRequest& request) {
  return core.annotations.schedule_downtime(core.world.check_of(object), request);
}

}  // namespace

const model::Model& model_of(const engine::CoreCommands& core) {
  return *core.world.model;
}

model::HostId host_named(const model::Model& model, std::string_view name) {
  return model.host_by_name.find(name)->second;  // validated: it exists
}

void log_failed(const engine::CoreCommands& core, const ExternalCommand& cmd) {
  core.world.log(fmt::format("Error: External command failed -> {};{}", cmd.name, cmd.raw_args));
}

void set_flags(const engine::CoreCommands& core, const ExternalCommand& cmd, const FlagCommand& f) {
  const model::Model& model = model_of(core);
  auto on_host = [&](model::HostId h) { set_flag(core, h, f.flag, f.on); };
  auto on_service = [&](model::ServiceId s) { set_flag(core, s, f.flag, f.on); };
  switch (f.scope) {
    case Scope::service:
      on_service(model.find_service(cmd.args[0], cmd.args[1]));
      return;
    case Scope::host:
      on_host(host_named(model, cmd.args[0]));
      return;
    case Scope::host_services:
      for (model::ServiceId s : model::host_services_naemon_order(model, host_named(model, cmd.args[0])))
        on_service(s);
      return;
    case Scope::hostgroup_hosts:
      for (model::HostId h : hostgroup_named(model, cmd.args[0]).members) on_host(h);
      return;
    case Scope::hostgroup_services:
      for (model::HostId h : hostgroup_named(model, cmd.args[0]).members)
        for (model::ServiceId s : model::host_services_naemon_order(model, h)) on_service(s);
      return;
    case Scope::servicegroup_hosts: {
      std::vector<model::HostId> hosts;
      for (model::ServiceId s : servicegroup_named(model, cmd.args[0]).members)
        hosts.push_back(model.service(s).host);
      std::sort(hosts.begin(), hosts.end());
      hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
      for (model::HostId h : hosts) on_host(h);
      return;
    }
    case Scope::servicegroup_services:
      for (model::ServiceId s : servicegroup_named(model, cmd.args[0]).members) on_service(s);
      return;
    case Scope::host_and_children:
    case Scope::beyond_host: {
      // Every host below, once, however the parents are wired (Naemon stops at nothing when they loop).
      const model::HostId top = host_named(model, cmd.args[0]);
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

void change_attribute(const engine::CoreCommands& core, const ExternalCommand& cmd, bool service,
                      engine::AttributeChange::Kind kind) {
  engine::AttributeChange c{.kind = kind};
  const std::size_t first = service ? 2 : 1;  // the field after the object
  switch (kind) {
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
  const model::Model& model = model_of(core);
  const engine::CheckId check = service ? core.world.check_of(model.find_service(cmd.args[0], cmd.args[1]))
                                        : core.world.check_of(host_named(model, cmd.args[0]));
  follow(core, check, core.objects.change_attribute(check, c));
}

void run_contact_command(const engine::CoreCommands& core, const ExternalCommand& cmd,
                         const ContactCommand& c) {
  using A = ContactCommand::Action;
  const model::Model& model = model_of(core);
  std::vector<model::ContactId> contacts;
  if (c.group) {
    contacts =
        model.contactgroups[model::index(model.contactgroup_by_name.find(cmd.args[0])->second)].members;
  } else {
    contacts.push_back(model.contact_by_name.find(cmd.args[0])->second);
  }
  for (const model::ContactId id : contacts) {
    if (c.action != A::change) {
      core.objects.set_contact_notifications(id, c.action == A::host_notifications, c.on);
      continue;
    }
    engine::ContactChange change{.kind = c.change, .name = cmd.args[1]};
    if (c.change == engine::ContactChange::Kind::custom_variable) change.value = cmd.args[2];
    change.bits = static_cast<unsigned long>(cmd.number(1));
    core.objects.change_contact(id, change);
  }
}

void acknowledge(const engine::CoreCommands& core, const ExternalCommand& cmd, bool service, bool expires) {
  const model::Model& model = model_of(core);
  core.annotations.acknowledge(service ? core.world.check_of(model.find_service(cmd.args[0], cmd.args[1]))
                                       : core.world.check_of(host_named(model, cmd.args[0])),
                               acknowledgement(cmd, service ? 2 : 1, expires));
}

void add_comment(const engine::CoreCommands& core, const ExternalCommand& cmd, bool service) {
  const std::size_t first = service ? 2 : 1;
  const engine::UserComment c{.persistent = cmd.number(first) != 0,
                              .author = cmd.args[first + 1],
                              .text = cmd.args[first + 2],
                              .entry_time = cmd.entry_time};
  const model::Model& model = model_of(core);
  core.annotations.add_comment(service ? core.world.check_of(model.find_service(cmd.args[0], cmd.args[1]))
                                       : core.world.check_of(host_named(model, cmd.args[0])),
                               c);
}

void schedule_downtimes(const engine::CoreCommands& core, const ExternalCommand& cmd) {
  const model::Model& model = model_of(core);
  const Id id = cmd.spec->id;
  if (id == Id::schedule_svc_downtime) {
    if (schedule_downtime(core, model.find_service(cmd.args[0], cmd.args[1]), downtime_request(cmd, 2)) == 0)
      log_failed(core, cmd);
    return;
  }
  const engine::DowntimeRequest r = downtime_request(cmd, 1);
  switch (id) {
    case Id::schedule_host_downtime:
      if (schedule_downtime(core, host_named(model, cmd.args[0]), r) == 0) log_failed(core, cmd);
      return;
    case Id::schedule_host_svc_downtime:
      for (model::ServiceId s : model::host_services_naemon_order(model, host_named(model, cmd.args[0])))
        (void)schedule_downtime(core, s, r);
      return;
    case Id::schedule_and_propagate_host_downtime:
    case Id::schedule_and_propagate_triggered_host_downtime:
      core.annotations.schedule_propagated_downtime(host_named(model, cmd.args[0]), r,
                                                    id == Id::schedule_and_propagate_triggered_host_downtime);
      return;
    case Id::schedule_hostgroup_host_downtime:
    case Id::schedule_hostgroup_svc_downtime:
      for (model::HostId h : hostgroup_named(model, cmd.args[0]).members) {
        if (id == Id::schedule_hostgroup_host_downtime) {
          (void)schedule_downtime(core, h, r);
        } else {
          for (model::ServiceId s : model::host_services_naemon_order(model, h))
            (void)schedule_downtime(core, s, r);
        }
      }
      return;
    case Id::schedule_servicegroup_host_downtime:
    case Id::schedule_servicegroup_svc_downtime: {
      std::vector<bool> host_done(model.hosts.size(), false);
      for (model::ServiceId s : servicegroup_named(model, cmd.args[0]).listed_members) {
        if (id == Id::schedule_servicegroup_svc_downtime) {
          (void)schedule_downtime(core, s, r);
          continue;
        }
        const model::HostId h = model.service(s).host;
        if (host_done[model::index(h)]) continue;
        host_done[model::index(h)] = true;
        (void)schedule_downtime(core, h, r);
      }
      return;
    }
    default:
      return;
  }
}

std::size_t delete_downtimes(const engine::CoreCommands& core, const ExternalCommand& cmd) {
  const model::Model& model = model_of(core);
  auto text = [](std::string_view v) { return v.empty() ? std::nullopt : std::optional<std::string>(v); };
  const Id id = cmd.spec->id;
  if (id == Id::del_downtime_by_start_time_comment) {
    if (cmd.number(0) == 0 && cmd.args[1].empty()) return 0;  // Naemon: no filter, an error
    return core.annotations.delete_downtimes({.start_time = cmd.number(0), .comment = text(cmd.args[1])});
  }
  const bool by_group = id == Id::del_downtime_by_hostgroup_name;
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
    return core.annotations.delete_downtimes(filter);
  }
  // Each member of the group, or only the one named (Naemon skips the one named instead: a bug).
  std::size_t matched = 0;
  for (model::HostId h : hostgroup_named(model, cmd.args[0]).members) {
    if (!host_name.empty() && model.host(h).name != host_name) continue;
    filter.host = h;
    matched += core.annotations.delete_downtimes(filter);
  }
  return matched;
}

void submit_passive_result(const engine::CoreCommands& core, const ExternalCommand& cmd, bool service) {
  engine::PassiveResult r;
  const std::size_t first = service ? 2 : 1;
  r.host_name = cmd.args[0];
  if (service) r.service_description = cmd.args[1];
  r.return_code = static_cast<int>(cmd.number(first));
  r.output = cmd.args[first + 1];
  r.check_time = cmd.entry_time;
  if (service) r.service = model_of(core).find_service(r.host_name, r.service_description);  // validated
  if (!core.program.submit_passive_result(r)) log_failed(core, cmd);
}

}  // namespace vedette::commands
