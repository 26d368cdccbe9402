"""Native checks (docs/native-checks.md): the installed monitoring-plugins and `vedette --native-check` run on
the same targets, and their output, perfdata and exit codes must match byte for byte once measured times are
masked. Then the daemon: which commands `-v` reports native, and a native and a fallback check in status.dat.
"""
import os
import re
import socket
import time
import unittest

import native_compare
import running_daemon
from native_compare import Server, closed_port, run
import status_dat
import vedette_test

PLUGINS = "/usr/lib/nagios/plugins"
CHECK_TCP = os.path.join(PLUGINS, "check_tcp")
CHECK_DUMMY = os.path.join(PLUGINS, "check_dummy")


def have_plugins():
    return os.access(CHECK_TCP, os.X_OK) and os.access(CHECK_DUMMY, os.X_OK)


def mask(text):
    """Measured times are the only bytes allowed to differ."""
    text = re.sub(r"\d+\.\d{3} second response time", "T second response time", text)
    return re.sub(r"time=\d+\.\d{6}s", "time=Ts", text)


def banner(text, wait_for_request=False, linger=0.0):
    def handler(conn):
        if wait_for_request:
            conn.recv(1024)
        conn.sendall(text)
        time.sleep(linger)
    return handler


def silent(conn):
    conn.recv(1024)  # until the client closes


