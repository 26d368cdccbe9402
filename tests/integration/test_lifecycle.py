"""Stopping the real daemon: SIGTERM lets running checks finish (bounded), then cleans up as Naemon does."""
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import time
import unittest

import livestatus_client as ls
import vedette_test

from running_daemon import HOST, RunningVedette, service, wait_for_file

def write_plugin(directory, name, body):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, 0o755)
    return path


class SigtermShutdown(unittest.TestCase):
    def test_running_check_finishes_and_is_applied_then_files_are_removed(self):
        v = RunningVedette(self, objects="", start=False)
        plugin = write_plugin(v.dir, "slow.sh", 'touch "$0.started"; sleep 1; echo "late but counted"; exit 2\n')
        with open(v.path("objects.cfg"), "a") as f:
            f.write(HOST + service("SLOW", "run!" + plugin))
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
        caught = log.find("Caught 'Terminated', shutting down...")
        done = log.find("Successfully shutdown... (PID=")
        self.assertTrue(0 <= caught < alert < done, log)
        self.assertFalse(os.path.exists(v.path("status.dat")), "Naemon removes status.dat when it stops")
        self.assertFalse(os.path.exists(v.cmd_path), "and the command file")

    def test_hanging_check_is_killed_after_the_grace_and_stop_is_bounded(self):
        v = RunningVedette(self, objects="", start=False)
        plugin = write_plugin(v.dir, "hang.sh", 'echo $$ > "$0.pid"; exec sleep 1000\n')
        with open(v.path("objects.cfg"), "a") as f:
            f.write(HOST + service("HANG", "run!" + plugin))
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


class Retention(unittest.TestCase):
    MAIN = """\
status_file=status.dat
retain_state_information=1
state_retention_file=retention.dat
retention_update_interval=1
log_initial_states=1
"""

    def test_states_survive_a_restart_and_autosave_runs(self):
        objects = HOST + service("DISK", "check_state_file!disk.state")
        v = RunningVedette(self, objects=objects, main_extra=self.MAIN, start=False)
        v.set_state("disk.state", 2, "DISK CRITICAL - 99% full")
        v.start()
        v.wait_for(r"SERVICE ALERT: web01;DISK;CRITICAL;HARD;1;DISK CRITICAL - 99% full")
        # retention_update_interval is in interval_length units: every second here.
        v.wait_for(r"Auto-save of retention data completed successfully\.", count=2)
        self.assertEqual(v.stop(), 0)
        saves = [int(line[1:11]) for line in v.log().splitlines() if "Auto-save" in line]
        self.assertLessEqual(len(saves), saves[-1] - saves[0] + 2, "one save per second, not more")
        self.assertIn("Retention data successfully saved.", v.log())
        with open(v.path("retention.dat")) as f:
            saved = f.read()
        block = saved[saved.index("service {"):]
        block = block[:block.index("}")]
        self.assertIn("host_name=web01\n", block)
        self.assertIn("service_description=DISK\n", block)
        self.assertIn("current_state=2\n", block)
        self.assertIn("plugin_output=DISK CRITICAL - 99% full\n", block)

        # The next start sees the retained state before any check runs (the check now says OK).
        v.set_state("disk.state", 0, "DISK OK")
        os.rename(v.log_path, v.path("first.log"))
        with open(v.path("objects.cfg")) as f:
            text = f.read()
        with open(v.path("objects.cfg"), "w") as f:
            f.write(text.replace("check_interval 1\n  contacts admin\n}\n", "check_interval 600\n  contacts admin\n}\n"))
        v.start()
        v.wait_for(r"INITIAL SERVICE STATE: web01;DISK;CRITICAL;HARD;1;DISK CRITICAL - 99% full")
        self.assertEqual(v.stop(), 0)

    def test_unknown_fields_warn_and_vanished_objects_are_dropped(self):
        v = RunningVedette(self, objects=HOST, main_extra=self.MAIN, start=False)
        with open(v.path("retention.dat"), "w") as f:
            f.write("info {\ncreated=1700000000\nversion=1.5.2\n}\n"
                    "host {\nhost_name=web01\nhas_been_checked=1\ncurrent_state=1\nstate_type=1\n"
                    "plugin_output=was down\nfrobnicate=yes\n}\n"
                    "host {\nhost_name=gone\ncurrent_state=1\n}\n")
        v.start()
        v.wait_for(r"Warning: .*/retention\.dat:11: unknown variable 'frobnicate' in a host block; ignored")
        v.wait_for(r"INITIAL HOST STATE: web01;DOWN;HARD;1;was down")
        v.wait_for(r"Warning: Retention file '.*retention\.dat' has 1 host\(s\), 0 service\(s\) and 0 contact\(s\) "
                   r"that are no longer configured; their state was dropped\.")
        self.assertNotIn("INITIAL HOST STATE: gone", v.log())
        self.assertEqual(v.stop(), 0)


