"""Hung plugins must not starve healthy checks (issue 20, item 11). With max_concurrent_checks=8 and 16
services whose plugin hangs past its 2 s timeout, the hung checks held every slot and the healthy ones ran
only when they won a freed slot, about one run in five. Checks whose last run timed out now hold at most
their own slots (max_timing_out_checks; by default a quarter of max_concurrent_checks, at least one per
executor thread), and those waiting for one do not count against max_concurrent_checks."""
import os
import time
import unittest

import livestatus_client as ls
import vedette_test

from running_daemon import HOST, RunningVedette, service

HEALTHY = 4
HUNG = 16
WINDOW_S = 6


def objects(plugin_dir):
    out = [HOST]
    for i in range(HEALTHY):
        out.append(service("OK%d" % i, "run!%s/healthy.sh" % plugin_dir, interval=1))
    for i in range(HUNG):
        out.append(service("HUNG%02d" % i, "run!%s/hang.sh" % plugin_dir, interval=1))
    return "".join(out)


class HungPlugins(unittest.TestCase):
    def start(self, main_extra):
        v = RunningVedette(self, objects="", start=False,
                           main_extra="max_concurrent_checks=8\nservice_check_timeout=2\n"
                                      "max_service_check_spread=1\nbroker_module=/usr/lib/naemon/naemon-livestatus/livestatus.o live\n" + main_extra)
        with open(v.path("healthy.sh"), "w") as f:
            f.write("#!/bin/sh\necho run >> %s\necho fine\n" % v.path("healthy.runs"))
        with open(v.path("hang.sh"), "w") as f:
            f.write("#!/bin/sh\nsleep 30\n")
        for name in ("healthy.sh", "hang.sh"):
            os.chmod(v.path(name), 0o755)
        v.write_objects(objects(v.dir))
        v.start()
        ls.wait_for_socket(v.path("live"))
        # Every hung check has timed out once: from now on they are known to.
        v.wait_for(r"SERVICE ALERT: web01;HUNG\d+;CRITICAL;HARD;1;\(Service check timed out after 2\.\d\d "
                   r"seconds\)", timeout=60, count=HUNG)
        return v

    def healthy_runs_in_window(self, v):
        before = vedette_test.read_text(v.path("healthy.runs")).count("run")
        time.sleep(WINDOW_S)
        return vedette_test.read_text(v.path("healthy.runs")).count("run") - before

    def test_healthy_checks_keep_their_schedule_next_to_hung_ones(self):
        v = self.start("")
        runs = self.healthy_runs_in_window(v)
        # One run a second each; without the bound about a fifth of that.
        self.assertGreaterEqual(runs, HEALTHY * WINDOW_S * 0.6, v.log()[-3000:])
        rows = ls.query_json(v.path("live"), "GET services\nColumns: description state plugin_output latency\n"
                             "Filter: description ~ ^HUNG")
        self.assertEqual(len(rows), HUNG)
        for description, state, output, _ in rows:
            # Still Naemon's timeout result: service_check_timeout_state (critical) and its text.
            self.assertEqual(state, 2, description)
            self.assertRegex(output, r"^\(Service check timed out after 2\.\d\d seconds\)$")
        healthy = ls.query_json(v.path("live"), "GET services\nColumns: state latency\nFilter: description ~ ^OK")
        self.assertTrue(all(state == 0 and latency < 2 for state, latency in healthy), healthy)


if __name__ == "__main__":
    unittest.main()
