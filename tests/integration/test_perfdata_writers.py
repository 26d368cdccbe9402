"""The built-in perfdata writers with the real daemon, real plugins and real servers: Graphite plaintext
into Debian's carbon-cache (points read back from its whisper files), InfluxDB line protocol into Debian's
influxd 1.x (read back with /query), and, as Debian has no InfluxDB 2 server, the shape of a v2 request
(path, token header, body) as a small HTTP server in this test receives it. A dead backend costs samples
(counted, logged once) but never a check."""
import http.server
import os
import signal
import socket
import threading
import time
import unittest

import vedette_test
from running_daemon import HOST, RunningVedette
from gearman_fixture import free_port
from tsdb_fixture import CarbonCache, Influxd

PLUGINS = "/usr/lib/nagios/plugins"

# check_tcp is a real plugin with performance data ("time=0.000123s;;;0.000000;10.000000"); HTTP gets
# passive results whose values the tests know.
def objects(port):
    return HOST + """
define command {
  command_name check_tcp
  command_line %s/check_tcp -H 127.0.0.1 -p $ARG1$
}
define service {
  host_name web01
  service_description TCP port
  check_command check_tcp!%d
  max_check_attempts 1
  check_interval 1
  retry_interval 1
}
define service {
  host_name web01
  service_description HTTP
  check_command check_dummy!0
  active_checks_enabled 0
  max_check_attempts 2
  check_interval 0
}
define service {
  host_name web01
  service_description QUIET
  check_command check_dummy!0
  active_checks_enabled 0
  max_check_attempts 1
  check_interval 0
  process_perf_data 0
}
""" % (PLUGINS, port)


def wait_for(what, predicate, timeout=30):
    return vedette_test.wait_until(what, predicate, timeout)


class GraphiteWriterTest(unittest.TestCase):
    def test_results_land_in_whisper_files_with_icinga_layout(self):
        carbon = CarbonCache(self)
        main = """\
process_performance_data=1
graphite_writer=127.0.0.1:%d
perfdata_writer_flush_interval=100
perfdata_writer_send_thresholds=1
perfdata_writer_send_metadata=1
""" % carbon.port
        with RunningVedette(self, objects=objects(carbon.port), main_extra=main) as v:
            v.command("PROCESS_SERVICE_CHECK_RESULT;web01;HTTP;1;HTTP WARNING|time=0.5s;1;2;0;10 'used space'=42%")
            v.command("PROCESS_SERVICE_CHECK_RESULT;web01;QUIET;0;quiet|x=1")  # process_perf_data 0
            # Icinga 2's default layout: the check command's name ends the path, its arguments cut off.
            prefix = "vedette.web01.services.HTTP.check_dummy."
            values = wait_for("the HTTP time in carbon",
                              lambda: carbon.values(prefix + "perfdata.time.value"))
            self.assertEqual([p[1] for p in values], [0.5])
            self.assertLessEqual(abs(values[0][0] - time.time()), 30)
            wait_for("the thresholds", lambda: carbon.values(prefix + "perfdata.time.max"))
            for metric, value in [("perfdata.time.warn", 1), ("perfdata.time.crit", 2), ("perfdata.time.min", 0),
                                  ("perfdata.time.max", 10), ("perfdata.used_space.value", 42),
                                  ("metadata.state", 1), ("metadata.state_type", 0),
                                  ("metadata.current_attempt", 1), ("metadata.max_check_attempts", 2),
                                  ("metadata.reachable", 1), ("metadata.downtime_depth", 0)]:
                got = wait_for(metric, lambda: carbon.values(prefix + metric))
                self.assertEqual([p[1] for p in got], [value], metric)
            # The real plugin's result, every second: its time and a metadata execution_time.
            tcp = "vedette.web01.services.TCP_port.check_tcp."
            points = wait_for("three check_tcp times", lambda: len(carbon.values(tcp + "perfdata.time.value")) >= 3 and
                              carbon.values(tcp + "perfdata.time.value"))
            self.assertTrue(all(0 <= value < 10 for _, value in points), points)
            wait_for("check_tcp's execution time", lambda: carbon.values(tcp + "metadata.execution_time"))
            self.assertFalse([m for m in carbon.metrics() if "QUIET" in m], carbon.metrics())
            self.assertNotIn(" writer: ", v.log())


