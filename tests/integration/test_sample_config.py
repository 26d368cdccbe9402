"""Naemon's own sample configuration (naemon-core 1.5.2 sample-config/*.in) verifies cleanly with `vedette -v`.

The *.in templates are filled into a temp dir (every @VAR@ placeholder replaced, `.in` dropped), the dirs the
main config names are created, and the expected object counts are computed from the fixture text itself.
When nagios4 is installed, the same objects are also verified by it and the counts compared.
"""
import os
import re
import unittest

import vedette_test as vt

FIXTURE = os.path.join(vt.source_dir(), "tests", "fixtures", "naemon-sample-config")
PLACEHOLDER = re.compile(r"@([A-Za-z_]+)@")

# Definition type -> the "Checked N <kind>" key of the -v report.
KINDS = {
    "host": "hosts", "service": "services", "hostgroup": "host groups", "servicegroup": "service groups",
    "contact": "contacts", "contactgroup": "contact groups", "command": "commands",
    "timeperiod": "time periods", "hostescalation": "host escalations",
    "serviceescalation": "service escalations",
}


def fixture_dir():
    d = os.environ.get("VEDETTE_SAMPLE_CONFIG") or FIXTURE
    if not os.path.isdir(d):
        raise unittest.SkipTest("Naemon sample config fixture missing: %s" % d)
    return d


def fill_sample_config(dest):
    """Copies the fixture into dest with placeholders filled; returns the main config path."""
    src = fixture_dir()
    values = {
        "pkgconfdir": dest,
        "localstatedir": os.path.join(dest, "var"),
        "logdir": os.path.join(dest, "log"),
        "lockfile": os.path.join(dest, "var", "naemon.pid"),
        "TMPDIR": os.path.join(dest, "tmp"),
        "CHECKRESULTDIR": os.path.join(dest, "var", "checkresults"),
        "naemon_user": "naemon",
        "pluginsdir": "/usr/lib/nagios/plugins",
        "MAIL_PROG": "/usr/bin/mail",
        "VERSION": "1.5.2",
        "libdir": os.path.join(dest, "lib"),
    }
    for sub in ("var", "var/checkresults", "log", "log/archives", "tmp", "module-conf.d"):
        os.makedirs(os.path.join(dest, sub), exist_ok=True)
        os.chmod(os.path.join(dest, sub), 0o1777)
    unknown = set()

    def fill(m):
        if m.group(1) not in values:
            unknown.add(m.group(1))
            return m.group(0)
        return values[m.group(1)]

    for root, dirs, files in os.walk(src):
        rel = os.path.relpath(root, src)
        out_dir = os.path.normpath(os.path.join(dest, rel))
        os.makedirs(out_dir, exist_ok=True)
        os.chmod(out_dir, 0o755)
        for name in files:
            if not name.endswith(".in"):
                continue
            with open(os.path.join(root, name)) as f:
                text = f.read()
            # Only directive lines matter; comments may name placeholders nobody fills (@VAR@ in prose).
            lines = [PLACEHOLDER.sub(fill, line) if not line.lstrip().startswith("#") else line
                     for line in text.splitlines(True)]
            out = os.path.join(out_dir, name[:-3])
            with open(out, "w") as f:
                f.write("".join(lines))
            os.chmod(out, 0o644)
    if unknown:
        raise AssertionError("unfilled placeholders in the sample config: %s" % sorted(unknown))
    return os.path.join(dest, "naemon.cfg")


def definitions(conf_dir):
    """Every `define` block of every *.cfg under conf_dir as (type, {directive: value})."""
    out = []
    for root, _, files in os.walk(conf_dir):
        for name in sorted(files):
            if not name.endswith(".cfg"):
                continue
            with open(os.path.join(root, name)) as f:
                text = f.read()
            for m in re.finditer(r"^\s*define\s+(\w+)\s*\{(.*?)^\s*\}", text, re.M | re.S):
                attrs = {}
                for line in m.group(2).splitlines():
                    line = line.split(";", 1)[0].strip()
                    if line and not line.startswith("#"):
                        key, _, value = line.partition(" ")
                        attrs[key] = value.strip()
                out.append((m.group(1), attrs))
    return out


