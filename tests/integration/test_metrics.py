"""The Prometheus endpoint of the real daemon (metrics_listen=, docs/metrics.md): scraped over HTTP, read by
real parsers (Debian's `promtool check metrics` from the prometheus package, and python3-prometheus-client's
text_string_to_metric_families), and its counters must move as checks run, external commands arrive and
Livestatus answers.
"""
import http.client
import os
import shutil
import socket
import subprocess
import sys
import time
import unittest

import vedette_test
from livestatus_client import query
from running_daemon import HOST, RunningVedette, service

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    # Debian's python3-prometheus-client (scripts/install-deps.sh) is in the system interpreter's path, which
    # a python3 of its own (pyenv, a venv) running the tests does not search.
    sys.path.append("/usr/lib/python3/dist-packages")
    try:
        from prometheus_client.parser import text_string_to_metric_families
    except ImportError:
        text_string_to_metric_families = None

PROMTOOL = shutil.which("promtool")

OBJECTS = HOST + service("active", "check_dummy!0!fine") + """
define service {
  host_name web01
  service_description passive
  check_command check_dummy!0!idle
  active_checks_enabled 0
  max_check_attempts 1
  contacts admin
}
"""


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def request(port, method="GET", path="/metrics"):
    """(status, content type, body) of one request."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path)
        response = conn.getresponse()
        return response.status, response.getheader("Content-Type"), response.read().decode()
    finally:
        conn.close()


def samples(text):
    """{(name, sorted label items): value} of every sample, through the Python client's parser."""
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(parsed, name, **labels):
    return parsed.get((name, tuple(sorted(labels.items()))))


