// The main configuration file (naemon.cfg / nagios.cfg), its include_file/include_dir parts and the resource
// files it names, read into typed options with Naemon's names and defaults.
// Single-threaded: called by whoever loads the configuration; the returned MainConfig is a plain value.
#pragma once

#include "config/diagnostics.hpp"
#include "config/perfdata_writers.hpp"

#include <array>
#include <string>
#include <vector>

namespace vedette::config {

enum class DateFormat { us, euro, iso8601, strict_iso8601 };

// Vedette's own `object_cache_format`: Naemon's objects.cache (the default), or one Nagios 4's readers take
// (its CGIs reject the check_timeout lines Naemon writes).
enum class ObjectCacheFormat { naemon, nagios };

// Naemon's *_perfdata_file_mode letters.
enum class PerfdataFileMode : char { append = 'a', write = 'w', pipe = 'p' };

struct MainConfig {
  struct ObjectSource {
    enum class Kind { file, dir } kind;
    std::string path;  // absolute and normalized
    SourcePos at;
  };
  struct BrokerModule {
    std::string path;  // absolute and normalized
    std::string args;  // everything after the path, may be empty
    SourcePos at;
  };

  // --- Where things came from -----------------------------------------------------------------------------
  std::string main_config_file;              // absolute
  std::string config_rel_path;               // base for relative paths; the main file's directory unless set
  std::vector<ObjectSource> object_sources;  // cfg_file and cfg_dir, in the order written
  std::vector<std::string> resource_files;   // absolute, in the order written
  std::array<std::string, 256> user_macros;  // [0] is $USER1$
  std::vector<BrokerModule> broker_modules;

  // --- Files and paths (absolute once loaded) --------------------------------------------------------------
  std::string log_file = "/var/log/naemon/naemon.log";
  std::string log_archive_path = "/var/log/naemon/archives/";
  std::string debug_file = "/var/lib/naemon/naemon.debug";
  std::string command_file = "/var/lib/naemon/naemon.cmd";
  std::string query_socket = "/var/lib/naemon/naemon.qh";
  std::string status_file = "/var/lib/naemon/status.dat";
  std::string state_retention_file = "/var/lib/naemon/retention.dat";
  std::string object_cache_file = "/var/lib/naemon/objects.cache";
  ObjectCacheFormat object_cache_format = ObjectCacheFormat::naemon;  // Vedette's own
  std::string precached_object_file = "/var/lib/naemon/objects.precache";
  std::string lock_file = "/run/naemon/naemon.pid";
  std::string temp_path = "/tmp";
  std::string temp_file = "/var/lib/naemon/tempfile";
  std::string check_result_path = "/var/lib/naemon/spool/checkresults";
  std::string livestatus_socket;  // Vedette's own: Unix socket path for the built-in Livestatus
  std::string livestatus_listen;  // Vedette's own: host:port for the built-in Livestatus
  std::string gearman_options;    // Vedette's own: Mod-Gearman's NEB module arguments (docs/distributed.md)
  std::string metrics_listen;     // Vedette's own: host:port of the Prometheus endpoint (docs/metrics.md)

  // --- Logging
  // -----------------------------------------------------------------------------------------------
  bool use_syslog = true;
  bool log_notifications = true;
  bool enable_notification_suppression_reason_logging = true;
  bool log_service_retries = false;
  bool log_host_retries = false;
  bool log_event_handlers = true;
  bool log_external_commands = true;
  bool log_passive_checks = true;
  bool log_initial_states = false;
  bool log_current_states = true;
  bool log_global_notifications = true;
  int debug_level = 0;
  int debug_verbosity = 1;
  unsigned long max_debug_file_size = 1000000;

  // --- Timeouts (seconds)
  // ------------------------------------------------------------------------------------
  int service_check_timeout = 60;
  int service_check_timeout_state = 2;  // Naemon state number: 0 ok, 1 warning, 2 critical, 3 unknown
  int host_check_timeout = 30;
  int event_handler_timeout = 30;
  int notification_timeout = 30;
  int ocsp_timeout = 15;
  int ochp_timeout = 15;
  int perfdata_timeout = 5;

  // --- Checks and scheduling
  // ---------------------------------------------------------------------------------
  int interval_length = 60;
  int max_concurrent_checks = 0;  // 0 = unlimited
  // Vedette's own: how many checks expected to time out may run at once (engine/checks/timing_out.hpp); 0 =
  // automatic (a quarter of max_concurrent_checks, else 8 per executor thread), -1 = no bound.
  int max_timing_out_checks = 0;
  int check_result_reaper_frequency = 10;
  int max_check_result_reaper_time = 30;
  unsigned long max_check_result_file_age = 3600;
  int check_workers = 0;  // 0 = decide automatically
  // Vedette's own: run supported monitoring-plugins inside the executor (docs/native-checks.md).
  bool native_checks = true;
  bool execute_service_checks = true;
  bool accept_passive_service_checks = true;
  bool execute_host_checks = true;
  bool accept_passive_host_checks = true;
  bool use_aggressive_host_checking = false;
  unsigned long cached_host_check_horizon = 15;
  unsigned long cached_service_check_horizon = 15;
  bool enable_predictive_host_dependency_checks = true;
  bool enable_predictive_service_dependency_checks = true;
  bool soft_state_dependencies = false;
  bool translate_passive_host_checks = false;
  bool passive_host_checks_are_soft = false;
  int host_down_disable_service_checks = 0;
  int service_parents_disable_service_checks = 0;
  int service_skip_check_dependency_status = -1;  // -2..3; -1 = leave the state alone
  int service_skip_check_host_down_status = -1;
  int host_skip_check_dependency_status = -1;
  int allow_empty_hostgroup_assignment = 2;  // 2 = allow and warn (Naemon's default), 1 = allow, 0 = refuse
  int allow_circular_dependencies = 0;

