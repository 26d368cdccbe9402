"""Configurations and files a bad day or an attacker hands the real binary: include cycles, group loops and
deep group chains, chains of templates and groups 100k deep, directories nested thousands deep, FIFOs and
devices where files are expected, and a status.dat that cannot be written.
`vedette -v` reports each with its file and line instead of crashing, hanging or eating memory; a running
daemon refuses such a configuration on SIGHUP and goes on; a PROCESS_FILE naming a FIFO does not stop the
core; a failed status.dat write reaches the log.
"""
import os
import signal
import subprocess
import time
import unittest

import vedette_test as vt
from running_daemon import BASE_OBJECTS, HOST, RunningVedette, service


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def verify(path, timeout=60):
    """`vedette -v path`: (exit code, output)."""
    proc = subprocess.run([vt.vedette_bin(), "-v", path], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, errors="replace", timeout=timeout)
    return proc.returncode, proc.stdout


def peak_rss_mib(path, timeout=60):
    """Runs `vedette -v path` and returns (exit code, output, peak RSS in MiB) from wait4()."""
    pid = os.fork()
    out_path = path + ".out"
    if pid == 0:
        fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.execv(vt.vedette_bin(), [vt.vedette_bin(), "-v", path])
    deadline = time.monotonic() + timeout
    while True:
        got, status, usage = os.wait4(pid, os.WNOHANG)
        if got == pid:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.wait4(pid, 0)
            raise AssertionError("vedette -v %s ran longer than %d s" % (path, timeout))
        time.sleep(0.02)
    code = os.waitstatus_to_exitcode(status)
    return code, vt.read_text(out_path), usage.ru_maxrss / 1024.0


def chain_objects(depth):
    """Hostgroups g<depth-1> > ... > g1 > g0 and servicegroups likewise, each with a host and a service of its
    own; each group is defined after the one it includes, the order that doubled the lists per level."""
    text = ""
    for i in range(depth):
        sub = "  hostgroup_members g%d\n" % (i - 1) if i > 0 else ""
        ssub = "  servicegroup_members s%d\n" % (i - 1) if i > 0 else ""
        text += ("define host {\n  host_name h%d\n  max_check_attempts 1\n  contacts admin\n}\n"
                 "define service {\n  host_name h%d\n  service_description svc\n  check_command check_dummy!0\n"
                 "  max_check_attempts 1\n  contacts admin\n}\n"
                 "define hostgroup {\n  hostgroup_name g%d\n  members h%d\n%s}\n"
                 "define servicegroup {\n  servicegroup_name s%d\n  members h%d,svc\n%s}\n"
                 % (i, i, i, i, sub, i, i, ssub))
    return text


def deep_chain(kind, depth):
    """Objects whose resolution once took one call per level: the first definition read needs the whole chain."""
    if kind == "host templates":
        text = "".join("define host {\n  name t%d\n  register 0\n%s}\n"
                       % (i, "  use t%d\n" % (i - 1) if i else "  notes root\n") for i in reversed(range(depth)))
        return text + "define host {\n  host_name h\n  use t%d\n  max_check_attempts 1\n  contacts admin\n}\n" % (
            depth - 1)
    if kind == "timeperiod templates":
        text = "".join("define timeperiod {\n  name p%d\n  register 0\n%s}\n"
                       % (i, "  use p%d\n" % (i - 1) if i else "  monday 00:00-24:00\n") for i in reversed(range(depth)))
        return text + "define timeperiod {\n  timeperiod_name tp\n  alias tp\n  use p%d\n}\n" % (depth - 1)
    assert kind == "hostgroup_members"
    return HOST + "".join("define hostgroup {\n  hostgroup_name g%d\n  %s\n}\n"
                   % (i, "hostgroup_members g%d" % (i - 1) if i else "members web01") for i in range(depth))


