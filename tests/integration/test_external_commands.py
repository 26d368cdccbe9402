"""External commands through the command file, with the real daemon: scheduling checks (forced or not),
saving state, restarting and shutting down, and Naemon's validation of the objects a command names."""
import os
import re
import time
import unittest

import status_dat

from running_daemon import HOST, RunningVedette, service

MAIN = """\
retain_state_information=1
state_retention_file=retention.dat
retention_update_interval=60
status_file=status.dat
status_update_interval=1
"""


def passive_only(description, command):
    """A service that never runs on its own: active checks disabled, an hour between checks."""
    return service(description, command, interval=3600).replace(
        "  contacts admin\n}", "  contacts admin\n  active_checks_enabled 0\n}")


class ScheduleChecks(unittest.TestCase):
    def test_forced_and_plain_checks_of_services_and_hosts(self):
        objects = (HOST + service("HOURLY", "check_state_file!hourly.state", interval=3600) +
                   passive_only("DISABLED", "check_state_file!disabled.state") +
                   service("SECOND", "check_state_file!second.state", interval=3600))
        v = RunningVedette(self, objects=objects, main_extra=MAIN, start=False)
        for name in ("hourly", "disabled", "second"):
            v.set_state(name + ".state", 2, name + " is down")
        v.start()
        now = int(time.time())

        # Not forced: runs now, as it was scheduled later (a random point of its hour).
        v.command("SCHEDULE_SVC_CHECK;web01;HOURLY;%d" % now)
        v.wait_for(r"SERVICE ALERT: web01;HOURLY;CRITICAL;HARD;1;hourly is down")
        # Not forced, active checks disabled: nothing runs. The scheduler reaching the check moves its
        # next_check an interval on (it was a random point of the hour before); by then it would have run.
        v.command("SCHEDULE_SVC_CHECK;web01;DISABLED;%d" % now)
        v.wait_for(r"EXTERNAL COMMAND: SCHEDULE_SVC_CHECK;web01;DISABLED;")
        reached = lambda blocks: any(
            kind == "servicestatus" and dict(f)["service_description"] == "DISABLED" and
            int(dict(f)["next_check"]) >= now + 3600 for kind, f in blocks)
        status_dat.wait_until(v.path("status.dat"), reached, 15, "DISABLED's check reached")
        self.assertNotIn("SERVICE ALERT: web01;DISABLED", v.log())
        # Forced: runs anyway, at the time asked for.
        v.command("SCHEDULE_FORCED_SVC_CHECK;web01;DISABLED;%d" % (now + 2))
        line = v.wait_for(r"SERVICE ALERT: web01;DISABLED;CRITICAL;HARD;1;disabled is down")[0]
        self.assertGreaterEqual(int(line[1:11]), now + 2)

        # Every service of the host, and the host itself (it has no check_command: assumed UP).
        v.set_state("hourly.state", 0, "hourly is back")
        v.command("SCHEDULE_FORCED_HOST_SVC_CHECKS;web01;%d" % now)
        v.wait_for(r"SERVICE ALERT: web01;HOURLY;OK;HARD;1;hourly is back")
        v.wait_for(r"SERVICE ALERT: web01;SECOND;CRITICAL;HARD;1;second is down")
        v.command("SCHEDULE_FORCED_HOST_CHECK;web01;%d" % now)
        v.wait_for(r"EXTERNAL COMMAND: SCHEDULE_FORCED_HOST_CHECK;web01;")
        self.assertEqual(v.stop(), 0)

    def test_unknown_objects_fail_validation_as_in_naemon(self):
        v = RunningVedette(self, objects=HOST + service("DISK", "check_dummy!0!fine"), main_extra=MAIN)
        v.command("SCHEDULE_SVC_CHECK;web01;NOPE;1700000000")
        v.command("SCHEDULE_HOST_CHECK;nohost;1700000000")
        v.command("PROCESS_SERVICE_CHECK_RESULT;nohost;DISK;2;gone")
        v.wait_for(r"Warning: External command parse error \[\d+\] SCHEDULE_SVC_CHECK;web01;NOPE;1700000000 "
                   r"\(Failed validation of service as type service \(argument 0\)\)")
        v.wait_for(r"Warning: External command parse error \[\d+\] SCHEDULE_HOST_CHECK;nohost;1700000000 "
                   r"\(Failed validation of host_name as type host \(argument 0\)\)")
        v.wait_for(r"Warning: External command parse error \[\d+\] PROCESS_SERVICE_CHECK_RESULT;nohost;DISK;2;gone "
                   r"\(Failed validation of service as type service \(argument 0\)\)")
        self.assertNotIn("EXTERNAL COMMAND: SCHEDULE", v.log(), "rejected commands are not logged as run")
        self.assertEqual(v.stop(), 0)


def program_status(path):
    with open(path) as f:
        blocks = status_dat.parse(f.read())
    return next(dict(fields) for kind, fields in blocks if kind == "programstatus")


