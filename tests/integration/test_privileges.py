"""Started as root, the daemon switches to naemon_user/naemon_group before it creates any file but the lock
file, and without such a user it refuses to run as root unless --allow-root (as Naemon refuses).

Needs root and the `nagios` user (Debian's nagios4-core creates it; scripts/install-deps.sh installs it).
"""
import grp
import os
import pwd
import signal
import subprocess
import time
import unittest

import vedette_test
from running_daemon import HOST, RunningVedette, service, wait_for_file

USER = GROUP = "nagios"

OBJECTS = HOST + service("WHOAMI", "run!%(plugin)s")

# The check reports who runs it, so the log shows that plugins run as the daemon's user too.
WHOAMI = """#!/bin/sh
echo "running as $(id -un):$(id -gn)"
exit 1
"""

SWITCHED = """\
naemon_user=%s
naemon_group=%s
status_file=status.dat
status_update_interval=1
retain_state_information=1
state_retention_file=retention.dat
lock_file=vedette.lock
""" % (USER, GROUP)


def require_root_and_user():
    if os.geteuid() != 0:
        raise unittest.SkipTest("the privilege drop happens only when started as root; run the tests as root")
    try:
        pwd.getpwnam(USER)
        grp.getgrnam(GROUP)
    except KeyError:
        raise unittest.SkipTest("user/group %r missing: install the nagios4-core package "
                                "(scripts/install-deps.sh)" % USER)