class DeadBackendTest(unittest.TestCase):
    def test_a_dead_backend_drops_counted_and_logged_while_checks_run_on_time(self):
        port = free_port()  # nothing listens there
        plugin_dir = vedette_test.make_temp_dir(self)
        stamps = os.path.join(plugin_dir, "stamps")
        plugin = os.path.join(plugin_dir, "stamp.sh")
        with open(plugin, "w") as f:
            f.write("#!/bin/sh\ndate +%%s.%%N >> %s\necho 'OK|x=1'\n" % stamps)
        os.chmod(plugin, 0o755)
        objects_text = HOST + """
define service {
  host_name web01
  service_description STAMP
  check_command run!%s
  max_check_attempts 1
  check_interval 1
  retry_interval 1
}
define service {
  host_name web01
  service_description BULK
  check_command check_dummy!0
  active_checks_enabled 0
  max_check_attempts 1
  check_interval 0
}
""" % plugin
        main = """\
process_performance_data=1
graphite_writer=127.0.0.1:%d
influxdb_writer=http://127.0.0.1:%d
influxdb_database=nowhere
perfdata_writer_buffer_size=65536
perfdata_writer_flush_interval=100
perfdata_writer_timeout=1
""" % (port, port)
        with RunningVedette(self, objects=objects_text, main_extra=main) as v:
            v.wait_for(r"Warning: graphite writer: cannot send to 127\.0\.0\.1:%d: Connection refused" % port)
            v.wait_for(r"Warning: influxdb writer: cannot send to 127\.0\.0\.1:%d: Connection refused" % port)
            long_output = "x" * 200
            fd = os.open(v.cmd_path, os.O_WRONLY)
            try:
                for i in range(1500):
                    os.write(fd, ("[%d] PROCESS_SERVICE_CHECK_RESULT;web01;BULK;0;ok|a=%d;1;2;0;9 %s=1\n"
                                  % (int(time.time()), i, long_output[:40])).encode())
            finally:
                os.close(fd)
            v.wait_for(r"Warning: graphite writer: dropped \d+ performance data samples \(\d+ in total\): "
                       r"more than 65536 bytes were waiting for 127\.0\.0\.1:%d" % port)
            v.wait_for(r"Warning: influxdb writer: dropped \d+ performance data samples")
            start = time.time()
            time.sleep(6)
        with open(stamps) as f:
            runs = [float(line) for line in f if float(line) >= start - 1]
        gaps = [b - a for a, b in zip(runs, runs[1:])]
        self.assertGreaterEqual(len(runs), 5, runs)
        self.assertLess(max(gaps), 2.0, gaps)
        log = v.log()
        # One failure line per writer for the whole outage, and one drop report (the next one is a minute away).
        self.assertEqual(log.count("graphite writer: cannot send"), 1, log)
        self.assertEqual(log.count("graphite writer: dropped"), 1, log)
        self.assertIn("graphite writer:", log.split("were not sent before shutdown")[0])


class SlowBackendTest(unittest.TestCase):
    def test_neither_a_reload_nor_a_shutdown_waits_for_a_backend_that_never_answers(self):
        # An InfluxDB that takes every request and never answers, with a timeout of 30 s: the old writer goes on
        # waiting on a thread of its own while the reload goes on, and at shutdown every writer gets its grace
        # (5 s) and then gives up, so the daemon stops (and writes its retention file) well before the timeout.
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        self.addCleanup(listener.close)
        requests = []

        def serve():
            while True:
                try:
                    conn, _ = listener.accept()
                except OSError:
                    return
                self.addCleanup(conn.close)
                data = conn.recv(65536)
                if data:
                    requests.append(data)
        threading.Thread(target=serve, daemon=True).start()
        main = """\
process_performance_data=1
influxdb_writer=http://127.0.0.1:%d
influxdb_database=perf
perfdata_writer_flush_interval=100
perfdata_writer_timeout=30
""" % listener.getsockname()[1]
        with RunningVedette(self, objects=objects(free_port()), main_extra=main) as v:
            v.command("PROCESS_SERVICE_CHECK_RESULT;web01;HTTP;0;OK|time=0.25s;1;2")
            wait_for("the writer's first batch", lambda: requests, timeout=15)
            hangup = time.monotonic()
            v.proc.send_signal(signal.SIGHUP)
            v.wait_for(r"Configuration reloaded: ", timeout=20)
            self.assertLess(time.monotonic() - hangup, 10, "the reload waited for the backend")
            # The new writer sends too, and gets no answer either.
            v.command("PROCESS_SERVICE_CHECK_RESULT;web01;HTTP;0;OK|time=0.5s;1;2")
            wait_for("the new writer's batch", lambda: len(requests) >= 2, timeout=15)
            stopping = time.monotonic()
            self.assertEqual(v.stop(timeout=25), 0)
            self.assertLess(time.monotonic() - stopping, 15, "the shutdown waited for the backend")
            self.assertRegex(v.log(), r"influxdb writer: \d+ performance data samples were not sent before shutdown")


