"""SIGHUP reload of the real daemon: the same process re-reads its configuration while checks go on, keeps the
state of every object that still exists, and refuses a broken configuration without changing anything."""
import os
import re
import signal
import time
import unittest

import status_dat
from running_daemon import HOST, RunningVedette, service

MAIN = """\
status_file=status.dat
status_update_interval=1
retain_state_information=1
state_retention_file=retention.dat
log_initial_states=1
"""

def services_in(path):
    with open(path) as f:
        blocks = status_dat.parse(f.read())
    return {dict(fields)["service_description"]: dict(fields) for kind, fields in blocks if kind == "servicestatus"}


def lines_after(log, marker):
    return log[log.index(marker):].splitlines()


class Reload(unittest.TestCase):
    def test_state_is_kept_objects_come_and_go_same_process(self):
        objects = HOST + service("DISK", "check_state_file!disk.state") + service("OLD", "check_dummy!0!old")
        v = RunningVedette(self, objects=objects, main_extra=MAIN, start=False)
        v.set_state("disk.state", 2, "DISK CRITICAL - 99% full")
        v.start()
        v.wait_for(r"SERVICE ALERT: web01;DISK;CRITICAL;HARD;1;DISK CRITICAL - 99% full")
        pid = v.proc.pid

        v.write_objects(HOST + service("DISK", "check_state_file!disk.state") +
                           service("NEW", "check_dummy!1!fresh"))
        v.proc.send_signal(signal.SIGHUP)
        v.wait_for(r"Configuration reloaded: 1 hosts, 2 services \(2 objects kept, 1 new, 1 removed\)")
        log = v.log()
        self.assertIn("Caught 'Hangup', restarting...", log)
        after = lines_after(log, "Caught 'Hangup', restarting...")
        self.assertTrue(any(re.search(r"Vedette .* starting\.\.\. \(PID=%d\)" % pid, l) for l in after), after)
        self.assertTrue(any("INITIAL SERVICE STATE: web01;DISK;CRITICAL;HARD;1;DISK CRITICAL - 99% full" in l
                            for l in after), "the state is carried over, not reset: %s" % after)

        # The new service runs; the removed one is gone from status.dat and objects.cache.
        v.wait_for(r"SERVICE ALERT: web01;NEW;WARNING;HARD;1;WARNING: fresh")
        status = status_dat.wait_until(v.path("status.dat"), lambda b: "OLD" not in {
            dict(f).get("service_description") for k, f in b}, 10, "OLD to leave status.dat")
        self.assertIn("service_description=NEW", status)
        with open(v.path("objects.cache")) as f:
            cache = f.read()
        self.assertIn("service_description\tNEW", cache)
        self.assertNotIn("service_description\tOLD", cache)

        # The kept service was CRITICAL all along: a recovery alerts (a reset state would not).
        v.set_state("disk.state", 0, "DISK OK")
        v.wait_for(r"SERVICE ALERT: web01;DISK;OK;HARD;1;DISK OK")
        self.assertEqual(v.proc.poll(), None)
        self.assertEqual(len(re.findall(r"SERVICE ALERT: web01;DISK;CRITICAL", v.log())), 1)
        self.assertEqual(v.stop(), 0)
        with open(v.path("retention.dat")) as f:
            saved = f.read()
        self.assertIn("service_description=NEW\n", saved)
        self.assertNotIn("service_description=OLD\n", saved)

    def test_broken_configuration_is_refused_and_nothing_changes(self):
        objects = HOST + service("DISK", "check_state_file!disk.state")
        v = RunningVedette(self, objects=objects, main_extra=MAIN, start=False)
        v.set_state("disk.state", 0, "DISK OK")
        v.start()
        status_dat.wait_until(v.path("status.dat"), lambda b: any(
            dict(f).get("service_description") == "DISK" and dict(f)["has_been_checked"] == "1" for k, f in b),
            20, "DISK to be checked")
        with open(v.path("objects.cache")) as f:
            cache_before = f.read()

        v.write_objects(HOST + service("DISK", "check_state_file!disk.state") + """
define service {
  host_name nosuchhost
  service_description BROKEN
  check_command check_dummy!0
}
""")
        v.proc.send_signal(signal.SIGHUP)
        v.wait_for(r"Error: Reload failed: \d+ error\(s\) in the configuration; the running configuration is kept")
        log = v.log()
        self.assertRegex(log, r"Error: .*nosuchhost.*objects\.cfg", "the error names the object and the file")
        self.assertNotIn("Configuration reloaded", log)
        self.assertNotIn("INITIAL SERVICE STATE: web01;BROKEN", log)
        with open(v.path("objects.cache")) as f:
            self.assertEqual(f.read(), cache_before, "objects.cache is that of the running configuration")

        # Checks go on, on the old configuration.
        v.set_state("disk.state", 2, "DISK CRITICAL")
        v.wait_for(r"SERVICE ALERT: web01;DISK;CRITICAL;HARD;1;DISK CRITICAL")
        self.assertNotIn("BROKEN", "".join(services_in(v.path("status.dat"))))

        # Fixed, it reloads.
        v.write_objects(HOST + service("DISK", "check_state_file!disk.state"))
        v.proc.send_signal(signal.SIGHUP)
        v.wait_for(r"Configuration reloaded: 1 hosts, 1 services \(2 objects kept, 0 new, 0 removed\)")
        self.assertEqual(v.stop(), 0)

    def test_check_running_at_the_swap_counts_for_its_object(self):
        v = RunningVedette(self, objects="", main_extra=MAIN, start=False)
        plugin = v.path("slow.sh")
        with open(plugin, "w") as f:
            f.write('#!/bin/sh\ntouch "$0.started"\nsleep 2\necho "slow but counted"\nexit 2\n')
        os.chmod(plugin, 0o755)
        v.write_objects(HOST + service("SLOW", "run!" + plugin))
        v.start()
        deadline = time.monotonic() + 30
        while not os.path.exists(plugin + ".started"):
            self.assertLess(time.monotonic(), deadline, "the slow check never started")
            time.sleep(0.05)
        # Reload while it runs; max_check_attempts changes, the object stays.
        v.write_objects(HOST + service("SLOW", "run!" + plugin, attempts=2) +
                           service("OTHER", "check_dummy!0!other"))
        v.proc.send_signal(signal.SIGHUP)
        v.wait_for(r"Configuration reloaded")
        v.wait_for(r"SERVICE ALERT: web01;SLOW;CRITICAL;SOFT;1;slow but counted")
        log = v.log()
        self.assertLess(log.index("Configuration reloaded"), log.index("SERVICE ALERT: web01;SLOW"),
                        "the result arrived after the swap and was applied to the kept object")
        self.assertEqual(v.stop(), 0)


if __name__ == "__main__":
    unittest.main()
