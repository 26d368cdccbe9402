// apply(): Naemon's reader rules (xrddefault_read_state_information) on the hot state, the program flags in
// MainConfig and the carried fields: options, per-object retain_* flags, attribute masks, modified
// attributes, the end-of-block fix-ups, and objects no longer configured.
#include "retention/apply.hpp"

#include "config/mapped_file.hpp"
#include "retention_test_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace vedette::retention {
namespace {

using test::Loaded;

constexpr Time k_created = 1'700'000'000;
constexpr Time k_now = k_created + 60;

const std::string k_objects = R"(define command {
  command_name  check_a
  command_line  /bin/true
}
define command {
  command_name  check_b
  command_line  /bin/true $ARG1$
}
define timeperiod {
  timeperiod_name  24x7
  alias            always
  monday           00:00-24:00
}
define timeperiod {
  timeperiod_name  work
  alias            work
  monday           09:00-17:00
}
define contact {
  contact_name                   admin
  host_notification_commands     check_a
  service_notification_commands  check_a
  host_notification_period       24x7
  service_notification_period    24x7
  _PAGER                         555
}
define host {
  name                 base
  register             0
  check_command        check_a
  max_check_attempts   3
  check_period         24x7
  notification_period  24x7
  contacts             admin
}
define host {
  use        base
  host_name  web
  address    10.0.0.1
  _RACK      r1
}
define host {
  use                        base
  host_name                  db
  address                    10.0.0.2
  retain_status_information  0
}
define host {
  use                           base
  host_name                     cache
  address                       10.0.0.3
  retain_nonstatus_information  0
}
define service {
  host_name            web
  service_description  HTTP
  check_command        check_b!x
  max_check_attempts   4
  check_interval       5
  retry_interval       1
  check_period         24x7
  notification_period  24x7
  contacts             admin
  _OWNER               ops
}
define service {
  host_name            web
  service_description  Disk
  check_command        check_a
  max_check_attempts   4
  check_period         24x7
  notification_period  24x7
  contacts             admin
}
)";

std::string info(Time created = k_created) {
  return "info {\ncreated=" + std::to_string(created) + "\nversion=1.5.2\n}\n";
}

ApplyResult apply_text(Loaded& l, const std::string& text, Time now = k_now) {
  const Data data = parse_text(text);
  EXPECT_TRUE(data.warnings.empty()) << data.warnings.front().message;
  return apply(data, l.target(), now);
}

TEST(RetentionApply, StatusFieldsOfAHost) {
  Loaded l = Loaded::from_text(k_objects);
  const ApplyResult r = apply_text(l, info() +
                                          "host {\n"
                                          "host_name=web\n"
                                          "has_been_checked=1\n"
                                          "check_execution_time=0.125\n"
                                          "check_latency=0.002\n"
                                          "check_type=1\n"
                                          "current_state=1\n"
                                          "last_state=0\n"
                                          "last_hard_state=0\n"
                                          "plugin_output=PING CRITICAL\n"
                                          "long_plugin_output=a\\nb\n"
                                          "performance_data=rta=5ms\n"
                                          "last_check=1699999990\n"
                                          "next_check=1700000100\n"
                                          "current_attempt=2\n"
                                          "state_type=0\n"
                                          "last_state_change=1699999900\n"
                                          "last_hard_state_change=1699990000\n"
                                          "last_time_up=1699999800\n"
                                          "last_time_down=1699999990\n"
                                          "last_time_unreachable=7\n"
                                          "}\n");
  EXPECT_EQ(r.counts.hosts, 1u);
  const state::HostState& h = l.host("web");
  EXPECT_TRUE(h.has_been_checked);
  EXPECT_DOUBLE_EQ(h.execution_time, 0.125);
  EXPECT_DOUBLE_EQ(h.latency, 0.002);
  EXPECT_EQ(h.check_type, state::CheckType::passive);
  EXPECT_EQ(h.current_state, 1);
  EXPECT_EQ(h.last_state, 0);
  EXPECT_EQ(h.last_hard_state, 0);
  EXPECT_EQ(h.plugin_output, "PING CRITICAL");
  EXPECT_EQ(h.long_plugin_output, "a\\nb");
  EXPECT_EQ(h.perf_data, "rta=5ms");
  EXPECT_EQ(h.last_check, 1699999990);
  EXPECT_EQ(h.next_check, 0);  // use_retained_scheduling_info is off by default
  // Naemon would read a host's attempt as a boolean (1); the written number is kept.
  EXPECT_EQ(h.current_attempt, 2);
  EXPECT_EQ(h.state_type, state::StateType::soft);
  EXPECT_EQ(h.last_state_change, 1699999900);
  EXPECT_EQ(h.last_hard_state_change, 1699990000);
  EXPECT_EQ(h.last_time_up, 1699999800);
  EXPECT_EQ(h.last_time_down, 1699999990);
  EXPECT_EQ(h.last_time_unreachable, 7);
  EXPECT_EQ(r.last_program_stop, k_created);
}

