"""Distributed checks on a real gearmand with real vedette-worker processes (issue 7): queue routing, results
applied like local ones, encryption, wrong keys and orphans, a worker killed mid-check, a gearmand restart,
passive results the send_gearman way, event handlers and notifications on their queues, and what happens
to checks while gearmand is down.

Every plugin here reports who ran it: the workers run with WORKER_ID=<name> in their environment, the core
without it ("core"). vedette-worker is taken from VEDETTE_BIN's directory (gearman_fixture.py). Orphans come
after the check's timeout plus check_result_reaper_frequency (Naemon's name), set to 1 here. About 80 s.
Skipped when /usr/sbin/gearmand (Debian gearman-job-server) is not installed. Run by hand from this
directory:
    VEDETTE_BIN=../../build/gt/vedette python3 -m unittest -v test_gearman
"""
import base64
import os
import re
import signal
import time
import unittest

import gearman_fixture as gf
import livestatus_client as ls
import vedette_test

import running_daemon
from running_daemon import RunningVedette, alert_lines
from vedette_test import wait_until

# Naemon's usual Mod-Gearman line: the module file does not exist and is never loaded.
MODULE = "/usr/lib/mod_gearman/mod_gearman_naemon.o"
LIVESTATUS = "broker_module=/usr/lib/naemon/naemon-livestatus/livestatus.o live\n"
ORPHAN_TEXT = "(%s check orphaned, is the mod-gearman worker on queue '%s' running?)"

# Appends "<worker> <args...>" to runs.log beside it, prints "ran on <worker>", exits with $EXIT_CODE (0).
WHO = """\
#!/bin/sh
echo "${WORKER_ID:-core} $*" >> "$(dirname "$0")/runs.log"
echo "ran on ${WORKER_ID:-core}"
exit ${EXIT_CODE:-0}
"""

# RunningVedette's check_state_file.sh, also recording who ran it.
STATE_PLUGIN = """\
#!/bin/sh
echo "${WORKER_ID:-core}" >> "$(dirname "$0")/runs.log"
read code text < "$1"
echo "$text"
exit "$code"
"""

COMMANDS = """
define command {
  command_name who
  command_line $USER1$/who.sh $HOSTNAME$ $SERVICEDESC$
}
define command {
  command_name who_host
  command_line $USER1$/who.sh $HOSTNAME$
}
"""


def gearman_main(gm, options="encryption=no hosts=yes services=yes", extra=""):
    """Main config lines: Livestatus, the Mod-Gearman module line, short timeouts."""
    return (LIVESTATUS + "broker_module=%s server=%s %s\n" % (MODULE, gm.server if gm else "127.0.0.1:1", options) +
            "check_result_reaper_frequency=1\n" + extra)


def host(name, check=True, extra=""):
    return """
define host {
  host_name %s
  address 127.0.0.1
  max_check_attempts 1
  check_interval %d
  retry_interval 1
  %s
  contacts admin
%s}
""" % (name, 1 if check else 0, "check_command who_host" if check else "", extra)


def service(host_name, description, command="who", interval=1, attempts=1, extra=""):
    return running_daemon.service(description, command, interval, attempts, host_name=host_name, extra=extra)


def write_script(v, name, body):
    path = v.path(name)
    with open(path, "w") as f:
        f.write(body)
    os.chmod(path, 0o755)
    return path


def runs(v):
    try:
        with open(v.path("runs.log")) as f:
            return f.read().splitlines()
    except FileNotFoundError:
        return []


def start_vedette(testcase, objects, main, who=True):
    v = RunningVedette(testcase, objects=objects, main_extra=main, start=False)
    if who:
        write_script(v, "who.sh", WHO)
    v.start()
    ls.wait_for_socket(v.path("live"))
    return v


def table(v, name, columns, where=""):
    return ls.query_json(v.path("live"), "GET %s\nColumns: %s\n%s" % (name, columns, where))


def all_checked(v):
    """{host: output} and {(host, service): output} once every host with a check and every service has a result."""
    hosts = table(v, "hosts", "name has_been_checked plugin_output active_checks_enabled check_command")
    services = table(v, "services", "host_name description has_been_checked plugin_output")
    if any(h[1] == 0 and h[4] for h in hosts) or any(s[2] == 0 for s in services):
        return None
    return ({h[0]: h[2] for h in hosts if h[4]}, {(s[0], s[1]): s[3] for s in services})


@unittest.skipUnless(gf.gearmand_available(), gf.MISSING)
class GearmanTest(unittest.TestCase):
    def setUp(self):
        os.environ.pop("WORKER_ID", None)  # the core runs without it: its plugins say "core"


