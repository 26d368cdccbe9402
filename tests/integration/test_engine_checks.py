"""The real daemon runs real plugins on schedule and turns their results into Naemon's states and log lines."""
import os
import re
import subprocess
import threading
import time
import unittest

from running_daemon import RunningVedette, alert_lines

HOST = """
define host {
  host_name web01
  address 127.0.0.1
  check_command check_dummy!0!host is up
  max_check_attempts 2
  check_interval 30
  retry_interval 1
  contacts admin
}
"""


def service(description, command, extra=""):
    return """
define service {
  host_name web01
  service_description %s
  check_command %s
  max_check_attempts 3
  check_interval 1
  retry_interval 1
  contacts admin
%s}
""" % (description, command, extra)


def script(daemon, name, body):
    path = daemon.path(name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, 0o755)
    return path


class SoftHardRecovery(unittest.TestCase):
    def test_soft_attempts_hard_state_and_recovery_log_lines(self):
        with RunningVedette(self, HOST + service("FILE", "check_state_file!$USER1$/file.state"),
                            start=False) as v:
            v.set_state("file.state", 0, "all fine")
            v.start()
            time.sleep(2.5)  # at least one OK result first
            v.set_state("file.state", 2, "disk on fire")
            v.wait_for(r"SERVICE ALERT: web01;FILE;CRITICAL;HARD;3;")
            v.set_state("file.state", 0, "recovered")
            v.wait_for(r"SERVICE ALERT: web01;FILE;OK;HARD;3;recovered")
            self.assertEqual(v.stop(), 0)
            self.assertEqual(alert_lines(v.log(), "SERVICE ALERT: web01;FILE;"), [
                "SERVICE ALERT: web01;FILE;CRITICAL;SOFT;1;disk on fire",
                "SERVICE ALERT: web01;FILE;CRITICAL;SOFT;2;disk on fire",
                "SERVICE ALERT: web01;FILE;CRITICAL;HARD;3;disk on fire",
                "SERVICE ALERT: web01;FILE;OK;HARD;3;recovered",  # Naemon: the attempt the problem had
            ])
            self.assertIn("Caught 'Terminated', shutting down...", v.log())
            self.assertRegex(v.log(), r"Successfully shutdown\.\.\. \(PID=\d+\)")
            self.assertFalse(os.path.exists(v.cmd_path), "the command file is removed at shutdown")


class HostReachability(unittest.TestCase):
    OBJECTS = """
define host {
  host_name router
  address 127.0.0.1
  check_command check_state_file!$USER1$/router.state
  max_check_attempts 1
  check_interval 1
  retry_interval 1
  contacts admin
}
define host {
  host_name web02
  address 127.0.0.1
  parents router
  check_command check_state_file!$USER1$/web02.state
  max_check_attempts 1
  check_interval 1
  retry_interval 1
  contacts admin
}
"""

    def test_down_then_unreachable_behind_a_down_parent(self):
        with RunningVedette(self, self.OBJECTS, start=False) as v:
            v.set_state("router.state", 0, "router fine")
            v.set_state("web02.state", 2, "web02 gone")
            v.start()
            v.wait_for(r"HOST ALERT: web02;DOWN;HARD;1;web02 gone")
            v.set_state("router.state", 2, "router gone")
            v.wait_for(r"HOST ALERT: router;DOWN;HARD;1;router gone")
            v.wait_for(r"HOST ALERT: web02;UNREACHABLE;HARD;1;web02 gone")
            v.set_state("router.state", 0, "router back")
            v.set_state("web02.state", 0, "web02 back")
            v.wait_for(r"HOST ALERT: router;UP;HARD;1;router back")
            v.wait_for(r"HOST ALERT: web02;UP;HARD;1;web02 back")