class InitialStates(unittest.TestCase):
    def test_logged_in_naemons_object_order_whatever_the_definition_order(self):
        objects = HOST.replace("web01", "web02") + HOST
        for host in ("web02", "web01"):
            for description in ("SSH", "HTTP", "App Status"):
                objects += service(description, "check_dummy!0!fine", interval=600, host_name=host)
        v = RunningVedette(self, objects=objects, main_extra="log_initial_states=1\n")
        v.wait_for(r"INITIAL SERVICE STATE: web02;SSH;")
        lines = [line.split("] ", 1)[1] for line in v.log().splitlines() if " STATE: web0" in line]
        self.assertEqual(lines, [
            "INITIAL HOST STATE: web01;UP;HARD;1;", "INITIAL HOST STATE: web02;UP;HARD;1;",
            "INITIAL SERVICE STATE: web01;App Status;OK;HARD;1;", "INITIAL SERVICE STATE: web01;HTTP;OK;HARD;1;",
            "INITIAL SERVICE STATE: web01;SSH;OK;HARD;1;", "INITIAL SERVICE STATE: web02;App Status;OK;HARD;1;",
            "INITIAL SERVICE STATE: web02;HTTP;OK;HARD;1;", "INITIAL SERVICE STATE: web02;SSH;OK;HARD;1;"])
        self.assertEqual(v.stop(), 0)


class ObjectCache(unittest.TestCase):
    """objects.cache is written beside the core's start-up (retention.dat), and waited for before the core
    says it is initialized, as Naemon has it written by then."""

    def test_written_by_the_time_the_core_is_initialized(self):
        objects = HOST + service("HTTP", "check_dummy!0!fine", interval=600)
        v = RunningVedette(self, objects=objects, start=False)
        v.start()
        v.wait_for(r"Vedette successfully initialized")
        with open(v.path("objects.cache")) as f:
            text = f.read()
        self.assertIn("define host {\n\thost_name\tweb01\n", text)
        self.assertIn("\tservice_description\tHTTP\n", text)
        self.assertEqual(v.stop(), 0)

    def test_a_failed_write_is_logged_and_the_core_runs_on(self):
        v = RunningVedette(self, objects=HOST, main_extra="object_cache_file=missing/objects.cache\n")
        v.wait_for(r"Vedette successfully initialized")
        lines = v.log().splitlines()
        ready = [i for i, line in enumerate(lines) if "Vedette successfully initialized" in line]
        error = [i for i, line in enumerate(lines)
                 if "Error: Unable to create temp file '%s" % v.path("missing/objects.cache") in line]
        self.assertTrue(ready and error and error[0] < ready[0], v.log())
        self.assertEqual(v.stop(), 0)


class DaemonMode(unittest.TestCase):
    def test_forks_holds_the_lock_refuses_a_second_instance_and_cleans_up(self):
        v = RunningVedette(self, objects=HOST, main_extra="status_file=status.dat\nlock_file=vedette.lock\n",
                           start=False)
        started = time.monotonic()
        # A relative main config path: the daemon changes to / and must still find everything.
        first = subprocess.run([vedette_test.vedette_bin(), "--allow-root", "-d", "vedette.cfg"], cwd=v.dir,
                               capture_output=True, text=True, timeout=30)
        self.assertEqual(first.returncode, 0, first.stderr)
        self.assertLess(time.monotonic() - started, 10)
        # The parent returned once the daemon was up: the command file exists, status.dat follows within
        # seconds (its writer thread has the first snapshot).
        self.assertTrue(os.path.exists(v.cmd_path))
        wait_for_file(v.path("status.dat"), timeout=5)
        with open(v.path("vedette.lock")) as f:
            pid = int(f.read())
        self.addCleanup(kill_quietly, pid)
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read().split(")")[-1].split()
        self.assertEqual(os.readlink("/proc/%d/cwd" % pid), "/")
        self.assertEqual(int(stat[3]), pid, "session leader")
        # The log has its own writer thread: the line follows the parent's return, it does not precede it.
        v.wait_for(r"starting\.\.\. \(PID=%d\)" % pid, timeout=10)

        second = subprocess.run([vedette_test.vedette_bin(), "--allow-root", "-d", v.path("vedette.cfg")],
                                cwd=v.dir, capture_output=True, text=True, timeout=30)
        self.assertEqual(second.returncode, 1)
        self.assertIn("Lockfile '%s' looks like its already held by another instance of Vedette (PID %d)"
                      % (v.path("vedette.lock"), pid), second.stderr)

        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 20
        while os.path.exists("/proc/%d" % pid) and time.monotonic() < deadline:
            with open("/proc/%d/stat" % pid) as f:
                if f.read().split(")")[-1].split()[0] == "Z":
                    break
            time.sleep(0.05)
        self.assertFalse(os.path.exists(v.path("vedette.lock")), "the lock file goes at shutdown")
        self.assertFalse(os.path.exists(v.path("status.dat")))
        self.assertIn("Successfully shutdown... (PID=%d)" % pid, v.log())


