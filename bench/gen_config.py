#!/usr/bin/env python3
"""Generate a realistic Naemon/Nagios object configuration for loader tests and benchmarks.

H hosts x S services per host, written so that the config loader meets what real configs contain:

* host, service and contact templates chained 2-3 deep, `use` lists with more than one template,
  `register 0`, custom variables (`_SITE`, `_RACK`, `_WARN`...), `+` additive hostgroups;
* hostgroups joined through the host's `hostgroups` attribute, through the group's `members` list,
  through a template, and a nested group built with `hostgroup_members`;
* services defined per host plus two applied by `hostgroup_name` (one with a `!group` exclusion);
  every host ends up with exactly S services, so the total is always H*S;
* servicegroups joined via the service's `servicegroups` attribute and via `members host,svc,...`;
* contacts + contactgroups (one nested with `contactgroup_members`) with notification commands;
* timeperiods 24x7, workhours, a holiday period made of exceptions, and one that `exclude`s it;
* commands using $USER1$ / $ARGn$ / custom-variable macros, and `check_command x!a!b`;
* a few host parents, one hostdependency, one servicedependency, one host and one service escalation.

Besides the H x S sizes, shapes that once made the loader superlinear (issue 33): all services on one host
(1host-25k .. 1host-100k), a servicedependency chain through every per-host service (depchain-200k: one
host, 200k services, each depending on the one before), and a chain of host templates each adding one
custom variable, used by the first host (tmplchain-4k, tmplchain-10k).

Output in --outdir:
  objects/                cfg_dir: timeperiods, commands, contacts, groups, dependencies,
                          hosts/hosts-NNN.cfg and services/services-NNN.cfg (1000 hosts per file)
  templates.cfg           read through a cfg_file line (both include mechanisms are exercised)
  resource.cfg            $USER1$ and $USER2$
  vedette.cfg             main config with Naemon's option names
  nagios.cfg              main config for Nagios 4 (`nagios4 -v nagios.cfg` passes as root)
  var/ ...                run-time paths both main configs point at (created, empty)

Importable: `generate(outdir, hosts, services_per_host)` returns a dict with the paths and the
expected object counts. Stdlib only.
"""
import argparse
import os
import sys

# name: (hosts, services per host, servicedependency chain, host template chain depth)
SIZES = {
    "small": (100, 10, False, 0),
    "100k": (10000, 10, False, 0),
    "600k": (60000, 10, False, 0),
    "1m": (100000, 10, False, 0),
    "1host-25k": (1, 25000, False, 0),
    "1host-50k": (1, 50000, False, 0),
    "1host-100k": (1, 100000, False, 0),
    "depchain-200k": (1, 200000, True, 0),
    "tmplchain-4k": (100, 10, False, 4000),
    "tmplchain-10k": (100, 10, False, 10000),
}
HOSTS_PER_FILE = 1000
WEEKDAYS = ("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday")
PLUGIN_DIR = "/usr/lib/nagios/plugins"
NAGIOS_USER = NAGIOS_GROUP = "nagios"  # created by Debian's nagios4-core


def host_name(i):
    return "host%05d" % i


def role_of(i):
    # web / db / app, used for group membership and the applied role service
    return ("web", "db", "app")[i % 3]


def svc_name(j):
    return "svc%03d" % j


def block(kind, attrs):
    """One `define kind { ... }` block; attrs is a list of (key, value) pairs, None values skipped."""
    width = max(len(k) for k, _ in attrs) + 2
    lines = ["define %s {" % kind]
    for k, v in attrs:
        if v is None:
            continue
        lines.append("    %s%s" % (k.ljust(width), v))
    lines.append("}\n")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# objects
# ---------------------------------------------------------------------------------------------

