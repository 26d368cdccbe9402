#include "config/main_config.hpp"

#include "config_test_support.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace vedette::config {
namespace {

namespace fs = std::filesystem;

class MainConfigTest : public test::TempDirTest {
 protected:
  std::string make_dir(const std::string& rel) {
    const fs::path path = fs::path(dir_) / rel;
    fs::create_directories(path);
    return path.string();
  }
  MainConfig load(const std::string& content) {
    return load_main_config(write("naemon.cfg", content), files_, diags_);
  }
  std::vector<std::string> messages() const {
    std::vector<std::string> out;
    for (const Diagnostic& d : diags_.all()) out.push_back(Diagnostics::format(d));
    return out;
  }
  // "(config file '<dir>/naemon.cfg', line N)"
  std::string at(int line, const std::string& file = "naemon.cfg") const {
    return " (config file '" + dir_ + "/" + file + "', line " + std::to_string(line) + ")";
  }

  SourceFiles files_;
  Diagnostics diags_;
};

TEST_F(MainConfigTest, EmptyFileGivesNaemonDefaults) {
  const MainConfig cfg = load("");
  EXPECT_TRUE(diags_.all().empty());
  EXPECT_EQ(cfg.main_config_file, dir_ + "/naemon.cfg");
  EXPECT_EQ(cfg.config_rel_path, dir_);
  EXPECT_EQ(cfg.interval_length, 60);
  EXPECT_TRUE(cfg.use_syslog);
  EXPECT_FALSE(cfg.log_host_retries);
  EXPECT_EQ(cfg.service_check_timeout, 60);
  EXPECT_EQ(cfg.host_check_timeout, 30);
  EXPECT_EQ(cfg.service_check_timeout_state, 2);
  EXPECT_EQ(cfg.ocsp_timeout, 15);
  EXPECT_EQ(cfg.retention_scheduling_horizon, 900);
  EXPECT_EQ(cfg.max_debug_file_size, 1000000ul);
  EXPECT_DOUBLE_EQ(cfg.low_service_flap_threshold, 20.0);
  EXPECT_DOUBLE_EQ(cfg.high_host_flap_threshold, 30.0);
  EXPECT_EQ(cfg.date_format, DateFormat::us);
  EXPECT_EQ(cfg.allow_empty_hostgroup_assignment, 2);
  EXPECT_EQ(cfg.service_skip_check_dependency_status, -1);
  EXPECT_EQ(cfg.event_broker_options, 0ul);
  EXPECT_EQ(cfg.host_perfdata_file_mode, PerfdataFileMode::append);
  EXPECT_TRUE(cfg.host_perfdata_process_empty_results);
  EXPECT_EQ(cfg.log_rotation_method, 'n');
  EXPECT_EQ(cfg.temp_path, "/tmp");
  EXPECT_EQ(cfg.log_file, "/var/log/naemon/naemon.log");
  EXPECT_TRUE(cfg.object_sources.empty());
  EXPECT_TRUE(cfg.user_macros[0].empty());
}

TEST_F(MainConfigTest, ReadsEveryKindOfValue) {
  const MainConfig cfg = load(
      "# comment\n"
      "; also a comment\n"
      "\n"
      "   interval_length = 30   \n"
      "use_syslog=0\n"
      "log_host_retries=1\n"
      "retained_host_attribute_mask=0x10\n"
      "retained_service_attribute_mask=010\n"
      "max_debug_file_size=2000\n"
      "low_service_flap_threshold=5.5\n"
      "high_host_flap_threshold=100\n"
      "ocsp_command=do_ocsp!$HOSTNAME$\n"
      "illegal_object_name_chars=`~!$%^&*|'\"<>?,()=\n"
      "date_format=strict-iso8601\n"
      "service_check_timeout_state=u\n"
      "event_broker_options=-1\n"
      "host_perfdata_file_mode=p\n"
      "service_perfdata_file_mode=w\n"
      "service_skip_check_host_down_status=-2\n"
      "allow_empty_hostgroup_assignment=1\n"
      "use_agressive_host_checking=1\n"
      "service_reaper_frequency=3\n"
      "freshness_check_interval=7\n"
      "livestatus_listen=127.0.0.1:6557\n"
      "livestatus_socket=live.sock\n"
      "use_timezone=Europe/Berlin\n");
  EXPECT_EQ(messages(), std::vector<std::string>{});
  EXPECT_EQ(cfg.interval_length, 30);
  EXPECT_FALSE(cfg.use_syslog);
  EXPECT_TRUE(cfg.log_host_retries);
  EXPECT_EQ(cfg.retained_host_attribute_mask, 16ul);
  EXPECT_EQ(cfg.retained_service_attribute_mask, 8ul);
  EXPECT_EQ(cfg.max_debug_file_size, 2000ul);
  EXPECT_DOUBLE_EQ(cfg.low_service_flap_threshold, 5.5);
  EXPECT_DOUBLE_EQ(cfg.high_host_flap_threshold, 100.0);
  EXPECT_EQ(cfg.ocsp_command, "do_ocsp!$HOSTNAME$");
  EXPECT_EQ(cfg.illegal_object_name_chars, "`~!$%^&*|'\"<>?,()=");
  EXPECT_EQ(cfg.date_format, DateFormat::strict_iso8601);
  EXPECT_EQ(cfg.service_check_timeout_state, 3);
  EXPECT_EQ(cfg.event_broker_options, 1048575ul);
  EXPECT_EQ(cfg.host_perfdata_file_mode, PerfdataFileMode::pipe);
  EXPECT_EQ(cfg.service_perfdata_file_mode, PerfdataFileMode::write);
  EXPECT_EQ(cfg.service_skip_check_host_down_status, -2);
  EXPECT_EQ(cfg.allow_empty_hostgroup_assignment, 1);
  EXPECT_TRUE(cfg.use_aggressive_host_checking);
  EXPECT_EQ(cfg.check_result_reaper_frequency, 3);
  EXPECT_EQ(cfg.service_freshness_check_interval, 7);
  EXPECT_EQ(cfg.livestatus_listen, "127.0.0.1:6557");
  EXPECT_EQ(cfg.livestatus_socket, dir_ + "/live.sock");
  EXPECT_EQ(cfg.use_timezone, "Europe/Berlin");
}

TEST_F(MainConfigTest, InvalidValuesAreErrorsWithFileAndLineAndAllAreReported) {
  const MainConfig cfg = load(
      "interval_length=abc\n"
      "use_syslog=2\n"
      "retention_update_interval=-1\n"
      "service_check_timeout=0\n"
      "low_host_flap_threshold=100\n"
      "service_check_timeout_state=x\n"
      "time_change_threshold=5\n"
      "host_skip_check_dependency_status=4\n"
      "max_debug_file_size=-3\n"
      "log_file=/" +
      std::string(300, 'a') +
      "\n"
      "check_workers=2\n");
  EXPECT_EQ(
      messages(),
      (std::vector<std::string>{
          "Error: invalid value 'abc' for option 'interval_length': expected an integer >= 1" + at(1),
          "Error: invalid value '2' for option 'use_syslog': expected 0 or 1" + at(2),
          "Error: invalid value '-1' for option 'retention_update_interval': expected an integer >= 0" +
              at(3),
          "Error: invalid value '0' for option 'service_check_timeout': expected an integer >= 1" + at(4),
          "Error: invalid value '100' for option 'low_host_flap_threshold': expected a number > 0 and < 100" +
              at(5),
          "Error: invalid value 'x' for option 'service_check_timeout_state': expected one of o, w, c, u" +
              at(6),
          "Error: invalid value '5' for option 'time_change_threshold': expected an integer > 5" + at(7),
          "Error: invalid value '4' for option 'host_skip_check_dependency_status': expected an integer "
          "from -2 to 3" +
              at(8),
          "Error: invalid value '-3' for option 'max_debug_file_size': expected a non-negative integer" +
              at(9),
          "Error: value of option 'log_file' is too long (301 characters, at most 255)" + at(10),
      }));
  EXPECT_EQ(diags_.error_count(), 10u);
  // Invalid values leave the default; later lines are still read.
  EXPECT_EQ(cfg.interval_length, 60);
  EXPECT_TRUE(cfg.use_syslog);
  EXPECT_EQ(cfg.check_workers, 2);
}

TEST_F(MainConfigTest, ObjectCacheFormatIsNaemonOrNagios) {
  EXPECT_EQ(load("").object_cache_format, ObjectCacheFormat::naemon);
  EXPECT_EQ(load("object_cache_format=nagios\n").object_cache_format, ObjectCacheFormat::nagios);
  EXPECT_EQ(load("object_cache_format=nagios\nobject_cache_format=naemon\n").object_cache_format,
            ObjectCacheFormat::naemon);
  EXPECT_FALSE(diags_.has_errors());
  const MainConfig cfg = load("object_cache_format=icinga\n");
  EXPECT_EQ(messages(), (std::vector<std::string>{"Error: invalid value 'icinga' for option "
                                                  "'object_cache_format': expected naemon or nagios" +
                                                  at(1)}));
  EXPECT_EQ(cfg.object_cache_format, ObjectCacheFormat::naemon);
}

TEST_F(MainConfigTest, MaxTimingOutChecksIsAutomaticACountOrNone) {
  EXPECT_EQ(load("").max_timing_out_checks, 0);
  EXPECT_EQ(load("max_timing_out_checks=12\n").max_timing_out_checks, 12);
  EXPECT_EQ(load("max_timing_out_checks=-1\n").max_timing_out_checks, -1);
  EXPECT_FALSE(diags_.has_errors());
  EXPECT_EQ(load("max_timing_out_checks=-2\n").max_timing_out_checks, 0);
  EXPECT_TRUE(diags_.has_errors());
}

TEST_F(MainConfigTest, MetricsListenIsHostAndPort) {
  EXPECT_EQ(load("").metrics_listen, "");
  EXPECT_EQ(load("metrics_listen=127.0.0.1:9645\n").metrics_listen, "127.0.0.1:9645");
  EXPECT_EQ(load("metrics_listen=[::1]:9645\n").metrics_listen, "[::1]:9645");
  EXPECT_EQ(load("metrics_listen=:9645\n").metrics_listen, ":9645");
  EXPECT_EQ(load("metrics_listen=localhost:1\n").metrics_listen, "localhost:1");
  EXPECT_FALSE(diags_.has_errors());
  const MainConfig cfg = load(
      "metrics_listen=127.0.0.1\n"
      "metrics_listen=127.0.0.1:0\n"
      "metrics_listen=127.0.0.1:65536\n"
      "metrics_listen=::1:9645\n"
      "metrics_listen=host:http\n");
  const std::string expected =
      "expected host:port (such as 127.0.0.1:9645 or [::1]:9645) with a port from 1 to 65535";
  EXPECT_EQ(messages(),
            (std::vector<std::string>{
                "Error: invalid value '127.0.0.1' for option 'metrics_listen': " + expected + at(1),
                "Error: invalid value '127.0.0.1:0' for option 'metrics_listen': " + expected + at(2),
                "Error: invalid value '127.0.0.1:65536' for option 'metrics_listen': " + expected + at(3),
                "Error: invalid value '::1:9645' for option 'metrics_listen': " + expected + at(4),
                "Error: invalid value 'host:http' for option 'metrics_listen': " + expected + at(5),
            }));
  EXPECT_EQ(cfg.metrics_listen, "");
}

TEST_F(MainConfigTest, MalformedLinesAndUnknownOptions) {
  const MainConfig cfg = load(
      "log_file\n"
      "status_file=\n"
      "frobnicate=1\n"
      "x_addon_setting=whatever\n"
      "date_format=klingon\n"
      "interval_length=10\n");
  EXPECT_EQ(messages(), (std::vector<std::string>{
                            "Error: expected option=value, got 'log_file'" + at(1),
                            "Error: missing value for option 'status_file'" + at(2),
                            "Error: unknown option 'frobnicate'" + at(3),
                            "Warning: unknown date_format 'klingon', using 'us' (as Naemon does)" + at(5),
                        }));
  EXPECT_EQ(cfg.interval_length, 10);
}

// Naemon's UNKNOWN VARIABLE is an error; every option Naemon 1.5 or Nagios 4.4 takes, obsolete ones too,
// is accepted: the names their read_main_config_file compares (every 1.5.x and 4.4.x release).
TEST_F(MainConfigTest, EveryOptionOfNaemonAndNagiosIsKnown) {
  const char* const k_options[] = {
      "accept_passive_host_checks",
      "accept_passive_service_checks",
      "additional_freshness_latency",
      "admin_email",
      "admin_pager",
      "allow_circular_dependencies",
      "allow_empty_hostgroup_assignment",
      "auth_file",
      "auto_reschedule_checks",
      "auto_rescheduling_interval",
      "auto_rescheduling_window",
      "bare_update_check",
      "broker_module",
      "cached_host_check_horizon",
      "cached_service_check_horizon",
      "cfg_dir",
      "cfg_file",
      "check_external_commands",
      "check_for_orphaned_hosts",
      "check_for_orphaned_services",
      "check_for_updates",
      "check_host_freshness",
      "check_result_path",
      "check_result_reaper_frequency",
      "check_service_freshness",
      "check_workers",
      "child_processes_fork_twice",
      "command_check_interval",
      "command_file",
      "config_rel_path",
      "daemon_dumps_core",
      "date_format",
      "debug_file",
      "debug_level",
      "debug_verbosity",
      "enable_embedded_perl",
      "enable_environment_macros",
      "enable_event_handlers",
      "enable_failure_prediction",
      "enable_flap_detection",
      "enable_notification_suppression_reason_logging",
      "enable_notifications",
      "enable_predictive_host_dependency_checks",
      "enable_predictive_service_dependency_checks",
      "event_broker_options",
      "event_handler_timeout",
      "execute_host_checks",
      "execute_service_checks",
      "external_command_buffer_slots",
      "free_child_process_memory",
      "freshness_check_interval",
      "global_host_event_handler",
      "global_host_notification_handler",
      "global_service_event_handler",
      "global_service_notification_handler",
      "high_host_flap_threshold",
      "high_service_flap_threshold",
      "host_check_timeout",
      "host_down_disable_service_checks",
      "host_freshness_check_interval",
      "host_inter_check_delay_method",
      "host_perfdata_command",
      "host_perfdata_file",
      "host_perfdata_file_mode",
      "host_perfdata_file_processing_command",
      "host_perfdata_file_processing_interval",
      "host_perfdata_file_template",
      "host_perfdata_process_empty_results",
      "host_skip_check_dependency_status",
      "illegal_macro_output_chars",
      "illegal_object_name_chars",
      "include_dir",
      "include_file",
      "interval_length",
      "loadctl_options",
      "lock_file",
      "log_archive_path",
      "log_current_states",
      "log_event_handlers",
      "log_external_commands",
      "log_file",
      "log_global_notifications",
      "log_host_retries",
      "log_initial_states",
      "log_notifications",
      "log_passive_checks",
      "log_rotation_method",
      "log_service_retries",
      "low_host_flap_threshold",
      "low_service_flap_threshold",
      "max_check_result_file_age",
      "max_check_result_reaper_time",
      "max_concurrent_checks",
      "max_debug_file_size",
      "max_host_check_spread",
      "max_service_check_spread",
      "naemon_group",
      "naemon_user",
      "nagios_group",
      "nagios_user",
      "notification_timeout",
      "obsess_over_hosts",
      "obsess_over_services",
      "ochp_command",
      "ochp_timeout",
      "ocsp_command",
      "ocsp_timeout",
      "p1_file",
      "passive_host_checks_are_soft",
      "perfdata_timeout",
      "process_performance_data",
      "query_socket",
      "resource_file",
      "retain_state_information",
      "retained_contact_host_attribute_mask",
      "retained_contact_service_attribute_mask",
      "retained_host_attribute_mask",
      "retained_process_host_attribute_mask",
      "retained_process_service_attribute_mask",
      "retained_scheduling_randomize_window",
      "retained_service_attribute_mask",
      "retention_scheduling_horizon",
      "retention_update_interval",
      "service_check_timeout",
      "service_check_timeout_state",
      "service_freshness_check_interval",
      "service_inter_check_delay_method",
      "service_interleave_factor",
      "service_parents_disable_service_checks",
      "service_perfdata_command",
      "service_perfdata_file",
      "service_perfdata_file_mode",
      "service_perfdata_file_processing_command",
      "service_perfdata_file_processing_interval",
      "service_perfdata_file_template",
      "service_perfdata_process_empty_results",
      "service_reaper_frequency",
      "service_skip_check_dependency_status",
      "service_skip_check_host_down_status",
      "sleep_time",
      "soft_state_dependencies",
      "status_file",
      "status_update_interval",
      "temp_file",
      "temp_path",
      "time_change_threshold",
      "translate_passive_host_checks",
      "use_aggressive_host_checking",
      "use_agressive_host_checking",
      "use_embedded_perl_implicitly",
      "use_large_installation_tweaks",
      "use_regexp_matching",
      "use_retained_program_state",
      "use_retained_scheduling_info",
      "use_syslog",
      "use_timezone",
      "use_true_regexp_matching",
      "website_url",
  };
  std::string text;
  for (const char* name : k_options) text += std::string(name) + "=0\n";
  (void)load(text);
  for (const std::string& m : messages()) EXPECT_EQ(m.find("unknown option"), std::string::npos) << m;
}

TEST_F(MainConfigTest, MissingMainConfigIsAnErrorWithoutPosition) {
  const MainConfig cfg = load_main_config(dir_ + "/nope.cfg", files_, diags_);
  EXPECT_EQ(messages(), std::vector<std::string>{"Error: cannot open main configuration file '" + dir_ +
                                                 "/nope.cfg' for reading: No such file or directory"});
  EXPECT_EQ(cfg.interval_length, 60);
}

TEST_F(MainConfigTest, RelativePathsResolveAgainstTheMainConfigDirectory) {
  write("objects/hosts.cfg", "");
  make_dir("conf.d");
  write("other/extra.cfg", "");
  const MainConfig cfg = load(
      "cfg_file=objects/hosts.cfg\n"
      "cfg_dir=./conf.d/\n"
      "log_file=var/../log//naemon.log\n"
      "status_file=/abs/status.dat\n"
      "config_rel_path=" +
      dir_ +
      "/other\n"
      "cfg_file=extra.cfg\n"
      "temp_path=tmp/\n"
      "temp_file=scratch\n");
  EXPECT_EQ(messages(), std::vector<std::string>{});
  ASSERT_EQ(cfg.object_sources.size(), 3u);
  EXPECT_EQ(cfg.object_sources[0].kind, MainConfig::ObjectSource::Kind::file);
  EXPECT_EQ(cfg.object_sources[0].path, dir_ + "/objects/hosts.cfg");
  EXPECT_EQ(cfg.object_sources[0].at.line, 1u);
  EXPECT_EQ(*cfg.object_sources[0].at.file, dir_ + "/naemon.cfg");
  EXPECT_EQ(cfg.object_sources[1].kind, MainConfig::ObjectSource::Kind::dir);
  EXPECT_EQ(cfg.object_sources[1].path, dir_ + "/conf.d");
  EXPECT_EQ(cfg.object_sources[2].path, dir_ + "/other/extra.cfg");
  EXPECT_EQ(cfg.log_file, dir_ + "/log/naemon.log");
  EXPECT_EQ(cfg.status_file, "/abs/status.dat");
  EXPECT_EQ(cfg.temp_path, dir_ + "/other/tmp");
  EXPECT_EQ(cfg.temp_file, dir_ + "/other/tmp/scratch");  // a bare temp_file lives in temp_path
}

TEST_F(MainConfigTest, RelativeMainConfigPathIsMadeAbsoluteFromTheWorkingDirectory) {
  write("naemon.cfg", "log_file=x.log\n");
  const fs::path saved = fs::current_path();
  fs::current_path(dir_);
  const MainConfig cfg = load_main_config("./naemon.cfg", files_, diags_);
  fs::current_path(saved);
  EXPECT_TRUE(diags_.all().empty());
  EXPECT_EQ(cfg.main_config_file, dir_ + "/naemon.cfg");
  EXPECT_EQ(cfg.log_file, dir_ + "/x.log");
}

TEST_F(MainConfigTest, ObjectSourcesMustExistWithTheRightKind) {
  write("afile.cfg", "");
  make_dir("adir");
  const MainConfig cfg = load(
      "cfg_dir=missing\n"
      "cfg_dir=afile.cfg\n"
      "cfg_file=adir\n"
      "cfg_file=missing.cfg\n"
      "cfg_dir=adir\n");
  EXPECT_EQ(messages(),
            (std::vector<std::string>{
                "Error: cannot open cfg_dir '" + dir_ + "/missing': No such file or directory" + at(1),
                "Error: cfg_dir '" + dir_ + "/afile.cfg' is not a directory" + at(2),
                "Error: cfg_file '" + dir_ + "/adir' is not a regular file" + at(3),
                "Error: cannot open cfg_file '" + dir_ + "/missing.cfg': No such file or directory" + at(4),
            }));
  ASSERT_EQ(cfg.object_sources.size(), 1u);
  EXPECT_EQ(cfg.object_sources[0].path, dir_ + "/adir");
}

TEST_F(MainConfigTest, UnreadableCfgFileIsAnError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads every file";
  const std::string path = write("secret.cfg", "");
  ::chmod(path.c_str(), 0);
  (void)load("cfg_file=secret.cfg\n");
  EXPECT_EQ(messages(), std::vector<std::string>{"Error: cannot read cfg_file '" + path +
                                                 "': Permission denied" + at(1)});
}

TEST_F(MainConfigTest, ResourceFilesDefineUserMacros) {
  write("resource.cfg",
        "# plugins\n"
        "$USER1$=/usr/lib/plugins\n"
        "\n"
        "$USER256$=last\n"
        "$USER3$=pa=ss word\n"
        "$USER0$=zero\n"
        "$USER257$=too far\n"
        "$USERx$=nope\n"
        "$FOO$=bar\n"
        "no equals sign\n"
        "$USER4$=\n");
  write("more/resource2.cfg", "$USER1$=/override\n");
  const MainConfig cfg = load(
      "resource_file=resource.cfg\n"
      "resource_file=more/resource2.cfg\n"
      "resource_file=missing.cfg\n");
  const std::string r = "resource.cfg";
  EXPECT_EQ(messages(),
            (std::vector<std::string>{
                "Error: invalid macro name '$USER0$': expected $USER1$ to $USER256$" + at(6, r),
                "Error: invalid macro name '$USER257$': expected $USER1$ to $USER256$" + at(7, r),
                "Error: invalid macro name '$USERx$': expected $USER1$ to $USER256$" + at(8, r),
                "Warning: ignoring '$FOO$': resource files define only $USER1$ to $USER256$" + at(9, r),
                "Error: expected $USERn$=value, got 'no equals sign'" + at(10, r),
                "Error: missing value for '$USER4$'" + at(11, r),
                "Error: cannot open resource file '" + dir_ +
                    "/missing.cfg' for reading: No such file or directory" + at(3),
            }));
  EXPECT_EQ(cfg.resource_files,
            (std::vector<std::string>{dir_ + "/resource.cfg", dir_ + "/more/resource2.cfg",
                                      dir_ + "/missing.cfg"}));
  EXPECT_EQ(cfg.user_macros[0], "/override");
  EXPECT_EQ(cfg.user_macros[2], "pa=ss word");
  EXPECT_EQ(cfg.user_macros[255], "last");
  EXPECT_TRUE(cfg.user_macros[3].empty());
}

TEST_F(MainConfigTest, BrokerModulesKeepPathAndArguments) {
  const MainConfig cfg = load(
      "broker_module=/usr/lib/naemon/naemon-livestatus/livestatus.so /var/cache/naemon/live debug=1\n"
      "broker_module=mods/other.o\n");
  EXPECT_TRUE(diags_.all().empty());
  ASSERT_EQ(cfg.broker_modules.size(), 2u);
  EXPECT_EQ(cfg.broker_modules[0].path, "/usr/lib/naemon/naemon-livestatus/livestatus.so");
  EXPECT_EQ(cfg.broker_modules[0].args, "/var/cache/naemon/live debug=1");
  EXPECT_EQ(cfg.broker_modules[0].at.line, 1u);
  EXPECT_EQ(cfg.broker_modules[1].path, dir_ + "/mods/other.o");
  EXPECT_EQ(cfg.broker_modules[1].args, "");
}

TEST_F(MainConfigTest, IncludeFileAndIncludeDir) {
  write("part.cfg", "interval_length=15\nbogus=1\n");
  write("parts.d/b.cfg", "status_update_interval=5\n");
  write("parts.d/a.cfg", "status_update_interval=3\nuse_syslog=7\n");
  write("parts.d/.hidden.cfg", "interval_length=99\n");
  write("parts.d/notes.txt", "interval_length=98\n");
  const MainConfig cfg = load(
      "include_file=part.cfg\n"
      "include_dir=parts.d\n"
      "include_file=part.cfg\n"
      "include_dir=parts.d/\n"
      "include_dir=nodir\n"
      "include_file=nofile.cfg\n"
      "include_file=naemon.cfg\n");
  EXPECT_EQ(messages(),
            (std::vector<std::string>{
                "Error: unknown option 'bogus'" + at(2, "part.cfg"),
                "Error: invalid value '7' for option 'use_syslog': expected 0 or 1" + at(2, "parts.d/a.cfg"),
                "Error: file '" + dir_ + "/part.cfg' is included more than once" + at(3),
                "Error: directory '" + dir_ + "/parts.d' is included more than once" + at(4),
                "Error: cannot open include_dir '" + dir_ + "/nodir': No such file or directory" + at(5),
                "Error: cannot open include_file '" + dir_ +
                    "/nofile.cfg' for reading: No such file or directory" + at(6),
                "Error: file '" + dir_ + "/naemon.cfg' is included more than once" + at(7),
            }));
  EXPECT_EQ(cfg.interval_length, 15);
  EXPECT_EQ(cfg.status_update_interval, 5);  // a.cfg then b.cfg
}

// Opened without blocking and judged on what was opened: a FIFO hung the load in open(), /dev/zero never
// ended.
TEST_F(MainConfigTest, SpecialFilesAreRefusedNotWaitedOn) {
  ASSERT_EQ(::mkfifo((dir_ + "/fifo.cfg").c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo((dir_ + "/fifo.d.cfg").c_str(), 0600), 0);
  make_dir("fifo.d");
  ASSERT_EQ(::mkfifo((dir_ + "/fifo.d/in.cfg").c_str(), 0600), 0);
  load(
      "include_file=fifo.cfg\n"
      "resource_file=fifo.d.cfg\n"
      "resource_file=/dev/zero\n"
      "include_dir=fifo.d\n");
  EXPECT_EQ(messages(),
            (std::vector<std::string>{
                "Error: cannot open include_file '" + dir_ +
                    "/fifo.cfg' for reading: is a FIFO, not a regular file" + at(1),
                "Error: cannot open resource file '" + dir_ +
                    "/fifo.d.cfg' for reading: is a FIFO, not a regular file" + at(2),
                "Error: cannot open resource file '/dev/zero' for reading: is a character device, not a "
                "regular file" +
                    at(3),
                "Error: cannot open include_dir '" + dir_ +
                    "/fifo.d/in.cfg' for reading: is a FIFO, not a regular file" + at(4),
            }));
}

TEST_F(MainConfigTest, MainConfigThatIsAFifoIsRefused) {
  ASSERT_EQ(::mkfifo((dir_ + "/main.cfg").c_str(), 0600), 0);
  (void)load_main_config(dir_ + "/main.cfg", files_, diags_);
  EXPECT_EQ(messages(), std::vector<std::string>{"Error: cannot open main configuration file '" + dir_ +
                                                 "/main.cfg' for reading: is a FIFO, not a regular file"});
}

TEST_F(MainConfigTest, BackslashContinuesALine) {
  const MainConfig cfg = load(
      "ocsp_command=first \\\n"
      "    second\n"
      "ochp_command=ends with\\\\\n"
      "interval_length=x\n");
  EXPECT_EQ(cfg.ocsp_command, "first second");
  EXPECT_EQ(cfg.ochp_command, "ends with\\");
  EXPECT_EQ(messages(),
            std::vector<std::string>{
                "Error: invalid value 'x' for option 'interval_length': expected an integer >= 1" + at(4)});
}

TEST_F(MainConfigTest, ObsoleteAndUnneededOptionsAreAcceptedSilently) {
  const MainConfig cfg = load(
      "query_socket=naemon.qh\n"
      "precached_object_file=objects.precache\n"
      "check_result_path=/nonexistent/checkresults/\n"
      "lock_file=naemon.pid\n"
      "max_service_check_spread=45\n"
      "service_inter_check_delay_method=d\n"
      "host_inter_check_delay_method=s\n"
      "log_rotation_method=d\n"
      "sleep_time=0.5\n"
      "use_large_installation_tweaks=1\n"
      "enable_embedded_perl=yes\n"
      "naemon_user=nagios\n"
      "daemon_dumps_core=1\n"
      "check_for_updates=0\n"
      "auto_rescheduling_window=90\n"
      "command_check_interval=15s\n");
  EXPECT_EQ(messages(), std::vector<std::string>{});
  EXPECT_EQ(cfg.query_socket, dir_ + "/naemon.qh");
  EXPECT_EQ(cfg.precached_object_file, dir_ + "/objects.precache");
  EXPECT_EQ(cfg.check_result_path, "/nonexistent/checkresults");
  EXPECT_EQ(cfg.lock_file, dir_ + "/naemon.pid");
  EXPECT_EQ(cfg.max_service_check_spread, 45);
  EXPECT_EQ(cfg.service_inter_check_delay_method, "d");
  EXPECT_EQ(cfg.log_rotation_method, 'd');
  EXPECT_DOUBLE_EQ(cfg.sleep_time, 0.5);
  EXPECT_TRUE(cfg.use_large_installation_tweaks);
  EXPECT_FALSE(cfg.enable_embedded_perl);
  EXPECT_EQ(cfg.naemon_user, "nagios");
  EXPECT_FALSE(cfg.check_for_updates);
  EXPECT_EQ(cfg.auto_rescheduling_window, 90);
  EXPECT_EQ(cfg.command_check_interval, "15s");
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string substitute(std::string text, const std::map<std::string, std::string>& vars) {
  for (const auto& [name, value] : vars) {
    const std::string key = "@" + name + "@";
    for (std::size_t pos = text.find(key); pos != std::string::npos; pos = text.find(key, pos + value.size()))
      text.replace(pos, key.size(), value);
  }
  return text;
}

TEST_F(MainConfigTest, NaemonSampleConfigLoadsCleanly) {
  const std::string fixtures = std::string(VEDETTE_SOURCE_DIR) + "/tests/fixtures/naemon-sample-config/";
  const std::map<std::string, std::string> vars = {
      {"VERSION", "1.5.2"},
      {"pkgconfdir", dir_ + "/etc"},
      {"logdir", dir_ + "/log"},
      {"localstatedir", dir_ + "/var"},
      {"lockfile", dir_ + "/var/naemon.pid"},
      {"TMPDIR", dir_ + "/tmp"},
      {"CHECKRESULTDIR", dir_ + "/var/checkresults"},
      {"libdir", dir_ + "/lib"},
      {"naemon_user", "naemon"},
      {"pluginsdir", dir_ + "/plugins"},
  };
  const std::string main_text = read_text(fixtures + "naemon.cfg.in");
  ASSERT_FALSE(main_text.empty());
  write("etc/naemon.cfg", substitute(main_text, vars));
  write("etc/resource.cfg", substitute(read_text(fixtures + "resource.cfg.in"), vars));
  for (const char* d :
       {"etc/conf.d", "etc/module-conf.d", "log/archives", "var/checkresults", "tmp", "plugins"})
    make_dir(d);

  const MainConfig cfg = load_main_config(dir_ + "/etc/naemon.cfg", files_, diags_);
  EXPECT_EQ(messages(), std::vector<std::string>{});
  EXPECT_EQ(diags_.error_count(), 0u);
  EXPECT_EQ(diags_.warning_count(), 0u);
  ASSERT_EQ(cfg.object_sources.size(), 1u);
  EXPECT_EQ(cfg.object_sources[0].path, dir_ + "/etc/conf.d");
  EXPECT_EQ(cfg.user_macros[0], dir_ + "/plugins");
  EXPECT_EQ(cfg.log_file, dir_ + "/log/naemon.log");
  EXPECT_EQ(cfg.state_retention_file, dir_ + "/var/retention.dat");
  EXPECT_EQ(cfg.event_broker_options, 1048575ul);
  EXPECT_EQ(cfg.status_update_interval, 10);
  EXPECT_TRUE(cfg.retain_state_information);
  EXPECT_TRUE(cfg.enable_flap_detection);
  EXPECT_DOUBLE_EQ(cfg.low_service_flap_threshold, 5.0);
  EXPECT_EQ(cfg.ocsp_timeout, 5);
  EXPECT_EQ(cfg.allow_empty_hostgroup_assignment, 0);
  EXPECT_EQ(cfg.admin_email, "naemon@localhost");
  EXPECT_EQ(cfg.illegal_macro_output_chars, "`~$&|'\"<>");
}

}  // namespace
}  // namespace vedette::config
