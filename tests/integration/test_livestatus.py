"""The built-in Livestatus with the real daemon: Naemon's broker_module line and Vedette's own options,
queries over a Unix socket and TCP, commands, wait headers, errors, KeepAlive, many clients at once, and
Monitoring::Livestatus (the Perl library Thruk uses) as a real client."""
import json
import os
import shutil
import socket
import stat
import subprocess
import threading
import time
import unittest

import livestatus_client as ls
import vedette_test

from running_daemon import HOST, RunningVedette, service


def passive(description):
    return service(description, "check_dummy!0!unused", interval=3600).replace(
        "  contacts admin\n}", "  contacts admin\n  active_checks_enabled 0\n}")


OBJECTS = (HOST + passive("HTTP") + passive("DISK") + passive("LOAD") + """
define host {
  host_name db01
  address 127.0.0.2
  max_check_attempts 1
  check_interval 0
  _RACK B4
}
define hostgroup {
  hostgroup_name web
  members web01
}
""")

# Naemon's usual line: the module file does not exist and is never loaded.
MAIN = "broker_module=/usr/lib/naemon/naemon-livestatus/livestatus.o live\n"


def start(testcase, main=MAIN, objects=OBJECTS):
    v = RunningVedette(testcase, objects=objects, main_extra=main)
    ls.wait_for_socket(v.path("live"))
    return v


def result(v, description, code, text):
    """A passive result through Livestatus' COMMAND."""
    answer = ls.query(v.path("live"), "COMMAND [%d] PROCESS_SERVICE_CHECK_RESULT;web01;%s;%d;%s" % (
        int(time.time()), description, code, text))
    if answer:
        raise AssertionError("COMMAND answered %r" % answer)


class Basics(unittest.TestCase):
    def test_broker_module_line_serves_hosts_and_services(self):
        v = start(self)
        mode = stat.S_IMODE(os.stat(v.path("live")).st_mode)
        self.assertEqual(mode, 0o660)
        self.assertEqual(ls.query(v.path("live"), "GET hosts\nColumns: name address"),
                         "db01;127.0.0.2\nweb01;127.0.0.1\n")
        rows = ls.query(v.path("live"), "GET services\nColumns: host_name description state")
        self.assertEqual(rows, "web01;DISK;0\nweb01;HTTP;0\nweb01;LOAD;0\n")
        self.assertEqual(ls.query(v.path("live"), "GET hostgroups\nColumns: name members"), "web;web01\n")
        self.assertEqual(ls.query(v.path("live"), "GET hosts\nColumns: custom_variables\nFilter: name = db01\n"
                                  "OutputFormat: json"), '[[{"RACK":"B4"}]]\n')
        v.stop()
        self.assertFalse(os.path.exists(v.path("live")), "the socket is removed at shutdown")

    def test_command_then_query_sees_it(self):
        v = start(self)
        result(v, "HTTP", 2, "connection refused")
        # The answer comes from a snapshot taken after the command ran: no wait needed.
        rows = ls.query(v.path("live"), "GET services\nColumns: description state plugin_output\n"
                        "Filter: state = 2")
        self.assertEqual(rows, "HTTP;2;connection refused\n")
        v.wait_for(r"SERVICE ALERT: web01;HTTP;CRITICAL;HARD;1;connection refused")

    def test_stats(self):
        v = start(self)
        result(v, "HTTP", 2, "down")
        result(v, "DISK", 1, "full")
        body = ls.query(v.path("live"), "GET services\nStats: state = 0\nStats: state = 1\nStats: state = 2\n"
                        "Stats: state = 3")
        self.assertEqual(body, "1;1;1;0\n")
        body = ls.query(v.path("live"), "GET services\nColumns: host_name\nStats: state != 0")
        self.assertEqual(body, "web01;2\n")

    def test_json_and_column_headers(self):
        v = start(self)
        rows = ls.query_json(v.path("live"), "GET hosts\nColumns: name state\nColumnHeaders: on")
        self.assertEqual(rows, [["name", "state"], ["db01", 0], ["web01", 0]])

    def test_status_table(self):
        v = start(self)
        rows = ls.query_json(v.path("live"), "GET status\nColumns: program_start nagios_pid enable_notifications")
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0][1], v.proc.pid)

    def test_commands_table_and_columns_table(self):
        v = start(self)
        rows = ls.query_json(v.path("live"), "GET commands\nColumns: name line\nFilter: name = check_dummy")
        self.assertEqual(rows, [["check_dummy", '/usr/lib/nagios/plugins/check_dummy $ARG1$ "$ARG2$"']])
        rows = ls.query_json(v.path("live"), "GET columns\nColumns: table name type\nFilter: table = hosts\n"
                             "Filter: name = state")
        self.assertEqual(rows, [["hosts", "state", "int"]])