class Routing(GearmanTest):
    OBJECTS = COMMANDS + host("dmz1") + host("dmz2") + host("web01") + host("loc1") + """
define hostgroup {
  hostgroup_name dmz
  members dmz1,dmz2
}
define hostgroup {
  hostgroup_name inside
  members loc1
}
define servicegroup {
  servicegroup_name fast
  members dmz1,SG
}
""" + (service("dmz1", "WHO") + service("dmz2", "WHO") + service("web01", "WHO") + service("loc1", "WHO") +
       service("dmz1", "SG") + service("dmz1", "VARLOCAL", extra="  _WORKER local\n") +
       service("web01", "VARQ", extra="  _WORKER servicegroup_fast\n"))

    def test_each_check_runs_on_the_worker_of_its_queue(self):
        gm = gf.Gearmand(self)
        gf.VedetteWorker(self, gm, "w-dmz", "hostgroups=dmz", "encryption=no")
        gf.VedetteWorker(self, gm, "w-gen", "hosts=yes", "services=yes", "encryption=no")
        gf.VedetteWorker(self, gm, "w-fast", "servicegroups=fast", "encryption=no")
        for queue in ("hostgroup_dmz", "host", "service", "servicegroup_fast"):
            gm.wait_for_workers(queue)
        v = start_vedette(self, self.OBJECTS, gearman_main(
            gm, "encryption=no hosts=yes services=yes hostgroups=dmz servicegroups=fast localhostgroups=inside "
                "queue_custom_variable=WORKER"))
        v.wait_for(r"^\[\d+\] gearman: .*127\.0\.0\.1:%d" % gm.port)
        hosts, services = wait_until("a result for every check", lambda: all_checked(v),
                                     describe=lambda: "runs: %r\nlog:\n%s" % (runs(v), v.log()))
        self.assertEqual(hosts, {"dmz1": "ran on w-dmz", "dmz2": "ran on w-dmz", "web01": "ran on w-gen",
                                 "loc1": "ran on core"})
        self.assertEqual(services, {
            ("dmz1", "WHO"): "ran on w-dmz", ("dmz2", "WHO"): "ran on w-dmz",
            ("web01", "WHO"): "ran on w-gen",
            ("loc1", "WHO"): "ran on core",  # localhostgroups=inside
            ("dmz1", "SG"): "ran on w-fast",  # servicegroups before hostgroups
            ("dmz1", "VARLOCAL"): "ran on core",  # _WORKER local
            ("web01", "VARQ"): "ran on w-fast",  # _WORKER names the queue
        })
        # Each object ran where it should every time, not only the last time.
        for line in runs(v):
            worker, host_name, *desc = line.split()
            key = (host_name, desc[0]) if desc else host_name
            expected = services[key] if desc else hosts[key]
            self.assertEqual("ran on " + worker, expected, line)
        v.stop()


class StateSequence(GearmanTest):
    OBJECTS = host("web01", check=False) + service("web01", "FILE", "check_state_file!$USER1$/file.state",
                                                   attempts=3)

    def test_soft_hard_recovery_through_a_worker_logs_what_a_local_run_logs(self):
        gm = gf.Gearmand(self)
        gf.VedetteWorker(self, gm, "w1", "services=yes", "hosts=yes", "encryption=no")
        gm.wait_for_workers("service")
        runs_ = {}
        for mode, main in (("local", LIVESTATUS), ("gearman", gearman_main(gm))):
            v = RunningVedette(self, objects=self.OBJECTS, main_extra=main, start=False)
            write_script(v, "check_state_file.sh", STATE_PLUGIN)
            v.set_state("file.state", 0, "all fine")
            v.start()
            runs_[mode] = v
        for v in runs_.values():
            wait_until("a first OK result", lambda: runs(v), describe=v.log)
        time.sleep(1)
        for v in runs_.values():
            v.set_state("file.state", 2, "disk on fire")
        for v in runs_.values():
            v.wait_for(r"SERVICE ALERT: web01;FILE;CRITICAL;HARD;3;")
        for v in runs_.values():
            v.set_state("file.state", 0, "recovered")
        for v in runs_.values():
            v.wait_for(r"SERVICE ALERT: web01;FILE;OK;HARD;3;recovered")
            self.assertEqual(v.stop(), 0)
        expected = [
            "SERVICE ALERT: web01;FILE;CRITICAL;SOFT;1;disk on fire",
            "SERVICE ALERT: web01;FILE;CRITICAL;SOFT;2;disk on fire",
            "SERVICE ALERT: web01;FILE;CRITICAL;HARD;3;disk on fire",
            "SERVICE ALERT: web01;FILE;OK;HARD;3;recovered",
        ]
        self.assertEqual(alert_lines(runs_["local"].log(), "SERVICE ALERT: "), expected)
        self.assertEqual(alert_lines(runs_["gearman"].log(), "SERVICE ALERT: "), expected)
        self.assertEqual(set(runs(runs_["local"])), {"core"})
        self.assertEqual(set(runs(runs_["gearman"])), {"w1"}, "every check of the distributed run ran on w1")