class SingleInstance(unittest.TestCase):
    """A second instance on the same lock file, command file or Livestatus socket refuses to start, in
    either mode, and leaves the running one's files alone (issue 33: a foreground run next to a daemon took
    its socket and FIFO over and deleted both when it stopped)."""
    MAIN = ("lock_file=vedette.lock\nstatus_file=status.dat\n"
            "broker_module=/usr/lib/naemon/naemon-livestatus/livestatus.o live\n")

    def assert_still_serving(self, v):
        self.assertTrue(stat.S_ISFIFO(os.stat(v.cmd_path).st_mode), "the command file is still there")
        self.assertEqual(ls.query(v.path("live"), "GET status\nColumns: program_version\n").strip(), "0.1.0")
        marker = "still reading %f" % time.time()
        v.command("LOG;" + marker)  # the FIFO still reaches the running instance
        v.wait_for(re.escape(marker))

    def run_second(self, v, *options, config=None):
        return subprocess.run([vedette_test.vedette_bin(), "--allow-root", *options,
                               config or v.path("vedette.cfg")],
                              cwd=v.dir, capture_output=True, text=True, timeout=30)

    def test_foreground_next_to_a_daemon_refuses_and_touches_nothing(self):
        v = RunningVedette(self, objects=HOST, main_extra=self.MAIN, start=False)
        first = self.run_second(v, "-d")
        self.assertEqual(first.returncode, 0, first.stderr)
        with open(v.path("vedette.lock")) as f:
            pid = int(f.read())
        self.addCleanup(kill_quietly, pid)
        ls.wait_for_socket(v.path("live"))
        v.wait_for(r"starting\.\.\. \(PID=%d\)" % pid, timeout=10)

        second = self.run_second(v)  # the admin forgot -v
        self.assertEqual(second.returncode, 1)
        self.assertIn("Lockfile '%s' looks like its already held by another instance of Vedette (PID %d)"
                      % (v.path("vedette.lock"), pid), second.stderr)
        self.assert_still_serving(v)
        self.assertEqual(v.log().count("starting..."), 1, "the second one logged nothing")
        os.kill(pid, signal.SIGTERM)
        v.wait_for(r"Successfully shutdown\.\.\. \(PID=%d\)" % pid)

    def test_a_daemon_next_to_a_foreground_instance_refuses(self):
        v = RunningVedette(self, objects=HOST, main_extra=self.MAIN)
        ls.wait_for_socket(v.path("live"))
        with open(v.path("vedette.lock")) as f:
            self.assertEqual(int(f.read()), v.proc.pid, "the foreground instance holds the lock too")
        second = self.run_second(v, "-d")
        self.assertEqual(second.returncode, 1)
        self.assertIn("looks like its already held by another instance of Vedette (PID %d)" % v.proc.pid,
                      second.stderr)
        self.assert_still_serving(v)
        self.assertEqual(v.stop(), 0)
        self.assertFalse(os.path.exists(v.path("vedette.lock")), "removed at shutdown")

    def test_another_lock_file_on_the_same_command_file_or_socket_refuses(self):
        v = RunningVedette(self, objects=HOST, main_extra=self.MAIN)
        ls.wait_for_socket(v.path("live"))
        other = vedette_test.make_temp_dir(self)
        with open(v.path("vedette.cfg")) as f:
            base = f.read().replace("cfg_file=objects.cfg", "cfg_file=%s" % v.path("objects.cfg"))
        base = base.replace("resource_file=resource.cfg", "resource_file=%s" % v.path("resource.cfg"))
        base = base.replace("lock_file=vedette.lock", "lock_file=%s/other.lock" % other)
        base = base.replace("log_file=vedette.log", "log_file=%s/other.log" % other)
        base = base.replace("status_file=status.dat", "status_file=%s/status.dat" % other)
        base = base.replace("object_cache_file=objects.cache", "object_cache_file=%s/objects.cache" % other)
        same_fifo = base.replace("live\n", "%s/live\n" % other).replace(
            "command_file=vedette.cmd", "command_file=%s" % v.cmd_path)
        same_socket = base.replace("live\n", "%s\n" % v.path("live")).replace(
            "command_file=vedette.cmd", "command_file=%s/other.cmd" % other)
        for name, text, message in [
                ("fifo.cfg", same_fifo, "command file '%s' is being read by another process" % v.cmd_path),
                ("socket.cfg", same_socket, "Livestatus: socket '%s' is served by another process"
                 % v.path("live"))]:
            with open(os.path.join(other, name), "w") as f:
                f.write(text)
            for options in ([], ["-d"]):
                second = self.run_second(v, *options, config=os.path.join(other, name))
                self.assertEqual(second.returncode, 1, (name, options, second.stderr))
                self.assertIn(message, second.stderr, (name, options))
                self.assertFalse(os.path.exists(os.path.join(other, "other.lock")), "its own lock is released")
                self.assertFalse(os.path.exists(os.path.join(other, "objects.cache")), "nothing written")
            self.assert_still_serving(v)
        self.assertEqual(v.stop(), 0)

    def test_a_leftover_socket_and_lock_file_do_not_stop_a_start(self):
        v = RunningVedette(self, objects=HOST, main_extra=self.MAIN, start=False)
        leftover = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        leftover.bind(v.path("live"))  # bound, never listening: what a killed instance leaves
        leftover.close()
        with open(v.path("vedette.lock"), "w") as f:
            f.write("999999\n")  # nobody holds its lock
        v.start()
        ls.wait_for_socket(v.path("live"))
        self.assert_still_serving(v)
        self.assertEqual(v.stop(), 0)


