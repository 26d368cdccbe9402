#include "commands/command_dispatch.hpp"

#include "commands/command_handlers.hpp"
#include "engine/annotations/annotations.hpp"
#include "engine/checks/check_scheduler.hpp"
#include "engine/core.hpp"
#include "engine/object_commands.hpp"
#include "engine/world/world.hpp"
#include "model/name_order.hpp"

#include <fmt/format.h>

#include <optional>

namespace vedette::commands {

namespace {

using Id = CommandId;

// Carries out one command Naemon knows; true unless Vedette does not carry it out yet.
bool carry_out(const engine::CoreCommands& core, const ExternalCommand& cmd) {
  using S = engine::ProgramSwitch;
  using F = state::Flag;
  using K = engine::AttributeChange::Kind;
  using A = ContactCommand::Action;
  using CK = engine::ContactChange::Kind;
  const model::Model& model = model_of(core);
  auto service = [&] { return model.find_service(cmd.args[0], cmd.args[1]); };
  auto host = [&] { return host_named(model, cmd.args[0]); };
  const Id id = cmd.spec->id;
  switch (id) {
    case Id::process_service_check_result:
      submit_passive_result(core, cmd, true);
      break;
    case Id::process_host_check_result:
      submit_passive_result(core, cmd, false);
      break;
    case Id::schedule_svc_check:
    case Id::schedule_forced_svc_check:
      core.scheduler.at(core.world.check_of(service()), cmd.number(2), id == Id::schedule_forced_svc_check);
      break;
    case Id::schedule_host_check:
    case Id::schedule_forced_host_check:
      core.scheduler.at(core.world.check_of(host()), cmd.number(1), id == Id::schedule_forced_host_check);
      break;
    case Id::schedule_host_svc_checks:
    case Id::schedule_forced_host_svc_checks:
      for (const model::ServiceId s : model::host_services_naemon_order(model, host()))
        core.scheduler.at(core.world.check_of(s), cmd.number(1), id == Id::schedule_forced_host_svc_checks);
      break;

    case Id::enable_notifications:
    case Id::disable_notifications:
      core.objects.set_program_switch(S::notifications, id == Id::enable_notifications);
      break;
    case Id::start_executing_svc_checks:
    case Id::stop_executing_svc_checks:
      core.objects.set_program_switch(S::service_checks, id == Id::start_executing_svc_checks);
      break;
    case Id::start_accepting_passive_svc_checks:
    case Id::stop_accepting_passive_svc_checks:
      core.objects.set_program_switch(S::passive_service_checks,
                                      id == Id::start_accepting_passive_svc_checks);
      break;
    case Id::start_executing_host_checks:
    case Id::stop_executing_host_checks:
      core.objects.set_program_switch(S::host_checks, id == Id::start_executing_host_checks);
      break;
    case Id::start_accepting_passive_host_checks:
    case Id::stop_accepting_passive_host_checks:
      core.objects.set_program_switch(S::passive_host_checks, id == Id::start_accepting_passive_host_checks);
      break;
    case Id::enable_event_handlers:
    case Id::disable_event_handlers:
      core.objects.set_program_switch(S::event_handlers, id == Id::enable_event_handlers);
      break;
    case Id::enable_flap_detection:
    case Id::disable_flap_detection:
      core.objects.set_program_switch(S::flap_detection, id == Id::enable_flap_detection);
      break;
    case Id::start_obsessing_over_svc_checks:
    case Id::stop_obsessing_over_svc_checks:
      core.objects.set_program_switch(S::obsess_over_services, id == Id::start_obsessing_over_svc_checks);
      break;
    case Id::start_obsessing_over_host_checks:
    case Id::stop_obsessing_over_host_checks:
      core.objects.set_program_switch(S::obsess_over_hosts, id == Id::start_obsessing_over_host_checks);
      break;
    case Id::enable_service_freshness_checks:
    case Id::disable_service_freshness_checks:
      core.objects.set_program_switch(S::service_freshness, id == Id::enable_service_freshness_checks);
      break;
    case Id::enable_host_freshness_checks:
    case Id::disable_host_freshness_checks:
      core.objects.set_program_switch(S::host_freshness, id == Id::enable_host_freshness_checks);
      break;
    case Id::enable_performance_data:
    case Id::disable_performance_data:
      core.objects.set_program_switch(S::performance_data, id == Id::enable_performance_data);
      break;

    case Id::enable_svc_check:
    case Id::disable_svc_check:
      set_flags(core, cmd, {Scope::service, F::active_checks, id == Id::enable_svc_check});
      break;
    case Id::enable_host_check:
    case Id::disable_host_check:
      set_flags(core, cmd, {Scope::host, F::active_checks, id == Id::enable_host_check});
      break;
    case Id::enable_host_svc_checks:
    case Id::disable_host_svc_checks:
      set_flags(core, cmd, {Scope::host_services, F::active_checks, id == Id::enable_host_svc_checks});
      break;
    case Id::enable_hostgroup_host_checks:
    case Id::disable_hostgroup_host_checks:
      set_flags(core, cmd,
                {Scope::hostgroup_hosts, F::active_checks, id == Id::enable_hostgroup_host_checks});
      break;
    case Id::enable_hostgroup_svc_checks:
    case Id::disable_hostgroup_svc_checks:
      set_flags(core, cmd,
                {Scope::hostgroup_services, F::active_checks, id == Id::enable_hostgroup_svc_checks});
      break;
    case Id::enable_servicegroup_host_checks:
    case Id::disable_servicegroup_host_checks:
      set_flags(core, cmd,
                {Scope::servicegroup_hosts, F::active_checks, id == Id::enable_servicegroup_host_checks});
      break;
    case Id::enable_servicegroup_svc_checks:
    case Id::disable_servicegroup_svc_checks:
      set_flags(core, cmd,
                {Scope::servicegroup_services, F::active_checks, id == Id::enable_servicegroup_svc_checks});
      break;
    case Id::enable_passive_svc_checks:
    case Id::disable_passive_svc_checks:
      set_flags(core, cmd, {Scope::service, F::passive_checks, id == Id::enable_passive_svc_checks});
      break;
    case Id::enable_passive_host_checks:
    case Id::disable_passive_host_checks:
      set_flags(core, cmd, {Scope::host, F::passive_checks, id == Id::enable_passive_host_checks});
      break;
    case Id::enable_hostgroup_passive_host_checks:
    case Id::disable_hostgroup_passive_host_checks:
      set_flags(core, cmd,
                {Scope::hostgroup_hosts, F::passive_checks, id == Id::enable_hostgroup_passive_host_checks});
      break;
    case Id::enable_hostgroup_passive_svc_checks:
    case Id::disable_hostgroup_passive_svc_checks:
      set_flags(
          core, cmd,
          {Scope::hostgroup_services, F::passive_checks, id == Id::enable_hostgroup_passive_svc_checks});
      break;
    case Id::enable_servicegroup_passive_host_checks:
    case Id::disable_servicegroup_passive_host_checks:
      set_flags(
          core, cmd,
          {Scope::servicegroup_hosts, F::passive_checks, id == Id::enable_servicegroup_passive_host_checks});
      break;
    case Id::enable_servicegroup_passive_svc_checks:
    case Id::disable_servicegroup_passive_svc_checks:
      set_flags(core, cmd,
                {Scope::servicegroup_services, F::passive_checks,
                 id == Id::enable_servicegroup_passive_svc_checks});
      break;
    case Id::enable_svc_notifications:
    case Id::disable_svc_notifications:
      set_flags(core, cmd, {Scope::service, F::notifications, id == Id::enable_svc_notifications});
      break;
    case Id::enable_host_notifications:
    case Id::disable_host_notifications:
      set_flags(core, cmd, {Scope::host, F::notifications, id == Id::enable_host_notifications});
      break;
    case Id::enable_host_svc_notifications:
    case Id::disable_host_svc_notifications:
      set_flags(core, cmd, {Scope::host_services, F::notifications, id == Id::enable_host_svc_notifications});
      break;
    case Id::enable_hostgroup_host_notifications:
    case Id::disable_hostgroup_host_notifications:
      set_flags(core, cmd,
                {Scope::hostgroup_hosts, F::notifications, id == Id::enable_hostgroup_host_notifications});
      break;
    case Id::enable_hostgroup_svc_notifications:
    case Id::disable_hostgroup_svc_notifications:
      set_flags(core, cmd,
                {Scope::hostgroup_services, F::notifications, id == Id::enable_hostgroup_svc_notifications});
      break;
    case Id::enable_servicegroup_host_notifications:
    case Id::disable_servicegroup_host_notifications:
      set_flags(
          core, cmd,
          {Scope::servicegroup_hosts, F::notifications, id == Id::enable_servicegroup_host_notifications});
      break;
    case Id::enable_servicegroup_svc_notifications:
    case Id::disable_servicegroup_svc_notifications:
      set_flags(
          core, cmd,
          {Scope::servicegroup_services, F::notifications, id == Id::enable_servicegroup_svc_notifications});
      break;
    case Id::enable_host_and_child_notifications:
    case Id::disable_host_and_child_notifications:
      set_flags(core, cmd,
                {Scope::host_and_children, F::notifications, id == Id::enable_host_and_child_notifications});
      break;
    case Id::enable_all_notifications_beyond_host:
    case Id::disable_all_notifications_beyond_host:
      set_flags(core, cmd,
                {Scope::beyond_host, F::notifications, id == Id::enable_all_notifications_beyond_host});
      break;
    case Id::enable_svc_event_handler:
    case Id::disable_svc_event_handler:
      set_flags(core, cmd, {Scope::service, F::event_handler, id == Id::enable_svc_event_handler});
      break;
    case Id::enable_host_event_handler:
    case Id::disable_host_event_handler:
      set_flags(core, cmd, {Scope::host, F::event_handler, id == Id::enable_host_event_handler});
      break;
    case Id::enable_svc_flap_detection:
    case Id::disable_svc_flap_detection:
      set_flags(core, cmd, {Scope::service, F::flap_detection, id == Id::enable_svc_flap_detection});
      break;
    case Id::enable_host_flap_detection:
    case Id::disable_host_flap_detection:
      set_flags(core, cmd, {Scope::host, F::flap_detection, id == Id::enable_host_flap_detection});
      break;
    case Id::start_obsessing_over_svc:
    case Id::stop_obsessing_over_svc:
      set_flags(core, cmd, {Scope::service, F::obsess, id == Id::start_obsessing_over_svc});
      break;
    case Id::start_obsessing_over_host:
    case Id::stop_obsessing_over_host:
      set_flags(core, cmd, {Scope::host, F::obsess, id == Id::start_obsessing_over_host});
      break;

    case Id::change_normal_svc_check_interval:
      change_attribute(core, cmd, true, K::check_interval);
      break;
    case Id::change_normal_host_check_interval:
      change_attribute(core, cmd, false, K::check_interval);
      break;
    case Id::change_retry_svc_check_interval:
      change_attribute(core, cmd, true, K::retry_interval);
      break;
    case Id::change_retry_host_check_interval:
      change_attribute(core, cmd, false, K::retry_interval);
      break;
    case Id::change_max_svc_check_attempts:
      change_attribute(core, cmd, true, K::max_check_attempts);
      break;
    case Id::change_max_host_check_attempts:
      change_attribute(core, cmd, false, K::max_check_attempts);
      break;
    case Id::change_svc_check_timeperiod:
      change_attribute(core, cmd, true, K::check_period);
      break;
    case Id::change_host_check_timeperiod:
      change_attribute(core, cmd, false, K::check_period);
      break;
    case Id::change_svc_notification_timeperiod:
      change_attribute(core, cmd, true, K::notification_period);
      break;
    case Id::change_host_notification_timeperiod:
      change_attribute(core, cmd, false, K::notification_period);
      break;
    case Id::change_custom_svc_var:
      change_attribute(core, cmd, true, K::custom_variable);
      break;
    case Id::change_custom_host_var:
      change_attribute(core, cmd, false, K::custom_variable);
      break;
    case Id::change_svc_modattr:
      change_attribute(core, cmd, true, K::modified_attributes);
      break;
    case Id::change_host_modattr:
      change_attribute(core, cmd, false, K::modified_attributes);
      break;

    case Id::acknowledge_svc_problem:  // service;sticky;notify;persistent;[end_time;]author;comment
    case Id::acknowledge_svc_problem_expire:
      acknowledge(core, cmd, true, id == Id::acknowledge_svc_problem_expire);
      break;
    case Id::acknowledge_host_problem:
    case Id::acknowledge_host_problem_expire:
      acknowledge(core, cmd, false, id == Id::acknowledge_host_problem_expire);
      break;
    case Id::remove_svc_acknowledgement:
      core.annotations.remove_acknowledgement(core.world.check_of(service()));
      break;
    case Id::remove_host_acknowledgement:
      core.annotations.remove_acknowledgement(core.world.check_of(host()));
      break;
    case Id::send_custom_svc_notification:  // service;options;author;comment
      core.objects.send_custom_notification(core.world.check_of(service()),
                                            static_cast<unsigned>(cmd.number(2)), cmd.args[3], cmd.args[4]);
      break;
    case Id::send_custom_host_notification:
      core.objects.send_custom_notification(core.world.check_of(host()), static_cast<unsigned>(cmd.number(1)),
                                            cmd.args[2], cmd.args[3]);
      break;

    case Id::enable_contact_host_notifications:
      run_contact_command(core, cmd, {false, A::host_notifications, true});
      break;
    case Id::disable_contact_host_notifications:
      run_contact_command(core, cmd, {false, A::host_notifications, false});
      break;
    case Id::enable_contact_svc_notifications:
      run_contact_command(core, cmd, {false, A::service_notifications, true});
      break;
    case Id::disable_contact_svc_notifications:
      run_contact_command(core, cmd, {false, A::service_notifications, false});
      break;
    case Id::enable_contactgroup_host_notifications:
      run_contact_command(core, cmd, {true, A::host_notifications, true});
      break;
    case Id::disable_contactgroup_host_notifications:
      run_contact_command(core, cmd, {true, A::host_notifications, false});
      break;
    case Id::enable_contactgroup_svc_notifications:
      run_contact_command(core, cmd, {true, A::service_notifications, true});
      break;
    case Id::disable_contactgroup_svc_notifications:
      run_contact_command(core, cmd, {true, A::service_notifications, false});
      break;
    case Id::change_contact_host_notification_timeperiod:
      run_contact_command(core, cmd, {false, A::change, false, CK::host_notification_period});
      break;
    case Id::change_contact_svc_notification_timeperiod:
      run_contact_command(core, cmd, {false, A::change, false, CK::service_notification_period});
      break;
    case Id::change_custom_contact_var:
      run_contact_command(core, cmd, {false, A::change, false, CK::custom_variable});
      break;
    case Id::change_contact_modattr:
      run_contact_command(core, cmd, {false, A::change, false, CK::modified_attributes});
      break;
    case Id::change_contact_modhattr:
      run_contact_command(core, cmd, {false, A::change, false, CK::modified_host_attributes});
      break;
    case Id::change_contact_modsattr:
      run_contact_command(core, cmd, {false, A::change, false, CK::modified_service_attributes});
      break;

    case Id::delay_svc_notification:
      core.objects.delay_notification(core.world.check_of(service()), cmd.number(2));
      break;
    case Id::delay_host_notification:
      core.objects.delay_notification(core.world.check_of(host()), cmd.number(1));
      break;

    case Id::add_svc_comment:
    case Id::add_host_comment:
      add_comment(core, cmd, id == Id::add_svc_comment);
      break;
    case Id::del_svc_comment:
    case Id::del_host_comment:
      if (!core.annotations.delete_comment(
              id == Id::del_svc_comment ? engine::ObjectKind::service : engine::ObjectKind::host,
              static_cast<unsigned long>(cmd.number(0))))
        log_failed(core, cmd);
      break;
    case Id::del_all_svc_comments:
      core.annotations.delete_all_comments(core.world.check_of(service()));
      break;
    case Id::del_all_host_comments:
      core.annotations.delete_all_comments(core.world.check_of(host()));
      break;

    case Id::schedule_svc_downtime:
    case Id::schedule_host_downtime:
    case Id::schedule_host_svc_downtime:
    case Id::schedule_and_propagate_host_downtime:
    case Id::schedule_and_propagate_triggered_host_downtime:
    case Id::schedule_hostgroup_host_downtime:
    case Id::schedule_hostgroup_svc_downtime:
    case Id::schedule_servicegroup_host_downtime:
    case Id::schedule_servicegroup_svc_downtime:
      schedule_downtimes(core, cmd);
      break;
    case Id::del_svc_downtime:
    case Id::del_host_downtime:
      if (!core.annotations.delete_downtime(
              id == Id::del_svc_downtime ? engine::ObjectKind::service : engine::ObjectKind::host,
              static_cast<unsigned long>(cmd.number(0))))
        log_failed(core, cmd);
      break;
    case Id::del_downtime_by_host_name:
    case Id::del_downtime_by_hostgroup_name:
    case Id::del_downtime_by_start_time_comment:
      if (delete_downtimes(core, cmd) == 0) log_failed(core, cmd);
      break;

    // Naemon registers these but refuses them (a check command or handler set from outside would run
    // arbitrary commands): "External command failed".
    case Id::change_svc_check_command:
    case Id::change_host_check_command:
    case Id::change_svc_event_handler:
    case Id::change_host_event_handler:
    case Id::change_global_svc_event_handler:
    case Id::change_global_host_event_handler:
      log_failed(core, cmd);
      break;

    case Id::process_file:  // the reader's: the file's lines go back through it (command_reader.cpp)
      break;
    case Id::log:
      core.world.log(cmd.raw_args);  // Naemon's way for scripts to write a line of their own into the log
      break;
    case Id::save_state_information:
      core.program.save_state();
      break;
    case Id::read_state_information:
      if (!core.program.read_state()) log_failed(core, cmd);
      break;
    case Id::restart_program:  // Naemon: the same handler
    case Id::restart_process:
      core.program.restart();
      break;
    case Id::shutdown_program:
    case Id::shutdown_process:
      core.program.stop({});
      break;

    case Id::set_host_notification_number:
    case Id::set_svc_notification_number:
      return false;
  }
  return true;
}

}  // namespace

std::optional<CommandError> CommandDispatch::validate(const ExternalCommand& cmd) const {
  return validate_objects(cmd, model_of(core_));
}

void CommandDispatch::run(const ExternalCommand& cmd) {
  if (cmd.is_custom() || !carry_out(core_, cmd)) {
    // The full command set arrives with the operations issue; until then say so rather than pretend.
    core_.world.log(
        fmt::format("Warning: External command '{}' is not supported by Vedette yet; ignored", cmd.name));
  }
  mark_target_updated(cmd);
}

// Naemon stamps last_update on the object a command changes. Its group commands stamp each member; Vedette
// stamps the host or service a command names. A passive result is stamped where it is applied (the result
// pipeline), so its command is not looked up and stamped a second time here.
void CommandDispatch::mark_target_updated(const ExternalCommand& cmd) {
  if (cmd.is_custom() || cmd.spec->params.empty() || cmd.args.empty()) return;
  if (cmd.spec->id == Id::process_service_check_result || cmd.spec->id == Id::process_host_check_result)
    return;
  const model::Model& model = model_of(core_);
  engine::World& world = core_.world;
  if (cmd.spec->params[0].type == ArgType::host) {
    if (const auto host = model.host_by_name.find(cmd.args[0]); host != model.host_by_name.end())
      world.mark_updated(world.hosts[model::index(host->second)]);
  } else if (cmd.spec->params[0].type == ArgType::service && cmd.args.size() > 1) {
    if (const model::ServiceId s = model.find_service(cmd.args[0], cmd.args[1]); model::is_set(s))
      world.mark_updated(world.services[model::index(s)]);
  }
}

}  // namespace vedette::commands
