"""What `make install` puts where (tests/package/debootstrap_test.sh does the same for the .deb in a fresh
Debian root, with the mirror): the programs, manual pages that render cleanly and name every option the
programs know, systemd units naming the installed binary, the logrotate file and the documentation; and the
installed vedette verifying Debian nagios4's shipped configuration unchanged."""
import os
import re
import subprocess
import unittest

import vedette_test


def build_dir():
    return os.path.dirname(vedette_test.vedette_bin())


def configured_prefix():
    with open(os.path.join(build_dir(), "CMakeCache.txt")) as f:
        return re.search(r"^CMAKE_INSTALL_PREFIX:PATH=(.*)$", f.read(), re.M).group(1)


class Install(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.stage = vedette_test.make_temp_dir()
        cls.prefix = configured_prefix()
        done = subprocess.run(["cmake", "--install", build_dir()], env=dict(os.environ, DESTDIR=cls.stage),
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise AssertionError("cmake --install failed:\n" + done.stdout + done.stderr)
        cls.root = cls.stage + cls.prefix

    def path(self, *parts):
        return os.path.join(self.root, *parts)

    def test_every_file_in_its_place(self):
        for program in ("vedette", "vedettestats", "vedette-worker"):
            self.assertTrue(os.access(self.path("bin", program), os.X_OK), program)
            self.assertTrue(os.path.isfile(self.path("share", "man", "man8", program + ".8")), program)
        for doc in ("README.md", "install.md", "compatibility.md", "livestatus.md"):
            self.assertTrue(os.path.isfile(self.path("share", "doc", "vedette", doc)), doc)
        etc = self.stage + ("/etc" if self.prefix == "/usr" else self.prefix + "/etc")
        self.assertTrue(os.path.isfile(os.path.join(etc, "logrotate.d", "vedette")))

    def test_units_name_the_installed_programs(self):
        units = self.path("lib", "systemd", "system")
        with open(os.path.join(units, "vedette.service")) as f:
            unit = f.read()
        self.assertIn("\nExecStart=%s/bin/vedette --daemon /etc/naemon/naemon.cfg\n" % self.prefix, unit)
        self.assertIn("\nConflicts=naemon.service nagios4.service\n", unit)
        with open(os.path.join(units, "vedette-worker.service")) as f:
            self.assertIn("\nExecStart=%s/bin/vedette-worker " % self.prefix, f.read())

    def rendered(self, program):
        page = self.path("share", "man", "man8", program + ".8")
        done = subprocess.run(["groff", "-man", "-ww", "-Tascii", page], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0)
        self.assertEqual(done.stderr, "", "groff warns about %s" % program)
        return re.sub(r".\x08", "", done.stdout)  # overstrike bold and underline

    def options_of(self, program, help_option):
        done = subprocess.run([self.path("bin", program), help_option], capture_output=True, text=True)
        return set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", done.stdout + done.stderr))

    def test_manual_pages_render_cleanly_and_name_every_option(self):
        for program, help_option in (("vedette", "--help"), ("vedettestats", "--help"),
                                     ("vedette-worker", "--help")):
            page = self.rendered(program)
            options = self.options_of(program, help_option)
            self.assertTrue(options, program)
            missing = sorted(o for o in options if o not in page)
            self.assertEqual(missing, [], "%s(8) lacks options its --help names" % program)
            for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "SEE ALSO"):
                self.assertIn("\n" + section, page, program)

    def test_the_installed_vedette_verifies_debians_nagios4_configuration(self):
        if not os.path.isfile("/etc/nagios4/nagios.cfg"):
            raise unittest.SkipTest("nagios4-core is not installed (scripts/install-deps.sh test)")
        done = subprocess.run([self.path("bin", "vedette"), "-v", "/etc/nagios4/nagios.cfg"],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("Things look okay", done.stdout)


if __name__ == "__main__":
    unittest.main()