  // --- Freshness and orphans
  // ---------------------------------------------------------------------------------
  bool check_for_orphaned_services = true;
  bool check_for_orphaned_hosts = true;
  bool check_service_freshness = true;
  bool check_host_freshness = false;
  int service_freshness_check_interval = 60;
  int host_freshness_check_interval = 60;
  int additional_freshness_latency = 15;

  // --- Retention and status
  // ----------------------------------------------------------------------------------
  bool retain_state_information = false;
  int retention_update_interval = 60;  // minutes
  bool use_retained_program_state = true;
  bool use_retained_scheduling_info = false;
  int retained_scheduling_randomize_window = 60;
  int retention_scheduling_horizon = 900;
  unsigned long retained_host_attribute_mask = 0;
  unsigned long retained_service_attribute_mask = 0;
  unsigned long retained_process_host_attribute_mask = 0;
  unsigned long retained_process_service_attribute_mask = 0;
  unsigned long retained_contact_host_attribute_mask = 0;
  unsigned long retained_contact_service_attribute_mask = 0;
  int status_update_interval = 60;
  int time_change_threshold = 900;

  // --- Notifications, event handlers, obsessing
  // --------------------------------------------------------------
  bool enable_notifications = true;
  bool enable_event_handlers = true;
  bool obsess_over_services = false;
  bool obsess_over_hosts = false;
  bool check_external_commands = true;
  std::string global_host_event_handler;
  std::string global_service_event_handler;
  std::string global_host_notification_handler;
  std::string global_service_notification_handler;
  std::string ocsp_command;
  std::string ochp_command;

  // --- Flapping
  // ----------------------------------------------------------------------------------------------
  bool enable_flap_detection = false;
  double low_service_flap_threshold = 20.0;
  double high_service_flap_threshold = 30.0;
  double low_host_flap_threshold = 20.0;
  double high_host_flap_threshold = 30.0;

  // --- Performance data
  // --------------------------------------------------------------------------------------
  bool process_performance_data = false;
  std::string host_perfdata_command;
  std::string service_perfdata_command;
  std::string host_perfdata_file;  // absolute when set
  std::string service_perfdata_file;
  std::string host_perfdata_file_template =
      "[HOSTPERFDATA]\t$TIMET$\t$HOSTNAME$\t$HOSTEXECUTIONTIME$\t$HOSTOUTPUT$\t$HOSTPERFDATA$";
  std::string service_perfdata_file_template =
      "[SERVICEPERFDATA]\t$TIMET$\t$HOSTNAME$\t$SERVICEDESC$\t$SERVICEEXECUTIONTIME$\t$SERVICELATENCY$"
      "\t$SERVICEOUTPUT$\t$SERVICEPERFDATA$";
  PerfdataFileMode host_perfdata_file_mode = PerfdataFileMode::append;
  PerfdataFileMode service_perfdata_file_mode = PerfdataFileMode::append;
  unsigned long host_perfdata_file_processing_interval = 0;
  unsigned long service_perfdata_file_processing_interval = 0;
  std::string host_perfdata_file_processing_command;
  std::string service_perfdata_file_processing_command;
  bool host_perfdata_process_empty_results = true;
  bool service_perfdata_process_empty_results = true;
  PerfdataWriters
      perfdata_writers;  // Vedette's own: graphite_writer=, influxdb_writer=, … (perfdata_writers.hpp)

  // --- Miscellaneous
  // -----------------------------------------------------------------------------------------
  DateFormat date_format = DateFormat::us;
  std::string use_timezone;
  unsigned long event_broker_options = 0;  // "-1" means every bit Naemon defines (1048575)
  std::string illegal_object_name_chars;
  std::string illegal_macro_output_chars;
  bool use_regexp_matching = false;
  bool use_true_regexp_matching = false;
  std::string admin_email;
  std::string admin_pager;

  // --- Privileges
  // ---------------------------------------------------------------------------------------------
  // Who a daemon started as root runs as (app/privileges.hpp). Naemon calls them obsolete and runs as the
  // user that starts it; Nagios 4 switches to nagios_user. naemon_* wins over nagios_*.
  std::string nagios_user;
  std::string naemon_user;
  std::string nagios_group;
  std::string naemon_group;

  // --- Obsolete in Naemon: accepted silently and kept for tools that read them
  // -------------------------------
  bool daemon_dumps_core = false;
  bool use_large_installation_tweaks = false;
  bool enable_environment_macros = false;
  bool free_child_process_memory = false;
  bool child_processes_fork_twice = false;
  bool enable_embedded_perl = false;
  bool use_embedded_perl_implicitly = false;
  std::string auth_file;
  std::string p1_file;
  int external_command_buffer_slots = 4096;
  bool check_for_updates = true;
  bool bare_update_check = false;
  char log_rotation_method = 'n';  // n, h, d, w or m
  std::string service_inter_check_delay_method = "s";
  std::string host_inter_check_delay_method = "s";
  int max_service_check_spread = 30;
  int max_host_check_spread = 30;
  std::string service_interleave_factor = "s";
  double sleep_time = 0.25;
  std::string command_check_interval = "-1";
  bool auto_reschedule_checks = false;
  int auto_rescheduling_interval = 30;
  int auto_rescheduling_window = 180;
  bool enable_failure_prediction = false;
};

// Reads `path` (relative to the working directory if not absolute) and everything it includes. Every problem
// goes to `diags` with file:line; the result holds the defaults wherever a value was missing or invalid.
// `files` must outlive `diags` and the SourcePos values in the result.
[[nodiscard]] MainConfig load_main_config(const std::string& path, SourceFiles& files, Diagnostics& diags);

}  // namespace vedette::config
