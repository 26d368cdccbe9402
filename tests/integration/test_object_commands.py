"""External commands that change one host or service, or every member of a scope, with the real daemon:
ENABLE_/DISABLE_ flags per service, host, host's services, host group, service group and the hosts below a
host; CHANGE_* intervals, attempts, periods, custom variables and modified attributes. Each shows in
status.dat at once, changes what runs, and survives a restart through retention.dat."""
import time
import unittest

import status_dat

from running_daemon import HOST, RunningVedette, service

MAIN = """\
retain_state_information=1
state_retention_file=retention.dat
retention_update_interval=60
status_file=status.dat
status_update_interval=1
"""

OBJECTS = HOST + """
define host {
  host_name db01
  address 127.0.0.1
  parents web01
  max_check_attempts 1
  check_interval 0
  contacts admin
}
define hostgroup {
  hostgroup_name webs
  members web01
}
define servicegroup {
  servicegroup_name disks
  members web01,DISK
}
define command {
  command_name check_owner
  command_line /usr/lib/nagios/plugins/check_dummy 0 "owner $_SERVICEOWNER$"
}
define service {
  host_name db01
  service_description DB
  check_command check_dummy!0!db fine
  max_check_attempts 1
  check_interval 3600
  retry_interval 1
  contacts admin
}
define service {
  host_name web01
  service_description OWNER
  check_command check_owner
  max_check_attempts 1
  check_interval 3600
  retry_interval 1
  contacts admin
  _OWNER ops
}
""" + service("DISK", "check_state_file!disk.state") + service("HTTP", "check_state_file!http.state",
                                                                 interval=3600)


def objects(blocks):
    """hoststatus and servicestatus blocks by name ("web01", "web01;DISK")."""
    out = {}
    for kind, fields in blocks:
        d = dict(fields)
        if kind == "hoststatus":
            out[d["host_name"]] = d
        elif kind == "servicestatus":
            out["%s;%s" % (d["host_name"], d["service_description"])] = d
    return out


def wait_for_status(v, name, key, value, timeout=10):
    """Waits until status.dat shows `key=value` for the host or service `name`; returns every object."""
    text = status_dat.wait_until(v.path("status.dat"), lambda blocks: objects(blocks).get(name, {}).get(key) == value,
                                 timeout, "%s %s=%s" % (name, key, value))
    return objects(status_dat.parse(text))