class Encryption(GearmanTest):
    OBJECTS = COMMANDS + host("web01") + service("web01", "WHO")

    def check_runs_on(self, v, worker):
        hosts, services = wait_until("a result for every check", lambda: all_checked(v), describe=v.log)
        self.assertEqual(hosts, {"web01": "ran on %s" % worker})
        self.assertEqual(services, {("web01", "WHO"): "ran on %s" % worker})

    def test_same_key_on_both_sides_with_the_native_option(self):
        gm = gf.Gearmand(self)
        # encryption=yes is the default on both sides.
        w = gf.VedetteWorker(self, gm, "w1", "hosts=yes", "services=yes", "key=Sup3rSecretKey")
        gm.wait_for_workers("service")
        v = start_vedette(self, self.OBJECTS, LIVESTATUS + "check_result_reaper_frequency=1\n"
                          "gearman_options=server=%s key=Sup3rSecretKey hosts=yes services=yes\n" % gm.server)
        self.check_runs_on(v, "w1")
        self.assertNotIn("gearman:", w.log(), "the worker decoded every job")
        self.assertNotIn("dropped a result", v.log())
        v.stop()

    def test_config_file_with_a_key_file(self):
        gm = gf.Gearmand(self)
        d = gf.vedette_test.make_temp_dir(self)
        keyfile = os.path.join(d, "secret.key")
        with open(keyfile, "w") as f:
            f.write("an0ther-Secret\n")
        conf = os.path.join(d, "mod_gearman_neb.conf")
        with open(conf, "w") as f:
            f.write("# Mod-Gearman NEB config\nserver=%s\nencryption=yes\nkeyfile=%s\nhosts=yes\nservices=yes\n"
                    "orphan_return=3   # a comment\n" % (gm.server, keyfile))
        w = gf.VedetteWorker(self, gm, "w1", "hosts=yes", "services=yes", "keyfile=%s" % keyfile)
        gm.wait_for_workers("service")
        v = start_vedette(self, self.OBJECTS, LIVESTATUS + "broker_module=%s config=%s\n" % (MODULE, conf))
        self.check_runs_on(v, "w1")
        self.assertNotIn("gearman:", w.log())
        v.stop()


class WrongKeyAndOrphans(GearmanTest):
    OBJECTS = COMMANDS + host("web01", extra="  check_timeout 2\n") + service(
        "web01", "WHO", extra="  check_timeout 2\n")

    def test_a_worker_with_a_wrong_key_runs_nothing_and_the_checks_are_orphaned(self):
        gm = gf.Gearmand(self)
        w = gf.VedetteWorker(self, gm, "w1", "hosts=yes", "services=yes", "key=TheWrongKey99")
        gm.wait_for_workers("service")
        # The object's check_timeout (2 s) decides, not the global 30 s.
        v = start_vedette(self, self.OBJECTS, gearman_main(
            gm, "key=TheRightKey11 hosts=yes services=yes",
            "service_check_timeout=30\nhost_check_timeout=30\n"))
        w.wait_for("gearman:")
        self.assertEqual(table(v, "services", "has_been_checked state"), [[0, 0]], "pending until the orphan")
        line = v.wait_for(r"SERVICE ALERT: web01;WHO;CRITICAL;HARD;1;%s$" % re.escape(
            ORPHAN_TEXT % ("service", "service")), timeout=10)[0]
        v.wait_for(r"HOST ALERT: web01;(DOWN|UNREACHABLE);HARD;1;%s$" % re.escape(ORPHAN_TEXT % ("host", "host")),
                   timeout=10)
        # Sent within its first second, orphaned after check_timeout 2 + check_result_reaper_frequency 1.
        started = int(re.match(r"\[(\d+)\]", v.wait_for(r"LOG VERSION")[0]).group(1))
        self.assertGreaterEqual(int(re.match(r"\[(\d+)\]", line).group(1)) - started, 2, line)
        self.assertEqual(runs(v), [], "nothing ran anywhere")
        self.assertEqual(table(v, "services", "state plugin_output"),
                         [[2, ORPHAN_TEXT % ("service", "service")]])
        v.stop()

    def test_orphan_service_checks_no_leaves_the_service_pending(self):
        gm = gf.Gearmand(self)
        w = gf.VedetteWorker(self, gm, "w1", "hosts=yes", "services=yes", "key=TheWrongKey99")
        gm.wait_for_workers("service")
        v = start_vedette(self, self.OBJECTS, gearman_main(
            gm, "key=TheRightKey11 hosts=yes services=yes orphan_service_checks=no"))
        w.wait_for("gearman:")
        v.wait_for(r"HOST ALERT: web01;(DOWN|UNREACHABLE);HARD;1;%s$" % re.escape(ORPHAN_TEXT % ("host", "host")),
                   timeout=15)
        time.sleep(2)  # the service's orphan would have come by now
        self.assertEqual(alert_lines(v.log(), "SERVICE ALERT: "), [])
        self.assertEqual(table(v, "services", "has_been_checked"), [[0]])
        self.assertEqual(runs(v), [])
        v.stop()


