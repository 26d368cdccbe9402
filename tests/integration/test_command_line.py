"""The command line as Naemon's getopt reads it (issue 35): short options combine, -p writes the precached
objects file, a refused start says why in the log too, and the log says when the core is ready."""
import os
import subprocess
import unittest

import vedette_test

from running_daemon import HOST, RunningVedette


def run(*args, cwd=None):
    return subprocess.run([vedette_test.vedette_bin(), *args], cwd=cwd, capture_output=True, text=True, timeout=60)


class CommandLine(unittest.TestCase):
    def config(self, objects=HOST, main=""):
        v = RunningVedette(self, objects=objects, main_extra="precached_object_file=objects.precache\n" + main,
                           start=False)
        return v

    def test_vp_writes_the_precached_objects_file_as_objects_cache(self):
        v = self.config()
        done = run("-vp", v.path("vedette.cfg"))
        self.assertEqual(done.returncode, 0, done.stdout)
        self.assertIn("Things look okay", done.stdout)
        self.assertTrue(done.stdout.endswith("Object precache file created:\n%s\n" % v.path("objects.precache")),
                      done.stdout)
        with open(v.path("objects.precache")) as f:
            precache = f.read()
        self.assertIn("define host {\n\thost_name\tweb01\n", precache)
        # The same text objects.cache gets when the daemon starts, but for the time it was made.
        v.start()
        v.stop()
        with open(v.path("objects.cache")) as f:
            cache = f.read()
        strip = lambda text: [l for l in text.splitlines() if "Created:" not in l]
        self.assertEqual(strip(precache), strip(cache))

    def test_p_alone_is_quiet_and_combined_options_are_read_one_by_one(self):
        v = self.config()
        done = run("-p", v.path("vedette.cfg"))
        self.assertEqual((done.returncode, done.stdout),
                         (0, "Object precache file created:\n%s\n" % v.path("objects.precache")))
        for options in (["-vv"], ["-v", "-v"], ["-uv"], ["-Tv"], ["-vW", "worker.sock"], ["-vWworker.sock"]):
            done = run(*options, v.path("vedette.cfg"))
            self.assertEqual(done.returncode, 0, (options, done.stdout, done.stderr))
            self.assertIn("Things look okay", done.stdout, options)
        done = run("-vx", v.path("vedette.cfg"))
        self.assertTrue(done.stdout.startswith("Warning: -x is deprecated and will be removed\n"), done.stdout)
        done = run("-vq", v.path("vedette.cfg"))
        self.assertEqual(done.returncode, 1)
        self.assertIn("unknown option '-q'", done.stderr)

    def test_a_refused_start_says_why_in_the_log_too(self):
        objects = HOST.replace("  contacts admin\n", "  contacts admin\n  check_command no_such_command\n")
        v = self.config(objects=objects, main="lock_file=vedette.pid\n")
        for options in ([], ["-d"]):
            done = run("--allow-root", *options, v.path("vedette.cfg"), cwd=v.dir)
            self.assertEqual(done.returncode, 1, options)
            self.assertIn("no_such_command", done.stderr)
        lines = v.log().splitlines()
        errors = [l for l in lines if "Error:" in l and "no_such_command" in l]
        self.assertEqual(len(errors), 2, lines)
        self.assertRegex(lines[-1], r"^\[\d+\] Bailing out due to 1 error\(s\) in the configuration \(PID=\d+\)$")

    def test_the_log_says_when_the_core_is_ready(self):
        v = self.config()
        v.start()
        v.wait_for(r"^\[\d+\] Vedette successfully initialized \(PID=%d\)$" % v.proc.pid)
        # Naemon's format for the start-up time, the zone named: "Fri Dec 04 17:41:12 UTC 2026".
        v.wait_for(r"^\[\d+\] Local time is [A-Z][a-z]{2} [A-Z][a-z]{2} \d{2} \d{2}:\d{2}:\d{2} \S+ \d{4}$")
        self.assertEqual(v.stop(), 0)


if __name__ == "__main__":
    unittest.main()