class EnableAndDisable(unittest.TestCase):
    def test_flags_per_object_and_scope_change_what_runs_and_survive_a_restart(self):
        v = RunningVedette(self, objects=OBJECTS, main_extra=MAIN, start=False)
        v.set_state("disk.state", 0, "DISK OK")
        v.set_state("http.state", 0, "HTTP OK")
        v.start()

        # One service: its checks stop; the bit for active checks (2) is set; twice changes nothing more.
        v.command("DISABLE_SVC_CHECK;web01;DISK")
        v.command("DISABLE_SVC_CHECK;web01;DISK")
        seen = wait_for_status(v, "web01;DISK", "active_checks_enabled", "0")
        self.assertEqual(seen["web01;DISK"]["modified_attributes"], "2")
        v.set_state("disk.state", 2, "DISK CRITICAL")
        time.sleep(2.5)
        self.assertNotIn("SERVICE ALERT: web01;DISK;CRITICAL", v.log())
        v.command("ENABLE_SVC_CHECK;web01;DISK")
        v.wait_for(r"SERVICE ALERT: web01;DISK;CRITICAL;HARD;1;DISK CRITICAL")

        # Passive results are refused while passive checks of the service are off.
        v.command("DISABLE_PASSIVE_SVC_CHECKS;web01;HTTP")
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;HTTP;2;refused")
        v.command("ENABLE_PASSIVE_SVC_CHECKS;web01;HTTP")
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;HTTP;1;taken")
        v.wait_for(r"SERVICE ALERT: web01;HTTP;WARNING;HARD;1;taken")
        self.assertNotIn("refused", "\n".join(
            line for line in v.log().splitlines() if "ALERT" in line))

        # Scopes: a host group's services, the hosts below web01 with their services, a service group's
        # hosts, and a host's own event handler.
        v.command("DISABLE_HOSTGROUP_SVC_NOTIFICATIONS;webs")
        v.command("DISABLE_ALL_NOTIFICATIONS_BEYOND_HOST;web01")
        v.command("DISABLE_SERVICEGROUP_HOST_CHECKS;disks")
        v.command("DISABLE_HOST_EVENT_HANDLER;db01")
        v.command("STOP_OBSESSING_OVER_SVC;web01;OWNER")
        seen = wait_for_status(v, "db01", "event_handler_enabled", "0")
        for name in ("web01;DISK", "web01;HTTP", "web01;OWNER", "db01;DB", "db01"):
            self.assertEqual(seen[name]["notifications_enabled"], "0", name)
        self.assertEqual(seen["web01"]["notifications_enabled"], "1", "beyond the host: not the host itself")
        self.assertEqual(seen["web01"]["active_checks_enabled"], "0")
        self.assertEqual(seen["db01"]["active_checks_enabled"], "1")
        self.assertEqual(seen["web01;OWNER"]["obsess"], "0")
        self.assertEqual(seen["web01;DISK"]["modified_attributes"], "3")  # checks | notifications
        self.assertEqual(seen["db01"]["modified_attributes"], "9")  # notifications | event handler

        # A restart brings every change back from retention.dat.
        self.assertEqual(v.stop(), 0)
        v.start()
        seen = wait_for_status(v, "db01", "event_handler_enabled", "0")
        self.assertEqual(seen["web01;DISK"]["notifications_enabled"], "0")
        self.assertEqual(seen["web01;DISK"]["active_checks_enabled"], "1")
        self.assertEqual(seen["web01;DISK"]["modified_attributes"], "3")
        self.assertEqual(seen["web01"]["active_checks_enabled"], "0")
        self.assertEqual(seen["web01;OWNER"]["obsess"], "0")
        self.assertEqual(v.stop(), 0)
        with open(v.path("retention.dat")) as f:
            saved = f.read()
        self.assertIn("config:notifications_enabled=1\nnotifications_enabled=0\n", saved)


