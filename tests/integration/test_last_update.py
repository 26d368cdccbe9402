"""last_update as Naemon stamps it (issue 35): when the object's status last changed, in microseconds, in
Livestatus (printed as the module prints a timeval), status.dat and retention.dat: every object at the start,
then the object a result or a command changed, and no other."""
import re
import time
import unittest

import livestatus_client as ls
import status_dat

from running_daemon import HOST, RunningVedette, service

TIMEVAL = re.compile(r"^\d{10}\.\d{6}$")


class LastUpdate(unittest.TestCase):
    def test_stamped_at_start_then_by_results_and_commands(self):
        passive = "  active_checks_enabled 0\n"
        objects = HOST.replace("  max_check_attempts 1\n", "  max_check_attempts 1\n" + passive) + \
            service("DISK", "check_dummy!0!fine", interval=600, extra=passive) + \
            service("LOAD", "check_dummy!0!fine", interval=600, extra=passive)
        v = RunningVedette(self, objects=objects, start=False, main_extra=(
            "broker_module=/usr/lib/naemon/naemon-livestatus/livestatus.o live\nstatus_file=status.dat\n"
            "status_update_interval=1\n"))
        before_start = time.time()
        v.start()
        live = v.path("live")
        ls.wait_for_socket(live)

        def stamps():
            rows = ls.query(live, "GET services\nColumns: description last_update\n").split("\n")
            host = ls.query(live, "GET hosts\nColumns: last_update\n").strip()
            return dict([r.split(";") for r in rows if r] + [("host", host)])

        start = stamps()
        for name, stamp in start.items():
            self.assertRegex(stamp, TIMEVAL, name)
            self.assertGreaterEqual(float(stamp), before_start - 1, name)
        time.sleep(0.01)
        v.command("PROCESS_SERVICE_CHECK_RESULT;web01;DISK;1;DISK WARNING")
        v.wait_for(r"PASSIVE SERVICE CHECK: web01;DISK;1;DISK WARNING")
        after_result = stamps()
        self.assertGreater(float(after_result["DISK"]), float(start["DISK"]))
        self.assertEqual(after_result["LOAD"], start["LOAD"], "an object nothing changed keeps its stamp")
        self.assertEqual(after_result["host"], start["host"])
        time.sleep(0.01)
        v.command("DISABLE_SVC_NOTIFICATIONS;web01;LOAD")
        v.wait_for(r"EXTERNAL COMMAND: DISABLE_SVC_NOTIFICATIONS;web01;LOAD")
        after_command = stamps()
        self.assertGreater(float(after_command["LOAD"]), float(start["LOAD"]))
        self.assertEqual(after_command["DISK"], after_result["DISK"])

        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with open(v.path("status.dat")) as f:
                blocks = status_dat.parse(f.read())
            load = [dict(b) for kind, b in blocks if kind == "servicestatus" and
                    dict(b)["service_description"] == "LOAD"][0]
            if load.get("last_update") == after_command["LOAD"]:
                break
            time.sleep(0.1)
        self.assertEqual(load.get("last_update"), after_command["LOAD"], "status.dat writes the same stamp")
        self.assertEqual(v.stop(), 0)


if __name__ == "__main__":
    unittest.main()