@unittest.skipUnless(have_plugins(), "monitoring-plugins-basic is not installed")
class NativeCheckDifferential(unittest.TestCase):
    def compare(self, plugin, *args, expect_rc=None):
        return native_compare.compare(self, plugin, args, mask, expect_rc=expect_rc)

    # ---- check_dummy: every state, the text, the usage errors

    def test_dummy_states_and_text(self):
        for args in (["0"], ["1"], ["2"], ["3"], ["4"], ["-1"], ["0", "all fine"], ["2", "disk | full=1"],
                     ["1", "two", "three"], ["1 2"], ["007", "x"], ["--5"], ["99999999999"], ["abc"], [],
                     ["0", ""], ["3", "ümlaut"]):
            self.compare(CHECK_DUMMY, *args)

    def test_dummy_help_runs_the_process(self):
        out, rc = run([vedette_test.vedette_bin(), "--native-check", CHECK_DUMMY, "--help"])
        self.assertEqual(rc, 125)

    # ---- check_tcp

    def test_open_port(self):
        srv = Server(self, silent)
        out = self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", str(srv.port), expect_rc=0)
        self.assertRegex(out, r"^TCP OK - \d\.\d{3} second response time on 127\.0\.0\.1 port %d\|time=" % srv.port)
        self.compare(CHECK_TCP, "-p", str(srv.port))  # no -H: 127.0.0.1, unnamed in the output
        self.compare(CHECK_TCP, "127.0.0.1", "-p", str(srv.port))
        self.compare(CHECK_TCP, "--hostname=127.0.0.1", "--port", str(srv.port), "-t", "7")
        self.compare(CHECK_TCP, "-H127.0.0.1", "-p%d" % srv.port, "-4")
        self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", str(srv.port), "-to", "3", "-wt", "2", "-ct", "5")

    def test_closed_port_and_refuse_state(self):
        port = str(closed_port())
        self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", port, expect_rc=2)
        self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", port, "-r", "ok", expect_rc=0)
        self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", port, "-r", "warn", expect_rc=1)
        self.compare(CHECK_TCP, "-H", "::1", "-p", port)
        self.compare(CHECK_TCP, "-H", "::1", "-p", port, "-6")

    def test_names_resolve_off_the_executor(self):
        srv = Server(self, silent)
        self.compare(CHECK_TCP, "-H", "localhost", "-p", str(srv.port), "-4")
        self.compare(CHECK_TCP, "-H", "localhost", "-p", str(closed_port()))
        self.compare(CHECK_TCP, "-H", "no-such-host.invalid", "-p", "80", expect_rc=2)

    def test_timeout_on_a_full_backlog(self):
        srv = socket.socket()
        srv.bind(("127.0.0.1", 0))
        srv.listen(0)
        self.addCleanup(srv.close)
        fillers = []
        for _ in range(4):  # the accept queue fills; later SYNs are dropped and the connect hangs
            c = socket.socket()
            c.setblocking(False)
            try:
                c.connect(srv.getsockname())
            except BlockingIOError:
                pass
            fillers.append(c)
            self.addCleanup(c.close)
        time.sleep(0.2)
        out = self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", str(srv.getsockname()[1]), "-t", "1", expect_rc=2)
        self.assertEqual(out, "CRITICAL - Socket timeout after 1 seconds\n")

    def test_send_expect_match_and_mismatch(self):
        srv = Server(self, banner(b"HELLO world\r\n\r\n", wait_for_request=True))
        p = str(srv.port)
        self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", p, "-s", "ping", "-e", "HELLO", expect_rc=0)
        self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", p, "-s", "ping", "-e", "NOPE", expect_rc=1)
        self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", p, "-s", "ping", "-e", "NOPE", "-M", "crit")
        self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", p, "-s", "ping", "-e", "NOPE", "-M", "ok", "-w", "5")
        self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", p, "-s", "ping", "-e", "NOPE", "-e", "world")
        self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", p, "-s", "ping", "-e", "NOPE", "-e", "world", "-A")
        self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", p, "-s", "ping", "-e", "HELLO", "-j")
        self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", p, "-s", "ping", "-e", "NOPE", "-j")
        self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", p, "-E", "-s", "pi\\r\\nng", "-q", "bye\\n", "-e", "wor")
        self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", p, "-s", "ping", "-q", "bye", "-e", "HELLO", "-m", "3")

    def test_banner_without_send_and_no_data(self):
        srv = Server(self, banner(b"220 ready\n"))
        self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", str(srv.port), "-e", "220", expect_rc=0)
        one = Server(self, banner(b"x"))
        self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", str(one.port), "-e", "y")
        mute = Server(self, banner(b""))
        self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", str(mute.port), "-e", "220", expect_rc=2)

    def test_partial_answer_waits_for_more(self):
        def slow(conn):
            conn.sendall(b"HEL")
            time.sleep(0.3)
            conn.sendall(b"LO\n")
            time.sleep(0.2)
        srv = Server(self, slow)
        self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", str(srv.port), "-e", "HELLO", expect_rc=0)

    def test_thresholds(self):
        srv = Server(self, silent)
        p = str(srv.port)
        self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", p, "-w", "0.000001", "-c", "10", expect_rc=1)
        self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", p, "-w", "0.000001", "-c", "0.000001", expect_rc=2)
        self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", p, "-w", "5", "-c", "10", expect_rc=0)
        self.compare(CHECK_TCP, "-H", "127.0.0.1", "-p", p, "--warning=abc")

    def test_unsupported_options_run_the_process(self):
        srv = Server(self, silent)
        for extra in (["-v"], ["-S"], ["-d", "1"], ["--sni=x"], ["-X"], ["-p"], ["-h"]):
            args = ["-H", "127.0.0.1", "-p", str(srv.port)] + extra
            out, rc = run([vedette_test.vedette_bin(), "--native-check", CHECK_TCP] + args)
            self.assertEqual(rc, 125, "ran natively with %r: %r" % (extra, out))
        out, rc = run([vedette_test.vedette_bin(), "--native-check", CHECK_TCP, "-H", "127.0.0.1", "-p", "x1"])
        self.assertEqual(rc, 125)  # the plugin prints its usage: the process does


OBJECTS = running_daemon.BASE_OBJECTS + """
define command {
  command_name tcp
  command_line $USER1$/check_tcp -H $HOSTADDRESS$ -p $ARG1$
}
define command {
  command_name tcp_verbose
  command_line $USER1$/check_tcp -H $HOSTADDRESS$ -p $ARG1$ -v
}
define command {
  command_name tcp_opted_out
  command_line VEDETTE_NATIVE=0 $USER1$/check_tcp -H $HOSTADDRESS$ -p $ARG1$
}
define command {
  command_name dummy
  command_line $USER1$/check_dummy $ARG1$ "$ARG2$"
}
define command {
  command_name tcp_args
  command_line $USER1$/check_tcp -H $HOSTADDRESS$ $ARG1$
}
define command {
  command_name true
  command_line /bin/true
}
define host {
  host_name web01
  address 127.0.0.1
  max_check_attempts 1
  check_interval 0
  check_command true
  contacts admin
}
"""



