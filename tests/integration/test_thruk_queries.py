"""Every request Thruk 3.20.2 sent while rendering its pages and sending commands
(tests/fixtures/thruk-3.20.2/queries.txt), to the real daemon: each query is answered 200 with exactly the
columns it asked for, each command is carried out."""
import json
import os
import re
import time
import unittest

import livestatus_client as ls
import vedette_test

from running_daemon import RunningVedette

QUERIES = os.path.join(vedette_test.source_dir(), "tests", "fixtures", "thruk-3.20.2", "queries.txt")
SERVICES = ["HTTP", "SSH", "NTP", "App Status", "Queue Length"]


def objects():
    out = []
    for g in ("web-servers", "db-servers", "linux-servers", "scripted"):
        out.append("define hostgroup {\n  hostgroup_name %s\n  alias %s\n}\n" % (g, g))
    out.append("define servicegroup {\n  servicegroup_name App\n  alias App\n}\n")
    out.append("define contact {\n  contact_name thrukadmin\n  host_notification_commands notify\n"
               "  service_notification_commands notify\n  host_notification_period 24x7\n"
               "  service_notification_period 24x7\n}\n")
    for name in ("check-host-alive", "check_local_disk", "check_local_load", "check_local_procs",
                 "check_local_swap", "check_local_users", "check_ping", "check_scripted", "check_tcp"):
        out.append("define command {\n  command_name %s\n  command_line /bin/true\n}\n" % name)
    for i in range(51):
        host = "host-%03d" % i
        groups = ["linux-servers", "web-servers" if i % 2 else "db-servers"] + (["scripted"] if i % 5 == 0 else [])
        out.append("define host {\n  host_name %s\n  address 127.0.0.1\n  max_check_attempts 1\n"
                   "  check_interval 0\n  hostgroups %s\n  contacts thrukadmin\n}\n" % (host, ",".join(groups)))
        for s in SERVICES:
            group = "  servicegroups App\n" if s == "App Status" else ""
            out.append("define service {\n  host_name %s\n  service_description %s\n"
                       "  check_command check_dummy!0!fine\n  max_check_attempts 1\n  check_interval 3600\n"
                       "  active_checks_enabled 0\n"
                       "%s  contacts thrukadmin\n}\n" % (host, s, group))
    return "".join(out)


def requests():
    with open(QUERIES, encoding="utf-8") as f:
        return [r.strip("\n") for r in f.read().split("\n\n") if r.strip()]


def headers(request, name):
    return [line[len(name) + 1:].strip() for line in request.split("\n") if line.startswith(name + ":")]


def expected_width(request):
    """Cells per row: the columns asked for, then one per Stats (StatsAnd/StatsOr: n become one)."""
    columns = " ".join(headers(request, "Columns")).split()
    stats = len(headers(request, "Stats"))
    for combine in ("StatsAnd", "StatsOr"):
        stats -= sum(int(n) - 1 for n in headers(request, combine))
    if not columns and not stats:
        return None  # every column of the table
    return len(columns) + stats


class ThruksRequests(unittest.TestCase):
    def test_every_request_thruk_sent(self):
        all_requests = requests()
        self.assertEqual(len(all_requests), 378)
        with RunningVedette(self, objects=objects(),
                            main_extra="broker_module=/usr/lib/naemon/naemon-livestatus/livestatus.o live\n") as v:
            live = v.path("live")
            ls.wait_for_socket(live)
            commands = 0
            for request in all_requests:
                request = request.replace("@TS@", str(int(time.time())))
                if request.startswith("COMMAND "):
                    commands += 1
                    self.assertEqual(ls.query(live, request), "", request)
                    name = request.split("] ", 1)[1].split(";", 1)[0]
                    v.wait_for(r"EXTERNAL COMMAND: %s;" % re.escape(name))
                    continue
                with self.subTest(request=request):
                    if not headers(request, "ResponseHeader"):
                        request += "\nResponseHeader: fixed16"
                    code, body = ls.query_fixed16(live, request, timeout=30)
                    self.assertEqual(code, 200, body)
                    formats = headers(request, "OutputFormat")
                    if not formats or formats[0] not in ("json", "wrapped_json"):
                        continue
                    rows = json.loads(body)
                    if formats[0] == "wrapped_json":
                        rows = rows["data"]
                    width = expected_width(request)
                    for row in rows:
                        if width is not None:
                            self.assertEqual(len(row), width, row)
            self.assertEqual(commands, 13)
            # Thruk's comment and downtime ids came from its own site: deleting them may fail here, but every
            # command must parse.
            self.assertNotIn("External command parse error", v.log())


if __name__ == "__main__":
    unittest.main()
