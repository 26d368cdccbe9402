"""Faults of Vedette's own while running checks (issue 20): a plugin that cannot be spawned for want of fds
is no check result. The real daemon, its open-files limit lowered from outside (prlimit) and lifted again."""
import os
import resource
import time
import unittest

import livestatus_client as ls
import vedette_test

from running_daemon import HOST, RunningVedette, service

SERVICES = "".join(service("S%d" % i, "check_dummy!0!fine", interval=1,
                           extra="  notification_interval 0\n  notification_options w,c,r,u\n")
                   for i in range(10))
MISSING = service("MISSING", "run!/nonexistent/check_plugin", interval=1)


class SpawnShortage(unittest.TestCase):
    def test_no_false_alert_at_the_fd_limit_and_checks_recover(self):
        v = RunningVedette(self, objects=HOST + SERVICES + MISSING,
                           main_extra="broker_module=/usr/lib/naemon/naemon-livestatus/livestatus.o live\n")
        ls.wait_for_socket(v.path("live"))
        # A missing plugin is a check result, as in Naemon.
        v.wait_for(r"SERVICE ALERT: web01;MISSING;CRITICAL;HARD;1;")
        alerts_before = v.log().count("SERVICE ALERT")
        notifications_before = v.log().count("SERVICE NOTIFICATION")
        open_now = len(os.listdir("/proc/%d/fd" % v.proc.pid))
        hard = resource.prlimit(v.proc.pid, resource.RLIMIT_NOFILE)[1]
        resource.prlimit(v.proc.pid, resource.RLIMIT_NOFILE, (open_now + 1, hard))  # no pipe pair fits
        limited_at = time.time()
        time.sleep(5)  # five rounds of every check
        log = v.log()
        self.assertEqual(log.count("SERVICE ALERT"), alerts_before, log)
        self.assertEqual(log.count("SERVICE NOTIFICATION"), notifications_before, log)
        self.assertNotIn("did not exit properly", log)
        v.wait_for(r"Warning: Could not start a check or command: Too many open files \(\d+ retried since the "
                   r"last warning\); nothing is reported for them, they are tried again within 5 s")
        resource.prlimit(v.proc.pid, resource.RLIMIT_NOFILE, (hard, hard))
        lifted_at = time.time()

        def all_checked_since_lifting():
            rows = ls.query_json(v.path("live"), "GET services\nColumns: description last_check state\n"
                                 "Filter: description ~ ^S")
            return len(rows) == 10 and all(r[1] >= int(lifted_at) and r[2] == 0 for r in rows)

        vedette_test.wait_until("every check to run again", all_checked_since_lifting, timeout=20)
        self.assertGreater(lifted_at - limited_at, 4)
        self.assertEqual(v.log().count("SERVICE ALERT: web01;S"), 0)


if __name__ == "__main__":
    unittest.main()