TEST(RetentionApply, NextCheckOnlyWithSchedulingInfoFromARecentFile) {
  const std::string service =
      "service {\nhost_name=web\nservice_description=HTTP\nnext_check=1700000300\n}\n";
  {
    Loaded l = Loaded::from_text(k_objects, "use_retained_scheduling_info=1\n");
    const ApplyResult r = apply_text(l, info() + service);
    EXPECT_TRUE(r.scheduling_info_ok);
    EXPECT_EQ(l.service("web", "HTTP").next_check, 1700000300);
  }
  {  // older than retention_scheduling_horizon (900 s)
    Loaded l = Loaded::from_text(k_objects, "use_retained_scheduling_info=1\n");
    const ApplyResult r = apply_text(l, info() + service, k_created + 900);
    EXPECT_FALSE(r.scheduling_info_ok);
    EXPECT_EQ(l.service("web", "HTTP").next_check, 0);
  }
  {  // written "in the future": the clock went back
    Loaded l = Loaded::from_text(k_objects, "use_retained_scheduling_info=1\n");
    (void)apply_text(l, info() + service, k_created - 1);
    EXPECT_EQ(l.service("web", "HTTP").next_check, 0);
  }
  {
    Loaded l = Loaded::from_text(k_objects, "use_retained_scheduling_info=0\n");
    const ApplyResult r = apply_text(l, info() + service);
    EXPECT_FALSE(r.scheduling_info_ok);
    EXPECT_EQ(l.service("web", "HTTP").next_check, 0);
  }
}

TEST(RetentionApply, EndOfBlockFixUps) {
  Loaded l = Loaded::from_text(k_objects);
  (void)apply_text(l,
                   info() +
                       // A hard problem is at the last attempt (max_check_attempts may have changed).
                       "service {\nhost_name=web\nservice_description=HTTP\nhas_been_checked=1\n"
                       "current_state=2\nstate_type=1\ncurrent_attempt=1\nlast_state_change=100\n}\n"
                       // Never checked but soft: hard. last_hard_state_change defaults to last_state_change.
                       "service {\nhost_name=web\nservice_description=Disk\nhas_been_checked=0\n"
                       "state_type=0\ncurrent_attempt=2\nlast_state_change=200\n}\n");
  const state::ServiceState& http = l.service("web", "HTTP");
  EXPECT_EQ(http.current_attempt, 4);
  EXPECT_EQ(http.last_hard_state_change, 100);
  const state::ServiceState& disk = l.service("web", "Disk");
  EXPECT_EQ(disk.state_type, state::StateType::hard);
  EXPECT_EQ(disk.current_attempt, 2);
  EXPECT_EQ(disk.last_hard_state_change, 200);
}

TEST(RetentionApply, StatesOutOfRangeAreIgnoredWithAWarning) {
  Loaded l = Loaded::from_text(k_objects);
  const Data data = parse_text(info() + "host {\nhost_name=web\ncurrent_state=3\nlast_state=1\n}\n");
  const ApplyResult r = apply(data, l.target(), k_now);
  EXPECT_EQ(l.host("web").current_state, 0);
  EXPECT_EQ(l.host("web").last_state, 1);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].line, 5u);
  EXPECT_EQ(r.warnings[0].message, "host 'web': current_state=3 is not a host state; ignored");
}