class Change(unittest.TestCase):
    def test_change_commands_set_values_and_bits_and_survive_a_restart(self):
        v = RunningVedette(self, objects=OBJECTS, main_extra=MAIN, start=False)
        v.set_state("disk.state", 0, "DISK OK")
        v.set_state("http.state", 0, "HTTP OK")
        v.start()
        now = int(time.time())

        v.command("CHANGE_NORMAL_SVC_CHECK_INTERVAL;web01;HTTP;30")
        v.command("CHANGE_RETRY_SVC_CHECK_INTERVAL;web01;HTTP;7")
        v.command("CHANGE_MAX_SVC_CHECK_ATTEMPTS;web01;HTTP;5")
        v.command("CHANGE_MAX_HOST_CHECK_ATTEMPTS;db01;4")
        v.command("CHANGE_CUSTOM_SVC_VAR;web01;OWNER;owner;dba")
        v.command("CHANGE_SVC_NOTIFICATION_TIMEPERIOD;web01;HTTP;never")
        v.command("CHANGE_SVC_CHECK_COMMAND;web01;HTTP;check_dummy!2!x")
        v.wait_for(r"Error: External command failed -> CHANGE_SVC_CHECK_COMMAND;web01;HTTP;check_dummy!2!x")
        seen = wait_for_status(v, "web01;OWNER", "modified_attributes", "32768")
        http = seen["web01;HTTP"]
        self.assertEqual(http["check_interval"], "30.000000")
        self.assertEqual(http["retry_interval"], "7.000000")
        self.assertEqual(http["max_attempts"], "5")
        self.assertEqual(http["notification_period"], "never")
        self.assertEqual(http["check_command"], "check_state_file!http.state", "refused, as Naemon does")
        self.assertEqual(http["modified_attributes"], str(1024 | 2048 | 4096 | 65536))
        # The check interval is now 30 s: the next check falls within it (it was up to an hour away).
        self.assertLessEqual(int(http["next_check"]), now + 31)
        self.assertEqual(seen["db01"]["max_attempts"], "4")
        self.assertEqual(seen["web01;OWNER"]["_OWNER"], "1;dba")

        # The changed custom variable is what the plugin's macro sees.
        v.command("SCHEDULE_FORCED_SVC_CHECK;web01;OWNER;%d" % now)
        wait_for_status(v, "web01;OWNER", "plugin_output", "OK: owner dba")

        # A check period with no time in it: the check waits for a valid time instead of running.
        v.command("CHANGE_SVC_CHECK_TIMEPERIOD;web01;DISK;never")
        wait_for_status(v, "web01;DISK", "check_period", "never")
        v.set_state("disk.state", 2, "DISK CRITICAL")
        v.command("SCHEDULE_SVC_CHECK;web01;DISK;%d" % now)
        time.sleep(2.5)
        self.assertNotIn("SERVICE ALERT: web01;DISK;CRITICAL", v.log())

        # CHANGE_*_MODATTR replaces the bits (here: forgets the period change; the value stays for now).
        v.command("CHANGE_SVC_MODATTR;web01;DISK;0")
        wait_for_status(v, "web01;DISK", "modified_attributes", "0")

        self.assertEqual(v.stop(), 0)
        v.start()
        seen = wait_for_status(v, "web01;OWNER", "_OWNER", "1;dba")
        http = seen["web01;HTTP"]
        self.assertEqual(http["check_interval"], "30.000000")
        self.assertEqual(http["max_attempts"], "5")
        self.assertEqual(http["notification_period"], "never")
        self.assertEqual(seen["db01"]["max_attempts"], "4")
        # No bit, nothing retained: the configured period (none) is back.
        self.assertEqual(seen["web01;DISK"]["check_period"], "")
        self.assertEqual(v.stop(), 0)


class Acknowledge(unittest.TestCase):
    def test_acknowledgements_end_as_in_naemon_and_survive_a_restart(self):
        v = RunningVedette(self, objects=OBJECTS, main_extra=MAIN, start=False)
        v.set_state("disk.state", 2, "DISK CRITICAL")
        v.set_state("http.state", 0, "HTTP OK")
        v.start()
        v.wait_for(r"SERVICE ALERT: web01;DISK;CRITICAL;HARD;1;DISK CRITICAL")
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;HTTP;1;HTTP slow")
        v.wait_for(r"SERVICE ALERT: web01;HTTP;WARNING;HARD;1;HTTP slow")

        # An OK service has nothing to acknowledge; sticky is any nonzero value (type 2), normal is type 1.
        v.command("ACKNOWLEDGE_SVC_PROBLEM;web01;OWNER;1;0;1;admin;nothing to see")
        v.command("ACKNOWLEDGE_SVC_PROBLEM;web01;DISK;2;0;1;admin;replacing the disk")
        v.command("ACKNOWLEDGE_SVC_PROBLEM;web01;HTTP;0;0;0;admin;looking")
        seen = wait_for_status(v, "web01;HTTP", "problem_has_been_acknowledged", "1")
        self.assertEqual(seen["web01;HTTP"]["acknowledgement_type"], "1")
        self.assertEqual(seen["web01;DISK"]["problem_has_been_acknowledged"], "1")
        self.assertEqual(seen["web01;DISK"]["acknowledgement_type"], "2")
        self.assertEqual(seen["web01;OWNER"]["problem_has_been_acknowledged"], "0")

        # A state change ends the normal one; the sticky one lasts through it and ends with the recovery.
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;HTTP;2;HTTP down")
        v.set_state("disk.state", 1, "DISK WARNING")
        v.wait_for(r"SERVICE ALERT: web01;DISK;WARNING;HARD;1;DISK WARNING")
        seen = wait_for_status(v, "web01;HTTP", "problem_has_been_acknowledged", "0")
        self.assertEqual(seen["web01;HTTP"]["acknowledgement_type"], "0")
        seen = wait_for_status(v, "web01;DISK", "plugin_output", "DISK WARNING")
        self.assertEqual(seen["web01;DISK"]["problem_has_been_acknowledged"], "1")

        # One that expires, one removed by command, and one on a host.
        end = int(time.time()) + 6
        v.command("ACKNOWLEDGE_SVC_PROBLEM_EXPIRE;web01;HTTP;0;0;0;%d;admin;for a moment" % end)
        seen = wait_for_status(v, "web01;HTTP", "problem_has_been_acknowledged", "1")
        self.assertEqual(seen["web01;HTTP"]["acknowledgement_end_time"], str(end))
        v.command("PROCESS_HOST_CHECK_RESULT;db01;1;db01 down")
        v.wait_for(r"HOST ALERT: db01;DOWN;HARD;1;db01 down")
        v.command("ACKNOWLEDGE_HOST_PROBLEM;db01;0;0;0;admin;on it")
        wait_for_status(v, "db01", "problem_has_been_acknowledged", "1")
        wait_for_status(v, "web01;HTTP", "problem_has_been_acknowledged", "0", timeout=15)
        self.assertGreaterEqual(time.time(), end, "not before its end time")

        # Kept across a restart; then removed by command; then the sticky one ends with the recovery.
        self.assertEqual(v.stop(), 0)
        v.start()
        seen = wait_for_status(v, "db01", "problem_has_been_acknowledged", "1")
        self.assertEqual(seen["web01;DISK"]["acknowledgement_type"], "2")
        v.command("REMOVE_HOST_ACKNOWLEDGEMENT;db01")
        wait_for_status(v, "db01", "problem_has_been_acknowledged", "0")
        v.set_state("disk.state", 0, "DISK OK")
        v.wait_for(r"SERVICE ALERT: web01;DISK;OK;HARD;1;DISK OK")
        wait_for_status(v, "web01;DISK", "problem_has_been_acknowledged", "0")
        self.assertEqual(v.stop(), 0)