def expected_counts(conf_dir):
    """Registered objects per kind; services are one per host_name entry (the sample uses no groups)."""
    counts = {kind: 0 for kind in KINDS.values()}
    for obj_type, attrs in definitions(conf_dir):
        if attrs.get("register") == "0" or obj_type not in KINDS:
            continue
        n = 1
        if obj_type == "service":
            assert "hostgroup_name" not in attrs, "sample services are expected to name hosts only"
            n = len([h for h in attrs["host_name"].split(",") if h.strip()])
        counts[KINDS[obj_type]] += n
    return counts


class TestNaemonSampleConfig(unittest.TestCase):

    def setUp(self):
        self.dir = vt.make_temp_dir(self)
        self.main = fill_sample_config(self.dir)
        self.expected = expected_counts(os.path.join(self.dir, "conf.d"))

    def test_fixture_counts_are_what_the_sample_defines(self):
        # Guards expected_counts() itself: the numbers a reader of the sample config gets by hand.
        self.assertEqual(self.expected, {
            "hosts": 4, "services": 21, "host groups": 4, "service groups": 1, "contacts": 1,
            "contact groups": 1, "commands": 24, "time periods": 5, "host escalations": 0,
            "service escalations": 0})

    def test_no_placeholder_left(self):
        for root, _, files in os.walk(self.dir):
            for name in files:
                with open(os.path.join(root, name)) as f:
                    for n, line in enumerate(f, 1):
                        if not line.lstrip().startswith("#"):
                            self.assertIsNone(PLACEHOLDER.search(line), "%s:%d: %s" % (name, n, line))

    def test_verifies_without_errors_and_counts_match(self):
        rc, out, err = vt.run_verify(self.main)
        self.assertEqual(rc, 0, vt.describe("vedette -v", rc, out, err))
        self.assertIn("Total Errors:   0", out, vt.describe("vedette -v", rc, out, err))
        counts = vt.parse_counts(out)
        for kind, n in self.expected.items():
            self.assertEqual(counts.get(kind), n, "%s\n%s" % (kind, vt.describe("vedette -v", rc, out, err)))
        self.assertEqual(counts.get("circular paths: hosts"), self.expected["hosts"])

    def test_nagios4_agrees_on_the_same_objects(self):
        vt.require_nagios()
        # nagios4 knows no Naemon-only options; give it a main config naming the same object dir.
        d = self.dir
        for sub in ("rw",):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
            os.chmod(os.path.join(d, sub), 0o1777)
        nagios_cfg = os.path.join(d, "nagios.cfg")
        with open(nagios_cfg, "w") as f:
            f.write("cfg_dir=%s/conf.d\n" % d)
            f.write("resource_file=%s/resource.cfg\n" % d)
            for opt, value in (("log_file", "var/core.log"), ("lock_file", "var/core.lock"),
                               ("temp_file", "var/core.tmp"), ("temp_path", "tmp"),
                               ("check_result_path", "var/checkresults"), ("status_file", "var/status.dat"),
                               ("state_retention_file", "var/retention.dat"),
                               ("object_cache_file", "var/objects.cache"), ("command_file", "rw/core.cmd"),
                               ("query_socket", "rw/core.qh")):
                f.write("%s=%s/%s\n" % (opt, d, value))
            f.write("illegal_object_name_chars=`~!$%^&*|'\"<>?,()=\n")
        os.chmod(nagios_cfg, 0o644)
        nrc, nout, nerr = vt.run_nagios_verify(nagios_cfg)
        self.assertEqual(nrc, 0, vt.describe("nagios4 -v", nrc, nout, nerr))
        ncounts = vt.parse_counts(nout)
        for kind, n in self.expected.items():
            self.assertEqual(ncounts.get(kind), n, "%s\n%s" % (kind, vt.describe("nagios4 -v", nrc, nout, nerr)))
        rc, out, err = vt.run_verify(self.main)
        self.assertEqual(vt.parse_counts(out), ncounts, vt.describe("vedette -v", rc, out, err))


if __name__ == "__main__":
    unittest.main()
