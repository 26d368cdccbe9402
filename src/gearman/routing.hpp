// Mod-Gearman's options, read from its config syntax (key=value lines, or the NEB module's argument
// string "key=value key=value"), and the choice of queue for a check, event handler or notification:
// the custom-variable override, local groups, servicegroups, hostgroups, then the generic queue, in
// set_target_queue's order. Plain values and pure functions; any thread. Option messages read
// "<origin>:<line>: <text>"; the caller decides where they go.
//
//   Options options;
//   OptionMessages messages;
//   parse_option_args(options, "server=localhost:4730 encryption=no hostgroups=dmz", messages);
//   finish_options(options, messages);
//   std::optional<std::string> queue = select_queue(options, Work::service_check, target);  // nullopt: local
#pragma once

#include "model/custom_variable.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::gearman {

inline constexpr std::uint16_t k_default_port = 4730;  // GM_SERVER_DEFAULT_PORT
inline constexpr std::string_view k_default_result_queue = "check_results";
inline constexpr std::string_view k_default_perfdata_queue = "perfdata";
// The NEB module's templates (GM_DEFAULT_*_PERFDATA_FILE_TEMPLATE): pnp4nagios' format.
inline constexpr std::string_view k_default_host_perfdata_template =
    "DATATYPE::HOSTPERFDATA\tTIMET::$TIMET$\tHOSTNAME::$HOSTNAME$\tHOSTPERFDATA::$HOSTPERFDATA$\t"
    "HOSTCHECKCOMMAND::$HOSTCHECKCOMMAND$\tHOSTSTATE::$HOSTSTATE$\tHOSTSTATETYPE::$HOSTSTATETYPE$";
inline constexpr std::string_view k_default_service_perfdata_template =
    "DATATYPE::SERVICEPERFDATA\tTIMET::$TIMET$\tHOSTNAME::$HOSTNAME$\tSERVICEDESC::$SERVICEDESC$\t"
    "SERVICEPERFDATA::$SERVICEPERFDATA$\tSERVICECHECKCOMMAND::$SERVICECHECKCOMMAND$\tHOSTSTATE::$HOSTSTATE$\t"
    "HOSTSTATETYPE::$HOSTSTATETYPE$\tSERVICESTATE::$SERVICESTATE$\tSERVICESTATETYPE::$SERVICESTATETYPE$";
// Mod-Gearman refuses hostgroup and servicegroup names longer than this in hostgroups=/servicegroups=.
inline constexpr std::size_t k_max_group_name = 50;

struct Server {
  std::string host;  // "" in the option means 0.0.0.0, as in add_server
  std::uint16_t port = k_default_port;
  friend bool operator==(const Server&, const Server&) = default;
};

// Defaults are Mod-Gearman's (set_default_options); finish_options() applies the ones that depend on
// what was set.
struct Options {
  std::vector<Server> servers;  // server=host[:port][,host[:port]...]; repeatable
  bool encryption = true;
  std::string key;      // key= / password=; replaced by the keyfile's key in finish_options()
  std::string keyfile;  // keyfile= / passwordfile=
  bool accept_clear_results = false;
  // Which work goes out. With none of hosts/services/eventhandlers/notifications/hostgroups/
  // servicegroups/perfdata given, finish_options() turns on hosts, services and eventhandlers.
  bool hosts = false;
  bool services = false;
  bool eventhandlers = false;
  bool notifications = false;
  bool do_hostchecks = true;  // off: host checks always run locally, whatever else is set
  bool route_eventhandler_like_checks = false;
  std::vector<std::string> hostgroups;           // each gets the queue hostgroup_<name>; first listed wins
  std::vector<std::string> servicegroups;        // each gets the queue servicegroup_<name>
  std::vector<std::string> local_hostgroups;     // members run locally
  std::vector<std::string> local_servicegroups;  // members run locally
  std::string queue_custom_variable;             // upper-cased, without '_': WORKER matches _WORKER
  std::string result_queue;                      // "" until finish_options(): check_results
  bool use_uniq_jobs = true;
  bool orphan_host_checks = true;
  bool orphan_service_checks = true;
  int orphan_return = 2;
  // Vedette's own: a check that could not be submitted for as long as gearmand was unreachable runs on
  // the core's machine (gearmand_down=local), or gets UNKNOWN (gearmand_down=unknown, the default).
  bool run_locally_when_down = false;
  // Performance data (the NEB module's perfdata mode, for pnp4nagios' process_perfdata.pl --gearman): each
  // result with perfdata goes, as its object's template with macros expanded, to every queue listed.
  std::vector<std::string> perfdata_queues;  // perfdata=yes: "perfdata"; perfdata=a,b: a and b
  // perfdata_mode=1: a unique id per object, so gearmand holds one job per object; 2: none (append).
  bool perfdata_overwrite = true;
  bool perfdata_send_all = false;            // also objects with process_perf_data 0
  std::string host_perfdata_template = std::string(k_default_host_perfdata_template);
  std::string service_perfdata_template = std::string(k_default_service_perfdata_template);
  int gearman_connection_timeout_ms = 5000;  // submission timeout
  int result_workers = 1;                    // 0: no result thread
  // Worker side (vedette-worker; the core ignores them).
  std::string identifier;
  int job_timeout_s = 60;
  int max_age_s = 0;  // 0: no limit
  int timeout_return = 2;
  int max_worker = 20;
  // How many of the queue-selecting options were given (set_queues_by_hand).
  int queues_set_by_hand = 0;
};