def comments(v):
    """The comment blocks of status.dat, each a dict."""
    with open(v.path("status.dat")) as f:
        return [dict(fields) for kind, fields in status_dat.parse(f.read()) if kind.endswith("comment")]


def wait_for_comments(v, settled, what, timeout=10):
    status_dat.wait_until(v.path("status.dat"), lambda blocks: settled(
        [dict(fields) for kind, fields in blocks if kind.endswith("comment")]), timeout, what)
    return comments(v)


class Comments(unittest.TestCase):
    def test_comments_by_command_and_by_acknowledgement(self):
        v = RunningVedette(self, objects=OBJECTS, main_extra=MAIN, start=False)
        v.set_state("disk.state", 2, "DISK CRITICAL")
        v.set_state("http.state", 0, "HTTP OK")
        v.start()
        v.wait_for(r"SERVICE ALERT: web01;DISK;CRITICAL;HARD;1;DISK CRITICAL")
        v.command("ADD_SVC_COMMENT;web01;HTTP;1;alice;kept across restarts")
        v.command("ADD_HOST_COMMENT;db01;0;bob;gone at the next restart")
        v.command("ACKNOWLEDGE_SVC_PROBLEM;web01;DISK;0;0;0;carol;replacing it")
        got = wait_for_comments(v, lambda c: len(c) == 3, "three comments")
        by_author = {c["author"]: c for c in got}
        self.assertEqual(by_author["alice"]["service_description"], "HTTP")
        self.assertEqual((by_author["alice"]["entry_type"], by_author["alice"]["source"],
                          by_author["alice"]["persistent"]), ("1", "1", "1"))
        self.assertEqual((by_author["carol"]["entry_type"], by_author["carol"]["source"],
                          by_author["carol"]["comment_data"]), ("4", "0", "replacing it"))
        ids = sorted(int(c["comment_id"]) for c in got)
        self.assertEqual(ids, [1, 2, 3])

        # The acknowledgement ends with the state change: its comment goes with it.
        v.set_state("disk.state", 1, "DISK WARNING")
        wait_for_comments(v, lambda c: len(c) == 2, "the acknowledgement's comment gone")

        # Deleting by id checks the kind, as Naemon does; DEL_ALL takes every comment of the object.
        bob = int(by_author["bob"]["comment_id"])
        v.command("DEL_SVC_COMMENT;%d" % bob)
        v.wait_for(r"Error: External command failed -> DEL_SVC_COMMENT;%d" % bob)
        v.command("DEL_HOST_COMMENT;%d" % bob)
        wait_for_comments(v, lambda c: len(c) == 1, "bob's comment deleted")

        # Across a restart the persistent comment stays, with its id, and ids go on from there.
        self.assertEqual(v.stop(), 0)
        v.start()
        v.command("ADD_SVC_COMMENT;web01;DISK;0;dave;new")
        got = wait_for_comments(v, lambda c: len(c) == 2, "two comments after the restart")
        self.assertEqual({c["author"]: c["comment_id"] for c in got}, {"alice": "1", "dave": "4"})
        v.command("DEL_ALL_SVC_COMMENTS;web01;HTTP")
        wait_for_comments(v, lambda c: len(c) == 1, "HTTP's comments deleted")
        self.assertEqual(v.stop(), 0)