class WorkerDies(GearmanTest):
    """Two workers of one job each; the check lands on one of them, which then dies or is stopped."""
    SLOW = """\
#!/bin/sh
echo "${WORKER_ID:-core} $$" >> "$(dirname "$0")/started.log"
sleep 3
echo "done on ${WORKER_ID:-core}"
exit 0
"""
    # interval 1: a check's first run falls at a random point of its first interval.
    OBJECTS = host("web01", check=False) + service("web01", "SLOW", "run!$USER1$/slow.sh")

    def start_on_a_worker(self):
        gm = gf.Gearmand(self)
        workers = {name: gf.VedetteWorker(self, gm, name, "services=yes", "encryption=no", "max-worker=1")
                   for name in ("wA", "wB")}
        gm.wait_for_workers("service", 2)
        v = RunningVedette(self, objects=self.OBJECTS, main_extra=gearman_main(
            gm, extra="service_check_timeout=8\n"), start=False)
        write_script(v, "slow.sh", self.SLOW)
        v.start()
        ls.wait_for_socket(v.path("live"))
        started = v.path("started.log")

        def first_start():
            try:
                with open(started) as f:
                    words = f.read().split()
            except FileNotFoundError:
                return None
            return words[:2] if len(words) >= 2 else None
        first, plugin_pid = wait_until("the plugin to start on a worker", first_start, describe=v.log)
        self.addCleanup(_kill_quietly, int(plugin_pid))
        return v, workers, first

    def output_of_slow(self, v):
        return table(v, "services", "plugin_output check_source", "Filter: description = SLOW\n")

    # As with the C worker: the job was never completed, so gearmand gives it to the other worker at once.
    def test_a_check_whose_worker_is_killed_runs_on_the_other_worker(self):
        v, workers, first = self.start_on_a_worker()
        workers[first].kill(signal.SIGKILL)
        other = "wB" if first == "wA" else "wA"
        wait_until("the result from the other worker", lambda: self.output_of_slow(v) == [[
            "done on " + other, "Vedette Worker @ " + other]], timeout=20, describe=v.log)
        log = v.log()
        self.assertNotIn("orphaned", log)
        self.assertEqual(alert_lines(log, "SERVICE ALERT: "), [], "no false alert")
        v.stop()

    def test_a_worker_stopped_with_sigterm_finishes_its_check_and_reports_it(self):
        v, workers, first = self.start_on_a_worker()
        workers[first].proc.send_signal(signal.SIGTERM)
        wait_until("the result from the stopping worker", lambda: self.output_of_slow(v) == [[
            "done on " + first, "Vedette Worker @ " + first]], timeout=20, describe=v.log)
        self.assertEqual(workers[first].proc.wait(timeout=15), 0)
        self.assertRegex(workers[first].log(), r"stopped after 1 jobs \(1 results sent, 0 dropped, 0 too old, "
                                               r"0 handed back\)")
        log = v.log()
        self.assertNotIn("orphaned", log)
        self.assertEqual(alert_lines(log, "SERVICE ALERT: "), [])
        v.stop()