class MisbehavingPlugins(unittest.TestCase):
    def test_timeout_kills_the_process_group_and_reports_naemon_text(self):
        v = RunningVedette(self, HOST, start=False)
        marker = "61.234"
        hang = script(v, "hang.sh", "sleep %s &\nsleep %s\n" % (marker, marker))
        with open(v.path("objects.cfg"), "a") as f:
            f.write(service("SLOW", "run!" + hang, "  check_timeout 2\n"))
        v.start()
        line = v.wait_for(r"SERVICE ALERT: web01;SLOW;CRITICAL;SOFT;1;", timeout=20)[0]
        self.assertRegex(line, r"\(Service check timed out after [2-9]\.\d\d seconds\)$")
        time.sleep(0.5)
        left = subprocess.run(["pgrep", "-f", "sleep " + marker], stdout=subprocess.PIPE, text=True).stdout
        self.assertEqual(left.strip(), "", "the plugin and its background child are killed")
        v.stop()

    def test_ten_megabytes_of_output_are_capped(self):
        v = RunningVedette(self, HOST, start=False)
        big = script(v, "big.sh", "head -c 10000000 /dev/zero | tr '\\0' x\necho\nexit 1\n")
        with open(v.path("objects.cfg"), "a") as f:
            f.write(service("BIG", "run!" + big))
        v.start()
        line = v.wait_for(r"SERVICE ALERT: web01;BIG;WARNING;SOFT;1;x+", timeout=20)[0]
        self.assertLess(len(line), 200_000, "output is capped")
        with open("/proc/%d/status" % v.proc.pid) as f:
            rss_kb = int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))
        self.assertLess(rss_kb, 200_000, "the daemon's memory stays bounded")
        v.stop()

    def test_grandchild_holding_the_pipe_does_not_hold_the_result(self):
        v = RunningVedette(self, HOST, start=False)
        gc = script(v, "grandchild.sh", "(sleep 30 &)\necho parent done\nexit 2\n")
        with open(v.path("objects.cfg"), "a") as f:
            f.write(service("GRAND", "run!" + gc))
        v.start()
        started = time.monotonic()
        v.wait_for(r"SERVICE ALERT: web01;GRAND;CRITICAL;SOFT;1;parent done", timeout=20)
        self.assertLess(time.monotonic() - started, 10)
        v.stop()

    def test_exit_codes_exec_failures_and_signals(self):
        v = RunningVedette(self, HOST, start=False)
        four = script(v, "four.sh", "echo four\nexit 4\n")
        notexec = v.path("notexec.sh")
        with open(notexec, "w") as f:
            f.write("#!/bin/sh\necho never\n")
        os.chmod(notexec, 0o644)
        killed = script(v, "killed.sh", "echo about to die\nkill -9 $$\n")
        with open(v.path("objects.cfg"), "a") as f:
            f.write("define command {\n  command_name via_shell\n  command_line /bin/sh -c \"$ARG1$\"\n}\n")
            f.write(service("RC4", "run!" + four))
            f.write(service("RC126", "via_shell!" + notexec))
            f.write(service("RC127", "via_shell!/nonexistent/plugin"))
            f.write(service("SIGNAL", "run!" + killed))
        v.start()
        v.wait_for(r"SERVICE ALERT: web01;RC4;CRITICAL;SOFT;1;\(Return code of 4 is out of bounds\)$")
        v.wait_for(r"SERVICE ALERT: web01;RC126;CRITICAL;SOFT;1;\(Return code of 126 is out of bounds - plugin "
                   r"may not be executable\)$")
        v.wait_for(r"SERVICE ALERT: web01;RC127;CRITICAL;SOFT;1;\(Return code of 127 is out of bounds - plugin "
                   r"may be missing\)$")
        v.wait_for(r"SERVICE ALERT: web01;SIGNAL;UNKNOWN;SOFT;1;about to die$")
        v.wait_for(r"Warning: Return code of 127 for check of service 'RC127' on host 'web01' was out of bounds")
        v.stop()

    def test_shell_and_no_shell_command_lines(self):
        v = RunningVedette(self, HOST, start=False)
        with open(v.path("objects.cfg"), "a") as f:
            f.write(service("ARGS", "check_dummy!1!two words"))
            # ';' starts a comment in object files; "\;" is a literal one.
            f.write(service("SHELL", "run!echo first && echo second\\; exit 2"))
        v.start()
        v.wait_for(r"SERVICE ALERT: web01;ARGS;WARNING;SOFT;1;WARNING: two words$")
        v.wait_for(r"SERVICE ALERT: web01;SHELL;CRITICAL;SOFT;1;first$")
        v.stop()


