"""vedettestats: naemonstats' command line on the recorded cases, and values that move on a running daemon.

tests/fixtures/naemonstats/cli.json holds what naemonstats 1.5.2 printed, and its exit code, for command
lines whose output does not depend on the time (errors, delimiters, option spellings, a config naming
the status file; recorded by record.py there). vedettestats must print the same, except naemonstats'
banner (the first six lines of a report), which names Vedette instead. The report and every MRTG value
are compared with naemonstats' own in tests/unit/stats; here the daemon's status.dat must make the
counts move as passive results and external commands arrive.
"""
import json
import os
import subprocess
import time
import unittest

import vedette_test
from running_daemon import HOST, RunningVedette

FIXTURE = os.path.join(vedette_test.source_dir(), "tests", "fixtures", "naemonstats")


def vedettestats_bin():
    return os.path.join(os.path.dirname(vedette_test.vedette_bin()), "vedettestats")


def run(args, cwd):
    done = subprocess.run([vedettestats_bin()] + args, cwd=cwd, capture_output=True, check=False, timeout=30)
    return done.stdout.decode(), done.returncode


def without_banner(text):
    return "\n".join(text.split("\n")[6:])


MAIN = """\
status_file=status.dat
status_update_interval=1
"""

OBJECTS = HOST + "".join("""
define service {
  host_name web01
  service_description passive%d
  check_command check_dummy!0!idle
  active_checks_enabled 0
  max_check_attempts 1
  contacts admin
}
""" % i for i in range(1, 4))

VARIABLES = ["NUMSERVICES", "NUMHOSTS", "NUMSVCPSVCHK1M", "NUMPSVSVCCHECKS1M", "NUMEXTCMDS1M", "NUMSVCCRIT",
             "NUMSVCWARN", "NUMSVCOK", "NAGIOSPID", "PROGRUNTIMETT"]


class RecordedCommandLines(unittest.TestCase):
    def test_same_output_and_exit_code_as_naemonstats(self):
        with open(os.path.join(FIXTURE, "cli.json")) as f:
            cases = json.load(f)
        for case in cases:
            stdout, code = run(case["args"], os.path.join(FIXTURE, "vedette"))
            expected = case["stdout"]
            if "-m" not in case["args"] and "--mrtg" not in case["args"]:
                self.assertTrue(stdout.startswith("\nVedette Stats "), stdout)
                stdout, expected = without_banner(stdout), without_banner(expected)
            self.assertEqual((stdout, code), (expected, case["returncode"]), case["args"])

    def test_help_and_version(self):
        stdout, code = run(["-h"], FIXTURE)
        self.assertEqual(code, 1)
        self.assertIn("NUMSVCPSVCHKxM", stdout)
        stdout, code = run(["-V"], FIXTURE)
        self.assertEqual(code, 0)
        self.assertRegex(stdout, r"^\nVedette Stats \d+\.\d+\.\d+\n")


class RunningDaemon(unittest.TestCase):
    def values(self, v):
        stdout, code = run(["-c", v.path("vedette.cfg"), "-m", "-D", ",", "-d", ",".join(VARIABLES)], v.dir)
        self.assertEqual(code, 0, stdout)
        return dict(zip(VARIABLES, (int(x) for x in stdout.strip().split(",")[:len(VARIABLES)])))

    def wait_for_values(self, v, expected, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            got = self.values(v)
            if all(got[k] == want for k, want in expected.items()):
                return got
            if time.monotonic() > deadline:
                self.fail("vedettestats shows %r, waited for %r" % (got, expected))
            time.sleep(0.2)

    def test_counts_move_with_passive_results(self):
        with RunningVedette(self, objects=OBJECTS, main_extra=MAIN) as v:
            before = self.wait_for_values(v, {"NUMSERVICES": 3, "NUMHOSTS": 1, "NAGIOSPID": v.proc.pid})
            self.assertEqual(before["NUMSVCPSVCHK1M"], 0)
            self.assertEqual(before["NUMSVCCRIT"], 0)
            v.command("PROCESS_SERVICE_CHECK_RESULT;web01;passive1;2;down")
            v.command("PROCESS_SERVICE_CHECK_RESULT;web01;passive2;1;slow")
            after = self.wait_for_values(v, {"NUMSVCPSVCHK1M": 2, "NUMSVCCRIT": 1, "NUMSVCWARN": 1})
            self.assertGreaterEqual(after["NUMPSVSVCCHECKS1M"], 2)
            self.assertGreaterEqual(after["NUMEXTCMDS1M"], before["NUMEXTCMDS1M"] + 2)
            self.assertGreaterEqual(after["PROGRUNTIMETT"], before["PROGRUNTIMETT"])

            report, code = run(["-c", v.path("vedette.cfg")], v.dir)
            self.assertEqual(code, 0, report)
            self.assertIn("Status File:                            %s\n" % v.path("status.dat"), report)
            self.assertIn("Services Passively Checked:             2\n", report)
            self.assertIn("Naemon PID:                             %d\n" % v.proc.pid, report)


if __name__ == "__main__":
    unittest.main()
