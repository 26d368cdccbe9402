"""status.dat against the one Naemon writes for the same configuration.

tests/fixtures/status_dat/ holds a configuration whose checks settle in fixed states and the status.dat the
reference Naemon wrote for it (regenerate.py there), masked by status_dat.py. The real daemon runs on the
same configuration until its status.dat shows the same settled states; both files must then have the same
banner, the same blocks in the same order, the same keys in the same order and the same values, except
the masked ones (times, pids, latencies, execution times, the version, check counts) and the fields below
that Vedette does not track yet (docs/compatibility.md, "status.dat").
"""
import json
import os
import shutil
import signal
import subprocess
import unittest

import status_dat
import vedette_test

FIXTURE = os.path.join(vedette_test.source_dir(), "tests", "fixtures", "status_dat")

# Where the run-time files go (next to the copied configuration); no retention, as in Naemon's run.
RUNTIME = """\
status_file=status.dat
log_file=vedette.log
object_cache_file=objects.cache
command_file=vedette.cmd
state_retention_file=retention.dat
retain_state_information=0
"""

# State Vedette does not keep yet: Naemon's event and problem ids (set on state changes and problems)
# and the percent state change of flap detection, which Naemon computes for hosts even with flap
# detection disabled. Vedette writes Naemon's "none" for them.
NOT_TRACKED_YET = {
    "next_event_id", "current_event_id", "last_event_id", "current_problem_id", "last_problem_id",
    "problem_start", "problem_end", "percent_state_change",
}


class StatusDatMatchesNaemon(unittest.TestCase):
    def test_same_blocks_keys_and_values(self):
        with open(os.path.join(FIXTURE, "settled.json")) as f:
            spec = json.load(f)
        with open(os.path.join(FIXTURE, "status.dat")) as f:
            naemon_text = f.read()
        work = vedette_test.make_temp_dir(self)
        for name in ("naemon.cfg", "objects.cfg"):
            shutil.copy(os.path.join(FIXTURE, name), work)
        with open(os.path.join(work, "naemon.cfg"), "a") as f:
            f.write(RUNTIME)
        out = open(os.path.join(work, "stdout.txt"), "w")
        self.addCleanup(out.close)
        # Run as root in CI with no naemon_user: Vedette, like Naemon, then needs --allow-root.
        command = [vedette_test.vedette_bin(), "--allow-root", os.path.join(work, "naemon.cfg")]
        proc = subprocess.Popen(command, cwd=work, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT)
        try:
            path = os.path.join(work, "status.dat")
            text = status_dat.wait_until(path, status_dat.settled_by(spec), 120, "vedette to settle")
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)

        self.assertEqual(status_dat.header(text), status_dat.header(naemon_text), "the banner")
        expected = status_dat.parse(naemon_text)
        actual = status_dat.mask(status_dat.parse(text))
        problems = []
        for line in status_dat.differences(expected, actual):
            field = line.split(": ", 1)[1].split(" ", 1)[0] if ": " in line else ""
            if field not in NOT_TRACKED_YET:
                problems.append(line)
        self.assertEqual(problems, [], "status.dat differs from Naemon's:\n" + "\n".join(problems))
        # The untracked fields hold Naemon's "none" values, never something else.
        for kind, fields in actual:
            for key, value in fields:
                if key in NOT_TRACKED_YET:
                    self.assertIn(value, ("", "0", "0.00", "1"), "%s %s" % (status_dat.block_name(kind, fields), key))


if __name__ == "__main__":
    unittest.main()
