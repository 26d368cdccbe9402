"""Vedette against what Naemon 1.5.2 did on the same traces (tests/fixtures/naemon-traces/, recorded with
record_naemon_trace.py): the same log lines step by step, the same notification and event handler macros,
the same status.dat fields at the end. Each trace holds one class of difference the differential fuzzer
(naemon-diff) once found."""
import glob
import os
import unittest

import naemon_trace
import vedette_test

TRACES = sorted(glob.glob(os.path.join(vedette_test.source_dir(), "tests", "fixtures", "naemon-traces",
                                       "*.json")))


class NaemonTraceTest(unittest.TestCase):
    def test_traces_were_found(self):
        self.assertGreaterEqual(len(TRACES), 7)

    def test_every_trace_matches_naemon(self):
        for path in TRACES:
            with self.subTest(trace=os.path.basename(path)):
                trace = naemon_trace.load(path)
                got = naemon_trace.record(trace, [vedette_test.vedette_bin()])
                want = trace["expected"]
                commands = [line for line in trace["steps"] if not line.startswith("@")]
                for n, (w, g) in enumerate(zip(want["steps"], got["steps"])):
                    step = commands[n - 1] if n else "(start)"
                    for what in ("lines", "notifications", "eventhandlers"):
                        self.assertEqual(w[what], g[what],
                                         "%s after step %d (- Naemon, + Vedette): %s" % (what, n, step))
                self.assertEqual(want["status"], got["status"], "status.dat at the end (- Naemon, + Vedette)")
                for request, w, g in zip(trace.get("livestatus", []), want.get("livestatus", []),
                                         got.get("livestatus", [])):
                    self.assertEqual(w, g, "Livestatus (- Naemon, + Vedette): %s" % request)


if __name__ == "__main__":
    unittest.main()