def timeperiods():
    out = ["# timeperiods: plain weekdays, exceptions of every syntax, and exclude\n\n"]
    out.append(block("timeperiod", [("name", "all-week"), ("register", "0")]
                     + [(d, "00:00-24:00") for d in WEEKDAYS]))
    out.append(block("timeperiod", [("timeperiod_name", "24x7"), ("alias", "24 Hours A Day, 7 Days A Week"),
                                    ("use", "all-week")]))
    out.append(block("timeperiod", [("timeperiod_name", "workhours"), ("alias", "Normal Work Hours")]
                     + [(d, "09:00-17:00") for d in WEEKDAYS[1:6]]))
    out.append(block("timeperiod", [("timeperiod_name", "nonworkhours"), ("alias", "Outside work hours"),
                                    ("sunday", "00:00-24:00"), ("saturday", "00:00-24:00")]
                     + [(d, "00:00-09:00,17:00-24:00") for d in WEEKDAYS[1:6]]))
    out.append(block("timeperiod", [
        ("timeperiod_name", "holidays"),
        ("alias", "Holidays"),
        ("january 1", "00:00-24:00             ; New Year's Day"),
        ("monday -1 may", "00:00-24:00          ; Memorial Day (last Monday in May)"),
        ("july 4", "00:00-24:00"),
        ("monday 1 september", "00:00-24:00     ; Labor Day"),
        ("thursday 4 november", "00:00-24:00    ; Thanksgiving"),
        ("december 24 - december 26", "00:00-24:00"),
        ("2030-06-01 - 2030-06-07", "00:00-24:00 ; a one-off maintenance week"),
        ("day 1 - 3", "00:00-02:00           ; month-start batch window"),
        ("day -1", "22:00-24:00"),
        ("2031-01-01 / 7", "03:00-04:00         ; every 7 days from a date"),
    ]))
    out.append(block("timeperiod", [("timeperiod_name", "24x7-except-holidays"),
                                    ("alias", "24x7 but not on holidays"),
                                    ("use", "all-week"),
                                    ("exclude", "holidays")]))
    out.append(block("timeperiod", [("timeperiod_name", "never"), ("alias", "Never")]))
    return "".join(out), 6


def commands():
    cmds = [
        ("check-host-alive", "$USER1$/check_ping -H $HOSTADDRESS$ -w 3000.0,80% -c 5000.0,100% -p 1"),
        ("check_ping", "$USER1$/check_ping -H $HOSTADDRESS$ -w $ARG1$ -c $ARG2$ -p 5"),
        ("check_dummy", "$USER1$/check_dummy $ARG1$ \"$ARG2$\""),
        ("check_tcp", "$USER1$/check_tcp -H $HOSTADDRESS$ -p $ARG1$ $ARG2$"),
        ("check_http", "$USER1$/check_http -I $HOSTADDRESS$ -u $ARG1$ -e $ARG2$"),
        ("check_ssh", "$USER1$/check_ssh -t $ARG1$ $HOSTADDRESS$"),
        ("check_mysql_conn", "$USER1$/check_tcp -H $HOSTADDRESS$ -p 3306 -w $_SERVICEWARN$ -c $_SERVICECRIT$"),
        ("check_load_args", "$USER1$/check_dummy 0 \"load $ARG1$ $ARG2$ $ARG3$ on $_HOSTSITE$\""),
        ("check_true", "/bin/true"),
        ("notify-host-by-email",
         "/usr/bin/printf \"%b\" \"***** Vedette *****\\n\\nNotification Type: $NOTIFICATIONTYPE$\\n"
         "Host: $HOSTNAME$\\nState: $HOSTSTATE$\\nInfo: $HOSTOUTPUT$\\n\" "
         "| /usr/bin/mail -s \"** $NOTIFICATIONTYPE$ Host Alert: $HOSTNAME$ is $HOSTSTATE$ **\" $CONTACTEMAIL$"),
        ("notify-service-by-email",
         "/usr/bin/printf \"%b\" \"***** Vedette *****\\n\\nNotification Type: $NOTIFICATIONTYPE$\\n"
         "Service: $SERVICEDESC$\\nHost: $HOSTALIAS$\\nState: $SERVICESTATE$\\n\" "
         "| /usr/bin/mail -s \"** $NOTIFICATIONTYPE$ Service Alert: $HOSTALIAS$/$SERVICEDESC$ is "
         "$SERVICESTATE$ **\" $CONTACTEMAIL$"),
        ("notify-by-pager", "$USER2$/send_page --to $CONTACTPAGER$ --msg \"$NOTIFICATIONTYPE$ $HOSTNAME$\""),
        ("handle-service-event", "$USER1$/check_dummy 0 \"event $SERVICESTATE$ $SERVICESTATETYPE$\""),
    ]
    out = ["# commands: $USER1$, $ARGn$, custom-variable macros, shell pipelines\n\n"]
    for name, line in cmds:
        out.append(block("command", [("command_name", name), ("command_line", line)]))
    return "".join(out), len(cmds)