class MetricsEndpoint(unittest.TestCase):
    def setUp(self):
        if text_string_to_metric_families is None:
            self.skipTest("python3-prometheus-client is not installed (scripts/install-deps.sh)")
        self.port = free_port()
        self.started = time.time()
        self.v = RunningVedette(self, objects=OBJECTS, main_extra="""\
            metrics_listen=127.0.0.1:%d
            livestatus_socket=live
            status_file=status.dat
            status_update_interval=1
            """ % self.port)

    def scrape(self):
        status, content_type, body = request(self.port)
        self.assertEqual(status, 200, body)
        self.assertEqual(content_type, "text/plain; version=0.0.4; charset=utf-8")
        return body

    def test_promtool_accepts_the_exposition(self):
        if PROMTOOL is None:
            self.skipTest("promtool is not installed: Debian's prometheus package (scripts/install-deps.sh)")
        body = self.scrape()
        done = subprocess.run([PROMTOOL, "check", "metrics"], input=body, capture_output=True, text=True,
                              timeout=60)
        self.assertEqual(done.returncode, 0, "promtool:\n%s%s\nexposition:\n%s" % (done.stdout, done.stderr, body))
        self.assertEqual(done.stdout + done.stderr, "", "promtool has remarks")

    def test_counters_move_with_checks_commands_and_queries(self):
        vedette_test.wait_until(
            "two active service checks", lambda: (value(samples(self.scrape()), "vedette_checks_total",
                                                         kind="active", object="service") or 0) >= 2)
        before = samples(self.scrape())
        # A passive result through the command file: one external command, one passive check.
        self.v.command("PROCESS_SERVICE_CHECK_RESULT;web01;passive;1;warned")
        self.v.wait_for(r"PASSIVE SERVICE CHECK: web01;passive;1;warned")
        query(self.v.path("live"), "GET status\nColumns: program_version\n")
        after = vedette_test.wait_until(
            "the command, the passive check and the query to be counted",
            lambda: (lambda p: p if value(p, "vedette_external_commands_total") >
                     value(before, "vedette_external_commands_total") else None)(samples(self.scrape())))
        self.assertEqual(value(after, "vedette_external_commands_total"),
                         value(before, "vedette_external_commands_total") + 1)
        self.assertEqual(value(after, "vedette_checks_total", kind="passive", object="service"),
                         value(before, "vedette_checks_total", kind="passive", object="service") + 1)
        self.assertGreaterEqual(value(after, "vedette_livestatus_requests_total"),
                                value(before, "vedette_livestatus_requests_total") + 1)
        self.assertGreaterEqual(value(after, "vedette_livestatus_request_duration_seconds_count"),
                                value(before, "vedette_livestatus_request_duration_seconds_count") + 1)
        # Active checks went on meanwhile, and their latency and run time were observed once each.
        active = value(after, "vedette_checks_total", kind="active", object="service")
        self.assertGreaterEqual(active, 2)
        self.assertEqual(value(after, "vedette_check_latency_seconds_count", object="service"), active)
        self.assertEqual(value(after, "vedette_check_execution_time_seconds_count", object="service"), active)
        self.assertEqual(value(after, "vedette_check_execution_time_seconds_bucket", object="service", le="+Inf"),
                         active)
        self.assertEqual(value(after, "vedette_checks_total", kind="distributed", object="service"), 0)
        # status.dat is written every second.
        self.assertGreaterEqual(value(after, "vedette_state_file_write_duration_seconds_count", file="status.dat"), 1)
        for gauge in ("vedette_executor_jobs_waiting", "vedette_executor_jobs_running", "vedette_results_pending"):
            self.assertGreaterEqual(value(after, gauge), 0, gauge)
        self.assertIsNone(value(after, "vedette_gearman_jobs_queued"), "no gearman configured")

    def test_thread_cpu_is_labelled_by_thread_name(self):
        parsed = samples(self.scrape())
        threads = {dict(labels)["thread"] for (name, labels) in parsed if name == "vedette_thread_cpu_seconds_total"}
        for name in ("core", "metrics", "livestatus", "exec-0", "status"):
            self.assertIn(name, threads)
        self.assertIsNotNone(value(parsed, "vedette_thread_cpu_seconds_total", thread="core", mode="user"))

    def test_process_metrics_and_build_info(self):
        parsed = samples(self.scrape())
        self.assertEqual(value(parsed, "vedette_build_info", version="0.1.0"), 1)
        self.assertGreater(value(parsed, "process_resident_memory_bytes"), 1 << 20)
        self.assertGreaterEqual(value(parsed, "process_virtual_memory_bytes"),
                                value(parsed, "process_resident_memory_bytes"))
        fds = len(os.listdir("/proc/%d/fd" % self.v.proc.pid))
        self.assertLessEqual(abs(value(parsed, "process_open_fds") - fds), 5)
        self.assertGreaterEqual(value(parsed, "process_max_fds"), value(parsed, "process_open_fds"))
        self.assertGreaterEqual(value(parsed, "process_cpu_seconds_total"), 0)
        started = value(parsed, "process_start_time_seconds")
        self.assertLessEqual(abs(started - self.started), 5, "the daemon's own start time")

    def test_other_paths_and_methods(self):
        self.assertEqual(request(self.port, path="/")[0], 404)
        self.assertEqual(request(self.port, path="/metrics/x")[0], 404)
        self.assertEqual(request(self.port, method="POST")[0], 405)
        status, _, body = request(self.port, method="HEAD")
        self.assertEqual((status, body), (200, ""))

    def test_hostile_clients_do_not_stop_the_scrapes_or_the_checks(self):
        # Connections that never send, one that sends a huge request, one that sends half a request.
        silent = [socket.create_connection(("127.0.0.1", self.port)) for _ in range(40)]
        self.addCleanup(lambda: [s.close() for s in silent])
        big = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        self.addCleanup(big.close)
        try:
            big.sendall(b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 100000)
        except (BrokenPipeError, ConnectionResetError):
            pass  # closed as soon as it went over the limit
        self.assertIn(b"431", big.recv(4096) or b"431 (closed)")
        checks = value(samples(self.scrape()), "vedette_checks_total", kind="active", object="service")
        vedette_test.wait_until(
            "active checks to go on", lambda: value(samples(self.scrape()), "vedette_checks_total",
                                                    kind="active", object="service") > checks)


