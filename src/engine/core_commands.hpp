// The core as external commands reach it: its components by reference, so each command calls the one that
// does its work (commands/command_dispatch), and the Core needs no forwarding method per command. What only
// the core sequences (a passive result, retention.dat, a restart, stopping) stays on the Core. Made by
// Core::commands() on the core thread; it refers into the Core and must not outlive it. Core thread only.
//
//   const engine::CoreCommands core = core_object.commands();
//   core.annotations.acknowledge(core.world.check_of(service), ack);
#pragma once

namespace vedette::engine {

class Annotations;
class CheckScheduler;
class Core;
class ObjectCommands;
struct World;

struct CoreCommands {
  World& world;               // the model, main config, check ids, last_update stamps; a reload keeps it
  Annotations& annotations;   // acknowledgements, comments, downtimes
  ObjectCommands& objects;    // program switches, object flags and attributes, contacts, custom notifications
  CheckScheduler& scheduler;  // SCHEDULE_*_CHECK, and the rescheduling a changed setting asks for
  Core& program;              // what the core sequences: passive results, retention.dat, restart, stop
};

}  // namespace vedette::engine
