"""Native check_ping and check_icmp (docs/native-checks.md): the installed plugin and `vedette --native-check`
ping the same targets and must print the same bytes and exit codes once the measured round trips are masked
— 127.0.0.1, ::1 and names, every threshold state, a name that does not resolve, and in a network namespace
of the test's own an address nothing answers, unreachable, prohibited and blackhole routes, each with raw
ICMP sockets (root) and with the unprivileged datagram sockets that net.ipv4.ping_group_range allows. Then
the daemon: which commands `-v` reports native, and native results in status.dat.
"""
import os
import re
import socket
import subprocess
import unittest

import native_compare
import running_daemon
from native_compare import run
import status_dat
import vedette_test

PLUGINS = "/usr/lib/nagios/plugins"
CHECK_PING = os.path.join(PLUGINS, "check_ping")
CHECK_ICMP = os.path.join(PLUGINS, "check_icmp")


def mask(text):
    """The measured round trips are the only values allowed to differ."""
    text = re.sub(r"RTA = \d+\.\d\d ms", "RTA = T ms", text)
    text = re.sub(r"rta=\d+\.\d{6}ms", "rta=Tms", text)
    text = re.sub(r"rta \d+\.\d{3}ms", "rta Tms", text)  # check_icmp
    return re.sub(r"(rta|rtmax|rtmin)=\d+\.\d{3}ms", r"\1=Tms", text)


# A namespace with loopback up, 10.9.0.0/24 routed into loopback where nothing answers it, and the three
# route types that refuse a packet locally.
NAMESPACE_SETUP = ("ip link set lo up && ip route add 10.9.0.0/24 dev lo && "
                   "ip route add unreachable 10.7.0.0/24 && ip route add prohibit 10.6.0.0/24 && "
                   "ip route add blackhole 10.5.0.0/24")


def in_namespace(argv, datagram):
    setup = NAMESPACE_SETUP
    if datagram:
        setup += ' && sysctl -qw net.ipv4.ping_group_range="0 2147483647"'
    return ["unshare", "-n", "sh", "-c", setup + ' && exec "$0" "$@"'] + argv


def icmp_sockets_work():
    """Native pings need an ICMP socket: raw (root) or datagram (ping_group_range); else they are processes."""
    for kind in (socket.SOCK_DGRAM, socket.SOCK_RAW):
        try:
            socket.socket(socket.AF_INET, kind, socket.IPPROTO_ICMP).close()
            return True
        except OSError:
            pass
    return False