def templates():
    out = ["# templates: chains 2-3 deep, `use` lists, register 0\n\n"]
    # host templates
    out.append(block("host", [
        ("name", "generic-host"), ("register", "0"),
        ("check_command", "check-host-alive"), ("max_check_attempts", "3"),
        ("check_interval", "5"), ("retry_interval", "1"),
        ("active_checks_enabled", "1"), ("passive_checks_enabled", "1"),
        ("check_period", "24x7"), ("notification_period", "24x7"),
        ("notification_interval", "60"), ("notification_options", "d,u,r"),
        ("notifications_enabled", "1"), ("event_handler_enabled", "1"),
        ("flap_detection_enabled", "1"), ("process_perf_data", "1"),
        ("retain_status_information", "1"), ("retain_nonstatus_information", "1"),
        ("contact_groups", "admins"),
    ]))
    out.append(block("host", [
        ("name", "linux-server"), ("use", "generic-host"), ("register", "0"),
        ("notification_period", "workhours"), ("_OS", "linux"),
    ]))
    out.append(block("host", [
        ("name", "site-a"), ("register", "0"), ("_SITE", "site-a"), ("hostgroups", "+site-a-hosts"),
    ]))
    out.append(block("host", [
        ("name", "site-b"), ("register", "0"), ("_SITE", "site-b"), ("hostgroups", "+site-b-hosts"),
    ]))
    out.append(block("host", [
        ("name", "app-host"), ("use", "linux-server"), ("register", "0"),
        ("hostgroups", "app-servers"), ("_ROLE", "app"),
    ]))
    # service templates
    out.append(block("service", [
        ("name", "generic-service"), ("register", "0"),
        ("active_checks_enabled", "1"), ("passive_checks_enabled", "1"),
        ("parallelize_check", "1"), ("obsess_over_service", "0"), ("check_freshness", "0"),
        ("notifications_enabled", "1"), ("event_handler_enabled", "1"),
        ("flap_detection_enabled", "1"), ("process_perf_data", "1"),
        ("retain_status_information", "1"), ("retain_nonstatus_information", "1"),
        ("is_volatile", "0"), ("check_period", "24x7"),
        ("max_check_attempts", "3"), ("check_interval", "5"), ("retry_interval", "1"),
        ("contact_groups", "admins"), ("notification_options", "w,u,c,r"),
        ("notification_interval", "60"), ("notification_period", "24x7"),
    ]))
    out.append(block("service", [
        ("name", "local-service"), ("use", "generic-service"), ("register", "0"),
        ("max_check_attempts", "4"), ("check_interval", "5"), ("retry_interval", "1"),
    ]))
    out.append(block("service", [
        ("name", "graphed-service"), ("register", "0"),
        ("process_perf_data", "1"), ("action_url", "/graphs?host=$HOSTNAME$&srv=$SERVICEDESC$"),
        ("_GRAPH", "1"),
    ]))
    out.append(block("service", [
        ("name", "bench-service"), ("use", "local-service,graphed-service"), ("register", "0"),
        ("check_command", "check_dummy!0!OK all good"),
        ("_WARN", "80"), ("_CRIT", "90"),
    ]))
    # Only the first per-host service joins through this template: a servicegroup holding every
    # service of a 100k config costs Nagios 4 ~10 s of sorted list inserts (quadratic) and would
    # dominate the measurement; one member per host is still a 10k-member group.
    out.append(block("service", [
        ("name", "grouped-service"), ("register", "0"), ("servicegroups", "all-checks"),
        ("notes", "first check of every host"),
    ]))
    # contact templates
    out.append(block("contact", [
        ("name", "generic-contact"), ("register", "0"),
        ("service_notification_period", "24x7"), ("host_notification_period", "24x7"),
        ("service_notification_options", "w,u,c,r,f,s"), ("host_notification_options", "d,u,r,f,s"),
        ("service_notification_commands", "notify-service-by-email"),
        ("host_notification_commands", "notify-host-by-email"),
    ]))
    out.append(block("contact", [
        ("name", "oncall-contact"), ("use", "generic-contact"), ("register", "0"),
        ("host_notification_period", "nonworkhours"), ("service_notification_period", "nonworkhours"),
        ("host_notification_commands", "notify-host-by-email,notify-by-pager"),
        ("service_notification_commands", "notify-service-by-email,notify-by-pager"),
    ]))
    return "".join(out)