def _kill_quietly(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


class GearmandRestart(GearmanTest):
    OBJECTS = COMMANDS + host("web01", check=False) + service("web01", "WHO")

    def test_checks_resume_after_gearmand_comes_back_on_the_same_port(self):
        gm = gf.Gearmand(self)
        w = gf.VedetteWorker(self, gm, "w1", "services=yes", "encryption=no")
        gm.wait_for_workers("service")
        v = start_vedette(self, self.OBJECTS, gearman_main(gm))
        wait_until("two runs", lambda: len(runs(v)) >= 2, describe=v.log)
        # Killed between checks: a check out when gearmand dies waits for its orphan deadline (a minute)
        # before the next job would show the outage.
        wait_until("no check out", lambda: table(v, "services", "is_executing") == [[0]], describe=v.log)
        gm.kill(signal.SIGKILL)
        v.wait_for(r"gearman: cannot submit jobs to gearmand", timeout=15)
        v.wait_for(r"gearman: cannot read results from queue 'check_results' on gearmand .*; retrying", timeout=15)
        time.sleep(2)
        before = len(runs(v))
        gm.start()
        v.wait_for(r"gearman: submitting jobs to gearmand .* again", timeout=20)
        v.wait_for(r"gearman: reading results from queue 'check_results' on gearmand .* again", timeout=20)
        wait_until("runs after the restart", lambda: len(runs(v)) >= before + 2,
                   describe=lambda: v.log() + w.log())
        # ... and their results reach the core again.
        since = int(time.time())
        wait_until("a result applied after the restart",
                   lambda: table(v, "services", "last_check", "Filter: last_check > %d\n" % since),
                   describe=v.log)
        log = v.log()
        for text in ("gearman: cannot submit jobs to gearmand", "gearman: submitting jobs to gearmand",
                     "gearman: cannot read results from queue 'check_results'",
                     "gearman: reading results from queue 'check_results'"):
            self.assertEqual(len([l for l in log.splitlines() if text in l]), 1, "%r once:\n%s" % (text, log))
        self.assertEqual(alert_lines(log, "SERVICE ALERT: "), [], "no check failed for the outage")
        v.stop()


class PassiveResults(GearmanTest):
    OBJECTS = host("web01", check=False) + "".join(
        service("web01", name, "check_dummy!0!unused", interval=3600, extra="  active_checks_enabled 0\n")
        for name in ("PASSIVE", "SENDGEARMAN"))

    def test_send_gearman_style_results_land_on_the_service(self):
        gm = gf.Gearmand(self)
        v = start_vedette(self, self.OBJECTS, gearman_main(gm), who=False)
        gm.wait_for_workers("check_results")
        gm.submit_background("check_results", gf.encode_clear(
            "type=passive\nhost_name=web01\nservice_description=PASSIVE\nreturn_code=2\noutput=disk full\n"))
        now = time.time()
        # send_gearman's full form (C send_gearman: times, then the rest).
        gm.submit_background("check_results", gf.encode_clear(
            "type=passive\nhost_name=web01\nservice_description=SENDGEARMAN\nstart_time=%.6f\nfinish_time=%.6f\n"
            "return_code=1\noutput=load high|load=7;5;10\n" % (now - 0.2, now)))
        v.wait_for(r"SERVICE ALERT: web01;PASSIVE;CRITICAL;HARD;1;disk full$")
        v.wait_for(r"SERVICE ALERT: web01;SENDGEARMAN;WARNING;HARD;1;load high$")
        rows = table(v, "services", "description state plugin_output perf_data has_been_checked")
        self.assertEqual(sorted(rows), [["PASSIVE", 2, "disk full", "", 1],
                                        ["SENDGEARMAN", 1, "load high", "load=7;5;10", 1]])

    def test_a_result_that_does_not_decode_is_dropped_and_logged(self):
        gm = gf.Gearmand(self)
        v = start_vedette(self, self.OBJECTS, gearman_main(gm), who=False)
        gm.submit_background("check_results", "this is not base64!")
        # The link still works afterwards (this result also wakes the core, see the next test).
        gm.submit_background("check_results", gf.encode_clear(
            "type=passive\nhost_name=web01\nservice_description=PASSIVE\nreturn_code=0\noutput=fine again\n"))
        wait_until("the good result", lambda: table(v, "services", "plugin_output",
                                                     "Filter: description = PASSIVE\n") == [["fine again"]],
                   describe=v.log)
        v.wait_for(r"gearman: dropped a result from queue 'check_results': not base64")

    # The link's log lines wake the core: on a core with nothing else to do, the line still comes at once.
    def test_the_dropped_result_line_comes_without_other_activity(self):
        gm = gf.Gearmand(self)
        v = start_vedette(self, self.OBJECTS, gearman_main(gm), who=False)
        gm.wait_for_workers("check_results")
        gm.submit_background("check_results", "this is not base64!")
        v.wait_for(r"gearman: dropped a result from queue 'check_results': ", timeout=5)


class HandlersAndNotifications(GearmanTest):
    MARK = """\
#!/bin/sh
echo "$1 ${WORKER_ID:-core} $2 $3" >> "$(dirname "$0")/marks.log"
"""
    OBJECTS = """
define command {
  command_name handler
  command_line $USER1$/mark.sh handler $SERVICESTATE$ $SERVICESTATETYPE$
}
define command {
  command_name notify_mark
  command_line $USER1$/mark.sh notify $NOTIFICATIONTYPE$ $SERVICESTATE$
}
define contact {
  contact_name marker
  host_notification_commands notify
  service_notification_commands notify_mark
  host_notification_period 24x7
  service_notification_period 24x7
  service_notification_options w,u,c,r
}
""" + host("web01", check=False) + service("web01", "FILE", "check_state_file!$USER1$/file.state", attempts=2,
                                           extra="  event_handler handler\n  notification_interval 0\n"
                                                 "  contacts marker\n")

    def test_event_handlers_and_notifications_go_to_their_queues(self):
        gm = gf.Gearmand(self)
        gf.VedetteWorker(self, gm, "w1", "services=yes", "hosts=yes", "eventhandlers=yes", "notifications=yes",
                         "encryption=no")
        gm.wait_for_workers("notification")
        v = RunningVedette(self, objects=self.OBJECTS, main_extra=gearman_main(
            gm, "encryption=no hosts=yes services=yes eventhandlers=yes notifications=yes"), start=False)
        write_script(v, "mark.sh", self.MARK)
        write_script(v, "check_state_file.sh", STATE_PLUGIN)
        v.set_state("file.state", 0, "fine")
        v.start()
        wait_until("a first OK result", lambda: runs(v), describe=v.log)
        v.set_state("file.state", 2, "broken")
        v.wait_for(r"SERVICE ALERT: web01;FILE;CRITICAL;HARD;2;broken")
        v.set_state("file.state", 0, "fixed")
        v.wait_for(r"SERVICE ALERT: web01;FILE;OK;HARD;2;fixed")

        def marks():
            try:
                with open(v.path("marks.log")) as f:
                    return f.read().splitlines()
            except FileNotFoundError:
                return []
        expected = ["handler w1 CRITICAL SOFT", "handler w1 CRITICAL HARD", "handler w1 OK HARD",
                    "notify w1 PROBLEM CRITICAL", "notify w1 RECOVERY OK"]
        wait_until("the handlers and notifications ran on w1", lambda: sorted(marks()) == sorted(expected),
                   timeout=10, describe=lambda: "marks: %r\nlog:\n%s" % (marks(), v.log()))
        self.assertEqual(set(runs(v)), {"w1"})
        v.stop()


class JobsOnTheWire(GearmanTest):
    """The core's jobs as a worker sees them: a Python worker takes them off gearmand and decodes them."""
    OBJECTS = COMMANDS + host("web01", check=False) + "".join(
        service("web01", "S%d" % i, extra="  check_timeout 7\n") for i in range(10))

    def take_jobs(self, count):
        gm = gf.Gearmand(self)
        v = start_vedette(self, self.OBJECTS, gearman_main(gm, "encryption=no services=yes"))
        jobs = []
        for _ in range(count):
            workload = gm.grab_one("service")
            received = time.time()
            text = base64.b64decode(workload).decode()
            jobs.append((received, dict(line.split("=", 1) for line in text.splitlines() if "=" in line), text))
        return v, jobs

    def test_service_jobs_carry_mod_gearmans_fields(self):
        v, jobs = self.take_jobs(3)
        for received, job, text in jobs:
            self.assertTrue(text.startswith("type=service\n") and text.endswith("\n\n\n"), text)
            self.assertEqual([line.split("=")[0] for line in text.splitlines() if line], [
                "type", "result_queue", "target_queue", "host_name", "service_description", "core_time", "timeout",
                "command_line"])
            self.assertEqual((job["result_queue"], job["target_queue"], job["host_name"], job["timeout"]),
                             ("check_results", "service", "web01", "7"))
            self.assertEqual(job["command_line"], "%s web01 %s" % (v.path("who.sh"), job["service_description"]))
            self.assertRegex(job["core_time"], r"^\d+\.\d{6}$")

    # The core hands checks over up to half a second early; the link holds them until due, as the executor
    # holds a local check, so a worker never runs one before its time (as with Naemon and Mod-Gearman).
    def test_jobs_are_not_sent_before_their_scheduled_time(self):
        _, jobs = self.take_jobs(10)
        early = max(float(job["core_time"]) - received for received, job, _ in jobs)
        self.assertLess(early, 0.05, "a job arrived %.3f s before its scheduled time (core_time)" % early)


class GearmandDown(GearmanTest):
    """Nothing listens on the server's port: after 30 s of waiting a check gets UNKNOWN or runs here."""
    OBJECTS = COMMANDS + host("web01", check=False) + service("web01", "WHO")

    def test_unknown_or_local_after_thirty_seconds(self):
        port = gf.free_port()  # nothing listens there
        gone = gf.Gearmand(self, port=port, start=False)
        unknown = start_vedette(self, self.OBJECTS, gearman_main(gone, "encryption=no services=yes"))
        local = start_vedette(self, self.OBJECTS, gearman_main(gone, "encryption=no services=yes gearmand_down=local"))
        for v in (unknown, local):
            v.wait_for(r"gearman: cannot submit jobs to gearmand", timeout=10)
        started = time.monotonic()
        line = unknown.wait_for(r"SERVICE ALERT: web01;WHO;", timeout=45)[0]
        self.assertRegex(line, r"SERVICE ALERT: web01;WHO;UNKNOWN;HARD;1;\(Could not submit the check to gearmand")
        wait_until("the local run", lambda: table(local, "services", "plugin_output") == [["ran on core"]],
                   timeout=10, describe=local.log)
        self.assertGreater(time.monotonic() - started, 15, "the checks waited for gearmand first")
        self.assertEqual(runs(unknown), [])
        self.assertEqual(alert_lines(local.log(), "SERVICE ALERT: "), [], "OK locally, no alert")
        for v in (unknown, local):
            self.assertEqual(len(re.findall(r"gearman: cannot submit jobs to gearmand", v.log())), 1)
            v.stop()


if __name__ == "__main__":
    unittest.main()


FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "mod-gearman-5.2.4")