// Naemon logs nothing for them; they are counted so the caller can.
TEST(RetentionApply, ObjectsNoLongerConfiguredAreDropped) {
  Loaded l = Loaded::from_text(k_objects);
  const ApplyResult r =
      apply_text(l, info() +
                        "host {\nhost_name=gone\ncurrent_state=1\n}\n"
                        "service {\nhost_name=web\nservice_description=Gone\ncurrent_state=2\n}\n"
                        "service {\nhost_name=gone\nservice_description=HTTP\ncurrent_state=2\n}\n"
                        "contact {\ncontact_name=nobody\n}\n"
                        "hostcomment {\nhost_name=gone\nentry_type=1\ncomment_id=1\npersistent=1\n}\n"
                        "servicedowntime {\nhost_name=web\nservice_description=Gone\ndowntime_id=1\n}\n"
                        "service {\nhost_name=web\nservice_description=HTTP\ncurrent_state=1\n}\n");
  EXPECT_EQ(r.counts.hosts_dropped, 1u);
  EXPECT_EQ(r.counts.services_dropped, 2u);
  EXPECT_EQ(r.counts.contacts_dropped, 1u);
  EXPECT_EQ(r.counts.comments_dropped, 1u);
  EXPECT_EQ(r.counts.downtimes_dropped, 1u);
  EXPECT_EQ(r.counts.services, 1u);
  EXPECT_TRUE(r.warnings.empty());
  for (const state::HostState& h : l.hosts) EXPECT_EQ(h.current_state, 0);
  EXPECT_EQ(l.service("web", "HTTP").current_state, 1);
  EXPECT_EQ(l.service("web", "Disk").current_state, 0);
}

TEST(RetentionApply, PerObjectRetainFlags) {
  Loaded l = Loaded::from_text(k_objects);
  const ApplyResult r = apply_text(l, info() +
                                          "host {\nhost_name=db\nmodified_attributes=2\ncurrent_state=1\n"
                                          "config:active_checks_enabled=1\nactive_checks_enabled=0\n}\n"
                                          "host {\nhost_name=cache\nmodified_attributes=2\ncurrent_state=1\n"
                                          "config:active_checks_enabled=1\nactive_checks_enabled=0\n"
                                          "problem_has_been_acknowledged=1\n}\n");
  // db: retain_status_information 0 keeps the initial state; its non-status information is retained.
  EXPECT_EQ(l.host("db").current_state, 0);
  EXPECT_EQ(l.host("db").modified_attributes, 2u);
  EXPECT_FALSE(l.host("db").enabled(Flag::active_checks));
  // cache: retain_nonstatus_information 0 forgets modified attributes and acknowledgements.
  (void)r;
  EXPECT_EQ(l.host("cache").current_state, 1);
  EXPECT_EQ(l.host("cache").modified_attributes, 0u);
  EXPECT_FALSE(l.host("cache").problem_has_been_acknowledged);
  EXPECT_TRUE(l.host("cache").enabled(Flag::active_checks));
}

TEST(RetentionApply, ModifiedAttributesOfAService) {
  Loaded l = Loaded::from_text(k_objects);
  const unsigned long attrs = k_modattr_notifications_enabled | k_modattr_active_checks_enabled |
                              k_modattr_check_command | k_modattr_normal_check_interval |
                              k_modattr_retry_check_interval | k_modattr_max_check_attempts |
                              k_modattr_check_timeperiod | k_modattr_custom_variable |
                              k_modattr_event_handler_command | k_modattr_notification_timeperiod;
  const ApplyResult r = apply_text(l, info() + "service {\nhost_name=web\nservice_description=HTTP\n" +
                                          "modified_attributes=" + std::to_string(attrs) +
                                          "\n"
                                          "check_command=check_a!y\n"
                                          "check_period=work\n"
                                          "notification_period=nosuchperiod\n"
                                          "event_handler=nosuchcommand!1\n"
                                          "max_attempts=7\n"
                                          "normal_check_interval=15.000000\n"
                                          "retry_check_interval=-1.000000\n"
                                          "config:notifications_enabled=1\n"
                                          "notifications_enabled=0\n"
                                          "config:active_checks_enabled=0\n"  // configured 1 now: config wins
                                          "active_checks_enabled=0\n"
                                          "_OWNER=1;dba\n"
                                          "_UNKNOWN=1;x\n"
                                          "}\n");
  (void)r;
  const model::Service& cfg = l.cfg.model->service(l.service_id("web", "HTTP"));
  const state::ServiceState& st = l.service("web", "HTTP");
  // Gone: the notification period and the event handler no longer exist.
  EXPECT_EQ(st.modified_attributes,
            attrs & ~(k_modattr_notification_timeperiod | k_modattr_event_handler_command));
  const state::Overrides* m = st.overrides.get();
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(st.enabled(Flag::notifications));
  EXPECT_TRUE(st.enabled(Flag::active_checks));
  EXPECT_TRUE(st.enabled(Flag::passive_checks));
  EXPECT_EQ(m->check_command, "check_a!y");
  EXPECT_EQ(m->check_period, "work");
  EXPECT_FALSE(m->notification_period.has_value());
  EXPECT_FALSE(m->event_handler.has_value());
  EXPECT_DOUBLE_EQ(state::check_interval_of(cfg, st), 15.0);
  EXPECT_DOUBLE_EQ(state::retry_interval_of(cfg, st), 1.0);  // a negative interval is not taken
  EXPECT_EQ(state::max_check_attempts_of(cfg, st), 7);
  ASSERT_EQ(m->custom_variables.size(), 1u);
  EXPECT_EQ(m->custom_variables[0].name, "OWNER");
  EXPECT_EQ(m->custom_variables[0].value, "dba");
}