class Errors(unittest.TestCase):
    def test_error_codes_with_fixed16(self):
        v = start(self)
        code, body = ls.query_fixed16(v.path("live"), "GET nosuchtable")
        self.assertEqual(code, 404)
        self.assertIn("nosuchtable", body)
        # As the module: an unknown header ends the parse, so only a ResponseHeader before it counts.
        s = ls.connect(v.path("live"))
        s.sendall(b"GET hosts\nResponseHeader: fixed16\nFrobnicate: yes\n\n")
        code, body = ls.read_fixed16(s)
        s.close()
        self.assertEqual((code, body), (400, "Undefined request header 'Frobnicate: yes'\n"))
        self.assertEqual(ls.query(v.path("live"), "GET hosts\nFrobnicate: yes\nResponseHeader: fixed16"),
                         "Undefined request header 'Frobnicate: yes'\n")
        code, body = ls.query_fixed16(v.path("live"), "GET hosts\nFilter: name ~= web")
        self.assertEqual(code, 400)
        code, body = ls.query_fixed16(v.path("live"), "GET hosts\nColumns: name\nFilter: name = web01")
        self.assertEqual((code, body), (200, "web01\n"))
        # Garbage keeps nothing from working.
        self.assertEqual(ls.query(v.path("live"), "\x00\x01 junk\n"), ls.query(v.path("live"), "\x00\x01 junk\n"))
        self.assertEqual(ls.query(v.path("live"), "GET hosts\nColumns: name\nLimit: 1"), "db01\n")

    def test_bad_command_is_answered_and_logged(self):
        v = start(self)
        # As Naemon's query handler answers the module: one "400: <reason>" line, no fixed16 header.
        answer = ls.query(v.path("live"), "COMMAND [1] NO_SUCH_COMMAND;x")
        self.assertRegex(answer, r"^400: .+\n$")
        v.wait_for(r"NO_SUCH_COMMAND")
        self.assertRegex(ls.query(v.path("live"), "COMMAND [1] DISABLE_HOST_CHECK;nosuchhost"),
                         r"^400: Failed validation of host_name .*\n$")
        self.assertEqual(ls.query(v.path("live"), "COMMAND [1] DISABLE_HOST_CHECK;db01"), "")

    def test_socket_path_too_long_is_refused_at_start(self):
        v = RunningVedette(self, objects=OBJECTS, main_extra="livestatus_socket=/tmp/%s\n" % ("x" * 200),
                           start=False)
        proc = subprocess.run([vedette_test.vedette_bin()] + v.options + [v.path("vedette.cfg")], cwd=v.dir,
                              capture_output=True, text=True, timeout=30)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("longer than", proc.stderr + proc.stdout)