def captured(prefix):
    """[(name, raw payload, decoded text)] of the captures from the real Mod-Gearman 5.2.4 C worker and
    send_gearman whose names start with `prefix`, in name order."""
    out = []
    for name in sorted(os.listdir(FIXTURES)):
        if not name.startswith(prefix) or not name.endswith(".raw"):
            continue
        stem = name[:-4]
        with open(os.path.join(FIXTURES, name)) as f:
            raw = f.read()
        with open(os.path.join(FIXTURES, stem + ".txt"), "rb") as f:
            text = f.read().decode()
        out.append((stem, raw, text))
    return out


def fields(text):
    """The key=value lines of a result, up to the first without a value (output= may be empty)."""
    out = {}
    for line in text.split("\n"):
        key, eq, value = line.partition("=")
        if not eq:
            break
        out.setdefault(key, value)
        if not value:
            break
    return out


def first_line(output):
    """Naemon's plugin_output of an output as the NEB module reads it: its "\\n" are line breaks."""
    return output.replace("\\n", "\n").split("\n")[0].split("|")[0].strip() or "(No output returned from plugin)"


class CapturedPayloads(GearmanTest):
    """The bytes the real C worker and send_gearman sent (tests/fixtures/mod-gearman-5.2.4) go onto
    check_results as they were captured; each is applied with its state and output."""
    HOSTS = ("web01", "web02", "web03", "db01", "app01", "win01", "lab01")
    SERVICES = (("web01", "HTTP"), ("web01", "Pad"), ("db01", "Disks"), ("win01", "Path Check"),
                ("lab01", "Temperatur"), ("app01", "Load"), ("app01", "Empty"), ("app01", "RC5"),
                ("app01", "Segv"), ("app01", "Missing"), ("app01", "Missing Shell"), ("app01", "NoExec"),
                ("app01", "Slow"), ("web01", "MARK"))
    # A check command, or Naemon would take them as UP whatever a result says.
    OBJECTS = "".join(host(h, check=False, extra="  check_command check_dummy!0!unused\n  active_checks_enabled 0\n")
                      for h in HOSTS) + "".join(
        service(h, s, "check_dummy!0!unused", interval=3600, extra="  active_checks_enabled 0\n")
        for h, s in SERVICES)

    def replay(self, prefixes, key=None):
        gm = gf.Gearmand(self)
        options = ("encryption=yes key=%s" % key if key else "encryption=no") + " services=yes"
        v = start_vedette(self, self.OBJECTS, gearman_main(gm, options), who=False)
        gm.wait_for_workers("check_results")
        encrypted = key is not None
        for prefix in prefixes:
            for name, raw, text in captured(prefix):
                if encrypted and (name == "sg-enc-long-key") != (len(key) > 32):
                    continue  # sealed with another key
                gm.submit_background("check_results", raw)
                # A marker after it: results come off the queue in order, so once the marker shows, the
                # capture was applied.
                marker = "type=passive\nhost_name=web01\nservice_description=MARK\nreturn_code=0\noutput=%s\n" % name
                gm.submit_background("check_results", gf.encode_encrypted(marker, key.encode()) if encrypted
                                     else gf.encode_clear(marker))
                wait_until("marker " + name, lambda: table(
                    v, "services", "plugin_output", "Filter: description = MARK\n") == [[name]], describe=v.log)
                f = fields(text)
                rc = int(f["return_code"])
                # Livestatus' check_source: the sender's source=, or the NEB module's name without one.
                source = f["source"] if f["source"] != "(null)" else "Mod-Gearman Worker"
                columns = "state plugin_output has_been_checked check_source latency"
                if f.get("service_description"):
                    got = table(v, "services", columns, "Filter: host_name = %s\nFilter: description = %s\n" % (
                        f["host_name"], f["service_description"]))[0]
                    self.assertEqual(got[:4], [rc, first_line(f["output"]), 1, source], name)
                else:
                    got = table(v, "hosts", columns, "Filter: name = %s\n" % f["host_name"])[0]
                    self.assertEqual(got[1:4], [first_line(f["output"]), 1, source], name)
                    # A passive host result's code is the state; an active one's 1 and 2 are DOWN.
                    self.assertEqual(got[0], rc if f.get("type") == "passive" else {0: 0, 1: 1, 2: 1}[rc], name)
                if f.get("type") == "active":  # send_gearman --active: its latency= is the latency
                    self.assertAlmostEqual(got[4], float(f["latency"]), places=3, msg=name)
        log = v.log()
        self.assertNotIn("dropped a result", log)
        v.stop()
        return log

    def test_the_c_workers_and_send_gearmans_clear_results_are_applied(self):
        log = self.replay(("worker-plain-", "sg-plain-"))
        self.assertRegex(log, r"gearman: a result from queue 'check_results' for '\S+' has a bad core_start_time "
                              r"'4851599868758186933\.500000'; applied without it")

    def test_the_c_workers_and_send_gearmans_encrypted_results_are_applied(self):
        log = self.replay(("worker-enc-", "sg-enc-"), key="should_be_changed")
        self.assertRegex(log, r"has a bad core_start_time '-6134352569540822139\.000000'")

    # Only the key's first 32 bytes count, on both sides.
    def test_a_key_longer_than_32_bytes_is_cut_as_send_gearman_cuts_it(self):
        self.replay(("sg-enc-long-key",), key="should_be_changedshould_be_chang-and-more")