TEST(RetentionApply, CustomVariableBitDroppedWhenNoVariableWasModified) {
  Loaded l = Loaded::from_text(k_objects);
  const ApplyResult r = apply_text(l, info() +
                                          "service {\nhost_name=web\nservice_description=HTTP\n"
                                          "modified_attributes=32768\n_OWNER=0;ops\n}\n");
  (void)r;
  EXPECT_EQ(l.service("web", "HTTP").modified_attributes, 0u);
}

TEST(RetentionApply, AttributeMasksDropBitsOnRead) {
  Loaded l = Loaded::from_text(k_objects,
                               "retained_service_attribute_mask=2\n"
                               "retained_host_attribute_mask=1\n"
                               "retained_process_host_attribute_mask=16\n");
  const ApplyResult r = apply_text(
      l, info() +
             "program {\nmodified_host_attributes=17\nmodified_service_attributes=2\n"
             "enable_notifications=0\nenable_flap_detection=1\nactive_service_checks_enabled=0\n}\n"
             "host {\nhost_name=web\nmodified_attributes=3\nconfig:notifications_enabled=1\n"
             "notifications_enabled=0\nconfig:active_checks_enabled=1\nactive_checks_enabled=0\n}\n"
             "service {\nhost_name=web\nservice_description=HTTP\nmodified_attributes=3\n"
             "config:notifications_enabled=1\nnotifications_enabled=0\n"
             "config:active_checks_enabled=1\nactive_checks_enabled=0\n}\n");
  EXPECT_EQ(r.program.modified_host_attributes, 1u);
  EXPECT_EQ(r.program.modified_service_attributes, 2u);
  EXPECT_FALSE(l.cfg.main.enable_notifications);
  EXPECT_FALSE(l.cfg.main.enable_flap_detection);  // the bit was masked out: configured value stays
  EXPECT_FALSE(l.cfg.main.execute_service_checks);

  const state::HostState& h = l.host("web");
  EXPECT_EQ(h.modified_attributes, 2u);
  EXPECT_TRUE(h.enabled(Flag::notifications));
  EXPECT_FALSE(h.enabled(Flag::active_checks));

  // The service mask applies to services (Naemon's reader applies the host mask there).
  const state::ServiceState& s = l.service("web", "HTTP");
  EXPECT_EQ(s.modified_attributes, 1u);
  EXPECT_FALSE(s.enabled(Flag::notifications));
  EXPECT_TRUE(s.enabled(Flag::active_checks));
}