class Headers(unittest.TestCase):
    """Every header through the socket, against the real daemon's data (the unit tests cover the details)."""

    @classmethod
    def setUpClass(cls):
        cls.v = None

    def live(self):
        if self.v is None:
            self.v = start(self)
            result(self.v, "HTTP", 2, "connection refused")
            result(self.v, "DISK", 1, "90% full")
        return self.v.path("live")

    def test_sort_limit_offset(self):
        live = self.live()
        self.assertEqual(ls.query(live, "GET services\nColumns: description state\nSort: state desc"),
                         "HTTP;2\nDISK;1\nLOAD;0\n")
        self.assertEqual(ls.query(live, "GET services\nColumns: description\nSort: description asc\nLimit: 1\n"
                                  "Offset: 1"), "HTTP\n")

    def test_filters_and_or_negate(self):
        live = self.live()
        self.assertEqual(ls.query(live, "GET services\nColumns: description\nFilter: state = 1\n"
                                  "Filter: state = 2\nOr: 2"), "DISK\nHTTP\n")
        self.assertEqual(ls.query(live, "GET services\nColumns: description\nFilter: state = 0\nNegate:"),
                         "DISK\nHTTP\n")
        self.assertEqual(ls.query(live, "GET services\nColumns: description\nFilter: plugin_output ~~ REFUSED"),
                         "HTTP\n")
        self.assertEqual(ls.query(live, "GET hosts\nColumns: name\nFilter: groups >= web"), "web01\n")
        self.assertEqual(ls.query(live, "GET hosts\nColumns: name\nFilter: custom_variables = RACK B4"),
                         "db01\n")

    def test_stats_group_by_and_aggregates(self):
        live = self.live()
        self.assertEqual(ls.query(live, "GET services\nColumns: host_name\nStats: state >= 0\n"
                                  "Stats: max state\nStats: sum state"), "web01;3;2;3\n")
        self.assertEqual(ls.query(live, "GET services\nStats: state = 1\nStats: state = 2\nStatsOr: 2"), "2\n")

    def test_output_formats_and_separators(self):
        live = self.live()
        q = "GET hosts\nColumns: name groups\nFilter: name = web01\n"
        self.assertEqual(ls.query(live, q + "OutputFormat: python"), "[[u\"web01\",[u\"web\"]]]\n")
        self.assertEqual(json.loads(ls.query(live, q + "OutputFormat: wrapped_json")),
                         {"data": [["web01", ["web"]]], "total_count": 1})
        self.assertEqual(ls.query(live, q + "Separators: 10 124 43 95"), "web01|web\n")
        self.assertEqual(ls.query(live, q + "ColumnHeaders: on"), "name;groups\nweb01;web\n")

    def test_auth_user_localtime_and_limits(self):
        live = self.live()
        # admin is a contact of web01 and its services, not of db01.
        self.assertEqual(ls.query(live, "GET hosts\nColumns: name\nAuthUser: admin"), "web01\n")
        self.assertEqual(ls.query(live, "GET hosts\nColumns: name\nAuthUser: nobody"), "")
        start_time = int(ls.query(live, "GET status\nColumns: program_start"))
        shifted = int(ls.query(live, "GET status\nColumns: program_start\nLocaltime: %d" % (int(time.time()) + 3600)))
        self.assertAlmostEqual(shifted - start_time, 3600, delta=2)
        code, body = ls.query_fixed16(live, "GET columns\nTimelimit: 0")
        self.assertEqual(code, 413)

    def tearDown(self):
        if self.v is not None:
            self.v.stop()


class Limits(unittest.TestCase):
    def test_max_response_size_and_idle_timeout(self):
        v = start(self, main="broker_module=/opt/livestatus.so live max_response_size=2000 idle_timeout=500\n")
        code, body = ls.query_fixed16(v.path("live"), "GET columns")
        self.assertEqual((code, body), (413, "Maximum response size of 2000 reached\n"))
        self.assertEqual(ls.query(v.path("live"), "GET hosts\nColumns: name"), "db01\nweb01\n")
        # An idle KeepAlive connection is closed after idle_timeout (checked once a second).
        s = ls.connect(v.path("live"))
        began = time.monotonic()
        self.assertEqual(s.recv(10), b"")
        self.assertLess(time.monotonic() - began, 5)
        s.close()


