"""Performance data with the real daemon: the service perfdata file from Naemon's default template, the
processing command moving it away PNP4Nagios-style (bulk mode) every interval, a host perfdata command
run per result, and the switches that turn it off (process_perf_data per object, DISABLE_PERFORMANCE_DATA,
*_perfdata_process_empty_results)."""
import glob
import os
import time
import unittest

import vedette_test
from running_daemon import HOST, RunningVedette

MAIN = """\
process_performance_data=1
service_perfdata_file=service-perf.out
service_perfdata_file_mode=a
service_perfdata_file_processing_interval=1
service_perfdata_file_processing_command=move-perfdata
service_perfdata_process_empty_results=0
host_perfdata_command=record-host-perfdata
"""

OBJECTS = HOST + """
define command {
  command_name move-perfdata
  command_line /bin/mv service-perf.out spool/service-perf.$TIMET$
}
define command {
  command_name record-host-perfdata
  command_line /bin/sh -c 'echo "$HOSTNAME$ $HOSTSTATE$ $HOSTPERFDATA$" >> host-perf.out'
}
define service {
  host_name web01
  service_description HTTP
  check_command check_dummy!0
  active_checks_enabled 0
  max_check_attempts 1
  check_interval 0
}
define service {
  host_name web01
  service_description QUIET
  check_command check_dummy!0
  active_checks_enabled 0
  max_check_attempts 1
  check_interval 0
  process_perf_data 0
}
"""


def wait_for(predicate, what, timeout=15):
    return vedette_test.wait_until(what, predicate, timeout)


def read_spool(v):
    lines = []
    for path in sorted(glob.glob(v.path("spool/service-perf.*"))):
        with open(path) as f:
            lines += [line.rstrip("\n").split("\t") for line in f if line.strip()]
    return lines


class PerfdataTest(unittest.TestCase):
    def test_file_processing_and_commands(self):
        v = RunningVedette(self, objects=OBJECTS, main_extra=MAIN, start=False)
        os.mkdir(v.path("spool"))
        v.start()
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;HTTP;0;HTTP OK|time=0.012s;1;2 size=42B")
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;QUIET;0;quiet|x=1")  # process_perf_data 0
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;HTTP;0;no perfdata here")  # empty: skipped
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;HTTP;1;HTTP WARNING|time=1.5s;1;2")
        lines = wait_for(lambda: len(read_spool(v)) >= 2 and read_spool(v), "two lines in the spool")
        time.sleep(1.5)  # a late line would land in the next spool file
        lines = read_spool(v)
        self.assertEqual([line[0] for line in lines], ["[SERVICEPERFDATA]"] * 2)
        self.assertEqual([line[2:4] for line in lines], [["web01", "HTTP"]] * 2)
        self.assertEqual([line[6:] for line in lines],
                         [["HTTP OK", "time=0.012s;1;2 size=42B"], ["HTTP WARNING", "time=1.5s;1;2"]])
        self.assertTrue(all(line[1].isdigit() for line in lines), lines)

        def host_lines():
            try:
                with open(v.path("host-perf.out")) as f:
                    return f.read().splitlines()
            except FileNotFoundError:
                return []
        # Problems make Naemon check the host on demand; without a check command it is "assumed UP", with
        # no perfdata: a line too (host_perfdata_process_empty_results defaults to 1).
        v.command("PROCESS_HOST_CHECK_RESULT;web01;0;PING OK|rta=0.1ms")
        wait_for(lambda: "web01 UP rta=0.1ms" in host_lines(), "the host perfdata command")
        self.assertTrue(set(host_lines()) <= {"web01 UP rta=0.1ms", "web01 UP "}, host_lines())
        seen = len(host_lines())

        v.command("DISABLE_PERFORMANCE_DATA")
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;HTTP;0;HTTP OK|time=0.5s")
        v.command("PROCESS_HOST_CHECK_RESULT;web01;0;PING OK|rta=0.2ms")
        v.wait_for(r"PASSIVE HOST CHECK: web01;0;PING OK\|rta=0.2ms|PASSIVE HOST CHECK: web01;0;PING OK")
        time.sleep(2.5)
        self.assertEqual(len(read_spool(v)), 2)
        self.assertEqual(len(host_lines()), seen)
        self.assertEqual(v.stop(), 0)


if __name__ == "__main__":
    unittest.main()
