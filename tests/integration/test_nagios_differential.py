"""`vedette -v` against `nagios4 -v` on the same configuration: same object counts, both error-free.

Skipped (with the reason) when /usr/sbin/nagios4 (Debian package nagios4-core) is absent.
"""
import os
import re
import unittest

import vedette_test as vt

SAMPLE_DIR = "/etc/nagios4/objects"
SAMPLE_FILES = ("commands.cfg", "contacts.cfg", "timeperiods.cfg", "templates.cfg", "localhost.cfg")
PLUGIN_DIR = "/usr/lib/nagios/plugins"

# localhost.cfg and templates.cfg use commands that Debian ships in /etc/nagios-plugins/config
# (commented out in commands.cfg). Defined here when commands.cfg lacks them, so the test does not
# depend on which plugin packages happen to be installed.
SUPPLEMENTARY_COMMANDS = {
    "check-host-alive": "$USER1$/check_ping -H $HOSTADDRESS$ -w 5000,100% -c 5000,100% -p 1",
    "check_ping": "$USER1$/check_ping -H $HOSTADDRESS$ -w $ARG1$ -c $ARG2$",
    "check_http": "$USER1$/check_http -H $HOSTADDRESS$ -I $HOSTADDRESS$",
    "check_ssh": "$USER1$/check_ssh $HOSTADDRESS$",
}


class Differential:
    """Mixin: run both cores on main configs and compare."""

    def verify_both(self, vedette_cfg, nagios_cfg):
        nrc, nout, nerr = vt.run_nagios_verify(nagios_cfg)
        self.assertEqual(nrc, 0, "nagios4 rejects the config itself: " + vt.describe("nagios4 -v", nrc, nout, nerr))
        self.assertIn("Total Errors:   0", nout)
        ncounts = vt.parse_counts(nout)
        self.assertTrue(ncounts, "no 'Checked N ...' lines in nagios4 output:\n" + nout)

        vrc, vout, verr = vt.run_verify(vedette_cfg)
        self.assertEqual(vrc, 0, vt.describe("vedette -v", vrc, vout, verr))
        self.assertIn("Total Errors:   0", vout, vt.describe("vedette -v", vrc, vout, verr))
        self.assertEqual(vt.parse_totals(vout)[1], 0)
        self.assertEqual(vt.parse_counts(vout), ncounts,
                         "object counts differ (first: vedette, second: nagios4)\n"
                         + vt.describe("vedette -v", vrc, vout, verr))
        return ncounts


class TestGeneratedConfig(Differential, unittest.TestCase):
    """bench/gen_config.py's small config: templates, groups, applied services, dependencies, ..."""

    @classmethod
    def setUpClass(cls):
        vt.require_nagios()

    def setUp(self):
        gen = vt.gen_config_module()
        self.generated = gen.generate(vt.make_temp_dir(self), 100, 10)

    def test_naemon_main_config(self):
        """vedette.cfg (Naemon option names) vs nagios.cfg: the same objects."""
        counts = self.verify_both(self.generated["vedette_cfg"], self.generated["nagios_cfg"])
        # the generator's own expectation keeps it honest too
        self.assertEqual(counts, self.generated["counts"])

    def test_nagios_main_config(self):
        """A nagios.cfg is also a valid main config for a drop-in core (its extra options only warn)."""
        self.verify_both(self.generated["nagios_cfg"], self.generated["nagios_cfg"])


class TestDebianSampleObjects(Differential, unittest.TestCase):
    """The sample objects Debian's nagios4-common installs in /etc/nagios4/objects."""

    @classmethod
    def setUpClass(cls):
        vt.require_nagios()
        missing = [f for f in SAMPLE_FILES if not os.path.isfile(os.path.join(SAMPLE_DIR, f))]
        if missing:
            raise unittest.SkipTest("nagios4-common sample objects missing in %s: %s"
                                    % (SAMPLE_DIR, ", ".join(missing)))

    def test_sample_objects(self):
        d = vt.make_temp_dir(self)
        for sub in ("tmp", "checkresults", "rw"):
            os.mkdir(os.path.join(d, sub))
            os.chmod(os.path.join(d, sub), 0o1777)  # nagios4 -v checks them as the nagios user
        with open(os.path.join(d, "resource.cfg"), "w") as f:
            f.write("$USER1$=%s\n" % PLUGIN_DIR)

        with open(os.path.join(SAMPLE_DIR, "commands.cfg")) as f:
            defined = set(re.findall(r"^\s*command_name\s+(\S+)", f.read(), re.M))
        extra = {k: v for k, v in SUPPLEMENTARY_COMMANDS.items() if k not in defined}
        cfg_files = [os.path.join(SAMPLE_DIR, f) for f in SAMPLE_FILES]
        if extra:
            path = os.path.join(d, "plugin-commands.cfg")
            with open(path, "w") as f:
                for name, line in sorted(extra.items()):
                    f.write("define command {\n    command_name  %s\n    command_line  %s\n}\n\n" % (name, line))
            cfg_files.append(path)

        main = os.path.join(d, "main.cfg")
        with open(main, "w") as f:
            f.write("# Debian nagios4 sample objects\n")
            for path in cfg_files:
                f.write("cfg_file=%s\n" % path)
            f.write("resource_file=%s/resource.cfg\n" % d)
            f.write("log_file=%s/core.log\n" % d)
            f.write("lock_file=%s/core.lock\n" % d)
            f.write("temp_file=%s/core.tmp\n" % d)
            f.write("temp_path=%s/tmp\n" % d)
            f.write("check_result_path=%s/checkresults\n" % d)
            f.write("status_file=%s/status.dat\n" % d)
            f.write("state_retention_file=%s/retention.dat\n" % d)
            f.write("object_cache_file=%s/objects.cache\n" % d)
            f.write("command_file=%s/rw/core.cmd\n" % d)
            f.write("query_socket=%s/rw/core.qh\n" % d)
            f.write("illegal_object_name_chars=`~!$%^&*|'\"<>?,()=\n")
            f.write("illegal_macro_output_chars=`~$&|'\"<>\n")
        counts = self.verify_both(main, main)
        self.assertEqual(counts.get("hosts"), 1)


if __name__ == "__main__":
    unittest.main()