class Connections(unittest.TestCase):
    def test_keepalive_serves_several_requests_on_one_connection(self):
        v = start(self)
        s = ls.connect(v.path("live"))
        for _ in range(3):
            s.sendall(b"GET hosts\nColumns: name\nKeepAlive: on\nResponseHeader: fixed16\n\n")
            self.assertEqual(ls.read_fixed16(s), (200, "db01\nweb01\n"))
        s.sendall(b"GET hosts\nColumns: name\nResponseHeader: fixed16\n\n")
        self.assertEqual(ls.read_fixed16(s), (200, "db01\nweb01\n"))
        self.assertEqual(s.recv(10), b"", "without KeepAlive the server closes")
        s.close()

    def test_request_ended_by_shutdown_of_the_write_side(self):
        v = start(self)
        s = ls.connect(v.path("live"))
        s.sendall(b"GET hosts\nColumns: name")
        s.shutdown(socket.SHUT_WR)
        self.assertEqual(ls.read_all(s), "db01\nweb01\n")
        s.close()

    def test_a_thousand_concurrent_clients(self):
        v = start(self)
        clients = []
        for _ in range(1000):
            clients.append(ls.connect(v.path("live"), timeout=60))
        for s in clients:
            s.sendall(b"GET hosts\nColumns: name\nFilter: name = web01\n\n")
        answers = [ls.read_all(s) for s in clients]
        for s in clients:
            s.close()
        self.assertEqual(answers, ["web01\n"] * 1000)

    def test_clients_that_vanish_mid_query_do_not_hurt(self):
        v = start(self)
        for _ in range(50):
            s = ls.connect(v.path("live"))
            s.sendall(b"GET services\n\n")
            s.close()
        # Half a request, then gone.
        s = ls.connect(v.path("live"))
        s.sendall(b"GET hosts\nColu")
        s.close()
        self.assertEqual(ls.query(v.path("live"), "GET hosts\nColumns: name\nFilter: name = db01"), "db01\n")

    def test_tcp_listener(self):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        v = RunningVedette(self, objects=OBJECTS, main_extra="livestatus_listen=127.0.0.1:%d\n" % port)
        deadline = time.monotonic() + 30
        while True:
            try:
                answer = ls.query(("127.0.0.1", port), "GET hosts\nColumns: name")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.assertEqual(answer, "db01\nweb01\n")

    def test_wait_condition_after_a_command(self):
        v = start(self)
        done = {}

        def waiter():
            done["rows"] = ls.query(v.path("live"), "GET services\nWaitObject: web01;LOAD\n"
                                    "WaitCondition: state = 2\nWaitTrigger: state\nWaitTimeout: 20000\n"
                                    "Columns: description state\nFilter: description = LOAD")
            done["at"] = time.monotonic()

        t = threading.Thread(target=waiter)
        t.start()
        time.sleep(0.5)
        sent = time.monotonic()
        result(v, "LOAD", 2, "overloaded")
        t.join(30)
        self.assertEqual(done["rows"], "LOAD;2\n")
        self.assertGreaterEqual(done["at"], sent)

        # A condition that never holds ends with WaitTimeout and answers the query anyway.
        began = time.monotonic()
        rows = ls.query(v.path("live"), "GET services\nWaitObject: web01;DISK\nWaitCondition: state = 3\n"
                        "WaitTimeout: 300\nColumns: state\nFilter: description = DISK")
        self.assertEqual(rows, "0\n")
        self.assertLess(time.monotonic() - began, 5)

    def test_wait_trigger_alone_waits_for_the_next_event_of_its_kind(self):
        v = start(self)
        done = {}

        def waiter(name, trigger):
            done[name] = ls.query(v.path("live"), "GET status\nWaitTrigger: %s\nWaitTimeout: 20000\n"
                                  "Columns: service_checks" % trigger)
            done[name + "_at"] = time.monotonic()

        threads = [threading.Thread(target=waiter, args=("check", "check")),
                   threading.Thread(target=waiter, args=("comment", "comment"))]
        for t in threads:
            t.start()
        time.sleep(1)
        self.assertNotIn("check", done)  # nothing happened yet: still waiting
        sent = time.monotonic()
        result(v, "LOAD", 2, "overloaded")
        threads[0].join(30)
        self.assertGreaterEqual(done["check_at"], sent)
        self.assertGreaterEqual(int(done["check"]), 1)
        self.assertNotIn("comment", done)  # a check result is no comment
        sent = time.monotonic()
        self.assertEqual(ls.query(v.path("live"), "COMMAND [%d] ADD_SVC_COMMENT;web01;LOAD;1;admin;looking"
                                  % int(time.time())), "")
        threads[1].join(30)
        self.assertGreaterEqual(done["comment_at"], sent)

        # With a WaitTimeout and no event, the answer comes when the time is up.
        began = time.monotonic()
        ls.query(v.path("live"), "GET status\nWaitTrigger: downtime\nWaitTimeout: 300\nColumns: forks")
        self.assertLess(time.monotonic() - began, 5)

    def test_status_counts_what_the_core_did(self):
        v = start(self)
        before = json.loads(ls.query(v.path("live"), "GET status\nColumns: service_checks host_checks "
                                     "log_messages\nOutputFormat: json"))[0]
        result(v, "LOAD", 2, "overloaded")
        result(v, "LOAD", 0, "fine")
        rows = ls.query(v.path("live"), "GET services\nWaitObject: web01;LOAD\nWaitCondition: state = 0\n"
                        "WaitTimeout: 10000\nColumns: last_state state is_executing\nFilter: description = LOAD")
        self.assertEqual(rows, "2;0;0\n")
        after = json.loads(ls.query(v.path("live"), "GET status\nColumns: service_checks host_checks "
                                    "log_messages log_messages_rate\nOutputFormat: json"))[0]
        self.assertEqual(after[0] - before[0], 2)
        self.assertGreaterEqual(after[1], before[1])  # the problem may have the host checked on demand
        self.assertGreater(after[2], before[2])  # the alerts and the commands were logged
        self.assertGreater(after[3], 0)