class GearmanMetrics(unittest.TestCase):
    def test_distributed_checks_and_the_link_are_counted(self):
        import gearman_fixture as gf
        if text_string_to_metric_families is None:
            self.skipTest("python3-prometheus-client is not installed (scripts/install-deps.sh)")
        gm = gf.Gearmand(self)  # skips without gearmand
        gf.VedetteWorker(self, gm, "w1", "services=yes", "hosts=yes", "encryption=no")
        gm.wait_for_workers("service")
        port = free_port()
        RunningVedette(self, objects=OBJECTS, main_extra="""\
            metrics_listen=127.0.0.1:%d
            gearman_options=server=%s encryption=no services=yes hosts=yes
            """ % (port, gm.server))
        parsed = vedette_test.wait_until(
            "two distributed service checks",
            lambda: (lambda p: p if (value(p, "vedette_checks_total", kind="distributed", object="service") or 0) >= 2
                     else None)(samples(request(port)[2])))
        self.assertEqual(value(parsed, "vedette_checks_total", kind="active", object="service"), 0)
        self.assertGreaterEqual(value(parsed, "vedette_check_execution_time_seconds_count", object="service"), 2)
        parsed = vedette_test.wait_until(
            "the link's counters, published once a second",
            lambda: (lambda p: p if (value(p, "vedette_gearman_jobs_sent_total") or 0) >= 2 else None)(
                samples(request(port)[2])))
        self.assertGreaterEqual(value(parsed, "vedette_gearman_results_total"), 1)
        self.assertGreaterEqual(value(parsed, "vedette_gearman_jobs_queued"), 0)
        self.assertGreaterEqual(value(parsed, "vedette_gearman_checks_in_flight"), 0)
        self.assertLessEqual(value(parsed, "vedette_gearman_checks_in_flight"), 1)


class MetricsConfiguration(unittest.TestCase):
    def test_a_bad_value_names_the_file_and_line(self):
        d = vedette_test.make_temp_dir(self)
        path = os.path.join(d, "vedette.cfg")
        with open(path, "w") as f:
            f.write("cfg_file=objects.cfg\nmetrics_listen=127.0.0.1:notaport\n")
        with open(os.path.join(d, "objects.cfg"), "w") as f:
            f.write("")
        rc, out, _ = vedette_test.run_verify(path)
        self.assertEqual(rc, 1)
        self.assertIn("Error: invalid value '127.0.0.1:notaport' for option 'metrics_listen'", out)
        self.assertIn("(config file '%s', line 2)" % path, out)

    def test_verify_warns_about_a_listener_other_hosts_reach(self):
        v = RunningVedette(self, objects=HOST + service("active", "check_dummy!0!fine"),
                           main_extra="metrics_listen=0.0.0.0:%d\n" % free_port(), start=False)
        rc, out, _ = vedette_test.run_verify(v.path("vedette.cfg"))
        self.assertEqual(rc, 0, out)
        self.assertIn("metrics_listen=0.0.0.0:", out)
        self.assertIn("no authentication", out)
        ok = RunningVedette(self, objects=HOST + service("active", "check_dummy!0!fine"),
                            main_extra="metrics_listen=127.0.0.1:%d\n" % free_port(), start=False)
        rc, out, _ = vedette_test.run_verify(ok.path("vedette.cfg"))
        self.assertEqual(rc, 0, out)
        self.assertNotIn("metrics_listen", out)

    def test_a_port_in_use_stops_the_start_with_a_message(self):
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            port = taken.getsockname()[1]
            v = RunningVedette(self, objects=HOST + service("active", "check_dummy!0!fine"),
                               main_extra="metrics_listen=127.0.0.1:%d\n" % port, start=False)
            done = subprocess.run([vedette_test.vedette_bin(), "--allow-root", v.path("vedette.cfg")], cwd=v.dir,
                                  capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
        self.assertIn("metrics: cannot listen on 127.0.0.1:%d" % port, done.stderr)


if __name__ == "__main__":
    unittest.main()