TEST(RetentionApply, ProgramStateOnlyWithUseRetainedProgramState) {
  const std::string program =
      "program {\nmodified_host_attributes=264\nmodified_service_attributes=258\n"
      "active_service_checks_enabled=0\nenable_event_handlers=0\nenable_notifications=0\n"
      "global_host_event_handler=check_b!1\nglobal_service_event_handler=nosuch\n"
      "next_comment_id=12\nnext_downtime_id=5\nnext_event_id=99\n}\n";
  {
    Loaded l = Loaded::from_text(k_objects);
    const ApplyResult r = apply_text(l, info() + program);
    EXPECT_FALSE(l.cfg.main.execute_service_checks);
    EXPECT_FALSE(l.cfg.main.enable_event_handlers);
    EXPECT_TRUE(l.cfg.main.enable_notifications);  // bit 1 not set
    EXPECT_EQ(l.cfg.main.global_host_event_handler, "check_b!1");
    EXPECT_EQ(l.cfg.main.global_service_event_handler, "");  // command not defined
    EXPECT_EQ(r.program.modified_host_attributes, 264u);
    EXPECT_EQ(r.program.next_comment_id, 12u);
    EXPECT_EQ(r.program.next_downtime_id, 5u);
    EXPECT_EQ(r.program.next_event_id, 99u);
  }
  {
    Loaded l = Loaded::from_text(k_objects, "use_retained_program_state=0\n");
    const ApplyResult r = apply_text(l, info() + program);
    EXPECT_TRUE(l.cfg.main.execute_service_checks);
    EXPECT_TRUE(l.cfg.main.enable_event_handlers);
    EXPECT_EQ(r.program.modified_host_attributes, 0u);
    EXPECT_EQ(r.program.modified_service_attributes, 0u);
    EXPECT_EQ(r.program.next_comment_id, 1u);
  }
}

TEST(RetentionApply, AcknowledgementsThatExpiredAreDropped) {
  Loaded l = Loaded::from_text(k_objects);
  const ApplyResult r =
      apply_text(l, info() +
                        "service {\nhost_name=web\nservice_description=HTTP\ncurrent_state=2\n"
                        "problem_has_been_acknowledged=1\nacknowledgement_type=1\nacknowledgement_end_time=" +
                        std::to_string(k_now) +
                        "\n}\n"
                        "service {\nhost_name=web\nservice_description=Disk\ncurrent_state=2\n"
                        "problem_has_been_acknowledged=1\nacknowledgement_type=2\nacknowledgement_end_time=" +
                        std::to_string(k_now + 1) + "\n}\n");
  (void)r;
  EXPECT_FALSE(l.service("web", "HTTP").problem_has_been_acknowledged);
  EXPECT_EQ(l.service("web", "HTTP").acknowledgement_type, 0);
  EXPECT_TRUE(l.service("web", "Disk").problem_has_been_acknowledged);
  EXPECT_EQ(l.service("web", "Disk").acknowledgement_type, 2);
}

TEST(RetentionApply, CommentsFollowNaemonsRestoreRules) {
  Loaded l = Loaded::from_text(k_objects);
  const ApplyResult r = apply_text(
      l, info() +
             "service {\nhost_name=web\nservice_description=HTTP\ncurrent_state=2\n"
             "problem_has_been_acknowledged=1\nacknowledgement_type=2\n}\n"
             // kept: acknowledgement comment of an acknowledged problem
             "servicecomment {\nhost_name=web\nservice_description=HTTP\nentry_type=4\ncomment_id=1\n"
             "persistent=0\nauthor=a\ncomment_data=ack\n}\n"
             // dropped: acknowledgement comment, problem no longer acknowledged, not persistent
             "servicecomment {\nhost_name=web\nservice_description=Disk\nentry_type=4\ncomment_id=2\n"
             "persistent=0\n}\n"
             // kept: downtime comment
             "hostcomment {\nhost_name=web\nentry_type=2\ncomment_id=3\npersistent=0\n}\n"
             // dropped: user comment, not persistent
             "hostcomment {\nhost_name=web\nentry_type=1\ncomment_id=4\npersistent=0\n}\n"
             // kept: persistent user comment
             "hostcomment {\nhost_name=web\nentry_type=1\ncomment_id=5\npersistent=1\nsource=1\n"
             "entry_time=17\nexpires=1\nexpire_time=18\nauthor=me\ncomment_data=hello; world\n}\n"
             "hostdowntime {\nhost_name=web\ncomment_id=3\ndowntime_id=9\nentry_time=1\nstart_time=2\n"
             "flex_downtime_start=0\nend_time=3\ntriggered_by=0\nfixed=1\nduration=1\nis_in_effect=1\n"
             "start_notification_sent=1\nauthor=me\ncomment=maintenance\n}\n");
  ASSERT_EQ(r.comments.size(), 3u);
  EXPECT_EQ(r.comments[0].comment_id, 1u);
  EXPECT_TRUE(r.comments[0].is_service);
  EXPECT_EQ(r.comments[1].comment_id, 3u);
  const Comment& c = r.comments[2];
  EXPECT_EQ(c.comment_id, 5u);
  EXPECT_FALSE(c.is_service);
  EXPECT_EQ(c.source, 1);
  EXPECT_EQ(c.entry_time, 17);
  EXPECT_TRUE(c.expires);
  EXPECT_EQ(c.expire_time, 18);
  EXPECT_EQ(c.author, "me");
  EXPECT_EQ(c.comment_data, "hello; world");
  EXPECT_EQ(r.counts.comments_dropped, 2u);
  ASSERT_EQ(r.downtimes.size(), 1u);
  const Downtime& d = r.downtimes[0];
  EXPECT_EQ(d.downtime_id, 9u);
  EXPECT_EQ(d.comment_id, 3u);
  EXPECT_TRUE(d.fixed);
  EXPECT_TRUE(d.is_in_effect);
  EXPECT_EQ(d.comment, "maintenance");
}