def proc_ids(pid, field):
    """The four ids (real, effective, saved, filesystem) of /proc/PID/status's Uid: or Gid: line."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return [int(x) for x in line.split()[1:]]
    raise AssertionError("no %s line for PID %d" % (field, pid))


def supplementary_groups(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("Groups:"):
                return sorted(int(x) for x in line.split()[1:])
    return []


def owner(path):
    st = os.lstat(path)
    return st.st_uid, st.st_gid


class SwitchesToNaemonUser(unittest.TestCase):
    def setUp(self):
        require_root_and_user()
        self.pw = pwd.getpwnam(USER)
        self.gid = grp.getgrnam(GROUP).gr_gid
        self.ids = (self.pw.pw_uid, self.gid)

    def prepare(self):
        """A run directory owned by the user, with the config (root's, readable) in it."""
        v = RunningVedette(self, objects="", main_extra=SWITCHED, start=False, allow_root=False)
        plugin = v.path("whoami.sh")
        with open(plugin, "w") as f:
            f.write(WHOAMI)
        os.chmod(plugin, 0o755)
        with open(v.path("objects.cfg"), "a") as f:
            f.write(OBJECTS % {"plugin": plugin})
        os.chown(v.dir, self.pw.pw_uid, self.gid)
        return v

    def assert_runs_as_user(self, pid):
        self.assertEqual(proc_ids(pid, "Uid"), [self.pw.pw_uid] * 4)
        self.assertEqual(proc_ids(pid, "Gid"), [self.gid] * 4)
        self.assertEqual(supplementary_groups(pid), sorted(set(os.getgrouplist(USER, self.gid))))

    def assert_files_belong_to_user(self, v, names):
        for name in names:
            self.assertEqual(owner(v.path(name)), self.ids, name)

    def test_foreground_run_checks_writes_and_stops_as_the_user(self):
        v = self.prepare()
        v.start()  # no --allow-root: a configured user is enough
        self.assert_runs_as_user(v.proc.pid)
        v.wait_for(r"SERVICE ALERT: web01;WHOAMI;WARNING;HARD;1;running as %s:%s$" % (USER, GROUP))
        wait_for_file(v.path("status.dat"))
        self.assert_files_belong_to_user(v, ("vedette.log", "status.dat", "objects.cache", "vedette.cmd"))
        with open(v.path("status.dat")) as f:
            self.assertIn("service_description=WHOAMI", f.read())
        # The command FIFO works for root writing into it.
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;WHOAMI;2;sent by root")
        v.wait_for(r"SERVICE ALERT: web01;WHOAMI;CRITICAL;HARD;1;sent by root")

        self.assertEqual(v.stop(), 0)
        self.assertIn("Successfully shutdown", v.log())
        self.assert_files_belong_to_user(v, ("retention.dat",))
        self.assertFalse(os.path.exists(v.path("status.dat")))
        self.assertFalse(os.path.exists(v.path("vedette.cmd")))
        with open(v.path("stdout.txt")) as f:
            self.assertNotIn("WARNING: you are running as root", f.read())

    def test_daemon_mode_writes_the_lock_as_root_then_runs_as_the_user(self):
        v = self.prepare()
        started = subprocess.run([vedette_test.vedette_bin(), "-d", v.path("vedette.cfg")], cwd=v.dir,
                                 capture_output=True, text=True, timeout=30)
        self.assertEqual(started.returncode, 0, started.stderr)
        with open(v.path("vedette.lock")) as f:
            pid = int(f.read())
        self.addCleanup(kill_quietly, pid)
        # The lock file is the starting user's, so the daemon's user cannot rewrite the PID root may signal.
        self.assertEqual(owner(v.path("vedette.lock")), (0, 0))
        self.assert_runs_as_user(pid)
        v.wait_for(r"SERVICE ALERT: web01;WHOAMI;WARNING;HARD;1;running as %s:%s$" % (USER, GROUP))
        wait_for_file(v.path("status.dat"))
        self.assert_files_belong_to_user(v, ("vedette.log", "status.dat", "objects.cache", "vedette.cmd"))

        os.kill(pid, signal.SIGTERM)
        wait_for_exit(pid)
        self.assertIn("Successfully shutdown... (PID=%d)" % pid, v.log())
        # The run directory is the user's, so the daemon could remove the lock file as it does at shutdown.
        self.assertFalse(os.path.exists(v.path("vedette.lock")))
        self.assert_files_belong_to_user(v, ("retention.dat",))


class RefusesToStart(unittest.TestCase):
    def setUp(self):
        if os.geteuid() != 0:
            raise unittest.SkipTest("the refusals concern a start as root; run the tests as root")

    def run_vedette(self, main_extra, options=()):
        v = RunningVedette(self, objects="", main_extra=main_extra, start=False, allow_root=False)
        command = [vedette_test.vedette_bin()] + list(options) + [v.path("vedette.cfg")]
        proc = subprocess.run(command, cwd=v.dir, capture_output=True, text=True, timeout=30)
        return v, proc

    def test_root_without_naemon_user(self):
        for options in ((), ("-d",)):
            v, proc = self.run_vedette("lock_file=vedette.lock\n", options)
            self.assertEqual(proc.returncode, 1, options)
            self.assertIn("ERROR: do not start vedette as root user.", proc.stderr)
            self.assertIn("--allow-root", proc.stderr)
            self.assertFalse(os.path.exists(v.log_path), "nothing is created")
            self.assertFalse(os.path.exists(v.path("vedette.lock")))

    def test_root_named_as_naemon_user(self):
        v, proc = self.run_vedette("naemon_user=root\n")
        self.assertEqual(proc.returncode, 1)
        self.assertIn("ERROR: do not start vedette as root user.", proc.stderr)
        self.assertIn("naemon_user 'root' is root", proc.stderr)

    def test_unknown_user_and_group_are_named(self):
        for options in ((), ("-d",)):
            v, proc = self.run_vedette("naemon_user=no-such-user-xyz\nlock_file=vedette.lock\n", options)
            self.assertEqual(proc.returncode, 1, options)
            self.assertIn("Error: Could not get passwd entry for naemon_user 'no-such-user-xyz': "
                          "no such user.", proc.stderr)
            self.assertFalse(os.path.exists(v.log_path))
            self.assertFalse(os.path.exists(v.path("vedette.lock")))
        v, proc = self.run_vedette("naemon_user=nobody\nnaemon_group=no-such-group-xyz\n")
        self.assertEqual(proc.returncode, 1)
        self.assertIn("Error: Could not get group entry for naemon_group 'no-such-group-xyz': no such group.",
                      proc.stderr)

    def test_lock_file_planted_as_a_link_is_not_followed(self):
        # Root writes the lock file in a directory the daemon's user may own: a link there must not lead on.
        v = RunningVedette(self, objects="", main_extra="lock_file=vedette.lock\n", start=False)
        victim = v.path("victim")
        with open(victim, "w") as f:
            f.write("keep me\n")
        os.symlink(victim, v.path("vedette.lock"))
        proc = subprocess.run([vedette_test.vedette_bin(), "--allow-root", "-d", v.path("vedette.cfg")],
                              cwd=v.dir, capture_output=True, text=True, timeout=30)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("Failed to obtain lock on file %s" % v.path("vedette.lock"), proc.stderr)
        with open(victim) as f:
            self.assertEqual(f.read(), "keep me\n")

    def test_allow_root_runs_as_root_with_a_warning(self):
        v = RunningVedette(self, objects="", allow_root=True)
        self.assertEqual(proc_ids(v.proc.pid, "Uid"), [0, 0, 0, 0])
        self.assertEqual(v.stop(), 0)
        with open(v.path("stdout.txt")) as f:
            self.assertIn("WARNING: you are running as root which is not recommended.", f.read())


def wait_for_exit(pid, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open("/proc/%d/stat" % pid) as f:
                if f.read().split(")")[-1].split()[0] == "Z":
                    return
        except FileNotFoundError:
            return
        time.sleep(0.05)
    raise AssertionError("PID %d still runs %d s after SIGTERM" % (pid, timeout))


def kill_quietly(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


if __name__ == "__main__":
    unittest.main()