@unittest.skipUnless(shutil.which("perl"), "perl not installed")
class MonitoringLivestatus(unittest.TestCase):
    """The Perl client Thruk is built on (Debian libmonitoring-livestatus-perl)."""

    SCRIPT = r"""
use strict; use warnings;
use Monitoring::Livestatus;
my $ml = Monitoring::Livestatus->new(peer => $ARGV[0], keepalive => 1);
my $hosts = $ml->selectall_arrayref("GET hosts\nColumns: name state", { Slice => {} });
print join(",", map { "$_->{name}=$_->{state}" } @$hosts), "\n";
my $stats = $ml->selectrow_hashref("GET services\nStats: state = 0 as ok\nStats: state = 2 as critical");
print "ok=$stats->{ok} critical=$stats->{critical}\n";
my $count = $ml->selectscalar_value("GET hosts\nStats: state = 0");
print "up=$count\n";
# The library half-closes the socket after a COMMAND, so commands go over a connection of their own.
my $commands = Monitoring::Livestatus->new(peer => $ARGV[0], errors_are_fatal => 0);
$commands->do("COMMAND [" . time() . "] DISABLE_HOST_CHECK;db01");
$commands->do("COMMAND [" . time() . "] NO_SUCH_COMMAND;db01");
print "error=$Monitoring::Livestatus::ErrorCode\n";
my $flags = $ml->selectall_arrayref("GET hosts\nColumns: name active_checks_enabled\nFilter: name = db01");
print "db01 active=$flags->[0][1]\n";
"""

    def test_perl_client(self):
        probe = subprocess.run(["perl", "-MMonitoring::Livestatus", "-e", "1"], capture_output=True)
        if probe.returncode != 0:
            self.skipTest("Monitoring::Livestatus not installed (scripts/install-deps.sh installs it)")
        v = start(self)
        result(v, "HTTP", 2, "down")
        proc = subprocess.run(["perl", "-e", self.SCRIPT, v.path("live")], capture_output=True, text=True,
                              timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout.splitlines(), [
            "db01=0,web01=0",
            "ok=2 critical=1",
            "up=2",
            "error=400",
            "db01 active=0",
        ])
        v.wait_for(r"EXTERNAL COMMAND: DISABLE_HOST_CHECK;db01")


if __name__ == "__main__":
    unittest.main()


