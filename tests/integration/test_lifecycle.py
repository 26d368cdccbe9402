"""Stopping the real daemon: SIGTERM lets running checks finish (bounded), then cleans up as Naemon does."""
import os
import time
import unittest

from running_daemon import RunningVedette

HOST = """
define host {
  host_name web01
  address 127.0.0.1
  max_check_attempts 1
  check_interval 0
  contacts admin
}
"""


def service(description, plugin):
    return """
define service {
  host_name web01
  service_description %s
  check_command run!%s
  max_check_attempts 1
  check_interval 1
  contacts admin
}
""" % (description, plugin)


def write_plugin(directory, name, body):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, 0o755)
    return path


def wait_for_file(path, timeout=30):
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise AssertionError("%s never appeared" % path)
        time.sleep(0.02)


class SigtermShutdown(unittest.TestCase):
    def test_running_check_finishes_and_is_applied_then_files_are_removed(self):
        v = RunningVedette(self, objects="", start=False)
        plugin = write_plugin(v.dir, "slow.sh", 'touch "$0.started"; sleep 1; echo "late but counted"; exit 2\n')
        with open(v.path("objects.cfg"), "a") as f:
            f.write(HOST + service("SLOW", plugin))
        with open(v.path("vedette.cfg"), "a") as f:
            f.write("status_file=status.dat\n")
        v.start()
        wait_for_file(plugin + ".started")
        self.assertTrue(os.path.exists(v.path("status.dat")))
        started = time.monotonic()
        self.assertEqual(v.stop(), 0)
        self.assertLess(time.monotonic() - started, 20)
        log = v.log()
        alert = log.find("SERVICE ALERT: web01;SLOW;CRITICAL;HARD;1;late but counted")
        caught = log.find("Caught SIGTERM, shutting down...")
        done = log.find("Successfully shutdown... (PID=")
        self.assertTrue(0 <= caught < alert < done, log)
        self.assertFalse(os.path.exists(v.path("status.dat")), "Naemon removes status.dat when it stops")
        self.assertFalse(os.path.exists(v.cmd_path), "and the command file")

    def test_hanging_check_is_killed_after_the_grace_and_stop_is_bounded(self):
        v = RunningVedette(self, objects="", start=False)
        plugin = write_plugin(v.dir, "hang.sh", 'echo $$ > "$0.pid"; exec sleep 1000\n')
        with open(v.path("objects.cfg"), "a") as f:
            f.write(HOST + service("HANG", plugin))
        v.start()
        wait_for_file(plugin + ".pid")
        time.sleep(0.1)
        with open(plugin + ".pid") as f:
            pid = int(f.read())
        started = time.monotonic()
        self.assertEqual(v.stop(), 0)
        took = time.monotonic() - started
        self.assertLess(took, 20)
        self.assertGreater(took, 4, "running checks get a grace of 5 s")
        self.assertNotIn("SERVICE ALERT: web01;HANG", v.log())
        for _ in range(100):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            with open("/proc/%d/stat" % pid) as f:
                if f.read().split(")")[-1].split()[0] == "Z":
                    break
            time.sleep(0.02)
        else:
            self.fail("the hanging plugin survived the shutdown")


if __name__ == "__main__":
    unittest.main()