def contacts():
    out = ["# contacts and contactgroups\n\n"]
    out.append(block("contact", [("contact_name", "vedetteadmin"), ("use", "generic-contact"),
                                 ("alias", "Vedette Admin"), ("email", "root@localhost"),
                                 ("contactgroups", "admins")]))
    out.append(block("contact", [("contact_name", "alice"), ("use", "oncall-contact"),
                                 ("alias", "Alice"), ("email", "alice@example.com"),
                                 ("pager", "555-0101"), ("_TEAM", "ops")]))
    out.append(block("contact", [("contact_name", "bob"), ("use", "oncall-contact"),
                                 ("alias", "Bob"), ("email", "bob@example.com"),
                                 ("pager", "555-0102"),
                                 ("host_notification_options", "d,r"),
                                 ("service_notifications_enabled", "0")]))
    out.append(block("contactgroup", [("contactgroup_name", "admins"), ("alias", "Administrators")]))
    out.append(block("contactgroup", [("contactgroup_name", "oncall"), ("alias", "On call"),
                                      ("members", "alice,bob")]))
    out.append(block("contactgroup", [("contactgroup_name", "everyone"), ("alias", "Everyone"),
                                      ("contactgroup_members", "admins,oncall")]))
    return "".join(out), 3, 3


def groups(h):
    out = ["# hostgroups (attribute, members, template, nested) and servicegroups\n\n"]
    out.append(block("hostgroup", [("hostgroup_name", "web-servers"), ("alias", "Web servers")]))
    db_members = [host_name(i) for i in range(h) if role_of(i) == "db"]
    out.append(block("hostgroup", [("hostgroup_name", "db-servers"), ("alias", "Database servers"),
                                   ("members", ",".join(db_members) if db_members else None)]))
    out.append(block("hostgroup", [("hostgroup_name", "app-servers"), ("alias", "Application servers")]))
    out.append(block("hostgroup", [("hostgroup_name", "all-servers"), ("alias", "All servers"),
                                   ("hostgroup_members", "web-servers,db-servers,app-servers")]))
    out.append(block("hostgroup", [("hostgroup_name", "site-a-hosts"), ("alias", "Site A")]))
    out.append(block("hostgroup", [("hostgroup_name", "site-b-hosts"), ("alias", "Site B")]))
    core = [host_name(i) for i in range(min(h, 6))]
    out.append(block("hostgroup", [("hostgroup_name", "core-infra"), ("alias", "Core infrastructure"),
                                   ("members", ",".join(core)),
                                   ("notes", "parents and dependency targets")]))
    n_hg = 7
    out.append(block("servicegroup", [("servicegroup_name", "all-checks"), ("alias", "First check of every host")]))
    pairs = []
    for i in range(min(h, 20)):
        pairs += [host_name(i), "PING"]
    out.append(block("servicegroup", [("servicegroup_name", "ping-sample"), ("alias", "Some pings"),
                                      ("members", ",".join(pairs))]))
    out.append(block("servicegroup", [("servicegroup_name", "role-checks"), ("alias", "Role checks")]))
    out.append(block("servicegroup", [("servicegroup_name", "everything"), ("alias", "Everything"),
                                      ("servicegroup_members", "all-checks,role-checks")]))
    return "".join(out), n_hg, 4