class FinalSave(unittest.TestCase):
    def test_a_failed_final_save_is_logged_and_the_exit_code_says_so(self):
        main = "retain_state_information=1\nstate_retention_file=kept/retention.dat\nretention_update_interval=60\n"
        v = RunningVedette(self, objects=HOST, main_extra=main, start=False)
        os.mkdir(v.path("kept"))
        v.start()
        v.command("ADD_HOST_COMMENT;web01;1;admin;added after the last save")
        v.wait_for(r"EXTERNAL COMMAND: ADD_HOST_COMMENT")
        shutil.rmtree(v.path("kept"))  # as a lost or full disk: the file cannot be written
        self.assertEqual(v.stop(), 1)
        log = v.log()
        self.assertRegex(log, r"Error: Final save of retention data to '.*kept/retention\.dat' failed: .+; what "
                              r"changed since the last successful save is lost")
        self.assertIn("Shutdown with errors: retention data not saved (PID=%d)" % v.proc.pid, log)
        self.assertNotIn("Successfully shutdown", log)
        self.assertNotIn("Retention data successfully saved.", log)


def kill_quietly(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class LogReopen(unittest.TestCase):
    def test_sigusr1_opens_a_new_log_after_logrotate_moved_it(self):
        objects = HOST + service("DISK", "check_state_file!disk.state")
        v = RunningVedette(self, objects=objects, start=False)
        v.set_state("disk.state", 2, "DISK CRITICAL")
        v.start()
        v.wait_for(r"SERVICE ALERT: web01;DISK;CRITICAL;HARD;1;DISK CRITICAL")
        os.rename(v.log_path, v.log_path + ".1")
        v.proc.send_signal(signal.SIGUSR1)
        v.wait_for(r"LOG ROTATION: EXTERNAL")
        v.set_state("disk.state", 0, "DISK OK")
        v.wait_for(r"SERVICE ALERT: web01;DISK;OK;HARD;1;DISK OK")
        self.assertEqual(v.proc.poll(), None, "SIGUSR1 does not stop the daemon")
        with open(v.log_path + ".1") as f:
            old = f.read()
        self.assertIn("SERVICE ALERT: web01;DISK;CRITICAL", old)
        self.assertNotIn("DISK OK", old)
        self.assertIn("LOG VERSION: 2.0", v.log())
        self.assertEqual(v.stop(), 0)


if __name__ == "__main__":
    unittest.main()