class Scheduling(unittest.TestCase):
    def test_check_period_postpones_checks(self):
        with RunningVedette(self, HOST + service("NEVER", "check_state_file!$USER1$/bad.state",
                                                 "  check_period never\n") +
                            service("ALWAYS", "check_state_file!$USER1$/bad.state"), start=False) as v:
            v.set_state("bad.state", 2, "bad")
            v.start()
            v.wait_for(r"SERVICE ALERT: web01;ALWAYS;CRITICAL;HARD;3;bad")
            self.assertEqual(alert_lines(v.log(), "SERVICE ALERT: web01;NEVER;"), [])

    def test_max_concurrent_checks(self):
        v = RunningVedette(self, HOST, main_extra="max_concurrent_checks=1\n", start=False)
        body = ("mkdir %s 2>/dev/null || { echo overlap; exit 3; }\n"
                "echo run >> %s\nsleep 0.3\nrmdir %s\necho alone\nexit 0\n") % (
            v.path("lock"), v.path("runs"), v.path("lock"))
        one = script(v, "one.sh", body)
        with open(v.path("objects.cfg"), "a") as f:
            for i in range(4):
                f.write(service("C%d" % i, "run!" + one))
        v.start()
        def runs():
            try:
                with open(v.path("runs")) as f:
                    return len(f.read().split())
            except FileNotFoundError:
                return 0

        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and runs() < 8:
            time.sleep(0.1)
        v.stop()
        self.assertGreaterEqual(runs(), 8, "checks kept running")
        self.assertNotIn("overlap", v.log(), "never two checks at once with max_concurrent_checks=1")


class PassiveResults(unittest.TestCase):
    def test_many_concurrent_writers_lose_nothing(self):
        writers, per_writer = 8, 250
        objects = HOST + "".join(service("P%d" % i, "check_dummy!0!unused", "  active_checks_enabled 0\n")
                                 for i in range(writers))
        with RunningVedette(self, objects) as v:
            def write(i):
                fd = os.open(v.cmd_path, os.O_WRONLY)
                try:
                    for n in range(per_writer):
                        code = 2 if n == per_writer - 1 else 0
                        line = "[%d] PROCESS_SERVICE_CHECK_RESULT;web01;P%d;%d;writer %d line %d|n=%d\n" % (
                            int(time.time()), i, code, i, n, n)
                        os.write(fd, line.encode())
                finally:
                    os.close(fd)

            threads = [threading.Thread(target=write, args=(i,)) for i in range(writers)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            for i in range(writers):
                v.wait_for(r"SERVICE ALERT: web01;P%d;CRITICAL;SOFT;1;writer %d line %d$" % (i, i, per_writer - 1))
            self.assertEqual(len(alert_lines(v.log(), "EXTERNAL COMMAND: PROCESS_SERVICE_CHECK_RESULT;")),
                             writers * per_writer)
            self.assertEqual(len(alert_lines(v.log(), "PASSIVE SERVICE CHECK: ")), writers * per_writer)

    def test_passive_host_result_and_unknown_objects(self):
        with RunningVedette(self, HOST) as v:
            v.command("PROCESS_HOST_CHECK_RESULT;web01;1;host down by passive result")
            v.wait_for(r"HOST ALERT: web01;DOWN;HARD;1;host down by passive result")
            v.command("PROCESS_SERVICE_CHECK_RESULT;nohost;nosvc;0;x")
            v.wait_for(r"Warning:")
            v.command("NO_SUCH_COMMAND;1")
            v.wait_for(r"Warning: External command parse error")
            self.assertIsNone(v.proc.poll(), "bad input never stops the daemon")


if __name__ == "__main__":
    unittest.main()
