"""check_options as Naemon shows it (issue 35): how the check scheduled next was scheduled, in Livestatus and
status.dat, until that check runs: 16 (ALLOW_POSTPONE) for a soft problem's retry, 1 for a forced check."""
import time
import unittest

import livestatus_client as ls
import status_dat

from running_daemon import HOST, RunningVedette, service


class CheckOptions(unittest.TestCase):
    def test_a_soft_retry_and_a_forced_check_show_their_options(self):
        objects = HOST + service("DISK", "check_state_file!disk.state", interval=600, attempts=20)
        v = RunningVedette(self, objects=objects, start=False, main_extra=(
            "broker_module=/usr/lib/naemon/naemon-livestatus/livestatus.o live\nstatus_file=status.dat\n"
            "status_update_interval=1\n"))
        v.set_state("disk.state", 2, "DISK CRITICAL")
        v.start()
        ls.wait_for_socket(v.path("live"))
        ask = lambda: ls.query(v.path("live"), "GET services\nColumns: state_type check_options\n").strip()
        v.command("SCHEDULE_FORCED_SVC_CHECK;web01;DISK;%d" % int(time.time()))
        v.wait_for(r"SERVICE ALERT: web01;DISK;CRITICAL;SOFT;1;DISK CRITICAL")
        # The retry comes a retry_interval (1 s here) later; until it runs, the options are the retry's.
        deadline = time.monotonic() + 10
        while ask() != "0;16" and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(ask(), "0;16", "soft, with the retry's ALLOW_POSTPONE")
        v.set_state("disk.state", 0, "DISK OK")
        v.wait_for(r"SERVICE ALERT: web01;DISK;OK;SOFT;\d+;DISK OK")
        deadline = time.monotonic() + 10
        while ask() != "1;0" and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(ask(), "1;0", "back to a plain schedule")
        v.command("SCHEDULE_FORCED_SVC_CHECK;web01;DISK;%d" % (int(time.time()) + 300))
        deadline = time.monotonic() + 10
        while ask() != "1;1" and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(ask(), "1;1", "forced, until it runs")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            disk = status_dat.checked_services(v.path("status.dat")).get("DISK", {})
            if disk.get("check_options") == "1":
                break
            time.sleep(0.1)
        self.assertEqual(disk.get("check_options"), "1", "status.dat says it too")
        self.assertEqual(v.stop(), 0)


if __name__ == "__main__":
    unittest.main()