class ProgramCommands(unittest.TestCase):
    def test_program_switches_change_what_runs_and_are_retained_as_modified(self):
        v = RunningVedette(self, objects=HOST + service("DISK", "check_state_file!disk.state"), main_extra=MAIN,
                           start=False)
        v.set_state("disk.state", 0, "DISK OK")
        v.start()
        v.command("STOP_EXECUTING_SVC_CHECKS")
        v.command("STOP_EXECUTING_SVC_CHECKS")  # no change: nothing more to mark
        v.command("DISABLE_NOTIFICATIONS")
        v.command("LOG;a line of the admin's own")
        v.wait_for(r"^\[\d+\] a line of the admin's own$")
        status = status_dat.wait_until(v.path("status.dat"), lambda b: any(
            k == "programstatus" and dict(f)["active_service_checks_enabled"] == "0" for k, f in b), 10,
            "active_service_checks_enabled=0")
        program = program_status(v.path("status.dat"))
        self.assertEqual(program["enable_notifications"], "0")
        self.assertEqual(program["modified_host_attributes"], "1")  # notifications
        self.assertEqual(program["modified_service_attributes"], "3")  # notifications | active checks
        self.assertIn("active_service_checks_enabled=0", status)

        # Service checks stopped: the state file turns CRITICAL, no check notices.
        v.set_state("disk.state", 2, "DISK CRITICAL")
        since = time.time()
        # The scheduler moves DISK's next_check on each time it reaches it, running the check or not.
        status_dat.wait_until(v.path("status.dat"), lambda b: any(
            k == "servicestatus" and int(dict(f)["next_check"]) >= since + 2 for k, f in b), 10,
            "DISK's check reached twice")
        self.assertNotIn("SERVICE ALERT: web01;DISK;CRITICAL", v.log())
        v.command("START_EXECUTING_SVC_CHECKS")
        v.wait_for(r"SERVICE ALERT: web01;DISK;CRITICAL;HARD;1;DISK CRITICAL")

        v.command("SAVE_STATE_INFORMATION")
        deadline = time.monotonic() + 10
        while not os.path.exists(v.path("retention.dat")):
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.05)
        with open(v.path("retention.dat")) as f:
            saved = f.read()
        self.assertIn("enable_notifications=0\n", saved)
        self.assertIn("modified_service_attributes=3\n", saved)
        self.assertEqual(v.stop(), 0)


class CommandsFromAFile(unittest.TestCase):
    def test_process_file_runs_each_line_reports_bad_ones_and_deletes_it(self):
        v = RunningVedette(self, objects=HOST + service("DISK", "check_state_file!disk.state", interval=3600),
                           main_extra=MAIN, start=False)
        v.set_state("disk.state", 2, "DISK CRITICAL")
        v.start()
        now = int(time.time())
        path = v.path("batch.cmd")
        with open(path, "w") as f:
            f.write("[%d] SCHEDULE_FORCED_SVC_CHECK;web01;DISK;%d\n" % (now, now))
            f.write("[%d] NOT_A_COMMAND;x\n" % now)
            f.write("[%d] LOG;written from a file\n" % now)
        v.command("PROCESS_FILE;%s;1" % path)
        v.wait_for(r"SERVICE ALERT: web01;DISK;CRITICAL;HARD;1;DISK CRITICAL")
        v.wait_for(r"^\[\d+\] written from a file$")
        v.wait_for(r"External command from file error: Unknown command 'NOT_A_COMMAND'")
        self.assertIn("EXTERNAL COMMAND: PROCESS_FILE;%s;1" % path, v.log())
        self.assertFalse(os.path.exists(path), "delete=1 removes the file")

        v.command("PROCESS_FILE;%s;0" % v.path("missing.cmd"))
        v.wait_for(r"Error: Cannot open file '.*missing\.cmd' to process external commands!")
        self.assertEqual(v.stop(), 0)


class Lifecycle(unittest.TestCase):
    def test_save_restart_and_shutdown(self):
        v = RunningVedette(self, objects=HOST + service("DISK", "check_dummy!0!fine"), main_extra=MAIN)
        self.assertFalse(os.path.exists(v.path("retention.dat")))
        v.command("SAVE_STATE_INFORMATION")
        deadline = time.monotonic() + 10
        while not os.path.exists(v.path("retention.dat")):
            self.assertLess(time.monotonic(), deadline, "SAVE_STATE_INFORMATION wrote no retention.dat")
            time.sleep(0.05)

        v.command("RESTART_PROGRAM")
        v.wait_for(r"Configuration reloaded: 1 hosts, 1 services")
        self.assertNotIn("Caught", v.log(), "no signal came")
        v.command("RESTART_PROCESS")  # Naemon's older name, the same handler
        v.wait_for(r"Configuration reloaded: 1 hosts, 1 services", count=2)

        v.command("SHUTDOWN_PROGRAM")
        self.assertEqual(v.proc.wait(timeout=20), 0)
        log = v.log()
        self.assertIn("EXTERNAL COMMAND: SHUTDOWN_PROGRAM;", log)
        self.assertRegex(log, r"Successfully shutdown\.\.\. \(PID=\d+\)")


if __name__ == "__main__":
    unittest.main()