class LogTable(unittest.TestCase):
    """GET log over the daemon's own log and an archive, as Thruk's event log and alert pages ask."""

    def start_with_archive(self):
        v = RunningVedette(self, objects=OBJECTS, main_extra=MAIN + "log_archive_path=archives\n", start=False)
        os.mkdir(v.path("archives"))
        self.yesterday = int(time.time()) - 86400
        archive = v.path("archives/vedette-01-01-2024-00.log")
        with open(archive, "w") as f:
            f.write("[%d] LOG VERSION: 2.0\n[%d] SERVICE ALERT: web01;HTTP;CRITICAL;HARD;1;yesterday\n" % (
                self.yesterday, self.yesterday + 1))
        os.utime(archive, (self.yesterday + 1, self.yesterday + 1))
        v.start()
        ls.wait_for_socket(v.path("live"))
        return v

    def test_service_alerts_of_passive_results(self):
        v = self.start_with_archive()
        since = int(time.time())
        result(v, "HTTP", 2, "connection refused")
        result(v, "DISK", 1, "disk full")
        v.wait_for(r"SERVICE ALERT: web01;DISK;WARNING;HARD;1;disk full")
        columns = ("Columns: class type host_name service_description state state_type attempt plugin_output "
                   "current_service_state current_host_address\n")
        rows = ls.query_json(v.path("live"), "GET log\n" + columns + "Filter: time >= %d\nFilter: class = 1\n" % since)
        # Newest first, as the module answers.
        self.assertEqual(rows, [
            [1, "SERVICE ALERT", "web01", "DISK", 1, "HARD", 1, "disk full", 1, "127.0.0.1"],
            [1, "SERVICE ALERT", "web01", "HTTP", 2, "HARD", 1, "connection refused", 2, "127.0.0.1"],
        ])
        # The passive results themselves (log_passive_checks=1).
        rows = ls.query_json(v.path("live"), "GET log\nColumns: service_description state plugin_output\n"
                             "Filter: time >= %d\nFilter: class = 4\n" % since)
        self.assertEqual(rows, [["DISK", 1, "disk full"], ["HTTP", 2, "connection refused"]])
        # The daemon's start: program lines.
        rows = ls.query_json(v.path("live"), "GET log\nColumns: type\nFilter: class = 2\nFilter: time >= %d\n"
                             % (since - 600))
        self.assertIn(["LOG VERSION: 2.0"], rows)

    def test_archives_time_range_and_auth_user(self):
        v = self.start_with_archive()
        since = int(time.time())
        result(v, "HTTP", 2, "connection refused")
        v.wait_for(r"SERVICE ALERT: web01;HTTP;CRITICAL;HARD;1;connection refused")
        alerts = "GET log\nColumns: time plugin_output\nFilter: class = 1\n"
        rows = ls.query_json(v.path("live"), alerts + "Filter: time >= %d\n" % self.yesterday)
        self.assertEqual([r[1] for r in rows], ["connection refused", "yesterday"])
        rows = ls.query_json(v.path("live"), alerts + "Filter: time >= %d\nFilter: time < %d\n" % (
            self.yesterday, since))
        self.assertEqual(rows, [[self.yesterday + 1, "yesterday"]])
        self.assertEqual(ls.query_json(v.path("live"), alerts + "Filter: time > %d\n" % (since + 3600)), [])
        # AuthUser: admin is web01's contact; someone who is no contact sees no alert, but program lines.
        self.assertEqual(len(ls.query_json(v.path("live"), alerts + "AuthUser: admin\nFilter: time >= %d\n" % since)),
                         1)
        self.assertEqual(ls.query_json(v.path("live"), alerts + "AuthUser: nobody\nFilter: time >= %d\n" % since), [])
        rows = ls.query_json(v.path("live"), "GET log\nColumns: class\nAuthUser: nobody\nFilter: class = 2\n")
        self.assertTrue(rows)
        # Limit: the newest lines only.
        rows = ls.query_json(v.path("live"), "GET log\nColumns: plugin_output\nFilter: class = 1\nLimit: 1\n")
        self.assertEqual(rows, [["connection refused"]])

    def test_statehist_of_a_passive_service(self):
        v = self.start_with_archive()
        since = int(time.time()) - 5  # the range ends now: it must not be empty
        result(v, "HTTP", 2, "connection refused")
        v.wait_for(r"SERVICE ALERT: web01;HTTP;CRITICAL;HARD;1;connection refused")
        rows = ls.query_json(v.path("live"), "GET statehist\nColumns: host_name service_description state log_output "
                             "current_service_state\nFilter: time >= %d\nFilter: service_description = HTTP\n" % since)
        # OK until the alert (the module's grace for an object first seen in the range), then CRITICAL up to now.
        self.assertEqual(rows[-1], ["web01", "HTTP", 2, "connection refused", 2])
        self.assertEqual([r[2] for r in rows], [0, 2])
        answer = ls.query(v.path("live"), "GET statehist\nColumns: state\n")
        self.assertIn("Start of timeframe required", answer)