@unittest.skipUnless(have_plugins(), "monitoring-plugins-basic is not installed")
class NativeChecksInTheDaemon(unittest.TestCase):
    def write_config(self, port, main_extra=""):
        d = vedette_test.make_temp_dir(self)
        with open(os.path.join(d, "resource.cfg"), "w") as f:
            f.write("$USER1$=%s\n" % PLUGINS)
        services = native_compare.services("web01", (
            ("native_tcp", "tcp!%d" % port), ("verbose_tcp", "tcp_verbose!%d" % port),
            ("opted_out", "tcp_opted_out!%d" % port), ("native_dummy", "dummy!1!native | x=1"),
            ("args_tcp", "tcp_args!-p %d" % port)))
        with open(os.path.join(d, "objects.cfg"), "w") as f:
            f.write(OBJECTS + services)
        with open(os.path.join(d, "vedette.cfg"), "w") as f:
            f.write("cfg_file=objects.cfg\nresource_file=resource.cfg\nlog_file=vedette.log\n"
                    "status_file=status.dat\nstatus_update_interval=1\ncommand_file=vedette.cmd\n"
                    "interval_length=1\nillegal_macro_output_chars=`~$&|'\"<>\n" + main_extra)
        return d

    def test_verify_reports_native_commands(self):
        d = self.write_config(closed_port())
        rc, out, err = vedette_test.run_verify(os.path.join(d, "vedette.cfg"))
        self.assertEqual(rc, 0, out + err)
        self.assertIn("Checking native checks...\n\t3 of 10 commands run natively\n", out)
        self.assertIn("\tcheck_dummy: 2 native\n", out)
        self.assertIn("\tcheck_state_file.sh: 1 as a process (no native implementation)\n", out)
        self.assertIn("\tcheck_tcp: 1 native, 1 as a process (a leading NAME=value word, the per-command opt-out), "
                      "1 as a process (an option word comes from a macro), 1 as a process (unsupported option -v)\n",
                      out)
        self.assertIn("\tother commands: 2 as a process (not a plugin of $USER1$), "
                      "1 as a process (the program comes from a macro)\n", out)
        with open(os.path.join(d, "vedette.cfg"), "a") as f:
            f.write("native_checks=0\n")
        rc, out, err = vedette_test.run_verify(os.path.join(d, "vedette.cfg"))
        self.assertIn("\t0 of 10 commands run natively\n", out)
        self.assertIn("\tcheck_dummy: 2 as a process (native_checks=0)\n", out)

    def test_results_look_like_forked_ones(self):
        srv = Server(self, silent)
        d = self.write_config(srv.port)
        vedette_test.start_daemon(self, os.path.join(d, "vedette.cfg"))
        status_path = os.path.join(d, "status.dat")
        vedette_test.wait_until("five services checked", lambda: len(status_dat.checked_services(status_path)) == 5,
                                timeout=30, describe=lambda: repr(status_dat.checked_services(status_path).keys()))
        s = status_dat.checked_services(status_path)
        for name in ("native_tcp", "opted_out", "args_tcp"):
            self.assertRegex(s[name]["plugin_output"],
                             r"^TCP OK - \d\.\d{3} second response time on 127\.0\.0\.1 port %d$" % srv.port)
            self.assertRegex(s[name]["performance_data"], r"^time=\d\.\d{6}s;;;0\.000000;10\.000000$")
            self.assertEqual(s[name]["current_state"], "0")
        self.assertEqual(s["native_dummy"]["plugin_output"], "WARNING: native")
        self.assertEqual(s["native_dummy"]["performance_data"], "x=1")
        self.assertEqual(s["native_dummy"]["current_state"], "1")
        self.assertTrue(s["verbose_tcp"]["plugin_output"].startswith("Using service TCP"),
                        s["verbose_tcp"]["plugin_output"])  # -v: the process ran


if __name__ == "__main__":
    unittest.main()