def applied_services(s):
    """Services applied by hostgroup_name; together they give each host exactly min(s, 2) services."""
    out = ["# services applied by hostgroup_name (with a !exclusion)\n\n"]
    n = 0
    if s >= 1:
        out.append(block("service", [("use", "generic-service"), ("hostgroup_name", "all-servers"),
                                     ("service_description", "PING"),
                                     ("check_command", "check_ping!100.0,20%!500.0,60%")]))
        n += 1
    if s >= 2:
        out.append(block("service", [("use", "local-service"), ("hostgroup_name", "all-servers,!db-servers"),
                                     ("service_description", "Role"),
                                     ("check_command", "check_tcp!80!-t 5"),
                                     ("servicegroups", "role-checks")]))
        out.append(block("service", [("use", "local-service"), ("hostgroup_name", "db-servers"),
                                     ("service_description", "Role"),
                                     ("check_command", "check_mysql_conn"),
                                     ("servicegroups", "role-checks"),
                                     ("_WARN", "100"), ("_CRIT", "200")]))
        n += 1
    return "".join(out), n


def host_block(i, h, chain_tail=None):
    name = host_name(i)
    role = role_of(i)
    site = "site-a" if i % 2 == 0 else "site-b"
    attrs = [("host_name", name)]
    first = chain_tail + "," if chain_tail else ""
    if role == "app":
        attrs.append(("use", "%sapp-host,%s" % (first, site)))          # group via template
    else:
        attrs.append(("use", "%slinux-server,%s" % (first, site)))
    attrs += [("alias", "%s %s server %d" % (site, role, i)),
              ("address", "127.%d.%d.%d" % ((i >> 16) & 255, (i >> 8) & 255, (i & 255) or 1))]
    if role == "web":
        attrs.append(("hostgroups", "+web-servers"))         # group via host attribute, additive
    # db hosts join through the group's members list
    if 1 <= i <= 5:
        attrs.append(("parents", host_name(0)))
    elif 6 <= i <= 8 and h > 2:
        attrs.append(("parents", "%s,%s" % (host_name(1), host_name(2))))
    attrs += [("_RACK", "r%02d" % (i // 40)), ("_SERIAL", "SN-%08d" % (i * 7919))]
    if i % 10 == 0:
        attrs.append(("notes", "every tenth host has notes with 'quoted' text, commas, and a \\ backslash"))
    return block("host", attrs)


def host_services(i, per_host):
    name = host_name(i)
    out = []
    for j in range(per_host):
        use = "bench-service,grouped-service" if j == 0 else "bench-service"
        attrs = [("use", use), ("host_name", name), ("service_description", svc_name(j))]
        k = j % 4
        if k == 1:
            attrs.append(("check_command", "check_load_args!5.0!4.0!3.0"))
        elif k == 2:
            attrs.append(("check_command", "check_http!/health!200"))
            attrs.append(("notification_period", "workhours"))
        elif k == 3:
            attrs.append(("check_command", "check_ssh!10"))
            attrs.append(("check_period", "24x7-except-holidays"))
            attrs.append(("contact_groups", "+oncall"))
        out.append(block("service", attrs))
    return "".join(out)


def dependencies(h, per_host):
    out = ["# parents are on the hosts; here one dependency and one escalation of each kind\n\n"]
    counts = {"hostdependency": 0, "servicedependency": 0, "hostescalation": 0, "serviceescalation": 0}
    if h >= 3:
        out.append(block("hostdependency", [("host_name", host_name(1)), ("dependent_host_name", host_name(2)),
                                            ("notification_failure_criteria", "d,u"),
                                            ("execution_failure_criteria", "n")]))
        counts["hostdependency"] = 1
    if h >= 2:
        out.append(block("servicedependency", [
            ("host_name", host_name(0)), ("service_description", "PING"),
            ("dependent_host_name", host_name(1)),
            ("dependent_service_description", svc_name(0) if per_host >= 1 else "PING"),
            ("execution_failure_criteria", "w,u,c"), ("notification_failure_criteria", "w,u,c"),
            ("dependency_period", "24x7")]))
        counts["servicedependency"] = 1
    out.append(block("hostescalation", [("host_name", host_name(0)), ("first_notification", "3"),
                                        ("last_notification", "0"), ("notification_interval", "30"),
                                        ("contact_groups", "oncall"),
                                        ("escalation_options", "d,u,r")]))
    counts["hostescalation"] = 1
    # PING is applied to every host
    out.append(block("serviceescalation", [
        ("host_name", host_name(0)), ("service_description", "PING"),
        ("first_notification", "2"), ("last_notification", "5"),
        ("notification_interval", "15"), ("contacts", "alice"),
        ("contact_groups", "admins"), ("escalation_period", "workhours")]))
    counts["serviceescalation"] = 1
    return "".join(out), counts


def dependency_chain(h, per_host):
    """Every per-host service depends on the one generated before it: one servicedependency each."""
    out = ["# a servicedependency chain through every per-host service\n\n"]
    previous = None
    n = 0
    for i in range(h):
        for j in range(per_host):
            if previous is not None:
                out.append(block("servicedependency", [
                    ("host_name", previous[0]), ("service_description", previous[1]),
                    ("dependent_host_name", host_name(i)), ("dependent_service_description", svc_name(j)),
                    ("execution_failure_criteria", "c"), ("notification_failure_criteria", "w,u,c")]))
                n += 1
            previous = (host_name(i), svc_name(j))
    return "".join(out), n


def template_chain(depth):
    """Host templates chain-0 <- chain-1 <- ... each adding one custom variable; the first host uses the last."""
    out = ["# a host template chain %d deep, one custom variable per level\n\n" % depth]
    for k in range(depth):
        out.append(block("host", [("name", "chain-%d" % k), ("use", "chain-%d" % (k - 1) if k else None),
                                  ("register", "0"), ("_LEVEL%d" % k, "value %d" % k)]))
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# main configs
# ---------------------------------------------------------------------------------------------

def common_main_lines(outdir, flavor):
    d = outdir
    v = os.path.join(d, "var")
    return [
        "# generated by bench/gen_config.py (%s option names)" % flavor,
        "log_file=%s/%s.log" % (v, flavor),
        "cfg_file=%s/templates.cfg" % d,
        "cfg_dir=%s/objects" % d,
        "object_cache_file=%s/objects.cache" % v,
        "precached_object_file=%s/objects.precache" % v,
        "resource_file=%s/resource.cfg" % d,
        "status_file=%s/status.dat" % v,
        "status_update_interval=10",
        "check_external_commands=1",
        "command_file=%s/rw/%s.cmd" % (v, flavor),
        "lock_file=%s/%s.lock" % (v, flavor),
        "temp_file=%s/%s.tmp" % (v, flavor),
        "temp_path=%s/tmp" % v,
        "check_result_path=%s/checkresults" % v,
        "event_broker_options=-1",
        "log_archive_path=%s/archives" % v,
        "use_syslog=0",
        "log_notifications=1",
        "log_service_retries=1",
        "log_host_retries=1",
        "log_event_handlers=1",
        "log_initial_states=0",
        "log_external_commands=1",
        "log_passive_checks=1",
        "max_concurrent_checks=0",
        "check_result_reaper_frequency=10",
        "max_check_result_reaper_time=30",
        "cached_host_check_horizon=15",
        "cached_service_check_horizon=15",
        "enable_predictive_host_dependency_checks=1",
        "enable_predictive_service_dependency_checks=1",
        "soft_state_dependencies=0",
        "service_check_timeout=60",
        "host_check_timeout=30",
        "event_handler_timeout=30",
        "notification_timeout=30",
        "retain_state_information=1",
        "state_retention_file=%s/retention.dat" % v,
        "retention_update_interval=60",
        "use_retained_program_state=1",
        "use_retained_scheduling_info=1",
        "interval_length=60",
        "execute_service_checks=1",
        "accept_passive_service_checks=1",
        "execute_host_checks=1",
        "accept_passive_host_checks=1",
        "enable_notifications=1",
        "enable_event_handlers=1",
        "global_service_event_handler=handle-service-event",
        "process_performance_data=0",
        "enable_flap_detection=1",
        "low_service_flap_threshold=5.0",
        "high_service_flap_threshold=20.0",
        "low_host_flap_threshold=5.0",
        "high_host_flap_threshold=20.0",
        "obsess_over_services=0",
        "obsess_over_hosts=0",
        "check_for_orphaned_services=1",
        "check_for_orphaned_hosts=1",
        "check_service_freshness=1",
        "service_freshness_check_interval=60",
        "check_host_freshness=0",
        "date_format=iso8601",
        "illegal_object_name_chars=`~!$%^&*|'\"<>?,()=",
        "illegal_macro_output_chars=`~$&|'\"<>",
        "use_regexp_matching=0",
        "use_true_regexp_matching=0",
        "admin_email=root@localhost",
        "admin_pager=pageroot@localhost",
        "debug_level=0",
        "debug_file=%s/%s.debug" % (v, flavor),
        "max_debug_file_size=1000000",
        "query_socket=%s/rw/%s.qh" % (v, flavor),
    ]


def write_main(path, outdir, flavor):
    lines = common_main_lines(outdir, flavor)
    if flavor == "nagios":
        # Nagios-only options: Naemon warns that these are deprecated (it runs as its compiled-in
        # user, rotates logs with logrotate and spreads checks by itself), so vedette.cfg leaves them out.
        # `nagios4 -v` run as root drops to nagios_user before its misc checks: the var/ dirs are 1777.
        lines += ["nagios_user=%s" % NAGIOS_USER, "nagios_group=%s" % NAGIOS_GROUP,
                  "check_for_updates=0", "bare_update_check=0",
                  "log_rotation_method=n",
                  "service_inter_check_delay_method=s", "max_service_check_spread=30",
                  "service_interleave_factor=s",
                  "host_inter_check_delay_method=s", "max_host_check_spread=30"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


# ---------------------------------------------------------------------------------------------

def generate(outdir, hosts, services_per_host, dependency_chain_wanted=False, template_chain_depth=0):
    """Write the whole config into outdir; returns paths and the object counts both cores must report."""
    h, s = int(hosts), int(services_per_host)
    if h < 1 or s < 1:
        raise ValueError("need at least 1 host and 1 service per host")
    outdir = os.path.abspath(outdir)
    objdir = os.path.join(outdir, "objects")
    for sub in ("objects/hosts", "objects/services", "var/rw", "var/tmp", "var/checkresults", "var/archives"):
        os.makedirs(os.path.join(outdir, sub), exist_ok=True)
    # Readable by everyone, and the run-time dirs writable by everyone (sticky, like /tmp): `nagios4 -v`
    # started as root switches to nagios_user and then checks that temp_path and check_result_path are
    # writable. The parent of outdir must be traversable by that user too (callers: chmod 0755).
    for root, dirs, _ in os.walk(outdir):
        for dname in dirs:
            os.chmod(os.path.join(root, dname), 0o755)
    os.chmod(outdir, 0o755)
    for sub in ("var", "var/rw", "var/tmp", "var/checkresults", "var/archives"):
        os.chmod(os.path.join(outdir, sub), 0o1777)

    def write(rel, text):
        with open(os.path.join(outdir, rel), "w") as f:
            f.write(text)

    tp_text, n_tp = timeperiods()
    cmd_text, n_cmd = commands()
    ct_text, n_contacts, n_cgroups = contacts()
    grp_text, n_hg, n_sg = groups(h)
    app_text, n_applied = applied_services(s)
    per_host = s - n_applied
    dep_text, dep_counts = dependencies(h, per_host)
    chain_tail = None
    if template_chain_depth > 0:
        write("templates.cfg", templates() + template_chain(template_chain_depth))
        chain_tail = "chain-%d" % (template_chain_depth - 1)
    else:
        write("templates.cfg", templates())
    n_chain = 0
    if dependency_chain_wanted:
        chain_text, n_chain = dependency_chain(h, per_host)
        write("objects/dependency-chain.cfg", chain_text)
    write("objects/timeperiods.cfg", tp_text)
    write("objects/commands.cfg", cmd_text)
    write("objects/contacts.cfg", ct_text)
    write("objects/groups.cfg", grp_text)
    write("objects/applied-services.cfg", app_text)
    write("objects/dependencies.cfg", dep_text)
    write("objects/README.txt", "Only *.cfg files are read from a cfg_dir; this file is ignored.\n")

    for chunk_start in range(0, h, HOSTS_PER_FILE):
        chunk = range(chunk_start, min(h, chunk_start + HOSTS_PER_FILE))
        n = chunk_start // HOSTS_PER_FILE
        with open(os.path.join(objdir, "hosts", "hosts-%03d.cfg" % n), "w") as f:
            f.write("# hosts %d..%d\n\n" % (chunk[0], chunk[-1]))
            for i in chunk:
                f.write(host_block(i, h, chain_tail if i == 0 else None))
        with open(os.path.join(objdir, "services", "services-%03d.cfg" % n), "w") as f:
            f.write("# services of hosts %d..%d\n\n" % (chunk[0], chunk[-1]))
            for i in chunk:
                f.write(host_services(i, per_host))

    write("resource.cfg", "# $USERn$ macros\n$USER1$=%s\n$USER2$=/usr/local/bin\n$USER3$=secret password\n"
          % PLUGIN_DIR)
    vedette_cfg = os.path.join(outdir, "vedette.cfg")
    nagios_cfg = os.path.join(outdir, "nagios.cfg")
    write_main(vedette_cfg, outdir, "vedette")
    write_main(nagios_cfg, outdir, "nagios")

    # Keys as tests/integration/vedette_test.py:parse_counts() names the "Checked N <kind>" lines.
    # A dependency with both notification and execution failure criteria is two objects to Nagios.
    counts = {
        "services": h * s,
        "hosts": h,
        "host groups": n_hg,
        "service groups": n_sg,
        "contacts": n_contacts,
        "contact groups": n_cgroups,
        "commands": n_cmd,
        "time periods": n_tp,
        "host escalations": dep_counts["hostescalation"],
        "service escalations": dep_counts["serviceescalation"],
        "circular paths: hosts": h,
        "circular paths: service dependencies": 2 * (dep_counts["servicedependency"] + n_chain),
        "circular paths: host dependencies": 2 * dep_counts["hostdependency"],
        "circular paths: timeperiods": n_tp,
    }
    return {"outdir": outdir, "vedette_cfg": vedette_cfg, "nagios_cfg": nagios_cfg, "counts": counts}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--outdir", required=True, help="directory to write into (created)")
    p.add_argument("--size", choices=sorted(SIZES), help="preset: small = 100x10, 100k = 10000x10, or a shape")
    p.add_argument("--hosts", type=int, help="number of hosts (default 100)")
    p.add_argument("--services-per-host", type=int, help="services per host (default 10)")
    a = p.parse_args(argv)
    h, s, chain, depth = SIZES[a.size] if a.size else SIZES["small"]
    if a.hosts is not None:
        h = a.hosts
    if a.services_per_host is not None:
        s = a.services_per_host
    try:
        res = generate(a.outdir, h, s, chain, depth)
    except ValueError as e:
        p.error(str(e))
    print("wrote %d hosts x %d services to %s (main configs: %s, %s)"
          % (h, s, res["outdir"], res["vedette_cfg"], res["nagios_cfg"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