TEST(RetentionApply, ContactAttributes) {
  Loaded l = Loaded::from_text(k_objects);
  const ApplyResult r =
      apply_text(l, info() +
                        "contact {\ncontact_name=admin\nmodified_attributes=32768\n"
                        "modified_host_attributes=65537\nmodified_service_attributes=65536\n"
                        "host_notification_period=work\nservice_notification_period=nosuch\n"
                        "last_host_notification=10\nlast_service_notification=11\n"
                        "config:host_notifications_enabled=1\nhost_notifications_enabled=0\n"
                        "_PAGER=1;666\n}\n");
  ASSERT_EQ(r.counts.contacts, 1u);
  const state::ContactState& c = l.contacts.at(0);
  EXPECT_EQ(c.modified_attributes, 32768u);
  EXPECT_EQ(c.modified_host_attributes, 65537u);
  EXPECT_EQ(c.modified_service_attributes, 0u);  // the period is gone
  EXPECT_EQ(c.host_notification_period, l.cfg.model->timeperiod_by_name.at("work"));
  EXPECT_EQ(c.service_notification_period, l.cfg.model->contacts.at(0).service_notification_period);
  EXPECT_EQ(c.last_host_notification, 10);
  EXPECT_EQ(c.last_service_notification, 11);
  EXPECT_EQ(c.host_notifications_enabled, false);
  EXPECT_EQ(c.service_notifications_enabled, l.cfg.model->contacts.at(0).service_notifications_enabled);
  ASSERT_NE(c.custom_variables, nullptr);
  ASSERT_EQ(c.custom_variables->size(), 1u);
  EXPECT_EQ(c.custom_variables->at(0).value, "666");
}

TEST(RetentionApply, LoadReadsNothingWithoutRetainStateInformation) {
  Loaded l = Loaded::from_text(k_objects, "retain_state_information=0\n");
  l.dir.write("retention.dat", info() + "host {\nhost_name=web\ncurrent_state=1\n}\n");
  const LoadResult r = load(l.dir.file("retention.dat"), l.target(), k_now);
  EXPECT_EQ(r.status, Data::Status::ok);
  EXPECT_EQ(r.applied.counts.hosts, 0u);
  EXPECT_EQ(l.host("web").current_state, 0);
  EXPECT_EQ(l.host("web").last_update.sec, 0);
}

TEST(RetentionApply, LoadStreamsTheFileAndReportsWarnings) {
  Loaded l = Loaded::from_text(k_objects);
  l.dir.write("retention.dat",
              info() + "host {\nhost_name=web\ncurrent_state=1\nbogus=1\n}\nhost {\nhost_name=db\n");
  const LoadResult r = load(l.dir.file("retention.dat"), l.target(), k_now);
  EXPECT_EQ(r.status, Data::Status::ok);
  EXPECT_EQ(r.applied.counts.hosts, 1u);
  EXPECT_EQ(l.host("web").current_state, 1);
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_EQ(r.warnings[0].line, 8u);
  EXPECT_EQ(r.warnings[1].line, 10u);

  const LoadResult missing = load(l.dir.file("nope.dat"), l.target(), k_now);
  EXPECT_EQ(missing.status, Data::Status::missing);
}

