"""Livestatus against hostile clients and bad input, on the real daemon and socket (issue 20): waits of
clients that hung up, catastrophic regular expressions, Timelimit, connection and pending-bytes caps, the fd
limit, forged log lines, signed overflows from a socket, and the TCP listener's exposure."""
import os
import resource
import socket
import subprocess
import time
import unittest

import livestatus_client as ls
import vedette_test

from running_daemon import HOST, RunningVedette, service


def passive(description):
    return service(description, "check_dummy!0!unused", interval=3600).replace(
        "  contacts admin\n}", "  contacts admin\n  active_checks_enabled 0\n}")


OBJECTS = HOST + passive("HTTP") + passive("DISK")


def many_hosts(count):
    return "".join("""
define host {
  host_name h%05d
  alias a host with a long alias to make the answer big %s
  address 10.0.%d.%d
  max_check_attempts 1
  check_interval 0
  active_checks_enabled 0
}
""" % (i, "x" * 200, i // 250, i % 250) for i in range(count))


def start(testcase, options="", main="", objects=OBJECTS):
    line = "broker_module=/usr/lib/naemon/naemon-livestatus/livestatus.o live %s\n" % options
    v = RunningVedette(testcase, objects=objects, main_extra=line + main)
    ls.wait_for_socket(v.path("live"))
    return v


def command(v, text):
    return ls.query(v.path("live"), "COMMAND [%d] %s" % (int(time.time()), text))


def sockets_open(pid):
    count = 0
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            if os.readlink("/proc/%d/fd/%s" % (pid, fd)).startswith("socket:"):
                count += 1
        except OSError:
            pass
    return count


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_tcp(port):
    deadline = time.monotonic() + 30
    while True:
        try:
            ls.connect(("127.0.0.1", port), 1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class Regexes(unittest.TestCase):
    def test_catastrophic_patterns_answer_at_once_and_back_references_are_refused(self):
        v = start(self)
        self.assertEqual(command(v, "PROCESS_SERVICE_CHECK_RESULT;web01;HTTP;0;" + "a" * 3000), "")
        started = time.monotonic()
        # glibc's regexec takes minutes on this one; it is refused with the reason.
        code, body = ls.query_fixed16(v.path("live"), "GET services\nColumns: description\n"
                                      "Filter: plugin_output ~ ^(a*)*\\1b", timeout=10)
        self.assertEqual(code, 400)
        self.assertIn("unsupported regular expression '^(a*)*\\1b': back references (\\1) cannot be matched "
                      "in linear time", body)
        for pattern in ("(a+)+$", "(a|aa)*!", "((a+)+)+b"):
            self.assertEqual(ls.query(v.path("live"), "GET services\nColumns: description\n"
                                      "Filter: plugin_output ~ %s" % pattern, timeout=10),
                             "HTTP\n" if pattern == "(a+)+$" else "")
        self.assertLess(time.monotonic() - started, 3)
        # POSIX meanings stay: a backslash inside brackets is itself, ~~ ignores case.
        self.assertEqual(ls.query(v.path("live"), "GET services\nColumns: description\n"
                                  "Filter: description ~~ ^h[t]TP$"), "HTTP\n")
        self.assertEqual(ls.query(v.path("live"), "GET services\nColumns: description\n"
                                  "Filter: description ~ [\\d]"), "")


class LogForging(unittest.TestCase):
    FORGED = "HOST ALERT: web01;DOWN;HARD;1;forged"

    def assert_not_forged(self, v):
        v.wait_for(r"forged")
        lines = [line for line in v.log().splitlines() if "forged" in line]
        self.assertTrue(lines)
        for line in lines:
            self.assertNotRegex(line, r"^\[\d+\] HOST ALERT", v.log())
        self.assertEqual(ls.query(v.path("live"), "GET log\nColumns: type\nFilter: time >= %d\nFilter: class = 1"
                                  % (int(time.time()) - 600)), "")
        self.assertEqual(ls.query(v.path("live"), "GET statehist\nColumns: host_name\nFilter: host_name = web01\n"
                                  "Filter: state = 1\nFilter: time >= %d" % (int(time.time()) - 600)), "")

    def test_a_newline_in_a_livestatus_command_is_escaped_in_the_log(self):
        v = start(self)
        now = int(time.time())
        self.assertEqual(command(v, "LOG;hello\\n[%d] %s" % (now, self.FORGED)), "")
        self.assertEqual(command(v, "PROCESS_SERVICE_CHECK_RESULT;web01;HTTP;0;fine\\n[%d] %s" % (now, self.FORGED)),
                         "")
        self.assert_not_forged(v)
        self.assertIn("[%d] hello\\n[%d] %s\n" % (now, now, self.FORGED), v.log())
        # The long output still gets the line break: only the log line is escaped.
        self.assertEqual(ls.query_json(v.path("live"), "GET services\nColumns: plugin_output long_plugin_output\n"
                                       "Filter: description = HTTP"), [["fine", "[%d] %s" % (now, self.FORGED)]])

    def test_a_carriage_return_through_the_command_file_is_escaped(self):
        v = start(self)
        v.command("LOG;hello\r[%d] %s" % (int(time.time()), self.FORGED))
        self.assert_not_forged(v)
        self.assertIn("hello\\r[", v.log())


class Overflows(unittest.TestCase):
    def test_huge_limit_offset_and_an_empty_statehist_range(self):
        v = start(self)
        self.assertEqual(ls.query(v.path("live"), "GET services\nColumns: description\nSort: description\n"
                                  "Limit: 2147483647\nOffset: 2147483647"), "")
        self.assertEqual(ls.query(v.path("live"), "GET statehist\nColumns: state\nOr: 0"), "")

    def test_a_forced_check_at_the_end_of_time_is_not_run_now(self):
        v = start(self)
        self.assertEqual(command(v, "SCHEDULE_FORCED_SVC_CHECK;web01;HTTP;9223372036854775807"), "")
        time.sleep(1.5)
        rows = ls.query_json(v.path("live"), "GET services\nColumns: next_check last_check\n"
                             "Filter: description = HTTP")
        self.assertGreater(rows[0][0], time.time() + 50 * 365 * 86400)
        self.assertEqual(rows[0][1], 0, "the check did not run")

    def test_a_downtime_ending_at_the_end_of_time_does_not_spin(self):
        v = start(self)
        now = int(time.time())
        for start_time in (now, -1):
            self.assertEqual(command(v, "SCHEDULE_SVC_DOWNTIME;web01;HTTP;%d;-9223372036854775809;1;0;0;admin;x"
                                     % start_time), "")
        self.assertEqual(command(v, "SCHEDULE_SVC_DOWNTIME;web01;DISK;%d;%d;0;0;18446744073709551615;admin;x"
                                 % (now, now + 3600)), "")
        rows = ls.query_json(v.path("live"), "GET downtimes\nColumns: service_description end_time\n"
                             "Filter: service_description = HTTP")
        self.assertEqual(rows, [["HTTP", 9223372036854775807]] * 2)
        before = cpu_seconds(v.proc.pid)
        time.sleep(2)
        self.assertLess(cpu_seconds(v.proc.pid) - before, 0.5)
        self.assertEqual(ls.query(v.path("live"), "GET services\nColumns: scheduled_downtime_depth\n"
                                  "Filter: description = HTTP"), "2\n")
        self.assertIsNone(v.proc.poll())


if __name__ == "__main__":
    unittest.main()