def downtimes(v):
    with open(v.path("status.dat")) as f:
        return [dict(fields) for kind, fields in status_dat.parse(f.read()) if kind.endswith("downtime")]


class Downtimes(unittest.TestCase):
    def test_fixed_flexible_triggered_and_cancelled_downtimes(self):
        v = RunningVedette(self, objects=OBJECTS, main_extra=MAIN, start=False)
        v.set_state("disk.state", 0, "DISK OK")
        v.set_state("http.state", 0, "HTTP OK")
        v.start()
        now = int(time.time())

        # Fixed: starts at once, ends at its end time, with its comment and depth in status.dat meanwhile.
        v.command("SCHEDULE_SVC_DOWNTIME;web01;DISK;%d;%d;1;0;0;alice;disk swap" % (now, now + 4))
        v.wait_for(r"SERVICE DOWNTIME ALERT: web01;DISK;STARTED; Service has entered a period of scheduled downtime")
        seen = wait_for_status(v, "web01;DISK", "scheduled_downtime_depth", "1")
        self.assertEqual(seen["web01;HTTP"]["scheduled_downtime_depth"], "0")
        got = downtimes(v)
        self.assertEqual([(d["downtime_id"], d["author"], d["is_in_effect"]) for d in got], [("1", "alice", "1")])
        note = [c for c in comments(v) if c["entry_type"] == "2"]
        self.assertEqual(len(note), 1)
        self.assertIn("This service has been scheduled for fixed downtime from", note[0]["comment_data"])
        v.wait_for(r"SERVICE DOWNTIME ALERT: web01;DISK;STOPPED; Service has exited from a period of scheduled "
                   r"downtime")
        wait_for_status(v, "web01;DISK", "scheduled_downtime_depth", "0")
        wait_for_comments(v, lambda c: not c, "the downtime's comment gone")

        # Flexible: waits for a problem inside its window, then lasts its duration.
        v.command("SCHEDULE_SVC_DOWNTIME;web01;HTTP;%d;%d;0;0;2;bob;flaky" % (now, now + 600))
        time.sleep(1.5)
        self.assertNotIn("web01;HTTP;STARTED", v.log())
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;HTTP;2;HTTP down")
        v.wait_for(r"SERVICE DOWNTIME ALERT: web01;HTTP;STARTED;")
        v.wait_for(r"SERVICE DOWNTIME ALERT: web01;HTTP;STOPPED;")

        # Propagated and triggered: db01 (below web01) starts with web01's; cancelling web01's cancels both.
        v.command("SCHEDULE_AND_PROPAGATE_TRIGGERED_HOST_DOWNTIME;web01;%d;%d;1;0;0;carol;network" %
                  (now, now + 600))
        v.wait_for(r"HOST DOWNTIME ALERT: web01;STARTED; Host has entered a period of scheduled downtime")
        v.wait_for(r"HOST DOWNTIME ALERT: db01;STARTED;")
        got = wait_for_status(v, "db01", "scheduled_downtime_depth", "1")
        ids = {d["host_name"]: d for d in downtimes(v)}
        self.assertEqual(ids["db01"]["triggered_by"], ids["web01"]["downtime_id"])
        v.command("DEL_HOST_DOWNTIME;%s" % ids["web01"]["downtime_id"])
        v.wait_for(r"HOST DOWNTIME ALERT: web01;CANCELLED; Scheduled downtime for host has been cancelled\.")
        v.wait_for(r"HOST DOWNTIME ALERT: db01;CANCELLED;")
        v.command("DEL_HOST_DOWNTIME;999")
        v.wait_for(r"Error: External command failed -> DEL_HOST_DOWNTIME;999")

        # A future downtime survives a restart with its id and comment; DEL_DOWNTIME_BY_HOST_NAME removes it.
        v.command("SCHEDULE_HOST_DOWNTIME;db01;%d;%d;1;0;0;dave;later" % (now + 3600, now + 7200))
        status_dat.wait_until(v.path("status.dat"), lambda blocks: any(
            k == "hostdowntime" and dict(f)["author"] == "dave" for k, f in blocks), 10, "dave's downtime")
        self.assertEqual(v.stop(), 0)
        v.start()
        status_dat.wait_until(v.path("status.dat"), lambda blocks: any(
            k == "hostdowntime" and dict(f)["author"] == "dave" for k, f in blocks), 10, "dave's downtime back")
        self.assertEqual(len([c for c in comments(v) if c["entry_type"] == "2"]), 1)
        v.command("DEL_DOWNTIME_BY_HOST_NAME;db01")
        status_dat.wait_until(v.path("status.dat"), lambda blocks: not any(
            k.endswith("downtime") for k, f in blocks), 10, "no downtimes")
        self.assertEqual(v.stop(), 0)


