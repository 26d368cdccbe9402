"""Requests the real daemon must answer with an error, never crash on (issue 33): combining headers nested
without bound overflowed a query thread's stack and took the core down; numbers out of range wrapped; text
that is not UTF-8 ate the bytes after it in JSON."""
import json
import os
import time
import unittest

import livestatus_client as ls

from running_daemon import HOST, RunningVedette, service

OBJECTS = HOST + service("HTTP", "check_dummy!0!fine", interval=3600)


class Limits(unittest.TestCase):
    def setUp(self):
        self.v = RunningVedette(self, objects=OBJECTS, main_extra=(
            "broker_module=/usr/lib/naemon/naemon-livestatus/livestatus.o live\n"))
        ls.wait_for_socket(self.v.path("live"))

    def ask(self, request):
        return ls.query_fixed16(self.v.path("live"), request, timeout=60)

    def assert_alive(self):
        code, body = self.ask("GET status\nColumns: program_version\n")
        self.assertEqual(code, 200, body)
        self.assertIsNone(self.v.proc.poll(), "the daemon is gone")

    def test_deep_nesting_is_a_400_and_the_daemon_lives(self):
        # 200k alternating Or:/And: levels: 4.6 MB; before, a SIGSEGV of the whole daemon.
        lines = ["GET services", "Columns: description", "Filter: state = 0"]
        for i in range(200_000):
            lines += ["Filter: state = 0", "Or: 2" if i % 2 == 0 else "And: 2"]
        code, body = self.ask("\n".join(lines) + "\n")
        self.assertEqual(code, 400)
        self.assertIn("filters nested more than 1000 levels deep", body)
        stats = ["GET services", "Stats: state = 0"]
        for i in range(200_000):
            stats += ["Stats: state = 0", "StatsOr: 2"] if i % 2 == 0 else ["StatsNegate:"]
        code, body = self.ask("\n".join(stats) + "\n")
        self.assertEqual(code, 400)
        self.assertIn("filters nested more than 1000 levels deep", body)
        self.assert_alive()

    def test_long_chains_of_one_kind_are_answered(self):
        lines = ["GET services", "Columns: description", "Filter: description = HTTP"]
        for _ in range(200_000):
            lines += ["Filter: description = nothing", "Or: 2"]
        code, body = self.ask("\n".join(lines) + "\n")
        self.assertEqual((code, body), (200, "HTTP\n"))
        negated = ["GET services", "Columns: description", "Filter: description = HTTP"] + ["Negate:"] * 200_001
        code, body = self.ask("\n".join(negated) + "\n")
        self.assertEqual((code, body), (200, ""))
        self.assert_alive()

    def test_deeply_nested_regular_expressions_are_answered(self):
        # RE2 parses and compiles without recursing on the stack; its memory bound refuses what is too big.
        for pattern in ("(" * 100_000 + "HTTP" + ")*" * 100_000, "(a|" * 50_000 + "HTTP" + ")" * 50_000):
            code, body = self.ask("GET services\nColumns: description\nFilter: description ~ %s\n" % pattern)
            self.assertIn(code, (200, 400), body)
        self.assert_alive()

    def test_numbers_out_of_range_are_400(self):
        for header, message in [
                ("Filter: state = 0\nFilter: state = 1\nOr: 4294967298",
                 "Invalid value for Or: need non-negative integer number"),
                ("Stats: state = 0\nStatsOr: 4294967297",
                 "Invalid value for StatsOr: need non-negative integer number"),
                ("WaitTimeout: 1e30", "Invalid value for WaitTimeout: must be non-negative integer"),
                ("Limit: 99999999999", "Invalid value for Limit: must be non-negative integer")]:
            code, body = self.ask("GET services\nColumns: description\n%s\n" % header)
            self.assertEqual((code, body.strip()), (400, message), header)
        self.assert_alive()

    def test_json_replaces_what_is_not_utf8_and_keeps_what_follows(self):
        # The plugin output arrives through a passive result: bytes the core keeps as they are.
        fd = os.open(self.v.cmd_path, os.O_WRONLY | os.O_NONBLOCK)
        os.write(fd, b"[%d] PROCESS_SERVICE_CHECK_RESULT;web01;HTTP;1;bad \xe2\x82 bytes \xc3( and \xc0\x80 end\n"
                 % int(time.time()))
        os.close(fd)
        deadline = time.monotonic() + 20
        while True:
            code, body = self.ask("GET services\nColumns: plugin_output\nOutputFormat: json\n")
            if "end" in body or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        self.assertEqual(code, 200)
        self.assertEqual(json.loads(body), [["bad \ufffd bytes \ufffd( and \ufffd\ufffd end"]])


if __name__ == "__main__":
    unittest.main()
