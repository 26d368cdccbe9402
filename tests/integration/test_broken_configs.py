"""Broken configurations under fixtures/broken/<case>/: `vedette -v` exits 1 and names the problem with its
file and line, in naemon -v's wording. Each fixture's naemon.cfg uses paths relative to its own directory.
"""
import os
import unittest

import vedette_test as vt

BROKEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "broken")


def objects(case):
    return os.path.join(BROKEN, case, "objects.cfg")


def main_cfg(case):
    return os.path.join(BROKEN, case, "naemon.cfg")


# case -> lines that must appear verbatim in the output ({obj} / {main}: that case's files).
EXPECTED = {
    "unknown_check_command": [
        "Error: Host check command 'check_nothing' specified for host 'web01' is not defined anywhere! "
        "(config file '{obj}', starting on line 1)"],
    "missing_template": [
        "Error: Template 'generic-hots' specified in host definition could not be found "
        "(config file '{obj}', starting on line 7)"],
    "unclosed_define": [
        "Error: Unexpected EOF in file '{obj}' on line 8 - check for a missing closing bracket."],
    "invalid_directive": [
        "Error: Invalid host object directive 'chek_command'. (config file '{obj}', line 4)"],
    "bad_interval_length": [
        "Error: invalid value 'abc' for option 'interval_length': expected an integer >= 1 "
        "(config file '{main}', line 3)"],
    "missing_cfg_dir": [
        "Error: cannot open cfg_dir '{dir}/no-such-dir': No such file or directory "
        "(config file '{main}', line 3)"],
    "duplicate_host": [
        "Error: Duplicate definition found for host 'web01' (config file '{obj}', starting on line 6)",
        "Error: First occurrence in config file '{obj}', starting on line 1"],
    "circular_parents": [
        "Error: The host 'a' is part of a circular parent/child chain! (config file '{obj}', starting on line 1)"],
    "unknown_hostgroup_member": [
        "Error: Could not find any host matching 'web99' (config file '{obj}', starting on line 6)"],
    "bad_gearman_option": [
        "Error: gearman: {main}:3: broker_module: server: bad port in '127.0.0.1:47x9'"],
}


class TestBrokenConfigs(unittest.TestCase):

    def check(self, case):
        rc, out, err = vt.run_verify(main_cfg(case))
        text = out + err
        self.assertEqual(rc, 1, vt.describe("vedette -v " + case, rc, out, err))
        self.assertNotIn("Total Errors:   0", out)
        lines = text.splitlines()
        for template in EXPECTED[case]:
            line = template.format(obj=objects(case), main=main_cfg(case), dir=os.path.join(BROKEN, case))
            self.assertIn(line, lines, vt.describe("vedette -v " + case, rc, out, err))

    def test_every_fixture_has_an_expectation(self):
        self.assertEqual(sorted(os.listdir(BROKEN)), sorted(EXPECTED))

    def test_unknown_check_command(self):
        self.check("unknown_check_command")

    def test_missing_template(self):
        self.check("missing_template")

    def test_unclosed_define(self):
        self.check("unclosed_define")

    def test_invalid_directive(self):
        self.check("invalid_directive")

    def test_bad_interval_length(self):
        self.check("bad_interval_length")

    def test_missing_cfg_dir(self):
        self.check("missing_cfg_dir")

    def test_duplicate_host(self):
        self.check("duplicate_host")

    def test_circular_parents(self):
        self.check("circular_parents")

    def test_unknown_hostgroup_member(self):
        self.check("unknown_hostgroup_member")

    def test_bad_gearman_option(self):
        self.check("bad_gearman_option")

    def test_errors_of_all_files_in_one_run(self):
        """Two broken object files named by one main config: both problems are reported."""
        d = vt.make_temp_dir(self)
        main = os.path.join(d, "naemon.cfg")
        with open(main, "w") as f:
            f.write("cfg_file=%s\ncfg_file=%s\n" % (objects("unknown_check_command"), objects("invalid_directive")))
        rc, out, err = vt.run_verify(main)
        self.assertEqual(rc, 1, vt.describe("vedette -v", rc, out, err))
        self.assertIn("Invalid host object directive 'chek_command'. (config file '%s', line 4)"
                      % objects("invalid_directive"), out + err)
        # The object files could not all be read, so (as in Naemon) no object is checked further;
        # but a second unreadable file is still reported.
        with open(main, "a") as f:
            f.write("cfg_file=%s\n" % objects("unclosed_define"))
        rc, out, err = vt.run_verify(main)
        self.assertIn("Unexpected EOF in file '%s' on line 8" % objects("unclosed_define"), out + err)
        self.assertIn("Invalid host object directive 'chek_command'.", out + err)


if __name__ == "__main__":
    unittest.main()