FRESHNESS_OBJECTS = HOST + """
define host {
  host_name edge01
  address 127.0.0.1
  max_check_attempts 1
  check_interval 0
  check_command check_dummy!2!edge01 went quiet
  active_checks_enabled 0
  check_freshness 1
  freshness_threshold 3
  contacts admin
}
define service {
  host_name web01
  service_description PASSIVE
  check_command check_dummy!2!no result came
  max_check_attempts 1
  check_interval 3600
  retry_interval 1
  active_checks_enabled 0
  check_freshness 1
  freshness_threshold 3
  contacts admin
}
"""


class Freshness(unittest.TestCase):
    def test_stale_passive_results_force_a_check_with_naemons_warning(self):
        main = MAIN + "check_host_freshness=1\nservice_freshness_check_interval=1\nhost_freshness_check_interval=1\n"
        v = RunningVedette(self, objects=FRESHNESS_OBJECTS, main_extra=main)
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;PASSIVE;0;fresh result")
        v.wait_for(r"PASSIVE SERVICE CHECK: web01;PASSIVE;0;fresh result")
        # Results keep it fresh; once they stop, the threshold passes and a forced check runs.
        line = v.wait_for(r"Warning: The results of service 'PASSIVE' on host 'web01' are stale by 0d 0h 0m \d+s "
                          r"\(threshold=0d 0h 0m 3s\)\.  I'm forcing an immediate check of the service\.")[0]
        v.wait_for(r"SERVICE ALERT: web01;PASSIVE;CRITICAL;HARD;1;CRITICAL: no result came")
        v.wait_for(r"Warning: The results of host 'edge01' are stale by .* I'm forcing an immediate check of the host\.")
        v.wait_for(r"HOST ALERT: edge01;DOWN;HARD;1;CRITICAL: edge01 went quiet")
        stale_at = int(line[1:11])
        log = v.log()
        sent = [int(l[1:11]) for l in log.splitlines() if "fresh result" in l and "PASSIVE SERVICE CHECK" in l][0]
        self.assertGreaterEqual(stale_at - sent, 3, "not before the threshold")
        self.assertEqual(v.stop(), 0)


if __name__ == "__main__":
    unittest.main()
