// What the families of external commands do with the core's components, for the dispatch's switch on the
// command's id (commands/command_dispatch.cpp): the objects an ENABLE_/DISABLE_ command reaches, CHANGE_*
// values, contacts, acknowledgements, comments, downtimes and passive results, with Naemon's failure lines.
// Each takes a command the dispatch validated (its objects exist). Core thread only.
#pragma once

#include "commands/command_line.hpp"
#include "engine/core_commands.hpp"
#include "engine/state/core_requests.hpp"
#include "model/ids.hpp"
#include "state/attributes.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace vedette::model {
struct Model;
}  // namespace vedette::model

namespace vedette::commands {

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

// A command on one contact or on each member of a contact group.
struct ContactCommand {
  enum class Action : std::uint8_t { host_notifications, service_notifications, change };
  bool group;  // its argument names a contact group
  Action action;
  bool on = false;                                                     // the notifications commands
  engine::ContactChange::Kind change = engine::ContactChange::Kind{};  // the CHANGE_ commands
};

// The model running now (a reload replaces it) and a validated host name in it.
const model::Model& model_of(const engine::CoreCommands& core);
model::HostId host_named(const model::Model& model, std::string_view name);

// Naemon's "Error: External command failed -> NAME;args".
void log_failed(const engine::CoreCommands& core, const ExternalCommand& cmd);

// An ENABLE_/DISABLE_ (START_/STOP_) command on each object of its scope.
void set_flags(const engine::CoreCommands& core, const ExternalCommand& cmd, const FlagCommand& f);

// A CHANGE_* command on one host or service (`service`: its first argument names a service, two fields).
void change_attribute(const engine::CoreCommands& core, const ExternalCommand& cmd, bool service,
                      engine::AttributeChange::Kind kind);

// The contact commands; the contact or group and the timeperiod were validated.
void run_contact_command(const engine::CoreCommands& core, const ExternalCommand& cmd,
                         const ContactCommand& c);

// ACKNOWLEDGE_SVC_PROBLEM(_EXPIRE) / ACKNOWLEDGE_HOST_PROBLEM(_EXPIRE).
void acknowledge(const engine::CoreCommands& core, const ExternalCommand& cmd, bool service, bool expires);

// ADD_SVC_COMMENT / ADD_HOST_COMMENT: object;persistent;author;comment.
void add_comment(const engine::CoreCommands& core, const ExternalCommand& cmd, bool service);

// SCHEDULE_*_DOWNTIME for each object of the command's scope. A single object's refused downtime fails the
// command, as in Naemon; in the group and host-services forms Naemon goes on with the others.
void schedule_downtimes(const engine::CoreCommands& core, const ExternalCommand& cmd);

// DEL_DOWNTIME_BY_HOST_NAME / _BY_HOSTGROUP_NAME / _BY_START_TIME_COMMENT: how many downtimes matched.
std::size_t delete_downtimes(const engine::CoreCommands& core, const ExternalCommand& cmd);

// PROCESS_SERVICE_CHECK_RESULT (service;return_code;output) and PROCESS_HOST_CHECK_RESULT.
void submit_passive_result(const engine::CoreCommands& core, const ExternalCommand& cmd, bool service);

}  // namespace vedette::commands