def namespaces_work():
    if os.geteuid() != 0:
        return False
    try:
        return subprocess.run(in_namespace(["true"], True), capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


class PingComparison(unittest.TestCase):
    def compare(self, args, wrap=lambda argv: argv, expect_rc=None, plugin=CHECK_PING):
        return native_compare.compare(self, plugin, args, mask, wrap, expect_rc)

    def compare_icmp(self, args, wrap=lambda argv: argv, expect_rc=None):
        return self.compare(args, wrap, expect_rc, CHECK_ICMP)


@unittest.skipUnless(os.access(CHECK_PING, os.X_OK) and os.access(CHECK_ICMP, os.X_OK),
                     "monitoring-plugins-basic is not installed")
@unittest.skipUnless(icmp_sockets_work(), "no ICMP socket here (not root, ping_group_range closed)")
class NativePingDifferential(PingComparison):
    def test_loopback_in_every_state(self):
        # RTAs on loopback are far below 100 ms and far above 0.001 ms: the states cannot flip between runs.
        out = self.compare(["-H", "127.0.0.1", "-w", "100,20%", "-c", "500,60%", "-p", "2"], expect_rc=0)
        self.assertRegex(out, r"^PING OK - Packet loss = 0%, RTA = \d+\.\d\d ms\|rta=\d+\.\d{6}ms;100\.000000;"
                              r"500\.000000;0\.000000 pl=0%;20;60;0;\n$")
        self.compare(["-H", "127.0.0.1", "-w", "0.001,20%", "-c", "500,60%", "-p", "1"], expect_rc=1)
        self.compare(["-H", "127.0.0.1", "-w", "0.001,0%", "-c", "0.002,60%", "-p", "1"], expect_rc=2)
        self.compare(["-H", "127.0.0.1", "--warning=0:0%", "--critical=100,0%", "-p", "1", "-4"],
                     expect_rc=2)  # 0 thresholds drop out of the perfdata; pl >= 0 is critical
        self.compare(["-H", "::1", "-w", "100,20%", "-c", "500,60%", "-p", "1"], expect_rc=0)
        self.compare(["-H", "localhost", "-w", "100,20%", "-c", "500,60%", "-p", "1", "-4"], expect_rc=0)
        self.compare(["-H", "localhost", "-w", "100,20%", "-c", "500,60%", "-p", "1"])
        self.compare(["-H", "127.0.0.1", "-w", "100,20%", "-c", "500,60%", "-p", "4", "-to", "3", "-nohtml"],
                     expect_rc=0)

    def test_a_name_that_does_not_resolve(self):
        out = self.compare(["-H", "no-such-host.invalid", "-w", "100,20%", "-c", "500,60%", "-p", "1"],
                           expect_rc=3)
        self.assertTrue(out.startswith("check_ping: Invalid hostname/address - no-such-host.invalid\n"), out)

    def test_icmp_loopback_names_and_thresholds(self):
        out = self.compare_icmp(["-H", "127.0.0.1"], expect_rc=0)
        self.assertRegex(out, r"^OK - 127\.0\.0\.1: rta \d+\.\d{3}ms, lost 0%\|rta=\d+\.\d{3}ms;200\.000;500\.000;0; "
                              r"pl=0%;40;80;; rtmax=\d+\.\d{3}ms;;;; rtmin=\d+\.\d{3}ms;;;; \n$")
        self.compare_icmp(["-H", "::1"], expect_rc=0)
        self.compare_icmp(["127.0.0.1", "-w", "100,20%", "-c", "200,40%", "-n", "3"], expect_rc=0)
        self.compare_icmp(["-H", "127.0.0.1", "-w", "1s,5%", "-c", "2000000u,10"], expect_rc=0)  # units
        self.compare_icmp(["-H", "127.0.0.1", "-w", "0,5%"], expect_rc=1)  # the plugin's scan: a 0 ms RTA
        # 5.001 reads as 5.100 ms (far from a loopback RTA, so the state cannot flip between the two runs).
        out = self.compare_icmp(["-H", "127.0.0.1", "-w", "5.001,20%"], expect_rc=0)
        self.assertIn(";5.100;500.000;0;", out)
        self.compare_icmp(["-H", "127.0.0.1", "-w", "50,50%", "-c", "30,40%"], expect_rc=0)  # warn capped
        self.compare_icmp(["-H", "127.0.0.1", "-w", "0.001,0%", "-c", "0.002,0%", "-p", "2"], expect_rc=2)
        self.compare_icmp(["-H", "localhost"], expect_rc=0)
        self.compare_icmp(["-H", "127.0.0.1", "-4", "-n", "2", "-i", "10ms", "-I", "1ms", "-t", "3"], expect_rc=0)

    def test_icmp_a_name_that_does_not_resolve(self):
        out = self.compare_icmp(["-H", "no-such-host.invalid"], expect_rc=3)
        self.assertEqual(out, "check_icmp: Failed to resolve no-such-host.invalid: Name or service not known\n")

    def test_icmp_unsupported_command_lines_run_the_process(self):
        for args in (["-H", "127.0.0.1", "-v"], ["-H", "127.0.0.1", "-H", "127.0.0.2"], ["127.0.0.1", "::1"],
                     ["-H", "127.0.0.1", "-n", "25"], ["-H", "127.0.0.1", "-4", "-6"], ["-H", "127.0.0.1", "-m", "1"],
                     ["-H", "127.0.0.1", "-s", "127.0.0.1"], ["-H", "127.0.0.1", "-w", "5"], ["-h"], []):
            out, rc = run([vedette_test.vedette_bin(), "--native-check", CHECK_ICMP] + args)
            self.assertEqual(rc, 125, "ran natively with %r: %r" % (args, out))

    def test_unsupported_command_lines_run_the_process(self):
        base = ["-w", "100,20%", "-c", "500,60%", "-p", "1"]
        for args in (["-H", "127.0.0.1", "-v"] + base, ["-H", "127.0.0.1", "-L"] + base,
                     ["-H", "127.0.0.1,::1"] + base, ["127.0.0.1", "100", "500"],
                     ["-H", "127.0.0.1", "-w", "100", "-c", "500,60%"],  # an RTA without a loss
                     ["-H", "127.0.0.1", "-w", "500,20%", "-c", "100,60%"],  # warning above critical
                     ["-H", "127.0.0.1", "-w", "100,20%", "-c", "500,60%", "-p", "3"],  # 33.3333% loss
                     ["-H", "127.0.0.1", "-h"]):
            out, rc = run([vedette_test.vedette_bin(), "--native-check", CHECK_PING] + args)
            self.assertEqual(rc, 125, "ran natively with %r: %r" % (args, out))


@unittest.skipUnless(os.access(CHECK_PING, os.X_OK) and os.access(CHECK_ICMP, os.X_OK),
                     "monitoring-plugins-basic is not installed")
@unittest.skipUnless(icmp_sockets_work(), "no ICMP socket here (not root, ping_group_range closed)")
@unittest.skipUnless(namespaces_work(), "needs root and network namespaces (unshare -n)")
class NativePingInANamespace(PingComparison):
    def check_targets(self, datagram):
        wrap = lambda argv: in_namespace(argv, datagram)
        out = self.compare(["-H", "10.9.0.2", "-w", "100,20%", "-c", "500,60%", "-p", "2", "-t", "2"], wrap,
                           expect_rc=2)
        self.assertEqual(out, "PING CRITICAL - Packet loss = 100%| rta=U;100.000000;500.000000;; "
                              "pl=100%;20;60;0;\n")
        self.compare(["-H", "10.7.0.1", "-w", "100,20%", "-c", "500,60%", "-p", "1"], wrap, expect_rc=2)
        self.compare(["-H", "10.6.0.1", "-w", "100,20%", "-c", "500,60%", "-p", "1"], wrap, expect_rc=3)
        self.compare(["-H", "10.5.0.1", "-w", "100,20%", "-c", "500,60%", "-p", "1"], wrap, expect_rc=3)
        self.compare(["-H", "127.0.0.1", "-w", "100,20%", "-c", "500,60%", "-p", "2"], wrap, expect_rc=0)
        self.compare(["-H", "::1", "-w", "100,20%", "-c", "500,60%", "-p", "1", "-6"], wrap, expect_rc=0)
        out = self.compare_icmp(["-H", "10.9.0.2", "-n", "2", "-c", "200,80%"], wrap, expect_rc=2)
        self.assertEqual(out, "CRITICAL - 10.9.0.2: rta nan, lost 100%|rta=0.000ms;200.000;200.000;0; "
                              "pl=100%;40;80;; rtmax=0.000ms;;;; rtmin=0.000ms;;;; \n")
        self.compare_icmp(["-H", "10.9.0.2", "-t", "1"], wrap, expect_rc=2)  # the alarm ends it
        for target in ("10.7.0.1", "10.6.0.1", "10.5.0.1"):  # sends the kernel refuses: never counted
            self.compare_icmp(["-H", target], wrap, expect_rc=2)
        self.compare_icmp(["-H", "::1", "-6"], wrap, expect_rc=0)

    def test_raw_sockets(self):
        self.check_targets(datagram=False)

    def test_datagram_sockets(self):
        self.check_targets(datagram=True)



OBJECTS = running_daemon.BASE_OBJECTS + """
define command {
  command_name ping
  command_line $USER1$/check_ping -H $HOSTADDRESS$ -w $ARG1$ -c $ARG2$ -p 1
}
define command {
  command_name ping_verbose
  command_line $USER1$/check_ping -H $HOSTADDRESS$ -w 100,20% -c 500,60% -p 1 -v -v
}
define command {
  command_name icmp
  command_line $USER1$/check_icmp -H $HOSTADDRESS$ -w $ARG1$ -c $ARG2$ -n 2
}
define command {
  command_name true
  command_line /bin/true
}
define host {
  host_name gw
  address 127.0.0.1
  max_check_attempts 1
  check_interval 0
  check_command true
  contacts admin
}
"""


@unittest.skipUnless(os.access(CHECK_PING, os.X_OK) and os.access(CHECK_ICMP, os.X_OK),
                     "monitoring-plugins-basic is not installed")
@unittest.skipUnless(icmp_sockets_work(), "no ICMP socket here (not root, ping_group_range closed)")
class NativePingInTheDaemon(unittest.TestCase):
    def test_verify_and_status(self):
        d = vedette_test.make_temp_dir(self)
        with open(os.path.join(d, "resource.cfg"), "w") as f:
            f.write("$USER1$=%s\n" % PLUGINS)
        with open(os.path.join(d, "objects.cfg"), "w") as f:
            f.write(OBJECTS + native_compare.services("gw", (
                ("PING", "ping!100.0,20%!500.0,60%"), ("ICMP", "icmp!100,20%!500,60%"),
                ("PING verbose", "ping_verbose"))))
        with open(os.path.join(d, "vedette.cfg"), "w") as f:
            f.write("cfg_file=objects.cfg\nresource_file=resource.cfg\nlog_file=vedette.log\n"
                    "status_file=status.dat\nstatus_update_interval=1\ncommand_file=vedette.cmd\n"
                    "interval_length=1\n")
        rc, out, err = vedette_test.run_verify(os.path.join(d, "vedette.cfg"))
        self.assertEqual(rc, 0, out + err)
        self.assertIn("\tcheck_ping: 1 native, 1 as a process (unsupported option -v)\n", out)
        self.assertIn("\tcheck_icmp: 1 native\n", out)

        vedette_test.start_daemon(self, os.path.join(d, "vedette.cfg"))
        status_path = os.path.join(d, "status.dat")
        vedette_test.wait_until("the pings checked", lambda: len(status_dat.checked_services(status_path)) == 3,
                                timeout=30, describe=lambda: repr(status_dat.checked_services(status_path).keys()))
        s = status_dat.checked_services(status_path)
        self.assertRegex(s["PING"]["plugin_output"], r"^PING OK - Packet loss = 0%, RTA = \d+\.\d\d ms$")
        self.assertRegex(s["PING"]["performance_data"],
                         r"^rta=\d+\.\d{6}ms;100\.000000;500\.000000;0\.000000 pl=0%;20;60;0;$")
        self.assertEqual(s["PING"]["current_state"], "0")
        self.assertRegex(s["ICMP"]["plugin_output"], r"^OK - 127\.0\.0\.1: rta \d+\.\d{3}ms, lost 0%$")
        self.assertRegex(s["ICMP"]["performance_data"], r"^rta=\d+\.\d{3}ms;100\.000;500\.000;0; pl=0%;20;60;; "
                                                        r"rtmax=\d+\.\d{3}ms;;;; rtmin=\d+\.\d{3}ms;;;;$")
        # -v -v: the plugin ran and printed its command line first.
        self.assertTrue(s["PING verbose"]["plugin_output"].startswith("CMD: /bin/ping"),
                        s["PING verbose"]["plugin_output"])


if __name__ == "__main__":
    unittest.main()