class Perfdata(GearmanTest):
    """perfdata=yes: each result's performance data goes to the perfdata queue in pnp4nagios' format, as the
    NEB module sends it; a reader (process_perfdata.pl --gearman) takes it from there."""
    OBJECTS = host("web01", check=False) + service(
        "web01", "PERF", "check_dummy!0!unused", interval=3600, extra="  active_checks_enabled 0\n") + service(
        "web01", "NOPERF", "check_dummy!0!unused", interval=3600,
        extra="  active_checks_enabled 0\n  process_perf_data 0\n")

    def start(self, options):
        gm = gf.Gearmand(self)
        v = start_vedette(self, self.OBJECTS, gearman_main(gm, "encryption=no " + options,
                                                           extra="process_performance_data=1\n"), who=False)
        return gm, v

    def passive(self, v, service, output):
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;%s;1;%s" % (service, output))

    def queued(self, gm):
        return gm.status().get("perfdata", (0, 0, 0))[0]

    def test_one_job_per_object_waits_on_the_queue_in_pnp4nagios_format(self):
        gm, v = self.start("perfdata=yes")
        for n in (1, 2, 3):
            self.passive(v, "PERF", "load %d|load=%d;5;10" % (n, n))
        self.passive(v, "PERF", "no performance data")
        self.passive(v, "NOPERF", "not for this one|x=1")
        wait_until("the results", lambda: table(v, "services", "plugin_output", "Filter: description = NOPERF\n")
                   == [["not for this one"]], describe=v.log)
        # perfdata_mode=1: one job per object (its unique id); gearmand keeps the one waiting, not the newest.
        wait_until("the perfdata job", lambda: self.queued(gm) == 1, describe=lambda: repr(gm.status()))
        text = base64.b64decode(gm.grab_one("perfdata")).decode()
        fields = dict(f.split("::", 1) for f in text.rstrip("\n").split("\t"))
        self.assertTrue(text.endswith("\n"))
        self.assertEqual(fields["DATATYPE"], "SERVICEPERFDATA")
        self.assertEqual((fields["HOSTNAME"], fields["SERVICEDESC"], fields["SERVICEPERFDATA"]),
                         ("web01", "PERF", "load=1;5;10"))
        self.assertEqual(fields["SERVICECHECKCOMMAND"], "check_dummy!0!unused")
        self.assertEqual((fields["SERVICESTATE"], fields["SERVICESTATETYPE"]), ("WARNING", "HARD"))
        self.assertLess(abs(int(fields["TIMET"]) - time.time()), 30)
        self.assertEqual(list(fields)[:2], ["DATATYPE", "TIMET"])
        self.assertEqual(self.queued(gm), 0)

    def test_append_mode_keeps_every_result_and_other_queues_get_their_copy(self):
        gm, v = self.start("perfdata=perfdata,archive perfdata_mode=2 perfdata_send_all=yes "
                           "service_perfdata_template=$SERVICEDESC$\\t$SERVICEPERFDATA$")
        for n in (1, 2):
            self.passive(v, "PERF", "load %d|load=%d" % (n, n))
        self.passive(v, "NOPERF", "sent all the same|x=1")
        wait_until("three jobs on each queue", lambda: (self.queued(gm), gm.status().get("archive", (0,))[0])
                   == (3, 3), describe=lambda: repr(gm.status()) + v.log())
        got = [base64.b64decode(gm.grab_one("archive")).decode() for _ in range(3)]
        self.assertEqual(got, ["PERF\tload=1\n", "PERF\tload=2\n", "NOPERF\tx=1\n"])