class InfluxdbWriterTest(unittest.TestCase):
    def test_v1_points_are_queried_back(self):
        influx = Influxd(self)
        influx.query("CREATE DATABASE perf")
        main = """\
process_performance_data=1
influxdb_writer=http://127.0.0.1:%d
influxdb_database=perf
perfdata_writer_flush_interval=100
perfdata_writer_send_thresholds=1
perfdata_writer_send_metadata=1
""" % influx.port
        with RunningVedette(self, objects=objects(influx.port), main_extra=main) as v:
            v.command("PROCESS_SERVICE_CHECK_RESULT;web01;HTTP;1;HTTP WARNING|time=0.5s;1;2;0;10 'used space'=42%")
            rows = wait_for("the HTTP point in InfluxDB", lambda: influx.rows(
                "SELECT * FROM check_dummy WHERE service = 'HTTP' AND metric = 'time'", "perf"))
            self.assertEqual(len(rows), 1, rows)
            row = rows[0]
            self.assertEqual((row["hostname"], row["value"], row["warn"], row["crit"], row["min"], row["max"],
                              row["unit"]), ("web01", 0.5, 1, 2, 0, 10, "s"))
            rows = influx.rows("SELECT value FROM check_dummy WHERE metric = 'used space'", "perf")
            self.assertEqual([r["value"] for r in rows], [42])
            meta = wait_for("the metadata point", lambda: influx.rows(
                "SELECT state, state_type, current_attempt, max_check_attempts, reachable, downtime_depth, "
                "acknowledgement FROM check_dummy WHERE service = 'HTTP' AND metric = ''", "perf"))
            self.assertEqual([meta[0][k] for k in ("state", "state_type", "current_attempt", "max_check_attempts",
                                                    "reachable", "downtime_depth", "acknowledgement")],
                             [1, 0, 1, 2, True, 0, 0])
            # The real plugin: measurement check_tcp (the command's name, its arguments cut off).
            points = wait_for("check_tcp points", lambda: influx.rows(
                "SELECT value FROM check_tcp WHERE metric = 'time'", "perf"))
            self.assertTrue(all(0 <= p["value"] < 10 for p in points), points)
            self.assertNotIn(" writer: ", v.log())

    def test_v2_request_has_token_org_bucket_and_line_protocol(self):
        received = []

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                received.append((self.path, dict(self.headers), body.decode()))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        main = """\
process_performance_data=1
influxdb_writer=http://127.0.0.1:%d
influxdb_org=my org
influxdb_bucket=perf/autogen
influxdb_token=s3cr3t==
perfdata_writer_flush_interval=100
perfdata_writer_send_thresholds=1
""" % server.server_address[1]
        with RunningVedette(self, objects=objects(free_port()), main_extra=main) as v:
            v.command("PROCESS_SERVICE_CHECK_RESULT;web01;HTTP;0;OK|time=0.25s;1;2")
            wait_for("a POST with HTTP's point", lambda: any("service=HTTP" in r[2] for r in received))
        path, headers, body = next(r for r in received if "service=HTTP" in r[2])
        self.assertEqual(path, "/api/v2/write?org=my%20org&bucket=perf%2Fautogen&precision=s")
        self.assertEqual(headers["Authorization"], "Token s3cr3t==")
        self.assertTrue(headers["Content-Type"].startswith("text/plain"))
        line = [l for l in body.splitlines() if "service=HTTP" in l][0]
        self.assertRegex(line, r"^check_dummy,hostname=web01,service=HTTP,metric=time "
                               r"value=0\.25,warn=1,crit=2,unit=\"s\" \d{10}$")


if __name__ == "__main__":
    unittest.main()