def nested_dirs(root, trees, depth):
    """`trees` directories each nested `depth` deep, the file at the bottom of each including the next tree."""
    for t in range(trees):
        path = os.path.join(root, "t%d" % t)
        os.mkdir(path)
        fd = os.open(path, os.O_RDONLY)
        for _ in range(depth):  # relative to the level above: the full path outgrows what one call accepts
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        last = "include_dir=%s\n" % os.path.join(root, "t%d" % (t + 1)) if t + 1 < trees else HOST
        with os.fdopen(os.open("x.cfg", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as f:
            f.write(last)
        os.close(fd)


class VerifyRefuses(unittest.TestCase):
    def setUp(self):
        self.dir = vt.make_temp_dir(self)

    def main(self, extra=""):
        path = os.path.join(self.dir, "naemon.cfg")
        write(path, "cfg_file=base.cfg\ncfg_file=objects.cfg\nillegal_macro_output_chars=`~$&|'\"<>\n" + extra)
        write(os.path.join(self.dir, "base.cfg"), BASE_OBJECTS)
        return path

    def test_object_file_including_itself(self):
        write(os.path.join(self.dir, "objects.cfg"), HOST + "include_file=objects.cfg\n")
        rc, out = verify(self.main())
        self.assertEqual(rc, 1, out)
        self.assertIn("Error: include cycle: '%s/objects.cfg' is already being read (it includes itself) "
                      "(config file '%s/objects.cfg', line 9)" % (self.dir, self.dir), out)

    def test_include_cycle_through_include_dir(self):
        write(os.path.join(self.dir, "objects.cfg"), HOST + "include_dir=more\n")
        write(os.path.join(self.dir, "more", "a.cfg"), "include_file=../objects.cfg\n")
        rc, out = verify(self.main())
        self.assertEqual(rc, 1, out)
        self.assertIn("(config file '%s/more/a.cfg', line 1)" % self.dir, out)
        self.assertIn("include cycle", out)

    def test_deep_group_chain_loads_in_bounded_memory(self):
        write(os.path.join(self.dir, "objects.cfg"), chain_objects(27))
        rc, out, rss = peak_rss_mib(self.main())
        self.assertEqual(rc, 0, out)
        # Doubling per level took 600 MB at this depth; a load of this size takes a few MiB.
        self.assertLess(rss, 100, "peak RSS of vedette -v: %.1f MiB" % rss)

    def test_group_loop_is_an_error_in_bounded_memory(self):
        groups = "".join("define hostgroup {\n  hostgroup_name g%d\n  members web01\n  hostgroup_members g%d\n}\n"
                         % (i, (i + 1) % 23) for i in range(23))
        write(os.path.join(self.dir, "objects.cfg"), HOST + groups)
        rc, out, rss = peak_rss_mib(self.main())
        self.assertEqual(rc, 1, out)
        self.assertIn("Error: hostgroups 'g22' and 'g0' are part of a hostgroup_members include loop "
                      "(config file '%s/objects.cfg', starting on line 119)" % self.dir, out)
        self.assertLess(rss, 100, "peak RSS of vedette -v: %.1f MiB" % rss)

    def test_chains_100k_deep_load(self):
        # Each crashed `vedette -v` with a stack overflow when it took one call per level.
        for kind in ("host templates", "timeperiod templates", "hostgroup_members"):
            with self.subTest(kind):
                write(os.path.join(self.dir, "objects.cfg"), deep_chain(kind, 100000))
                rc, out = verify(self.main())
                self.assertEqual(rc, 0, out[-2000:])
                self.assertIn("Total Errors:   0", out)

    def test_deep_cfg_dir_nesting_loads_in_bounded_memory(self):
        # rm walks a deep tree without recursing, shutil.rmtree does not; cleanups run last-added first.
        self.addCleanup(subprocess.run, ["rm", "-rf", os.path.join(self.dir, "t0"), os.path.join(self.dir, "t1")])
        nested_dirs(self.dir, trees=2, depth=1500)
        path = os.path.join(self.dir, "naemon.cfg")
        write(path, "cfg_file=base.cfg\ncfg_dir=t0\nillegal_macro_output_chars=`~$&|'\"<>\n")
        write(os.path.join(self.dir, "base.cfg"), BASE_OBJECTS)
        rc, out, rss = peak_rss_mib(path)
        self.assertEqual(rc, 0, out[-2000:])
        self.assertIn("Checked 1 hosts.", out)
        # A full path kept per level took memory quadratic in the depth (~100 MiB here) and, some 16k levels
        # down, the stack; a walk holding names only needs a few MiB.
        if not vt.sanitized():
            self.assertLess(rss, 40, "peak RSS of vedette -v: %.1f MiB" % rss)

    def test_fifos_and_devices_are_refused_not_waited_on(self):
        os.mkfifo(os.path.join(self.dir, "fifo.cfg"))
        os.mkfifo(os.path.join(self.dir, "resource.cfg"))
        write(os.path.join(self.dir, "objects.cfg"), HOST + "include_file=fifo.cfg\ninclude_file=/dev/zero\n")
        rc, out = verify(self.main("resource_file=resource.cfg\n"), timeout=20)
        self.assertEqual(rc, 1, out)
        self.assertIn("Error: cannot open resource file '%s/resource.cfg' for reading: is a FIFO, not a regular "
                      "file (config file '%s/naemon.cfg', line 4)" % (self.dir, self.dir), out)
        # The main config's errors stop the load before the object files, as in Naemon; without them:
        write(os.path.join(self.dir, "naemon.cfg"), "cfg_file=base.cfg\ncfg_file=objects.cfg\n")
        rc, out = verify(os.path.join(self.dir, "naemon.cfg"), timeout=20)
        self.assertEqual(rc, 1, out)
        self.assertIn("Error: Cannot open config file '%s/fifo.cfg' for reading: is a FIFO, not a regular file "
                      "(config file '%s/objects.cfg', line 9)" % (self.dir, self.dir), out)
        self.assertIn("Error: Cannot open config file '/dev/zero' for reading: is a character device, not a "
                      "regular file (config file '%s/objects.cfg', line 10)" % self.dir, out)

    def test_cfg_dir_never_walks_proc(self):
        write(os.path.join(self.dir, "objs", "host.cfg"), HOST)
        os.symlink("/proc", os.path.join(self.dir, "objs", "proc"))
        os.symlink(".", os.path.join(self.dir, "objs", "self"))
        path = os.path.join(self.dir, "naemon.cfg")
        write(path, "cfg_file=base.cfg\ncfg_dir=objs\n")
        write(os.path.join(self.dir, "base.cfg"), BASE_OBJECTS)
        rc, out = verify(path, timeout=20)
        self.assertIn("Warning: skipping '%s/objs/proc': a pseudo filesystem (such as /proc) holds no "
                      "configuration" % self.dir, out)
        self.assertIn("Error: config directory '%s/objs/self' is already being read" % self.dir, out)
        self.assertEqual(rc, 1, out)


class RunningDaemon(unittest.TestCase):
    def test_sighup_refuses_cycles_loops_and_fifos_and_survives(self):
        objects = HOST + service("DISK", "check_dummy!0!fine")
        v = RunningVedette(self, objects=objects, main_extra="status_file=status.dat\nstatus_update_interval=1\n")
        os.mkfifo(v.path("fifo.cfg"))
        broken = [
            ("include_file=objects.cfg\n", r"include cycle: '.*/objects\.cfg' is already being read"),
            ("include_dir=more\n", r"include cycle: '.*/more/\.\./objects\.cfg' is already being read"),
            ("include_file=fifo.cfg\n", r"fifo\.cfg' for reading: is a FIFO, not a regular file"),
            ("define hostgroup {\n  hostgroup_name a\n  hostgroup_members b\n}\n"
             "define hostgroup {\n  hostgroup_name b\n  hostgroup_members a\n}\n",
             r"hostgroups '.' and '.' are part of a hostgroup_members include loop"),
        ]
        write(v.path("more/a.cfg"), "include_file=../objects.cfg\n")
        for n, (extra, error) in enumerate(broken, start=1):
            v.write_objects(objects + extra)
            v.proc.send_signal(signal.SIGHUP)
            v.wait_for(r"Error: Reload failed: \d+ error\(s\) in the configuration; the running configuration "
                       r"is kept", count=n)
            v.wait_for(error)
            self.assertIsNone(v.proc.poll(), "the daemon survives the reload")
        # Still checking, and a good configuration reloads.
        v.command("SCHEDULE_FORCED_SVC_CHECK;web01;DISK;%d" % int(time.time()))
        v.write_objects(objects)
        v.proc.send_signal(signal.SIGHUP)
        v.wait_for(r"Configuration reloaded: 1 hosts, 1 services")
        self.assertEqual(v.stop(), 0)

    def test_process_file_on_a_fifo_does_not_stop_the_core(self):
        v = RunningVedette(self, objects=HOST + service("DISK", "check_dummy!0!fine"))
        os.mkfifo(v.path("commands.fifo"))
        v.command("PROCESS_FILE;%s;0" % v.path("commands.fifo"))
        v.command("LOG;after the fifo")
        v.wait_for(r"Error: Cannot open file '.*commands\.fifo' to process external commands! \(is a FIFO, not a "
                   r"regular file\)", timeout=10)
        v.wait_for(r"^\[\d+\] after the fifo$", timeout=10)
        self.assertTrue(os.path.exists(v.path("commands.fifo")))
        self.assertEqual(v.stop(), 0)


class StatusFileFailures(unittest.TestCase):
    def test_unwritable_status_file_is_logged_once(self):
        v = RunningVedette(self, objects=HOST + service("DISK", "check_dummy!0!fine"),
                           main_extra="status_file=no-such-dir/status.dat\nstatus_update_interval=1\n")
        v.wait_for(r"Error: Unable to create temp file '.*no-such-dir/status\.dat.*' for writing status data: "
                   r"No such file or directory")
        time.sleep(2.5)  # two more failed writes, not logged again
        self.assertEqual(len(v.wait_for(r"Unable to create temp file")), 1, v.log())
        self.assertEqual(v.stop(), 0)

    def test_full_disk_is_logged_and_logged_again_after_a_success(self):
        if os.geteuid() != 0:
            self.skipTest("mounting a tmpfs needs root")
        v = RunningVedette(self, objects=HOST + service("DISK", "check_dummy!0!fine"), start=False,
                           main_extra="status_file=full/status.dat\nstatus_update_interval=1\n")
        os.mkdir(v.path("full"))
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", v.path("full")],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
        if not mounted:
            self.skipTest("no tmpfs can be mounted here")
        self.addCleanup(subprocess.run, ["umount", "-l", v.path("full")])
        filler = v.path("full/filler")

        def fill():
            fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            try:
                while True:
                    os.write(fd, b"x" * 4096)
            except OSError:
                pass
            finally:
                os.close(fd)

        fill()
        v.start()
        v.wait_for(r"Error: Unable to (save|update) status (data )?file '.*full/status\.dat'.*No space left on "
                   r"device|Error: Unable to create temp file '.*full/status\.dat.*No space left on device")
        os.unlink(filler)
        vt.wait_until("status.dat to be written", lambda: os.path.exists(v.path("full/status.dat")), 10)
        os.unlink(v.path("full/status.dat"))
        fill()
        v.wait_for(r"No space left on device", count=2)
        self.assertIsNone(v.proc.poll())
        os.unlink(filler)
        self.assertEqual(v.stop(), 0)


if __name__ == "__main__":
    unittest.main()