struct OptionMessages {
  std::vector<std::string> errors;    // the options are unusable as given
  std::vector<std::string> warnings;  // ignored or doubtful input; the rest still applies
};

// One "key=value" (or bare "key" for a switch). Keys are case-insensitive and may start with '-' or
// "--"; values are trimmed. Mod-Gearman options Vedette does not implement (logging, perfdata, exports,
// embedded Perl, ...) are accepted with a warning; unknown keys too. config=/include= read the named file
// or directory (its *.cfg and *.conf files), at most 10 levels deep.
void apply_option(Options& options, std::string_view line, std::string_view origin, OptionMessages& messages,
                  int depth = 0);
// A config file's text: one option per line, '#' starts a comment (anywhere on the line, as in
// read_config_file), blank lines ignored.
void parse_option_text(Options& options, std::string_view text, std::string_view origin,
                       OptionMessages& messages, int depth = 0);
// The NEB module's argument string: options separated by spaces (values cannot hold one). `origin` starts
// each message: where the string was written.
void parse_option_args(Options& options, std::string_view args, OptionMessages& messages,
                       std::string_view origin = "module arguments");
// A file or a directory, as config= does. False (and an error) when it cannot be read.
bool parse_option_file(Options& options, const std::string& path, OptionMessages& messages, int depth = 0);
// Whose options: the core's (the NEB module's verify_options) or a worker's (worker.c verify_options).
enum class Side : std::uint8_t { core, worker };
// After everything is read (verify_options, read_keyfile): result_queue's default, the default queues
// when none was chosen (hosts, services, eventhandlers; a worker also takes notifications), the key from
// keyfile=; errors for no server, encryption without a key, or a worker without any queue.
void finish_options(Options& options, OptionMessages& messages, Side side = Side::core);

// The queues a worker with these options serves, as Mod-Gearman's worker registers them (set_worker):
// host, service, eventhandler, notification as switched on, then hostgroup_<name>, servicegroup_<name>.
[[nodiscard]] std::vector<std::string> worker_queues(const Options& options);

// What is to run, and where the job would go.
enum class Work : std::uint8_t { host_check, service_check, eventhandler, notification };

// The object a job belongs to, as names: its groups and custom variables. For a host's work, leave the
// service fields empty. Views: valid for the call only.
struct Target {
  bool is_service = false;
  std::span<const std::string_view> host_groups;     // the host's hostgroups (of the service's host)
  std::span<const std::string_view> service_groups;  // the service's servicegroups
  std::span<const model::CustomVariable> host_variables;
  std::span<const model::CustomVariable> service_variables;
};

// The queue for the work, or nothing when it runs locally, as the NEB module decides:
//  1. the work type must be distributed at all (host checks: do_hostchecks and hosts, hostgroups or
//     queue_custom_variable; service checks: services, hostgroups, servicegroups or the variable;
//     eventhandlers=; notifications=);
//  2. queue_custom_variable on the service, else on the host: its value is the queue, "local" runs locally;
//  3. a member of a localservicegroup (services only) or a localhostgroup runs locally;
//  4. the first servicegroup listed in servicegroups= the service belongs to: servicegroup_<name>;
//  5. the first hostgroup listed in hostgroups= the host belongs to: hostgroup_<name>;
//  6. the generic queue "service" or "host" if services=/hosts= is on, else locally.
// Event handlers then go to "eventhandler" unless route_eventhandler_like_checks keeps a group or
// custom-variable queue; notifications always go to "notification". (So with services=no and no group
// matching, a service's event handler runs locally even with eventhandlers=yes: Mod-Gearman does this.)
[[nodiscard]] std::optional<std::string> select_queue(const Options& options, Work work,
                                                      const Target& target);

// gearmand priority, as the NEB module submits: service checks low (high when forced, i.e. the core's
// CHECK_OPTION_FORCE_EXECUTION), host checks and event handlers normal, notifications high.
enum class Priority : std::uint8_t { low, normal, high };
[[nodiscard]] Priority priority_for(Work work, bool forced_check);

}  // namespace vedette::gearman