// A million services write 1.2 GB: the core reads back a file over the 1 GiB a configuration file may
// weigh (sparse here: the state first, then a hole the reader sees as one line of NULs).
TEST(RetentionApply, LoadReadsBackAFileOverTheConfigurationFilesLimit) {
  Loaded l = Loaded::from_text(k_objects);
  l.dir.write("retention.dat", info() + "host {\nhost_name=web\ncurrent_state=1\n}\n");
  std::filesystem::resize_file(l.dir.file("retention.dat"), config::MappedFile::k_max_size + 4096);
  const LoadResult r = load(l.dir.file("retention.dat"), l.target(), k_now);
  EXPECT_EQ(r.status, Data::Status::ok) << r.error;
  EXPECT_EQ(r.applied.counts.hosts, 1u);
  EXPECT_EQ(l.host("web").current_state, 1);
}

// last_update goes to the hot state, seconds and microseconds, with the status information it belongs to.
TEST(RetentionApply, LastUpdateGoesToTheHotState) {
  Loaded l = Loaded::from_text(k_objects);
  (void)apply_text(l,
                   info() + "host {\nhost_name=web\nlast_update=1700000000.250000\n}\n" +
                       "host {\nhost_name=db\nlast_update=1700000002.5\n}\n" +
                       "service {\nhost_name=web\nservice_description=HTTP\nlast_update=1700000001,7\n}\n");
  EXPECT_EQ(l.host("web").last_update.sec, 1700000000);
  EXPECT_EQ(l.host("web").last_update.usec, 250000);
  EXPECT_EQ(l.service("web", "HTTP").last_update.sec, 1700000001);
  EXPECT_EQ(l.service("web", "HTTP").last_update.usec, 7);
  EXPECT_EQ(l.host("db").last_update.sec, 0);  // retain_status_information 0
}

TEST(RetentionApply, NumbersAreReadWithNaemonsLeniency) {
  Loaded l = Loaded::from_text(k_objects);
  (void)apply_text(l, info() +
                          "service {\nhost_name=web\nservice_description=HTTP\nhas_been_checked=yes\n"
                          "last_state=2abc\nlast_check=12x\nlast_time_warning=18446744073709551615\nlast_"
                          "time_ok=-5\ncheck_execution_time=junk\ncurrent_attempt=-3\n}\n");
  const state::ServiceState& s = l.service("web", "HTTP");
  EXPECT_FALSE(s.has_been_checked);  // atoi("yes") == 0
  EXPECT_EQ(s.last_state, 2);
  EXPECT_EQ(s.last_check, 12);
  EXPECT_EQ(s.last_time_warning, -1);  // a time_t of -1 as %lu writes it
  EXPECT_EQ(s.last_time_ok, -5);
  EXPECT_DOUBLE_EQ(s.execution_time, 0.0);
  EXPECT_EQ(s.current_attempt, 1);
}

TEST(RetentionApply, InitialCheckDelay) {
  const Time now = 1000;
  // Within one interval ahead: kept.
  EXPECT_DOUBLE_EQ(initial_check_delay(1100, now, 300, 60, 0.5), 100);
  EXPECT_DOUBLE_EQ(initial_check_delay(1000, now, 300, 60, 0.5), 0);
  // Missed by less than an interval: within the randomize window (capped at the interval).
  EXPECT_DOUBLE_EQ(initial_check_delay(900, now, 300, 60, 0.5), 30);
  EXPECT_DOUBLE_EQ(initial_check_delay(990, now, 20, 60, 0.5), 10);
  // Too far either way, or none: anywhere in the first interval.
  EXPECT_DOUBLE_EQ(initial_check_delay(1301, now, 300, 60, 0.5), 150);
  EXPECT_DOUBLE_EQ(initial_check_delay(700, now, 300, 60, 0.5), 150);
  EXPECT_DOUBLE_EQ(initial_check_delay(0, now, 300, 60, 0.25), 75);
}

}  // namespace
}  // namespace vedette::retention
